"""hf_bpe's transformers classes (v5 ``PythonBackend``) and their registration with ``AutoTokenizer``."""
