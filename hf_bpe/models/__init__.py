"""The models hf_bpe trains beside byte-level BPE, one package each: :mod:`hf_bpe.models.wordpiece`,
:mod:`hf_bpe.models.unigram`."""
