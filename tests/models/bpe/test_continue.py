"""Continue training (``continue_from=``, ``hf-bpe train --continue-from``): the base kept byte for byte, and the
exactness statement against ``tokenizers`` trained in the same test: training corpus C to N merges with
``tokenizers`` and continuing on C to M with hf_bpe equals ``tokenizers`` trained on C to M directly."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import multilingual_text, reference_train
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

import hf_bpe
from hf_bpe.models.bpe import trainer
from hf_bpe.models.bpe.files import format_merges, format_vocab, read_merges, read_vocab

#: Both sides of the switch to compact words and the merge loop at scale (trainer.COMPACT_MIN_WORDS): from the
#: first word on, and never.
COMPACT_SIDES = {"compact-from-0-words": 0, "compact-never": 10**12}


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hf_bpe.cli", *args], capture_output=True, text=True)


def tokenizers_train(source, out: Path, vocab_size: int, **options) -> tuple[str, str]:
    """``tokenizers``' BpeTrainer with the ByteLevel pre-tokenizer (conftest's), its ``tokenizer.json`` saved to
    ``out`` too; returns the model's (vocab.json, merges.txt) text."""
    return reference_train(source, out, vocab_size=vocab_size, save_json=True, **options)


def texts_of(result) -> tuple[str, str]:
    return format_vocab(result.vocab), format_merges(result.merges)


def cut(path: Path, out: Path, size: int) -> Path:
    """The first ``size`` bytes of a corpus, cut at a line end."""
    data = path.read_bytes()[:size]
    out.write_bytes(data[: data.rindex(b"\n") + 1])
    return out


@pytest.fixture(scope="module")
def corpora(debian_corpora, tmp_path_factory) -> dict[str, list[Path]]:
    root = tmp_path_factory.mktemp("continue-corpora")
    multi = root / "multi.txt"
    multi.write_text(multilingual_text(600, seed=14), encoding="utf-8", newline="")
    return {
        "english": [cut(debian_corpora["english"], root / "en.txt", 200_000)],
        "japanese": [cut(debian_corpora["japanese"], root / "ja.txt", 200_000)],
        "multi-script": [
            multi,
            cut(debian_corpora["russian"], root / "ru.txt", 60_000),
            cut(debian_corpora["chinese"], root / "zh.txt", 60_000),
        ],
    }


@pytest.mark.parametrize("compact_min_words", list(COMPACT_SIDES.values()), ids=list(COMPACT_SIDES))
@pytest.mark.parametrize("corpus", ["english", "japanese", "multi-script"])
@pytest.mark.parametrize(
    ("base_size", "size", "special_tokens"),
    [(300, 1500, []), (1000, 2500, ["<|endoftext|>", "Ġthe"])],
    ids=["300-to-1500", "1000-to-2500-specials"],
)
def test_continuing_equals_tokenizers_trained_to_the_larger_size(
    corpora, corpus, base_size, size, special_tokens, compact_min_words, monkeypatch, tmp_path
):
    """C to N with tokenizers, then C to M with hf_bpe == C to M with tokenizers: every id and merge, on both sides
    of the switch to the loop at scale. "Ġthe" is a special token the merges also make (the merge keeps the
    special token's id)."""
    monkeypatch.setattr(trainer, "COMPACT_MIN_WORDS", compact_min_words)
    files = corpora[corpus]
    tokenizers_train(files, tmp_path / "base", base_size, special_tokens=special_tokens)
    expected = tokenizers_train(files, tmp_path / "direct", size, special_tokens=special_tokens)
    continued = hf_bpe.train_from_files(files, vocab_size=size, continue_from=tmp_path / "base", workers=1)
    assert texts_of(continued) == expected
    assert continued.special_tokens == tuple(special_tokens)
    base_merges = read_merges(tmp_path / "base" / "merges.txt")
    assert continued.merges[: len(base_merges)] == base_merges


@settings(max_examples=100, deadline=None)
@given(
    texts=st.lists(st.text(alphabet="aab c\né日", min_size=1, max_size=50), min_size=1, max_size=25),
    extra=st.integers(0, 40),
    more=st.integers(0, 40),
    special_tokens=st.sampled_from([[], ["ab"], ["aa", "ba"], ["a"]]),
    max_token_length=st.sampled_from([None, None, 1, 2, 3, 5]),
    compact_min_words=st.sampled_from(list(COMPACT_SIDES.values())),
)
def test_the_rule_on_random_corpora(texts, extra, more, special_tokens, max_token_length, compact_min_words):
    """The exactness statement on random corpora built to hit the reference's queue quirks: merges that remake a
    special token's id, max_token_length's uncounted pairs, pairs with overlapping occurrences (``aaa``). Every
    run must equal ``tokenizers`` trained to the larger size directly (see the trainer's module docstring,
    "Continuing", for why no quirk can make them differ on byte-level BPE)."""
    first = 256 + len(special_tokens)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        options = {"files": False, "special_tokens": special_tokens, "max_token_length": max_token_length}
        tokenizers_train(texts, root / "base", first + extra, **options)
        expected = tokenizers_train(texts, root / "direct", first + extra + more, **options)
        with pytest.MonkeyPatch.context() as patch:  # either side of the switch to the loop at scale
            patch.setattr(trainer, "COMPACT_MIN_WORDS", compact_min_words)
            continued = hf_bpe.train_from_iterator(
                texts, vocab_size=first + extra + more, max_token_length=max_token_length, continue_from=root / "base"
            )
    assert texts_of(continued) == expected


@pytest.mark.slow
def test_gpt2_continued_on_japanese_keeps_every_id_and_merge(gpt2_dir, debian_corpora, tmp_path):
    """GPT-2's 50,257 ids and 50,000 merges byte for byte; the Rust backend loads the result and encodes as our
    class does."""
    out = tmp_path / "gpt2-ja"
    japanese = cut(debian_corpora["japanese"], tmp_path / "ja.txt", 100_000)
    done = run_cli("train", str(japanese), "--continue-from", str(gpt2_dir), "--vocab-size", "50757",
                   "-o", str(out), "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "bytes per token before" in done.stdout
    gpt2_vocab = read_vocab(gpt2_dir / "vocab.json")
    vocab = read_vocab(out / "vocab.json")
    assert len(gpt2_vocab) == 50257 and len(vocab) == 50757
    assert {token: vocab[token] for token in gpt2_vocab} == gpt2_vocab
    gpt2_merges_text = (gpt2_dir / "merges.txt").read_text(encoding="utf-8")
    merges_text = (out / "merges.txt").read_text(encoding="utf-8")
    assert merges_text.startswith(gpt2_merges_text)
    assert len(read_merges(out / "merges.txt")) > 50000
    config = json.loads((out / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert (config["bos_token"], config["eos_token"], config["unk_token"]) == ("<|endoftext|>",) * 3

    sample = japanese.read_text(encoding="utf-8")[:3000] + "<|endoftext|> Hello world, 日本語です。"
    rust = Tokenizer.from_file(str(out / "tokenizer.json")).encode(sample).ids
    ours = hf_bpe.BPETokenizer.from_pretrained(str(out))(sample)["input_ids"]
    assert ours == rust
    assert any(token_id >= 50257 for token_id in rust)
    # Fewer tokens than GPT-2 on the Japanese text it was trained on.
    assert len(rust) < len(hf_bpe.BPETokenizer.from_pretrained(str(gpt2_dir))(sample)["input_ids"])


def test_cli_continue_equals_tokenizers_and_prints_compression(corpora, tmp_path):
    files = [str(path) for path in corpora["multi-script"]]
    tokenizers_train(files, tmp_path / "base", 600)
    expected = tokenizers_train(files, tmp_path / "direct", 1200)
    out = tmp_path / "out"
    done = run_cli("train", *files, "--continue-from", str(tmp_path / "base"), "--vocab-size", "1200", "-o", str(out),
                   "--no-progress", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["bytes_per_token"]["after"] > summary["bytes_per_token"]["before"] > 1
    assert ((out / "vocab.json").read_text(encoding="utf-8"), (out / "merges.txt").read_text(encoding="utf-8")) == (
        expected
    )


def test_new_special_tokens_are_appended_and_matched_whole(corpora, tmp_path):
    files = corpora["english"]
    tokenizers_train(files, tmp_path / "base", 400, special_tokens=["<|endoftext|>"])
    result = hf_bpe.train_from_files(
        files, vocab_size=600, special_tokens=["<|endoftext|>", "<pad>"], continue_from=tmp_path / "base", workers=1
    )
    assert result.vocab["<|endoftext|>"] == 0 and result.vocab["<pad>"] == 400
    assert result.special_tokens == ("<|endoftext|>", "<pad>")
    result.save(tmp_path / "out")
    text = "a<pad>b<|endoftext|> the end"
    rust = Tokenizer.from_file(str(tmp_path / "out" / "tokenizer.json")).encode(text).ids
    assert 400 in rust and 0 in rust
    assert hf_bpe.BPETokenizer.from_pretrained(str(tmp_path / "out"))(text)["input_ids"] == rust


def test_train_new_from_iterator_continues_this_tokenizer(corpora, tmp_path):
    lines = corpora["english"][0].read_text(encoding="utf-8").splitlines(keepends=True)[:3000]
    tokenizers_train(lines, tmp_path / "base", 500, files=False, special_tokens=["<|endoftext|>"])
    expected = tokenizers_train(lines, tmp_path / "direct", 900, files=False, special_tokens=["<|endoftext|>"])
    base = hf_bpe.BPETokenizer(tokenizer_file=str(tmp_path / "base" / "tokenizer.json"))
    new = base.train_new_from_iterator(lines, 900, continue_from=True)
    assert (format_vocab(new.encoder), format_merges(new.merges)) == expected
    assert new.eos_token == base.eos_token == "<|endoftext|>"


SMALL = multilingual_text(60, seed=1)


def base_with_ids(tmp_path: Path, moved: dict[str, int], drop: str | None = None) -> Path:
    """A tokenizer.json base trained by tokenizers, then edited: tokens given other ids (``moved``), one dropped."""
    tokenizers_train([SMALL], tmp_path / "trained", 270, files=False)
    data = json.loads((tmp_path / "trained" / "tokenizer.json").read_text(encoding="utf-8"))
    vocab = data["model"]["vocab"]
    if drop is not None:
        del vocab[drop]
        data["model"]["merges"] = [m for m in data["model"]["merges"] if "".join(m) != drop]
    for token, token_id in moved.items():
        vocab[token] = token_id
    data["added_tokens"] = [
        {"id": token_id, "content": token, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True}
        for token, token_id in moved.items() if token.startswith("<")
    ]  # fmt: skip
    (tmp_path / "edited").mkdir()
    (tmp_path / "edited" / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    return tmp_path / "edited"


def test_an_added_token_in_the_middle_keeps_its_id(tmp_path):
    # "<sep>" takes id 265, and the token that had it moves to 270: a special token amid the merged tokens.
    trained = read_vocab(base_with_ids(tmp_path / "probe", {}) / ".." / "trained" / "vocab.json")
    assert len(trained) == 270
    moved = next(token for token, token_id in trained.items() if token_id == 265)
    base = base_with_ids(tmp_path, {"<sep>": 265, moved: 270})
    result = hf_bpe.train_from_iterator([SMALL + "hug pug hug pun bun hugs <sep> " * 20], vocab_size=290,
                                        continue_from=base)  # fmt: skip
    assert result.vocab["<sep>"] == 265 and result.special_tokens == ("<sep>",)
    kept = json.loads((base / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    assert {token: result.vocab[token] for token in kept} == kept
    assert sorted(result.vocab.values()) == list(range(len(result.vocab)))
    result.save(tmp_path / "out")
    text = "hugs<sep>pun bun the world"
    rust = Tokenizer.from_file(str(tmp_path / "out" / "tokenizer.json")).encode(text).ids
    assert 265 in rust
    assert hf_bpe.BPETokenizer.from_pretrained(str(tmp_path / "out"))(text)["input_ids"] == rust


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("size", "is below the 270 tokens of"),
        ("collision", "new special token 'a' is already token 64"),
        ("gap", "without a gap (no token has id 269"),
        ("added token on another's id", "added_tokens[0] ('xyz') has id 5, which is token"),
        ("char-level", "--continue-from continues byte-level BPE: leave out"),
    ],
)
def test_refusals_are_one_line_and_write_nothing(case, message, tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("hug pug hug pun bun hugs\n" * 20, encoding="utf-8")
    if case == "gap":
        base = base_with_ids(tmp_path, {}, drop=None)
        data = json.loads((base / "tokenizer.json").read_text(encoding="utf-8"))
        vocab = data["model"]["vocab"]
        last = max(vocab, key=vocab.__getitem__)
        vocab[last] = 270  # id 269 is now nobody's
        (base / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    else:
        base = base_with_ids(tmp_path, {})
    if case == "added token on another's id":
        data = json.loads((base / "tokenizer.json").read_text(encoding="utf-8"))
        data["added_tokens"] = [{"id": 5, "content": "xyz", "special": False}]
        (base / "tokenizer.json").write_text(json.dumps(data), encoding="utf-8")
    args = {
        "size": ["--vocab-size", "260"],
        "collision": ["--vocab-size", "300", "--special-tokens", "a"],
        "char-level": ["--vocab-size", "300", "--char-level"],
    }.get(case, ["--vocab-size", "300"])
    done = run_cli("train", str(corpus), "--continue-from", str(base), "-o", str(tmp_path / "out"), "--no-progress",
                   *args)  # fmt: skip
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("hf-bpe: error: ") and message in last, done.stderr
    assert done.stderr.count("error") == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def test_a_converted_tiktoken_vocabulary_is_a_base(corpora, tmp_path):
    """A tokenizers-trained base written as a .tiktoken rank file and converted back (``hf-bpe convert tiktoken``)
    continues to what tokenizers gives training to the larger size."""
    import base64

    from hf_bpe.pipeline.byte_level import from_byte_level

    files = corpora["english"]
    tokenizers_train(files, tmp_path / "base", 400)
    expected = tokenizers_train(files, tmp_path / "direct", 900)
    ranks = read_vocab(tmp_path / "base" / "vocab.json")
    lines = [base64.b64encode(from_byte_level(token)) + b" %d\n" % rank for token, rank in ranks.items()]
    (tmp_path / "base.tiktoken").write_bytes(b"".join(lines))
    done = run_cli("convert", "tiktoken", str(tmp_path / "base.tiktoken"), "-o", str(tmp_path / "converted"),
                   "--pattern", "gpt2")  # fmt: skip
    assert done.returncode == 0, done.stderr
    continued = hf_bpe.train_from_files(files, vocab_size=900, continue_from=tmp_path / "converted", workers=1)
    assert texts_of(continued) == expected


def test_several_sizes_from_one_continued_run(corpora, tmp_path):
    files = [str(path) for path in corpora["english"]]
    tokenizers_train(files, tmp_path / "base", 400)
    out = tmp_path / "out"
    done = run_cli("train", *files, "--continue-from", str(tmp_path / "base"), "--vocab-size", "900,600", "-o",
                   str(out), "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    for size in (600, 900):
        expected = tokenizers_train(files, tmp_path / f"direct-{size}", size)
        written = out / str(size)
        found = (
            (written / "vocab.json").read_text(encoding="utf-8"),
            (written / "merges.txt").read_text(encoding="utf-8"),
        )
        assert found == expected, size


def test_continuing_from_a_counts_directory(corpora, tmp_path):
    files = [str(path) for path in corpora["english"]]
    tokenizers_train(files, tmp_path / "base", 400)
    expected = tokenizers_train(files, tmp_path / "direct", 700)
    assert run_cli("count", *files, "-o", str(tmp_path / "counts"), "--no-progress").returncode == 0
    done = run_cli("train", "--from-counts", str(tmp_path / "counts"), "--continue-from", str(tmp_path / "base"),
                   "--vocab-size", "700", "-o", str(tmp_path / "out"), "--no-progress")  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out"
    assert ((out / "vocab.json").read_text(encoding="utf-8"), (out / "merges.txt").read_text(encoding="utf-8")) == (
        expected
    )
    assert (
        run_cli("count", *files, "-o", str(tmp_path / "llama"), "--pattern", "llama3", "--no-progress").returncode == 0
    )
    done = run_cli("train", "--from-counts", str(tmp_path / "llama"), "--continue-from", str(tmp_path / "base"),
                   "--vocab-size", "700", "-o", str(tmp_path / "out2"), "--no-progress")  # fmt: skip
    assert done.returncode == 1 and "counted with another pre-tokenizer" in done.stderr, done.stderr
    assert not (tmp_path / "out2").exists()
