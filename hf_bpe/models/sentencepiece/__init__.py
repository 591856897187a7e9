"""SentencePiece ``tokenizer.model`` files, read without sentencepiece: :mod:`.model_proto` (the ``ModelProto``,
decoded by hand) and :mod:`.convert` (the ``tokenizer.json`` document transformers makes of one, which hf_bpe's
pipeline runs)."""
