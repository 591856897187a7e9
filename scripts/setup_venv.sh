#!/usr/bin/env bash
# Sourced by demo.sh and test.sh: make .venv (once) and install hf_bpe into it, with the extras given in $1.
# PYTHON picks the interpreter (default python3, which must be 3.10 or newer).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$repo/.venv"
if [ ! -x "$venv/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
fi
"$venv/bin/python" -m pip install --quiet --editable "$repo${1:+[$1]}"
# Byte-compile hf_bpe now: with PYTHONDONTWRITEBYTECODE set (as on CI machines), every process would otherwise
# compile the package from source again (about 0.7 s a start, its generated tables included).
"$venv/bin/python" -m compileall -q "$repo/hf_bpe" >/dev/null
