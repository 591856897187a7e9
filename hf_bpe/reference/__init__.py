"""Off the data path: the reference files (GPT-2, cl100k, o200k), tiktoken converters, and parity checks."""
