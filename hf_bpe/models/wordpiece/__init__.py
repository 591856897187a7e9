"""WordPiece (BERT's tokenizer): BERT's text recipe, the two trainers, the encoder and ``vocab.txt``.

The modules, in the order data flows through them: :mod:`~hf_bpe.pipeline.bert` (BertNormalizer and
BertPreTokenizer), :mod:`~hf_bpe.models.wordpiece.training` (text sources to word counts to a trained vocabulary),
:mod:`~hf_bpe.models.wordpiece.trainer` (the frequency and likelihood trainers),
:mod:`~hf_bpe.models.wordpiece.files` (``vocab.txt``, ``tokenizer.json``), :mod:`~hf_bpe.models.wordpiece.encoder`
(greedy longest-match-first). The transformers class is :mod:`hf_bpe.transformers.wordpiece`'s.

This package imports nothing on its own: :mod:`hf_bpe.pipeline.pre_tokenizers` imports the recipe from it (the
``PreTokenizer.bert_recipe`` kind, which counting, counts manifests and ``tokenizer.json`` take).
"""
