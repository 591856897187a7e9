"""The engine needs none of the references: in a fresh virtual environment holding only ``regex`` and ``tqdm``
besides hf_bpe (no ``tokenizers``, ``transformers`` or ``datasets``), hf_bpe trains BPE, WordPiece and Unigram,
writes their files, reads any ``tokenizer.json`` back and encodes. The judges, outside that environment: the
files are byte for byte those hf_bpe writes here (where ``tokenizers`` is installed, and whose equality with
``tokenizers``' own files the trainers' tests check), and ``tokenizers`` loading each file gives the same ids.

``pyproject.toml``'s import-linter contract keeps the engine's modules from importing the three; this test shows
that what a user runs works without them."""

from __future__ import annotations

import json
import os
import subprocess
import venv
from pathlib import Path

import regex
import tqdm
from conftest import REPO, multilingual_text
from tokenizers import Tokenizer

import hf_bpe
from hf_bpe.models.unigram.files import write_unigram_dir
from hf_bpe.models.unigram.options import UnigramOptions
from hf_bpe.models.unigram.training import train_unigram_from_iterator

# Run in the bare environment: train, save, read back and encode; print the ids and what got imported.
SCRIPT = """
import importlib.util, json, sys
from pathlib import Path

for name in ("tokenizers", "transformers", "datasets"):
    assert importlib.util.find_spec(name) is None, name + " is installed in the bare environment"

import hf_bpe
from hf_bpe.tokenizer.serialization import read_pipeline_json
from hf_bpe.models.unigram.files import write_unigram_dir
from hf_bpe.models.unigram.options import UnigramOptions
from hf_bpe.models.unigram.training import train_unigram_from_iterator
from hf_bpe.pipeline.added_tokens import split_around, whole_tokens_pattern

out, corpus, probes = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(Path(sys.argv[3]).read_text("utf-8"))
lines = corpus.read_text("utf-8").splitlines()
hf_bpe.train_from_iterator(lines, vocab_size=600, special_tokens=["<s>"], progress=False).save(out / "bpe")
hf_bpe.train_from_iterator(
    lines, vocab_size=500, pre_tokenizer=hf_bpe.PreTokenizer.from_preset("llama3"), progress=False
).save(out / "llama3")
hf_bpe.train_wordpiece_from_iterator(lines, vocab_size=500, progress=False).save(out / "wordpiece")
unigram = train_unigram_from_iterator(lines, UnigramOptions(vocab_size=300, unk_token="<unk>"), progress=False)
write_unigram_dir(out / "unigram", unigram.pieces, unigram.unk_id, unigram.special_tokens)


def encode(read, text):
    # The file's added tokens cut the text first (matched whole); the pipeline encodes the stretches between.
    added = {entry["content"]: entry["id"] for entry in read.added_tokens}
    ids = []
    for begin, end, token in split_around(text, whole_tokens_pattern(added)):
        ids += [added[token]] if token is not None else read.pipeline.encode(text[begin:end], begin)
    return ids


ids = {}
for kind in ("bpe", "llama3", "wordpiece", "unigram"):
    read = read_pipeline_json(out / kind / "tokenizer.json")
    ids[kind] = [encode(read, text) for text in probes]
loaded = sorted(name for name in ("tokenizers", "transformers", "datasets") if name in sys.modules)
print(json.dumps({"ids": ids, "loaded": loaded}))
"""

PROBES = ["Hello world", "<s> naïve café 日本語 2024", "  two  spaces\r\n\ttab", "😀👍🏽 Привет, мир!", ""]


def bare_environment(where: Path) -> Path:
    """A virtual environment without pip whose only packages are ``regex``, ``tqdm`` (this environment's copies)
    and hf_bpe (this checkout): its interpreter."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(where)
    python = where / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    packages = where / "packages"
    packages.mkdir()
    for module in (regex, tqdm):
        (packages / module.__name__).symlink_to(Path(module.__file__).parent)
    Path(site, "hf_bpe_bare.pth").write_text(f"{packages}\n{REPO}\n", encoding="utf-8")
    return python


def test_training_saving_loading_and_encoding_need_none_of_the_references(tmp_path):
    lines = multilingual_text(400, seed=21).splitlines()
    corpus, probes = tmp_path / "corpus.txt", tmp_path / "probes.json"
    corpus.write_text("\n".join(lines), encoding="utf-8")
    probes.write_text(json.dumps(PROBES), encoding="utf-8")
    python = bare_environment(tmp_path / "venv")
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
    run = subprocess.run(
        [str(python), "-c", SCRIPT, str(tmp_path / "bare"), str(corpus), str(probes)],
        capture_output=True, text=True, env=environment, cwd=tmp_path, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    found = json.loads(run.stdout.splitlines()[-1])
    assert found["loaded"] == []

    # The same files where tokenizers is installed, written by the same calls.
    here = tmp_path / "here"
    hf_bpe.train_from_iterator(lines, vocab_size=600, special_tokens=["<s>"], progress=False).save(here / "bpe")
    llama3 = hf_bpe.PreTokenizer.from_preset("llama3")
    hf_bpe.train_from_iterator(lines, vocab_size=500, pre_tokenizer=llama3, progress=False).save(here / "llama3")
    hf_bpe.train_wordpiece_from_iterator(lines, vocab_size=500, progress=False).save(here / "wordpiece")
    unigram = train_unigram_from_iterator(lines, UnigramOptions(vocab_size=300, unk_token="<unk>"), progress=False)
    write_unigram_dir(here / "unigram", unigram.pieces, unigram.unk_id, unigram.special_tokens)
    for kind in ("bpe", "llama3", "wordpiece", "unigram"):
        names = sorted(path.name for path in (here / kind).iterdir())
        assert sorted(path.name for path in (tmp_path / "bare" / kind).iterdir()) == names, kind
        for name in names:
            assert (tmp_path / "bare" / kind / name).read_bytes() == (here / kind / name).read_bytes(), (kind, name)
        reference = Tokenizer.from_file(str(tmp_path / "bare" / kind / "tokenizer.json"))
        expected = [reference.encode(text, add_special_tokens=False).ids for text in PROBES]
        assert found["ids"][kind] == expected, kind
        assert any(len(ids) > 1 for ids in expected), kind
