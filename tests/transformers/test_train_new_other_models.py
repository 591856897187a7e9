"""``train_new_from_iterator`` on the classes over a ``tokenizer.json`` or ``vocab.txt`` (issue #38): WordPiece,
Unigram and SentencePiece-style BPE, each judged by the Rust backend's ``train_new_from_iterator`` loaded from the
same file and trained on the same texts (English lines, where the trainers' ties are rare).

Two references are not exact run to run, and are compared within their own spread: ``tokenizers``' WordPieceTrainer
numbers the ``##`` symbols (and merges tied with them) in hash order, and its UnigramTrainer sums scores in a
parallel order (the last bits of a score differ between two runs of the reference itself).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from real_tokenizers import bert_base_uncased_vocab, model_tokenizer_json
from tokenizers import SentencePieceUnigramTokenizer, Tokenizer, models, pre_tokenizers
from transformers import BertTokenizer, PreTrainedTokenizerFast

from hf_bpe.transformers.pipeline import PipelineTokenizer
from hf_bpe.transformers.unigram import UnigramTokenizer
from hf_bpe.transformers.wordpiece import WordPieceTokenizer


@pytest.fixture(scope="module")
def lines(debian_corpora: dict[str, Path]) -> list[str]:
    """English lines (Debian's corpus of Python's documentation), with their endings."""
    return debian_corpora["english"].read_text(encoding="utf-8").splitlines(keepends=True)


def _added(tokenizer: Any) -> dict[int, tuple[Any, ...]]:
    """Each added token's id, text and flags."""
    return {
        token_id: (token.content, token.single_word, token.lstrip, token.rstrip, token.normalized, token.special)
        for token_id, token in tokenizer.added_tokens_decoder.items()
    }


@pytest.mark.parametrize("name", ["llama2", "qwen3"])
def test_bpe_file_trains_as_the_rust_backend(name, tmp_path, lines):
    """Mistral-7B's file (SentencePiece-style BPE: Metaspace-like normalizer, byte fallback, a BOS template) and
    Qwen3's (byte-level, non-special added tokens dropped) through PipelineTokenizer: the same vocabulary, merges,
    added tokens, ids, tokens and saved tokenizer.json."""
    path = str(model_tokenizer_json(name))
    options: dict[str, Any] = {"new_special_tokens": ["<new>"], "show_progress": False}
    ours = PipelineTokenizer(tokenizer_file=path).train_new_from_iterator(lines[:3000], 1000, **options)
    rust = PreTrainedTokenizerFast(tokenizer_file=path).train_new_from_iterator(lines[:3000], 1000, **options)
    assert len(rust) == 1000
    assert ours.get_vocab() == rust.get_vocab()
    assert _added(ours) == _added(rust)
    samples = [*lines[:200], "<s>hello <new> world</s><|im_start|>"]
    assert [ours(text)["input_ids"] for text in samples] == [rust(text)["input_ids"] for text in samples]
    assert [ours.tokenize(text) for text in samples] == [rust.tokenize(text) for text in samples]
    ours.save_pretrained(str(tmp_path / "ours"))
    rust.save_pretrained(str(tmp_path / "rust"))
    saved = [json.loads((tmp_path / side / "tokenizer.json").read_text("utf-8")) for side in ("ours", "rust")]
    assert saved[0] == saved[1]


#: Runs of the reference: its WordPieceTrainer numbers ``##`` symbols in hash order, so merge ties (and the tokens at
#: the end of the vocabulary) differ from run to run.
REFERENCE_RUNS = 4


@pytest.fixture(scope="module")
def wordpiece_runs(lines: list[str]) -> tuple[Any, list[Any]]:
    """hf_bpe's WordPieceTokenizer and the Rust BertTokenizer (several runs) trained from bert-base-uncased's
    vocab.txt."""
    vocab = str(bert_base_uncased_vocab())
    ours = WordPieceTokenizer(vocab_file=vocab).train_new_from_iterator(lines[:3000], 800, show_progress=False)
    rust = [
        BertTokenizer(vocab=vocab).train_new_from_iterator(lines[:3000], 800, show_progress=False)
        for _ in range(REFERENCE_RUNS)
    ]
    return ours, rust


def test_wordpiece_tokenizer_trains_as_bert_tokenizer(wordpiece_runs, lines):
    """Within the reference's own spread: every token all its runs keep, none that no run has, the special ones at
    the same ids, the same added tokens; and where all runs cut a text alike, hf_bpe cuts it so too (``tokenize()``
    and the tokens of the ids). The ids of ``##`` symbols differ between runs of the reference itself, so they are
    compared by their tokens."""
    ours, runs = wordpiece_runs
    kept = set.intersection(*(set(run.get_vocab()) for run in runs))
    seen = set.union(*(set(run.get_vocab()) for run in runs))
    assert kept <= set(ours.get_vocab()) <= seen
    assert len(ours) == len(runs[0]) == 800
    assert _added(ours) == _added(runs[0]) == {i: (t, False, False, False, False, True) for i, t in enumerate(SPECIALS)}
    agreed = [text for text in lines[:200] if len({tuple(run.tokenize(text)) for run in runs}) == 1]
    assert len(agreed) > 100  # the spread leaves most texts alike
    assert [ours.tokenize(text) for text in agreed] == [runs[0].tokenize(text) for text in agreed]
    ours_tokens = [ours.convert_ids_to_tokens(ours(text)["input_ids"]) for text in agreed]
    assert ours_tokens == [runs[0].convert_ids_to_tokens(runs[0](text)["input_ids"]) for text in agreed]
    assert ours_tokens[0][0] == "[CLS]"


SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


@pytest.fixture(scope="module")
def unigram_file(tmp_path_factory, lines) -> str:
    """A Unigram tokenizer.json that ``tokenizers`` trains (SentencePieceUnigramTokenizer's recipe), with a
    non-special added token (a Unigram model's trainer gets every added token)."""
    trained = SentencePieceUnigramTokenizer()
    specials = ["<unk>", "<s>", "</s>"]
    trained.train_from_iterator(lines[3000:6000], 500, special_tokens=specials, unk_token="<unk>")
    trained.add_tokens(["plain"])
    path = tmp_path_factory.mktemp("unigram") / "tokenizer.json"
    trained.save(str(path))
    return str(path)


@pytest.mark.parametrize("cls", [UnigramTokenizer, PipelineTokenizer], ids=["UnigramTokenizer", "PipelineTokenizer"])
def test_unigram_file_trains_as_the_rust_backend(cls, unigram_file, lines):
    """The same pieces (the special ones first, the non-special added token among them, at the same ids), scores
    within the reference's own spread, and the same added tokens."""
    options: dict[str, Any] = {"new_special_tokens": ["<new>"], "show_progress": False}
    ours = cls(tokenizer_file=unigram_file).train_new_from_iterator(lines[:3000], 700, **options)
    rust = PreTrainedTokenizerFast(tokenizer_file=unigram_file).train_new_from_iterator(lines[:3000], 700, **options)
    model = json.loads(rust.backend_tokenizer.to_str())["model"]
    theirs = dict(map(tuple, model["vocab"]))
    mine = dict(ours.file.pipeline.model.pieces)
    assert set(mine) == set(theirs)
    # A character the trainer keeps gets a score penalised in steps of 1e-4, in an order that differs between two
    # runs of the reference itself (up to 5e-4 measured); every longer piece has the reference's score to 1e-9.
    assert all(abs(mine[piece] - score) < (1e-3 if len(piece) == 1 else 1e-9) for piece, score in theirs.items())
    assert [piece for piece, _ in model["vocab"][:5]] == ["<unk>", "<s>", "</s>", "plain", "<new>"]
    assert {piece: ours.get_vocab()[piece] for piece in theirs if theirs[piece] == 0.0} == {
        piece: rust.get_vocab()[piece] for piece in theirs if theirs[piece] == 0.0
    }
    assert _added(ours) == _added(rust)


def test_word_level_model_is_refused_by_name(tmp_path):
    """hf_bpe trains no WordLevel model: the call says so (the Rust backend would train one)."""
    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "a": 1}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(tmp_path / "tokenizer.json"))
    with pytest.raises(ValueError, match="a WordLevel model is not trained by hf_bpe"):
        PipelineTokenizer(tokenizer_file=str(tmp_path / "tokenizer.json")).train_new_from_iterator(["a b"], 10)


def test_unimplemented_trainer_option_is_refused_by_name(tmp_path):
    """A trainer option hf_bpe does not implement is named, not ignored."""
    shutil.copy(bert_base_uncased_vocab(), tmp_path / "vocab.txt")
    tokenizer = WordPieceTokenizer(vocab_file=str(tmp_path / "vocab.txt"))
    with pytest.raises(ValueError, match="initial_alphabet not implemented for a WordPiece model"):
        tokenizer.train_new_from_iterator(["a b"], 10, initial_alphabet=["x"])


def test_unigram_behind_byte_level_is_refused_before_counting(tmp_path):
    """A Unigram model behind ByteLevel (transformers gives its trainer the byte alphabet, which hf_bpe's Unigram
    trainer does not take) is refused by name, before a single text is read."""
    tokenizer = Tokenizer(models.Unigram([("<unk>", 0.0), ("a", -1.0)], unk_id=0))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel()
    tokenizer.save(str(tmp_path / "tokenizer.json"))

    def texts():
        raise AssertionError("the texts were read")
        yield ""

    with pytest.raises(ValueError, match=r"a Unigram model behind a ByteLevel pre-tokenizer .* not implemented"):
        PipelineTokenizer(tokenizer_file=str(tmp_path / "tokenizer.json")).train_new_from_iterator(texts(), 10)
