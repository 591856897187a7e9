"""``BatchEncoding``'s ``Encoding`` methods (``word_ids``, ``sequence_ids``, ``char_to_token``, ...) on hf_bpe's
classes, judged by transformers' Rust backend loaded from the same file, in the same test.

Four classes on four kinds of file: :class:`BPETokenizer` on Qwen3's real ``tokenizer.json``,
:class:`PipelineTokenizer` on Gemma-2's, :class:`WordPieceTokenizer` on bert-base-uncased's ``vocab.txt`` (the
Rust backend reads the ``tokenizer.json`` it saves) and :class:`UnigramTokenizer` on a file trained by
``tokenizers``' ``UnigramTrainer``. Every method of ``BatchEncoding`` and of each row's ``Encoding`` is compared on
singles, pairs, batches, padding on either side, pre-split words and truncation with stride and overflow; then the
HF course's token-classification (labels through ``word_ids``) and question-answering (``sequence_ids`` over
overflowing windows) preprocessing run through ``datasets.Dataset.map(batched=True)`` on both.
"""

from __future__ import annotations

import functools
import json
import pickle
import shutil
from pathlib import Path
from typing import Any

import pytest
from real_tokenizers import bert_base_uncased_vocab, model_tokenizer_json

import hf_bpe

CONTEXT = (
    "The Eiffel Tower, completed in 1889, is 330 metres tall. Gustave Eiffel's company built it for the World's "
    "Fair; ça a duré deux ans. 中文也可以。 It was the tallest structure until 1930!"
)
TEXTS = [CONTEXT, "hi there<|im_start|>you  x [SEP] <pad>", "a b", "  naïve   café\tdon't"]
WORDS = [["The", "Eiffel", "Tower", "is", "330", "metres", "tall", "."], ["Gustave", "Eiffel", "'s", "company"]]
CALLS = {
    "single": ((TEXTS[1],), {}),
    "batch": ((TEXTS,), {}),
    "batch-offsets": ((TEXTS,), {"return_offsets_mapping": True}),
    "pairs-padded": ((TEXTS, TEXTS[::-1]), {"padding": True}),
    "left-padded": ((TEXTS,), {"padding": True, "padding_side": "left"}),
    "pair-overflow": (
        ("When was it built?", CONTEXT),
        {"truncation": "only_second", "max_length": 30, "stride": 8, "return_overflowing_tokens": True},
    ),
    "qa-batch": (
        (["When?", "Who built it?"], [CONTEXT, TEXTS[3]]),
        {
            "truncation": "only_second",
            "max_length": 30,
            "stride": 8,
            "return_overflowing_tokens": True,
            "return_offsets_mapping": True,
            "padding": "max_length",
        },
    ),
    "longest-first": ((TEXTS[0], TEXTS[3]), {"truncation": True, "max_length": 20, "return_overflowing_tokens": True}),
    "words": ((WORDS,), {"is_split_into_words": True}),
    "words-overflow": (
        (WORDS,),
        {
            "is_split_into_words": True,
            "truncation": True,
            "max_length": 6,
            "stride": 2,
            "return_overflowing_tokens": True,
        },
    ),
    "word-pair": ((WORDS[0], WORDS[1]), {"is_split_into_words": True, "padding": "max_length", "max_length": 30}),
}
KINDS = ["qwen3", "gemma2", "bert", "unigram"]
#: Each class on its file, and the pad token both are given (where the file names none).
CLASSES = {"qwen3": "BPETokenizer", "gemma2": "PipelineTokenizer", "bert": "WordPieceTokenizer"}
PADS = {"qwen3": "<|endoftext|>", "gemma2": "<pad>", "bert": "[PAD]", "unigram": "<pad>"}


def _unigram_directory(path: Path) -> None:
    """A Unigram file trained by tokenizers' UnigramTrainer (SentencePieceUnigramTokenizer), its config naming
    hf_bpe's class."""
    from tokenizers import SentencePieceUnigramTokenizer

    corpus = [CONTEXT, "Who built the tower? A company did, in two years.", "naïve café, don't stop"] * 40
    tokenizer = SentencePieceUnigramTokenizer()
    tokenizer.train_from_iterator(
        corpus, vocab_size=120, special_tokens=["<pad>", "<unk>", "</s>"], unk_token="<unk>", show_progress=False
    )
    tokenizer.save(str(path / "tokenizer.json"))
    config = {"tokenizer_class": "UnigramTokenizer", "unk_token": "<unk>", "pad_token": "<pad>"}
    (path / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")


@functools.cache
def _pair(kind: str, folder: str) -> tuple[Any, Any]:
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    root = Path(folder)
    if kind in ("qwen3", "gemma2"):
        file = model_tokenizer_json(kind)
        ours = hf_bpe.from_pretrained(file)
    elif kind == "bert":
        shutil.copy(bert_base_uncased_vocab(), root / "vocab.txt")
        hf_bpe.WordPieceTokenizer.from_pretrained(root).save_pretrained(root / "saved")
        ours = hf_bpe.WordPieceTokenizer.from_pretrained(root / "saved")
        file = root / "saved" / "tokenizer.json"
    else:
        _unigram_directory(root)
        ours = AutoTokenizer.from_pretrained(root)
        file = root / "tokenizer.json"
    rust = PreTrainedTokenizerFast(tokenizer_file=str(file), model_input_names=ours.model_input_names)
    ours.pad_token = rust.pad_token = PADS[kind]
    assert type(ours).__name__ == CLASSES.get(kind, "UnigramTokenizer")
    return ours, rust


@pytest.fixture(scope="module", params=KINDS)
def pair(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    return _pair(request.param, str(tmp_path_factory.mktemp(request.param)))


def _answer(method: Any, *args: Any) -> Any:
    """What ``method(*args)`` returns, or the name of what it raises (transformers' ``word_to_chars`` raises
    TypeError for a word with no tokens, on either backend)."""
    try:
        return method(*args)
    except Exception as error:
        return type(error).__name__


def _methods(batch: Any, row: int) -> dict[str, Any]:
    """Every ``BatchEncoding`` method's answer for one row, and every field and method of its ``Encoding``."""
    encoding = batch[row]
    size = len(encoding.ids)
    chars = max((end for _, end in encoding.offsets), default=0) + 2
    words = max((word for word in encoding.word_ids if word is not None), default=0) + 2
    sequences = range(encoding.n_sequences)
    out: dict[str, Any] = {
        "tokens": batch.tokens(row),
        "word_ids": batch.word_ids(row),
        "sequence_ids": batch.sequence_ids(row),
        "token_to_sequence": [batch.token_to_sequence(row, t) for t in range(size)],
        "token_to_word": [batch.token_to_word(row, t) for t in range(size)],
        "token_to_chars": [batch.token_to_chars(row, t) for t in range(size)],
        "char_to_token": [[batch.char_to_token(row, c, s) for c in range(chars)] for s in sequences],
        "char_to_word": [[batch.char_to_word(row, c, s) for c in range(chars)] for s in sequences],
        "word_to_tokens": [[batch.word_to_tokens(row, w, s) for w in range(words)] for s in sequences],
        "word_to_chars": [[_answer(batch.word_to_chars, row, w, s) for w in range(words)] for s in sequences],
    }
    for name in (
        "ids", "type_ids", "tokens", "offsets", "attention_mask", "special_tokens_mask", "word_ids", "sequence_ids",
        "n_sequences",
    ):  # fmt: skip
        out[f"Encoding.{name}"] = getattr(encoding, name)
    out["Encoding.overflowing"] = [window.ids for window in encoding.overflowing]
    past = size + 1  # one past the end: tokenizers answers None (or sequence 0, for the end itself)
    for name in ("token_to_sequence", "token_to_word", "token_to_chars"):
        out[f"Encoding.{name}"] = [getattr(encoding, name)(t) for t in range(past + 1)]
    for name in ("char_to_token", "char_to_word"):
        out[f"Encoding.{name}"] = [[getattr(encoding, name)(c, s) for c in range(chars)] for s in (*sequences, 2)]
    for name in ("word_to_tokens", "word_to_chars"):
        out[f"Encoding.{name}"] = [[getattr(encoding, name)(w, s) for w in range(words)] for s in (*sequences, 2)]
    return out


@pytest.mark.parametrize("call", CALLS, ids=list(CALLS))
def test_every_encoding_method_matches_rust(pair: tuple[Any, Any], call: str) -> None:
    ours, rust = pair
    args, options = CALLS[call]
    mine, expected = ours(*args, **options), rust(*args, **options)
    assert dict(mine) == dict(expected)
    assert mine.n_sequences == expected.n_sequences
    assert len(mine.encodings) == len(expected.encodings)
    rows = range(len(expected.encodings))
    # Read last row first: what a row says does not depend on which rows were read before it.
    for row in reversed(rows):
        assert _methods(mine, row) == _methods(expected, row), (call, row)
    again = pickle.loads(pickle.dumps(ours(*args, **options)))
    assert [again.word_ids(row) for row in rows] == [expected.word_ids(row) for row in rows]


def test_encodings_do_not_depend_on_offsets_being_asked(pair: tuple[Any, Any]) -> None:
    """``tok(texts)`` (ids only, hf_bpe's short path) and the same call with offsets give the Rust backend's
    Encodings, which are the same either way."""
    ours, rust = pair
    plain, with_offsets = ours(TEXTS), ours(TEXTS, return_offsets_mapping=True)
    expected = rust(TEXTS)
    for row in range(len(TEXTS)):
        assert _methods(plain, row) == _methods(expected, row) == _methods(with_offsets, row)


# -- the HF course's recipes ------------------------------------------------------------------------------------


def _labels_by_word(labels: list[int], word_ids: list[int | None]) -> list[int]:
    """The course's token-classification alignment: a word's label on its first token, -100 on special tokens,
    B- labels (odd) turned into I- labels on the word's other tokens."""
    out = []
    previous = None
    for word in word_ids:
        if word is None:
            out.append(-100)
        elif word != previous:
            out.append(labels[word])
        else:
            out.append(labels[word] + labels[word] % 2)
        previous = word
    return out


def _token_classification(tokenizer: Any) -> Any:
    import datasets

    data = datasets.Dataset.from_dict({"tokens": [*WORDS, ["naïve", "café", "don't"]], "ner_tags": [
        [0, 1, 2, 0, 0, 0, 0, 0], [1, 3, 0, 0], [0, 5, 0],
    ]})  # fmt: skip

    def tokenize_and_align(examples: dict[str, list[Any]]) -> Any:
        inputs = tokenizer(examples["tokens"], truncation=True, max_length=8, is_split_into_words=True)
        inputs["labels"] = [
            _labels_by_word(labels, inputs.word_ids(row)) for row, labels in enumerate(examples["ner_tags"])
        ]
        return inputs

    return data.map(tokenize_and_align, batched=True, remove_columns=data.column_names).to_dict()


def _question_answering(tokenizer: Any) -> Any:
    import datasets

    data = datasets.Dataset.from_dict({
        "id": ["a", "b", "c"],
        "question": ["When was the tower completed?", "Who built it?", "How tall?"],
        "context": [CONTEXT, CONTEXT, TEXTS[3]],
    })  # fmt: skip

    def preprocess(examples: dict[str, list[Any]]) -> Any:
        inputs = tokenizer(
            [question.strip() for question in examples["question"]], examples["context"], max_length=100,
            truncation="only_second", stride=50, return_overflowing_tokens=True, return_offsets_mapping=True,
            padding="max_length",
        )  # fmt: skip
        samples = inputs.pop("overflow_to_sample_mapping")
        inputs["example_id"] = [examples["id"][sample] for sample in samples]
        inputs["offset_mapping"] = [
            [span if sequence == 1 else None for span, sequence in zip(spans, inputs.sequence_ids(row), strict=True)]
            for row, spans in enumerate(inputs["offset_mapping"])
        ]
        inputs["context_start"] = [inputs.sequence_ids(row).index(1) for row in range(len(samples))]
        inputs["answer_token"] = [inputs.char_to_token(row, 4, sequence_index=1) for row in range(len(samples))]
        return inputs

    return data.map(preprocess, batched=True, remove_columns=data.column_names).to_dict()


def test_course_token_classification_matches_rust(pair: tuple[Any, Any]) -> None:
    ours, rust = pair
    expected = _token_classification(rust)
    assert any(-100 in labels[1:-1] or len(set(labels)) > 2 for labels in expected["labels"])
    assert _token_classification(ours) == expected


def test_course_question_answering_matches_rust(pair: tuple[Any, Any]) -> None:
    ours, rust = pair
    expected = _question_answering(rust)
    assert len(expected["example_id"]) >= 3
    assert _question_answering(ours) == expected
