"""``hf-bpe train`` builds a model's options and the pre-tokenizer once, at the edge, and hands them on: no layer
below the command line rebuilds what it was handed (issue #38). Each run is judged by ``tokenizers`` trained with
the cut the written ``tokenizer.json`` holds; the ``configs/`` presets are serialized settings, field for field."""

from __future__ import annotations

import json
import traceback
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, multilingual_text
from tokenizers import Tokenizer

from hf_bpe.cli import main
from hf_bpe.models.bpe import training
from hf_bpe.models.bpe.options import BpeOptions, CharLevel
from hf_bpe.models.unigram.options import UnigramOptions
from hf_bpe.models.wordpiece.options import WordPieceOptions
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
from hf_bpe.reference.trainers import bpe_tokenizer, bpe_trainer, wordpiece_reference
from hf_bpe.reference.unigram_verify import reference_train

TEXT = multilingual_text(200, seed=3)


def counting_options(monkeypatch: pytest.MonkeyPatch, kind: type) -> list[str]:
    """Record who builds each ``kind`` (``BpeOptions``, ...) from here on, by the building function's name:
    every layer counts, the trainers that take the object as handed over included."""
    built: list[str] = []
    check = kind.__post_init__

    def counted(self: Any) -> None:
        built.append(traceback.extract_stack()[-3].name)
        check(self)

    monkeypatch.setattr(kind, "__post_init__", counted)
    return built


def counting_cuts(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Record each pre-tokenizer ``pre_tokenizer_for`` builds (not the ones it hands back as they were given)."""
    built: list[Any] = []
    build = training.pre_tokenizer_for

    def counted(**keywords: Any) -> Any:
        cut = build(**keywords)
        if cut is not keywords.get("pre_tokenizer"):
            built.append(cut)
        return cut

    monkeypatch.setattr(training, "pre_tokenizer_for", counted)
    return built


CASES = {
    "byte-level": ([], BpeOptions(vocab_size=300)),
    "several-sizes": (["--vocab-size", "280,300"], BpeOptions(vocab_size=300)),
    "regex": (["--regex", r" ?[a-z]+|[^a-z ]+| +"], BpeOptions(vocab_size=300)),
    "char-level": (["--char-level", "--vocab-size", "900"], BpeOptions(vocab_size=900, char_level=CharLevel())),
    "min-frequency": (["--min-frequency", "3", "--special-tokens", "<s>"], BpeOptions(300, 3, ["<s>"])),
}


@pytest.mark.parametrize("case", list(CASES))
def test_train_builds_the_options_and_the_pre_tokenizer_once(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra, options = CASES[case]
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT, encoding="utf-8", newline="")
    out = tmp_path / "out"
    options_built = counting_options(monkeypatch, BpeOptions)
    cuts_built = counting_cuts(monkeypatch)
    argv = ["train", str(corpus), "-o", str(out), "--vocab-size", "300", *extra, "--workers", "1", "--no-progress"]
    assert main(argv) == 0
    monkeypatch.undo()
    assert len(options_built) == 1, options_built
    assert len(cuts_built) == 1, cuts_built
    largest = out / "300" if case == "several-sizes" else out
    written = Tokenizer.from_file(str(largest / "tokenizer.json"))
    reference = bpe_tokenizer(options, pre_tokenizer=written.pre_tokenizer, normalizer=written.normalizer)
    reference.train([str(corpus)], bpe_trainer(options))
    vocab = json.loads((largest / "vocab.json").read_text(encoding="utf-8"))
    if options.char_level is None:
        assert vocab == reference.get_vocab()
    else:  # the reference numbers suffixed characters in hash order (tests/models/bpe/test_char_level.py)
        assert set(vocab) == set(reference.get_vocab()) and len(vocab) == 900


def test_char_level_save_writes_the_cut_training_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--char-level --lowercase`` builds its char-level cut once: saving writes the training's (the result's
    ``pre_tokenizer``), not one built again; the file's normalizer and cut are the reference's own, field for field."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT, encoding="utf-8", newline="")
    built: list[bool] = []
    char_level = PreTokenizer.char_level

    def counted(**keywords: Any) -> PreTokenizer:
        built.append(keywords.get("lowercase", False))
        return char_level(**keywords)

    monkeypatch.setattr(PreTokenizer, "char_level", counted)
    out = tmp_path / "out"
    argv = ["train", str(corpus), "-o", str(out), "--char-level", "--lowercase", "--vocab-size", "700",
            "--unk-token", "<unk>", "--workers", "1", "--no-progress"]  # fmt: skip
    assert main(argv) == 0
    monkeypatch.undo()
    assert built == [True]
    options = BpeOptions(vocab_size=700, special_tokens=["<unk>"], char_level=CharLevel(lowercase=True))
    reference = bpe_tokenizer(options)
    reference.train([str(corpus)], bpe_trainer(options))
    written = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))
    expected = json.loads(reference.to_str())
    assert (written["normalizer"], written["pre_tokenizer"]) == (expected["normalizer"], expected["pre_tokenizer"])
    assert set(written["model"]["vocab"]) == set(expected["model"]["vocab"])  # ids: hash order (as above)


def test_training_from_counts_builds_the_options_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT, encoding="utf-8", newline="")
    assert main(["count", str(corpus), "-o", str(tmp_path / "counts"), "--workers", "1", "--no-progress"]) == 0
    built = counting_options(monkeypatch, BpeOptions)
    out = tmp_path / "out"
    assert main(["train", "--from-counts", str(tmp_path / "counts"), "-o", str(out), "--vocab-size", "290",
                 "--no-progress"]) == 0  # fmt: skip
    monkeypatch.undo()
    assert len(built) == 1, built
    reference = bpe_tokenizer(BpeOptions(vocab_size=290))
    reference.train([str(corpus)], bpe_trainer(vocab_size=290))
    assert json.loads((out / "vocab.json").read_text(encoding="utf-8")) == reference.get_vocab()


def test_training_from_counts_reads_the_recorded_cut_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--from-counts DIR --pattern llama3``: the command checks the pattern against the directory's recorded
    pre-tokenizer and trains with it, read from the manifest once; judged by ``tokenizers`` cutting as the file."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT, encoding="utf-8", newline="")
    counts = tmp_path / "counts"
    counting = ["count", str(corpus), "-o", str(counts), "--pattern", "llama3", "--workers", "1", "--no-progress"]
    assert main(counting) == 0
    read: list[Any] = []
    from_settings = PreTokenizer.from_settings

    def counted(settings: Any) -> PreTokenizer:
        read.append(settings)
        return from_settings(settings)

    monkeypatch.setattr(PreTokenizer, "from_settings", counted)
    out = tmp_path / "out"
    argv = ["train", "--from-counts", str(counts), "--pattern", "llama3", "-o", str(out), "--vocab-size", "300",
            "--no-progress"]  # fmt: skip
    assert main(argv) == 0
    monkeypatch.undo()
    assert len(read) == 1, read
    written = Tokenizer.from_file(str(out / "tokenizer.json"))
    reference = bpe_tokenizer(BpeOptions(vocab_size=300), pre_tokenizer=written.pre_tokenizer)
    reference.train([str(corpus)], bpe_trainer(vocab_size=300))
    assert json.loads((out / "vocab.json").read_text(encoding="utf-8")) == reference.get_vocab()
    assert json.loads(written.to_str())["pre_tokenizer"] == json.loads(reference.to_str())["pre_tokenizer"]


def test_unigram_builds_its_options_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(multilingual_text(300, seed=5), encoding="utf-8", newline="")
    built = counting_options(monkeypatch, UnigramOptions)
    out = tmp_path / "out"
    argv = ["train", str(corpus), "--model", "unigram", "--vocab-size", "200", "--unk-token", "<unk>", "-o", str(out),
            "--shrinking-factor", "0.6", "--no-progress"]  # fmt: skip
    assert main(argv) == 0
    monkeypatch.undo()
    assert len(built) == 1, built
    pieces, unk_id = reference_train([corpus], UnigramOptions(vocab_size=200, unk_token="<unk>", shrinking_factor=0.6))
    model = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))["model"]
    assert model["unk_id"] == unk_id
    assert {piece for piece, _ in model["vocab"]} == {piece for piece, _ in pieces}


def test_wordpiece_builds_its_options_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One WordPieceOptions (the command's), and one BpeOptions: the BpeTrainer that WordPieceTrainer runs. Judged
    on the course's hug example, whose merges never tie (the reference numbers ``##`` symbols in hash order)."""
    corpus = tmp_path / "corpus.txt"
    hug = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    corpus.write_text("".join(f"{word}\n" * count for word, count in hug.items()), encoding="utf-8")
    wordpiece_built = counting_options(monkeypatch, WordPieceOptions)
    bpe_built = counting_options(monkeypatch, BpeOptions)
    out = tmp_path / "out"
    argv = ["train", str(corpus), "--model", "wordpiece", "--vocab-size", "19", "--min-frequency", "0", "-o", str(out),
            "--workers", "1", "--no-progress"]  # fmt: skip
    assert main(argv) == 0
    monkeypatch.undo()
    assert wordpiece_built == ["options_of"]
    assert bpe_built == ["bpe_options"]
    tokenizer, trainer = wordpiece_reference(WordPieceOptions(vocab_size=19, min_frequency=0))
    tokenizer.train([str(corpus)], trainer)
    vocab = (out / "vocab.txt").read_text(encoding="utf-8").splitlines()
    assert set(vocab) == set(tokenizer.get_vocab()) and vocab[-3:] == ["##ug", "##un", "hug"]


@pytest.mark.parametrize("path", sorted((REPO / "configs").glob("*.json")), ids=lambda path: path.stem)
def test_each_config_is_serialized_settings_of_the_options(path: Path) -> None:
    """A preset's keys are the settings' and the options' own names: read back, every value is as written, and the
    ``BpeOptions`` built from them (field by field, defaults from the dataclass) hold the file's model fields."""
    from hf_bpe.cli.main import TRAIN_DEFAULTS, build_parser
    from hf_bpe.cli.settings import bpe_options, field_defaults, settings_of

    data = json.loads(path.read_text(encoding="utf-8"))
    written = {key: value for key, value in data.items() if key != "description"}
    args, _ = build_parser().parse_known_args(["train", "corpus.txt", "-o", "out", "--config", path.stem])
    settings = settings_of(args)
    assert {key: settings[key] for key in written} == written
    options = bpe_options(settings)
    model_fields = field_defaults(BpeOptions, leave_out=("char_level",))
    expected = {name: written.get(name, default) for name, default in model_fields.items()}
    assert field_defaults_of(options, model_fields) == expected
    assert {name: TRAIN_DEFAULTS[name] for name in model_fields} == model_fields


def field_defaults_of(options: BpeOptions, names: dict[str, Any]) -> dict[str, Any]:
    """``options``' fields named in ``names``, spelled as a config file spells them (a list for a tuple)."""
    return {name: list(value) if isinstance(value := getattr(options, name), tuple) else value for name in names}


def test_continue_from_builds_the_options_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--continue-from`` hands continuing the options the command line built (``continue_bpe(options=...)``), not
    keywords it builds them from again; continuing a base ``tokenizers`` trained on the same text gives what
    ``tokenizers`` gives training it to the larger size directly."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(TEXT, encoding="utf-8", newline="")
    base = bpe_tokenizer(BpeOptions(vocab_size=280))
    base.train([str(corpus)], bpe_trainer(BpeOptions(vocab_size=280)))
    (tmp_path / "base").mkdir()
    base.save(str(tmp_path / "base" / "tokenizer.json"))
    options_built = counting_options(monkeypatch, BpeOptions)
    argv = ["train", str(corpus), "--continue-from", str(tmp_path / "base"), "-o", str(tmp_path / "out")]
    assert main([*argv, "--vocab-size", "300", "--workers", "1", "--no-progress"]) == 0
    monkeypatch.undo()
    assert len(options_built) == 1, options_built
    direct = bpe_tokenizer(BpeOptions(vocab_size=300))
    direct.train([str(corpus)], bpe_trainer(BpeOptions(vocab_size=300)))
    assert Tokenizer.from_file(str(tmp_path / "out" / "tokenizer.json")).get_vocab() == direct.get_vocab()
