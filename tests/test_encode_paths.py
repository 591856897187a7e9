"""The encoder's speed paths against the references: pieces cut where no merge can join two characters, the
int merge loops, and the pre-tokenizer's plain pattern guarded by the characters where ``regex`` and the
reference engines disagree."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_pretokenizer import ALL_PRESETS, our_pieces, reference_pieces, reference_tokenizer

from hf_bpe import BPETokenizer
from hf_bpe.byte_level import BYTE_ALPHABET, to_byte_level
from hf_bpe.files import write_tokenizer_dir
from hf_bpe.pretokenizer import PreTokenizer, _compiled

# Characters of one, two, three and four UTF-8 bytes; merges are drawn over their byte-level spellings, so some
# join the last byte of one character to the first byte of the next and some do not.
CHARS = ["a", "b", " ", "é", "я", "日", "本", "語", "😀"]


@st.composite
def byte_level_merges(draw):
    """Merges of tokens that exist, over the bytes of ``CHARS`` (in a random order, as a hand-made file may)."""
    tokens = sorted({to_byte_level(char)[i] for char in CHARS for i in range(len(char.encode("utf-8")))})
    merges = []
    for _ in range(draw(st.integers(1, 40))):
        left, right = draw(st.sampled_from(tokens)), draw(st.sampled_from(tokens))
        if left + right not in tokens and len(left + right) <= 12:
            tokens.append(left + right)
            merges.append((left, right))
    return draw(st.permutations(merges))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    merges=byte_level_merges(),
    texts=st.lists(st.text(alphabet=CHARS, max_size=60), min_size=1, max_size=4),
)
def test_cut_pieces_and_merge_loops_match_the_rust_model(tmp_path, merges, texts):
    """Multi-byte pieces are cut between characters no merge joins and merged part by part; short and long
    parts take different loops. The Rust BPE model, loaded from the same files, merges whole pieces."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {char: i for i, char in enumerate(BYTE_ALPHABET)}
    for left, right in merges:
        vocab.setdefault(left + right, len(vocab))
    directory = tmp_path / f"files{len(list(tmp_path.iterdir()))}"
    write_tokenizer_dir(directory, vocab, merges)
    rust = Tokenizer(models.BPE.from_file(str(directory / "vocab.json"), str(directory / "merges.txt")))
    rust.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    ours = BPETokenizer(str(directory / "vocab.json"), str(directory / "merges.txt"), unk_token=None)
    for text in texts:
        assert ours(text)["input_ids"] == rust.encode(text).ids, text
    assert ours(texts)["input_ids"] == [rust.encode(text).ids for text in texts]  # with a warm cache


def test_cjk_runs_are_cut_between_characters_and_match_tiktoken(gpt2_ours, gpt2_tiktoken):
    """GPT-2's merges join few CJK characters: a long run is cut into small parts, each encoded once."""
    text = "漢字かなカナ混じり文とひらがなとカタカナの長い文章です" * 20 + "。 Привет, мир! naïve café"
    pieces = gpt2_ours.bpe.pieces(text)
    assert max(len(piece) for piece in pieces) > 100
    assert max(len(part) for piece in pieces for part in gpt2_ours.bpe._cut(piece)) < 10
    assert gpt2_ours(text)["input_ids"] == gpt2_tiktoken.encode_ordinary(text)


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_plain_pattern_is_used_only_where_the_classes_agree(preset):
    """Text with a character on which ``regex``'s Unicode and the reference's disagree is cut with the
    reference's classes; the same text without it with ``regex``'s own (faster) ones, alike to the reference."""
    pre = PreTokenizer.from_preset(preset)
    reference = reference_tokenizer(preset)
    guards = set()
    for pattern in pre.splits:
        guard = _compiled(pattern, pre.engine)[2]
        guards |= guard or set()
    assert preset == "deepseek-v3" or guards  # every preset with \p{...} has some
    base = "漢字かなカナ ПРИВЕТ мир Ǆungla 123٣ x"
    samples = sorted(guards)[:: max(1, len(guards) // 40)]
    for char in ["", *samples]:
        for text in (base + char + "abc" + char, char + base, char * 3):
            assert our_pieces(pre, text) == reference_pieces(reference, text), repr(char)
