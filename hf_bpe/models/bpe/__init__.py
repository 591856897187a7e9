"""Byte-level and char-level BPE: the trainer, continuing a base, the encoder and the files."""
