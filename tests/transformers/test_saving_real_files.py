"""Saving a tokenizer loaded from a real ``tokenizer.json``: hf_bpe's class writes what transformers' Rust backend
(``TokenizersBackend``, loaded from the same file) writes. The judge is the Rust backend's own ``save_pretrained``:
the ``tokenizer.json`` equal as parsed JSON (Qwen3's ``ByteLevel`` decoder flags, a ``null`` post-processor, a
``Split`` ``"Removed"`` and inverted, a template with extra fields) and the same set of files (no legacy
``added_tokens.json``)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from real_tokenizers import model_tokenizer_json
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

from hf_bpe.transformers.loading import from_pretrained

TEXT = "Hello world, naïve café! 12345 <|endoftext|> xylophone\n\n  spaces"
#: GPT-2's split, whose matches leave no character out: kept only (``"Removed"``, inverted) as OLMo-2 writes it.
GPT2_SPLIT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""


def small_file(directory: Path, name: str, pre_tokenizer: object) -> Path:
    """A small byte-level BPE ``tokenizer.json`` trained by ``tokenizers``, with no post-processor (MiniMax's
    files have none) and ``pre_tokenizer``."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=["<|endoftext|>"]
    )
    tokenizer.train_from_iterator(["hello world, héllo wörld! 123 4567"] * 50, trainer)
    tokenizer.pre_tokenizer = pre_tokenizer
    path = directory / f"{name}.json"
    tokenizer.save(str(path))
    assert json.loads(path.read_text(encoding="utf-8"))["post_processor"] is None
    return path


def source(name: str, directory: Path) -> Path:
    if name == "minimax_like":
        return small_file(directory, name, pre_tokenizers.ByteLevel(add_prefix_space=False))
    if name == "split_removed_inverted":
        split = pre_tokenizers.Split(Regex(GPT2_SPLIT), "removed", invert=True)
        cut = pre_tokenizers.Sequence([split, pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
        return small_file(directory, name, cut)
    return model_tokenizer_json(name)


#: Byte-level files (BPETokenizer) and others (PipelineTokenizer): Yi's has no post-processor, Command-R's template
#: carries ByteLevel's flags, which the Rust backend drops; Claude's ByteLevel lacks use_regex, which it fills in;
#: Llama-3.1's template (in a Sequence) stays out of tokenizer_config.json, where the Rust backend refuses it.
NAMES = [
    *("qwen3", "llama3", "llama3_1", "gpt2", "deepseek_v3", "claude", "minimax_like", "split_removed_inverted"),
    *("yi", "command_r_plus"),
]


@pytest.mark.parametrize("name", NAMES)
def test_save_pretrained_writes_what_the_rust_backend_writes(name, tmp_path):
    path = source(name, tmp_path)
    rust_dir, ours_dir = tmp_path / "rust", tmp_path / "ours"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rust = PreTrainedTokenizerFast(tokenizer_file=str(path))
        rust.save_pretrained(str(rust_dir))
    ours = from_pretrained(path)
    ours.save_pretrained(str(ours_dir))

    assert sorted(p.name for p in ours_dir.iterdir()) == sorted(p.name for p in rust_dir.iterdir())
    written = json.loads((ours_dir / "tokenizer.json").read_text(encoding="utf-8"))
    assert written == json.loads((rust_dir / "tokenizer.json").read_text(encoding="utf-8"))
    # the saved directory loads back, with hf_bpe and with the Rust backend, to the same ids as the file
    expected = rust(TEXT)["input_ids"]
    assert from_pretrained(ours_dir)(TEXT)["input_ids"] == expected
    assert PreTrainedTokenizerFast(tokenizer_file=str(ours_dir / "tokenizer.json"))(TEXT)["input_ids"] == expected
    # ... and as a directory, tokenizer_config.json's arguments too
    assert PreTrainedTokenizerFast.from_pretrained(str(ours_dir))(TEXT)["input_ids"] == expected
