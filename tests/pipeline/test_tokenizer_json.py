"""A tokenizer.json is read whole or refused: what hf_bpe's classes do not implement is named by its JSON path
(never ignored, which gave other ids than the file's own tokenizer), and what they read gives the ids
``tokenizers`` gives loading the same file (the judge: ``Tokenizer.from_file``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, multilingual_text
from tokenizers import Tokenizer
from transformers import PreTrainedTokenizerFast

import hf_bpe
from hf_bpe.models.unigram.files import write_unigram_dir
from hf_bpe.models.unigram.options import UnigramOptions
from hf_bpe.models.unigram.training import train_unigram_from_iterator
from hf_bpe.pipeline.tokenizer_json import UnsupportedComponent

TEXTS = ["Hello world", "<|endoftext|> in text", "a<s>b", "  two  spaces ", "naïve café 日本語 2024"]


@pytest.fixture(scope="module")
def bpe_file(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A byte-level BPE tokenizer.json hf_bpe writes (special token ``<s>``, no ``<|endoftext|>``)."""
    directory = tmp_path_factory.mktemp("bpe")
    lines = multilingual_text(120, seed=5).splitlines()
    hf_bpe.train_from_iterator(lines, vocab_size=400, special_tokens=["<s>"], progress=False).save(directory)
    return json.loads((directory / "tokenizer.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def unigram_file(tmp_path_factory: pytest.TempPathFactory) -> dict:
    directory = tmp_path_factory.mktemp("unigram")
    lines = multilingual_text(120, seed=6).splitlines()
    result = train_unigram_from_iterator(lines, UnigramOptions(vocab_size=300, unk_token="<unk>"), progress=False)
    write_unigram_dir(directory, result.pieces, result.unk_id, result.special_tokens)
    return json.loads((directory / "tokenizer.json").read_text(encoding="utf-8"))


def only_tokenizer_json(data: dict, directory: Path) -> Path:
    """A directory holding nothing but ``data`` as its tokenizer.json."""
    directory.mkdir()
    (directory / "tokenizer.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return directory


def changed(data: dict, path: str, value: object) -> dict:
    """A copy of ``data`` with ``value`` at the dotted ``path`` (list indexes as numbers)."""
    copy = json.loads(json.dumps(data))
    *parents, last = path.split(".")
    node = copy
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return copy


def test_a_file_without_endoftext_gains_no_special_token(bpe_file, tmp_path):
    """GPT-2's roles are the default only where the vocabulary has <|endoftext|>: here the file splits it as text."""
    directory = only_tokenizer_json(bpe_file, tmp_path / "tok")
    ours = hf_bpe.BPETokenizer.from_pretrained(str(directory))
    rust = Tokenizer.from_file(str(directory / "tokenizer.json"))
    assert "<|endoftext|>" not in ours.get_vocab() and len(ours) == 400
    assert (ours.bos_token, ours.eos_token, ours.unk_token) == (None, None, None)
    for text in TEXTS:
        assert ours(text)["input_ids"] == rust.encode(text).ids, text


TEMPLATE = {
    "type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
    "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
    "special_tokens": {"<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]}},
}
#: A template typing a special token other than its sequence: a special token before $A with type id 1.
TYPED_ONE = {
    **TEMPLATE,
    "single": [{"SpecialToken": {"id": "<s>", "type_id": 1}}, {"Sequence": {"id": "A", "type_id": 0}}],
}
BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}


@pytest.mark.parametrize(
    ("path", "value", "named"),
    [
        ("post_processor", {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0]},
         'post_processor.type is "RobertaProcessing"'),
        ("post_processor", {**BYTE_LEVEL, "trim_offsets": True}, "post_processor.trim_offsets is true"),
        ("decoder", {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True},
         'decoder.type is "Metaspace"'),
        ("model.dropout", 0.1, "model.dropout is 0.1: BPE dropout"),
    ],
    ids=["roberta", "trim-offsets", "decoder", "dropout"],
)  # fmt: skip
def test_what_bpe_does_not_implement_is_refused_by_its_json_path(bpe_file, tmp_path, path, value, named):
    directory = only_tokenizer_json(changed(bpe_file, path, value), tmp_path / "tok")
    Tokenizer.from_file(str(directory / "tokenizer.json"))  # the file is valid: tokenizers loads it
    with pytest.raises(UnsupportedComponent, match=f"tokenizer.json: {named}".replace("[", r"\[").replace("{", r"\{")):
        hf_bpe.BPETokenizer.from_pretrained(str(directory))


def test_an_added_token_matched_after_normalization_is_refused(bpe_file, tmp_path):
    data = changed(changed(bpe_file, "normalizer", {"type": "NFC"}), "added_tokens.0.normalized", True)
    directory = only_tokenizer_json(data, tmp_path / "tok")
    with pytest.raises(UnsupportedComponent, match=r"added_tokens\[0\]\.normalized is true"):
        hf_bpe.BPETokenizer.from_pretrained(str(directory))


@pytest.mark.parametrize("template", [TEMPLATE, TYPED_ONE], ids=["typed-as-its-sequence", "typed-one-before-a"])
def test_a_template_putting_other_tokens_around_a_pair_gives_the_files_ids(bpe_file, tmp_path, template):
    """``<s> $A`` alone, ``$A $B`` in a pair: ids, type ids and special-tokens masks as the Rust backend's (the
    ``<s>`` typed 0, or 1 as no sequence is)."""
    data = changed(bpe_file, "post_processor", {"type": "Sequence", "processors": [BYTE_LEVEL, template]})
    directory = only_tokenizer_json(data, tmp_path / "tok")
    ours = hf_bpe.BPETokenizer.from_pretrained(str(directory))
    rust = PreTrainedTokenizerFast(tokenizer_file=str(directory / "tokenizer.json"))
    options = {"return_special_tokens_mask": True, "return_token_type_ids": True}
    for text in TEXTS:
        assert dict(ours(text, **options)) == dict(rust(text, **options)), text
        assert dict(ours(text, "and more", **options)) == dict(rust(text, "and more", **options)), text
    assert ours("x")["input_ids"][0] == 0 and ours("x", "y")["input_ids"][0] != 0


def test_the_cli_names_the_component_in_one_line(bpe_file, tmp_path):
    data = changed(bpe_file, "pre_tokenizer", {"type": "UnicodeScripts"})
    directory = only_tokenizer_json(data, tmp_path / "tok")
    done = subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", "encode", str(directory), "hello"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"},
        timeout=300,
    )
    assert done.returncode == 1, done.stdout
    assert "Traceback" not in done.stderr
    assert 'pre_tokenizer.type is "UnicodeScripts"' in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr


def test_unigram_files_of_another_recipe_run_their_own_pipeline(unigram_file, tmp_path):
    """UnigramTokenizer is PipelineTokenizer: a T5-like pipeline (no run of spaces made one; words split first), a
    Metaspace that prepends to the first piece only, a template around the text — each encodes "  " or "Hello World"
    as the file says, with the Rust backend's ids."""
    normalizer = {"type": "Sequence", "normalizers": [{"type": "Nmt"}, {"type": "NFKC"}]}
    pre_tokenizer = {
        "type": "Sequence",
        "pretokenizers": [{"type": "WhitespaceSplit"}, unigram_file["pre_tokenizer"]],
    }
    cases = [
        changed(unigram_file, "normalizer", normalizer),
        changed(unigram_file, "pre_tokenizer", pre_tokenizer),
        changed(unigram_file, "pre_tokenizer.prepend_scheme", "first"),
        changed(unigram_file, "post_processor", TEMPLATE),
    ]
    for index, data in enumerate(cases):
        directory = only_tokenizer_json(data, tmp_path / f"tok{index}")
        rust = Tokenizer.from_file(str(directory / "tokenizer.json"))
        ours = hf_bpe.UnigramTokenizer.from_pretrained(str(directory))
        for text in [*TEXTS, "  ", "Hello World"]:
            assert ours(text)["input_ids"] == rust.encode(text).ids, (index, text)


def test_the_files_hf_bpe_writes_still_load_and_match(bpe_file, unigram_file, tmp_path):
    for name, data, kind in (
        ("bpe", bpe_file, hf_bpe.BPETokenizer),
        ("unigram", unigram_file, hf_bpe.UnigramTokenizer),
    ):
        directory = only_tokenizer_json(data, tmp_path / name)
        ours = kind.from_pretrained(str(directory))
        rust = Tokenizer.from_file(str(directory / "tokenizer.json"))
        for text in TEXTS:
            assert ours(text, add_special_tokens=False)["input_ids"] == rust.encode(text).ids, (name, text)


def test_a_template_that_adds_nothing_is_read_as_the_default(bpe_file, tmp_path):
    """transformers v5 saves GPT-2's tokenizer.json with a TemplateProcessing that adds no token: the pair's
    second text gets type id 1, as with no post-processor; the judge is the Rust backend from the same directory."""
    from transformers import AutoTokenizer

    plain = {
        "type": "TemplateProcessing",
        "single": [{"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {},
    }
    directory = only_tokenizer_json(changed(bpe_file, "post_processor", plain), tmp_path / "tok")
    ours = hf_bpe.BPETokenizer.from_pretrained(str(directory))
    rust = AutoTokenizer.from_pretrained(str(directory), tokenizer_class="TokenizersBackend")
    for text, pair in (("Hello world", "second part"), ("日本語", "a<s>b")):
        expected = rust(text, pair, return_token_type_ids=True)
        assert dict(ours(text, pair, return_token_type_ids=True)) == dict(expected), (text, pair)
        assert expected["token_type_ids"].count(1) > 0
