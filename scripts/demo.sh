#!/usr/bin/env bash
# The main job on an embedded default, set-up included: train a tokenizer on this Python's own standard
# library sources (no download), load it back with AutoTokenizer, and print what it learned.
set -euo pipefail
source "$(dirname "$0")/setup_venv.sh"
cd "$repo"
"$venv/bin/python" scripts/demo.py "$@"
