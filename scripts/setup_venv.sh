#!/usr/bin/env bash
# Sourced by demo.sh and test.sh: make .venv (once) and install hf_bpe into it, with the extras given in $1.
# PYTHON picks the interpreter (default python3, which must be 3.10 or newer).
# The install is editable, so code changes need nothing; it runs again only when pyproject.toml or the extras
# change (a stamp in .venv remembers what was installed).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$repo/.venv"
if [ ! -x "$venv/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
fi
stamp="$venv/.hf-bpe-installed-${1:-base}"
wanted="$("$venv/bin/python" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' "$repo/pyproject.toml")"
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    # PYTHONWARNINGS: setuptools' banner about editable installs is for its own users, not ours.
    PYTHONWARNINGS=ignore "$venv/bin/python" -m pip install --quiet --editable "$repo${1:+[$1]}"
    # Byte-compile hf_bpe now: with PYTHONDONTWRITEBYTECODE set (as on CI machines), every process would otherwise
    # compile the package from source again (about 0.7 s a start, its generated tables included).
    "$venv/bin/python" -m compileall -q "$repo/hf_bpe" >/dev/null
    echo "$wanted" >"$stamp"
fi
