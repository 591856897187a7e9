"""``tokenizers``' ``src/tokenizer/``: the assembled :class:`~hf_bpe.tokenizer.tokenizer.Tokenizer`, with
``tokenizers``' Python API names, over hf_bpe's twins of a ``tokenizer.json``'s stages, without transformers."""
