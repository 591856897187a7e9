#!/usr/bin/env bash
# The main job on an embedded default, set-up included: train a tokenizer on this Python's own standard
# library sources (no download), load it back with AutoTokenizer, print what it learned, and report what three
# sizes buy on held-out text (with a picture).
set -euo pipefail
source "$(dirname "$0")/setup_venv.sh" plot  # matplotlib, for the report's picture
cd "$repo"
"$venv/bin/python" scripts/demo.py "$@"
