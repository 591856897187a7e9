"""The encoder's speed paths against the references: pieces cut where no merge can join two characters, the
int merge loops, and the pre-tokenizer's plain pattern guarded by the characters where ``regex`` and the
reference engines disagree."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pipeline.test_pretokenizer import ALL_PRESETS, our_pieces, reference_pieces, reference_tokenizer
from tokenizers import Regex, pre_tokenizers

from hf_bpe import BPETokenizer
from hf_bpe.models.bpe.encoder import _Boundaries
from hf_bpe.models.bpe.files import write_tokenizer_dir
from hf_bpe.pipeline._regex.dialect import compiled as _compiled
from hf_bpe.pipeline.byte_level import BYTE_ALPHABET, from_byte_level, to_byte_level
from hf_bpe.pipeline.pre_tokenizers import PreTokenizer

# Characters of one, two, three and four UTF-8 bytes; merges are drawn over their byte-level spellings, so some
# join the last byte of one character to the first byte of the next and some do not ("å" and "日" end in the same
# byte, so a test of bytes alone cannot tell them apart).
CHARS = ["a", "b", " ", "é", "å", "я", "日", "本", "語", "😀"]


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


def unspelled_pieces(tokenizer, text):  # type: ignore[no-untyped-def]
    """The pre-tokens the tokenizer's pipeline cuts ``text`` into, before their byte-level spelling: what its
    byte-level encoder merges (and cuts where no merge joins two characters)."""
    return [from_byte_level(piece).decode("utf-8") for piece, _, _ in tokenizer.pipeline.pieces(text)]


@pytest.mark.parametrize("by_bytes", [False, True])
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    merges=byte_level_merges(),
    texts=st.lists(st.text(alphabet=CHARS, max_size=60), min_size=1, max_size=4),
)
def test_cut_pieces_and_merge_loops_match_the_rust_model(tmp_path, merges, texts, by_bytes):
    """Multi-byte pieces are cut between characters no merge joins, whole or in part (tested per pair of
    characters, or by bytes alone), and merged part by part; short and long parts take different loops. The Rust
    BPE model, loaded from the same files, merges whole pieces."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    vocab = {char: i for i, char in enumerate(BYTE_ALPHABET)}
    for left, right in merges:
        vocab.setdefault(left + right, len(vocab))
    directory = tmp_path / f"files{len(list(tmp_path.iterdir()))}"
    write_tokenizer_dir(directory, vocab, merges)
    rust = Tokenizer(models.BPE.from_file(str(directory / "vocab.json"), str(directory / "merges.txt")))
    rust.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    ours = BPETokenizer(str(directory / "vocab.json"), str(directory / "merges.txt"), unk_token=None)
    ours.bpe._boundaries = _Boundaries((left + right for left, right in merges), by_bytes=by_bytes)
    for text in texts:
        assert ours(text)["input_ids"] == rust.encode(text).ids, text
    assert ours(texts)["input_ids"] == [rust.encode(text).ids for text in texts]  # with a warm cache


def test_a_pair_listed_twice_takes_its_last_rank_as_in_the_rust_model(tmp_path):
    """A hand-made merges file may list a pair twice: the Rust model keeps the last rank ("a b" after "ab c" here,
    so "abc" is "a" "bc"), in short and long pieces alike."""
    from tokenizers import Tokenizer, models

    vocab = {char: i for i, char in enumerate(BYTE_ALPHABET)}
    for token in ("ab", "bc", "abc"):
        vocab[token] = len(vocab)
    merges = [("a", "b"), ("b", "c"), ("ab", "c"), ("a", "b")]
    write_tokenizer_dir(tmp_path, vocab, merges)
    rust = Tokenizer(models.BPE.from_file(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt")))
    rust.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    ours = BPETokenizer(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"), unk_token=None)
    for text in ["abc", "abcab", "abc" * 12, "zabcabcz" * 5]:
        assert ours(text)["input_ids"] == rust.encode(text).ids, text
    assert rust.encode("abc").tokens == ["a", "bc"]


def test_cjk_runs_are_cut_between_characters_and_match_tiktoken(gpt2_ours, gpt2_tiktoken):
    """GPT-2's merges join few CJK characters: a long run is cut into small parts, each encoded once."""
    text = "漢字かなカナ混じり文とひらがなとカタカナの長い文章です" * 20 + "。 Привет, мир! naïve café"
    pieces = unspelled_pieces(gpt2_ours, text)
    assert max(len(piece) for piece in pieces) > 100
    assert max(len(part) for piece in pieces for part in gpt2_ours.bpe._cut(piece)) < 10
    assert gpt2_ours(text)["input_ids"] == gpt2_tiktoken.encode_ordinary(text)
    assert gpt2_ours.bpe._boundaries._byte_apart is not None  # GPT-2 joins few pairs of bytes: cut by bytes


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_cjk_and_cyrillic_are_cut_per_pair_of_characters_and_match_tiktoken(name, openai_encodings, debian_corpora):
    """cl100k and o200k join many pairs of bytes between CJK characters and between Cyrillic ones, but few pairs of
    the characters themselves: real Japanese, Chinese and Russian text is cut per pair of characters, far finer than
    by bytes alone, and both cuts give tiktoken's ids."""
    encoding, directory = openai_encodings[name]
    ours = BPETokenizer.from_pretrained(str(directory))
    encoder = ours.bpe
    texts = [
        debian_corpora[language].read_text(encoding="utf-8")[:60_000] for language in ("japanese", "chinese", "russian")
    ]
    expected = [encoding.encode_ordinary(text) for text in texts]
    encoder.clear_cache()
    assert ours(texts)["input_ids"] == expected
    per_pair = encoder._boundaries
    assert per_pair._byte_apart is None
    by_bytes = _Boundaries((left + right for left, right in ours.merges), by_bytes=True)
    for text in texts[:2]:
        pieces = [piece for piece in unspelled_pieces(ours, text) if not piece.isascii()]
        finer, coarser = (sum(len(cut.cuts(piece)) for piece in pieces) for cut in (per_pair, by_bytes))
        assert finer > 1.5 * coarser, (finer, coarser)
    try:
        encoder._boundaries = by_bytes
        encoder.clear_cache()
        assert ours(texts)["input_ids"] == expected
    finally:
        encoder._boundaries = per_pair
        encoder.clear_cache()


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


ASCII_CONTEXTS = ["'{}{}", "a{}", " {}1", "{}\n", "\r{} ", "1{}2", "A{}b", " {}'s", "{}  x", "{}\r\n\n", "'{}S"]
ASCII_TEXTS = st.lists(
    st.one_of(st.sampled_from(list("'sStTlLdDmMvVrReE 0123\n\r\t")), st.characters(max_codepoint=127)), max_size=60
).map("".join)
#: User patterns whose ASCII form ``re`` reads: case-insensitive literal sets, anchors, groups, possessive intervals.
ASCII_PATTERNS = [
    r"\p{L}+",
    r"(\w)+|\s+",
    r"^\w+|\w{1,5}$|\s",
    r"(?i:[^a])+|.",
    r"(?i:'[st]|x)|\S+|\s",
    r"\p{N}{1,3}+|.",
]


def reference_split(pattern: str) -> pre_tokenizers.PreTokenizer:
    return pre_tokenizers.Sequence(
        [pre_tokenizers.Split(Regex(pattern), "isolated"), pre_tokenizers.ByteLevel(False, use_regex=False)]
    )


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_ascii_text_is_cut_by_the_ascii_form_like_the_reference(preset):
    """ASCII text is cut by each split's ASCII form in ``re`` (every preset has one): each ASCII character in
    contexts, as the reference cuts it."""
    pre = PreTokenizer.from_preset(preset)
    assert all(_compiled(pattern, pre.engine)[3] is not None for pattern in pre.splits)
    reference = reference_tokenizer(preset)
    text = "".join(context.format(chr(c), chr(c)) for c in range(128) for context in ASCII_CONTEXTS)
    assert text.isascii()
    for start in range(0, len(text), 500):  # pieces of text, so a difference is shown near where it is
        assert our_pieces(pre, text[start : start + 500]) == reference_pieces(reference, text[start : start + 500])


@settings(max_examples=200, deadline=None)
@given(text=ASCII_TEXTS, preset=st.sampled_from(ALL_PRESETS))
def test_random_ascii_text_is_cut_like_the_reference(text, preset):
    assert our_pieces(PreTokenizer.from_preset(preset), text) == reference_pieces(reference_tokenizer(preset), text)


@settings(max_examples=150, deadline=None)
@given(text=ASCII_TEXTS, pattern=st.sampled_from(ASCII_PATTERNS))
def test_user_patterns_cut_ascii_text_like_a_tokenizers_split(text, pattern):
    pre = PreTokenizer.from_pattern(pattern)
    assert _compiled(pattern, pre.engine)[3] is not None
    assert our_pieces(pre, text) == [piece for piece, _ in reference_split(pattern).pre_tokenize_str(text)]


def test_patterns_re_could_read_differently_have_no_ascii_form():
    """Grapheme clusters, a non-ASCII literal, a nested set read case-insensitively: ``regex`` cuts ASCII text
    too (the reference's cut, as the other tests show for ``regex``)."""
    for pattern in [r"\X", r"ſ|\S+|\s", r"(?i:[[a-z]--[q]])|."]:
        pre = PreTokenizer.from_pattern(pattern)
        assert _compiled(pattern, pre.engine)[3] is None, pattern
        assert our_pieces(pre, "Hello world's ſ x") == [
            piece for piece, _ in reference_split(pattern).pre_tokenize_str("Hello world's ſ x")
        ], pattern
