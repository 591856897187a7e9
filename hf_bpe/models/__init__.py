"""hf_bpe's models beyond byte-level BPE, one package each (:mod:`hf_bpe.models.unigram`)."""
