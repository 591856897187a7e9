#!/usr/bin/env bash
# The whole test suite, set-up included: lint (ruff), types (mypy), then pytest (doctests and slow tests too).
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -m "not slow"` while developing.
set -euo pipefail
source "$(dirname "$0")/setup_venv.sh" test
cd "$repo"
"$venv/bin/ruff" check .
"$venv/bin/ruff" format --check .
"$venv/bin/mypy"
"$venv/bin/python" -m pytest "$@"
