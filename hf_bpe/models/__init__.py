"""The models hf_bpe trains beside byte-level BPE: one package per model (``wordpiece``)."""
