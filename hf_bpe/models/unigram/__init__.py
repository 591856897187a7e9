"""Unigram, as ``tokenizers``' ``UnigramTrainer`` trains it and its ``Unigram`` model encodes with it.

The package's pieces, in the order data flows through them: :mod:`.recipe` (``SentencePieceUnigramTokenizer``'s
normalizers and ``Metaspace`` pre-tokenizer: text to words), :mod:`.lattice` (the lattice of a word: Viterbi,
forward-backward marginals, the two best segmentations), :mod:`.trainer` (seed pieces from a suffix array, EM,
pruning, the final vocabulary), :mod:`.encoder` (Viterbi encoding of text), :mod:`.files` (``tokenizer.json``).
:mod:`.course` is the simplified algorithm of the HuggingFace course, for its worked example.
"""
