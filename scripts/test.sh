#!/usr/bin/env bash
# The whole test suite, set-up included: lint (ruff), types (mypy), import layers (import-linter), then pytest (doctests and slow tests too).
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -m "not slow"` while developing.
# pytest runs on every core (pytest-xdist, at most 4 workers: each imports torch and transformers); the shared
# caches it fills (GPT-2's files, the Debian corpora, transformers' test suite) take turns under lock files.
# HF_BPE_TEST_WORKERS=N sets the number of workers; 0 runs everything in one process, as does `-n 0`.
set -euo pipefail
source "$(dirname "$0")/setup_venv.sh" test
cd "$repo"
"$venv/bin/ruff" check .
"$venv/bin/ruff" format --check .
"$venv/bin/mypy"
"$venv/bin/lint-imports" --no-cache
cores='import os; n = min(len(os.sched_getaffinity(0)), 4); print(n if n > 1 else 0)'
workers="${HF_BPE_TEST_WORKERS:-$("$venv/bin/python" -c "$cores")}"
# --dist loadfile: a file's tests stay on one worker, so its module-scoped fixtures (trained tokenizers, reference
# runs) are made once; tests/conftest.py puts the longest files first and --no-loadscope-reorder keeps that order.
"$venv/bin/python" -m pytest -n "$workers" --dist loadfile --no-loadscope-reorder "$@"
