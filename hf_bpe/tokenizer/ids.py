"""The ids a :class:`~hf_bpe.tokenizer.tokenizer.Tokenizer` gives a text when only they are wanted: what counting a
sample needs (``hf-bpe report``'s figures, ``hf-bpe trim``'s token use).

They are ``Tokenizer.encode(text, add_special_tokens=False).ids``, made without what an
:class:`~hf_bpe.pipeline.encoding.Encoding` holds besides them (offsets, tokens, words) and without the file's
truncation and padding (settings for model inputs, not for counting). The rules are the lower modules' own: the
added tokens cut the raw text as ``AddedVocabulary::find_matches`` cuts it
(:func:`~hf_bpe.pipeline.added_tokens.added_token_spans`), the pipeline encodes the rest
(:meth:`~hf_bpe.pipeline.pipeline.Pipeline.encode_spans`, its span-free path where the file allows it).
"""

from __future__ import annotations

from collections.abc import Callable

from hf_bpe.pipeline.added_tokens import added_token_spans, whole_tokens_pattern
from hf_bpe.tokenizer.tokenizer import Tokenizer


def plain_ids(tokenizer: Tokenizer) -> Callable[[str], list[int]]:
    """A function giving the ids ``tokenizer`` gives a text with no template tokens, in a ninth of the time an
    :class:`~hf_bpe.pipeline.encoding.Encoding` with offsets takes (the added tokens as they are now: one added
    later is not matched).

    >>> import json
    >>> from hf_bpe.models.bpe.files import byte_level_document
    >>> from hf_bpe.pipeline.pre_tokenizers import PreTokenizer
    >>> from hf_bpe.pipeline.tokenizer_json import special_token_entry
    >>> document = byte_level_document({"a": 0, "b": 1, "ab": 2, "Ġ": 3, "<s>": 4}, [("a", "b")], PreTokenizer(),
    ...     added_tokens=[{**special_token_entry(4, "<s>"), "lstrip": True}])
    >>> tokenizer = Tokenizer.from_str(json.dumps(document))
    >>> plain_ids(tokenizer)("ab <s>ab b"), tokenizer.encode("ab <s>ab b", add_special_tokens=False).ids
    ([2, 4, 2, 3, 1], [2, 4, 2, 3, 1])
    """
    added = tokenizer.get_added_tokens_decoder()
    # Tokenizer._refresh_added's cut: the tokens not ``normalized`` on the raw text (the pipeline matches the others
    # in the normalized text), each with its flags.
    raw = {token.content: token_id for token_id, token in added.items() if not token.normalized}
    flags = {token.content: token for token in added.values()}
    pattern = whole_tokens_pattern(raw)
    pipeline = tokenizer.pipeline
    if pattern is None:
        return pipeline.encode
    return lambda text: pipeline.encode_spans(text, added_token_spans(text, pattern, flags.__getitem__), raw)
