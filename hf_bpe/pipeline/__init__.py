"""The pipeline's stages as ``tokenizers`` runs them: normalizers, pre-tokenizers, added tokens, the byte-level
alphabet."""
