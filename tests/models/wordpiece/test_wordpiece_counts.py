"""WordPiece from counts directories (local and datatrove engines): the same word counts as counting the files
in one process, the recipe recorded, and a vocabulary the Rust BertTokenizer loads; BPE and WordPiece counts are
not mixed up."""

from __future__ import annotations

import pytest
from conftest import COURSE, multilingual_text
from tokenizers import normalizers, pre_tokenizers

from hf_bpe.counting.counting import count_files
from hf_bpe.counting.counts_dir import iter_counts, read_manifest
from hf_bpe.models.bpe.training import count_to_directory, train_from_count_directory
from hf_bpe.models.wordpiece.options import WordPieceOptions
from hf_bpe.models.wordpiece.training import (
    count_wordpiece_to_directory,
    train_wordpiece_from_count_directory,
    wordpiece_counting,
)
from hf_bpe.pipeline.bert import BertRecipe
from hf_bpe.reference.trainers import wordpiece_reference


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("wp-counts")
    paths = []
    for index in range(3):
        path = root / f"part{index}.txt"
        path.write_text("".join(COURSE) + multilingual_text(150, index), encoding="utf-8")
        paths.append(path)
    return paths


@pytest.mark.parametrize("engine", ["local", "datatrove"])
def test_counts_directory_holds_the_words_berts_recipe_cuts(corpus, tmp_path, engine):
    recipe = BertRecipe(lowercase=False, strip_accents=True)
    count_wordpiece_to_directory(corpus, tmp_path / "counts", recipe=recipe, engine=engine, workers=2, buckets=3)
    assert read_manifest(tmp_path / "counts")["settings"]["bert"] == {
        "clean_text": True,
        "handle_chinese_chars": True,
        "strip_accents": True,
        "lowercase": False,
    }
    single = count_files(corpus, pre_tokenizer=wordpiece_counting(recipe), workers=1).counts
    assert dict(iter_counts(tmp_path / "counts")) == dict(single)
    # The words are the reference's: its normalizer and pre-tokenizer over each line.
    normalizer = normalizers.BertNormalizer(lowercase=False, strip_accents=True)
    expected: dict[str, int] = {}
    for path in corpus:
        for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
            for word, _ in pre_tokenizers.BertPreTokenizer().pre_tokenize_str(normalizer.normalize_str(line)):
                expected[word] = expected.get(word, 0) + 1
    assert dict(single) == expected


def test_training_from_counts_directory(corpus, tmp_path):
    count_wordpiece_to_directory(corpus, tmp_path / "counts", workers=1)
    result = train_wordpiece_from_count_directory(tmp_path / "counts", vocab_size=400)
    assert result.recipe == BertRecipe()
    # The reference trained on the same files has the same alphabet, special tokens first.
    tokenizer, trainer = wordpiece_reference(WordPieceOptions(vocab_size=400))
    tokenizer.train([str(path) for path in corpus], trainer)
    reference = tokenizer.get_vocab()
    single = {token for token in reference if len(token) == 1 or token.startswith("[")}
    assert {token for token in result.vocab if len(token) == 1 or token.startswith("[")} == single
    assert len(result.vocab) == len(reference) == 400


def test_bpe_and_wordpiece_counts_are_not_mixed_up(corpus, tmp_path):
    count_to_directory(corpus, tmp_path / "bpe", workers=1)
    count_wordpiece_to_directory(corpus, tmp_path / "wordpiece", workers=1)
    with pytest.raises(ValueError, match="counted with byte-level BPE's pre-tokenizer, not BERT's recipe"):
        train_wordpiece_from_count_directory(tmp_path / "bpe")
    with pytest.raises(ValueError, match="--model wordpiece"):
        train_from_count_directory(tmp_path / "wordpiece")
