"""``python -m hf_bpe.cli``: the ``hf-bpe`` command."""

import sys

from hf_bpe.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
