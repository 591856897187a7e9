"""AutoTokenizer integration, each case in a fresh interpreter (nothing imported beforehand)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from conftest import COURSE

import hf_bpe

TEXT = "This is the Hugging Face Course. naïve café<|endoftext|>!"


def run_python(code: str, *, cwd=None) -> list[str]:
    """Run ``code`` in a fresh interpreter; return its stdout lines (fail with its stderr)."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=cwd, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()


@pytest.fixture(scope="module")
def trained_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("trained")
    hf_bpe.train_from_iterator(COURSE * 3, vocab_size=320, special_tokens=["<|endoftext|>"]).save(directory)
    return directory


def expected_ids(directory) -> list[int]:
    return hf_bpe.BPETokenizer.from_pretrained(directory)(TEXT)["input_ids"]


# The fresh interpreter's code before the load: every order in which a user may import hf_bpe and transformers.
IMPORT_ORDERS = {
    "hf_bpe-first": "import hf_bpe\nfrom transformers import AutoTokenizer",
    "auto-tokenizer-first": "from transformers import AutoTokenizer\nimport hf_bpe",
    "lazy-transformers-first": "import transformers\nimport hf_bpe\nAutoTokenizer = transformers.AutoTokenizer",
    "auto-package-after": "import hf_bpe\nimport transformers.models.auto as auto\nAutoTokenizer = auto.AutoTokenizer",
    "tokenizer-class-first": "from hf_bpe import BPETokenizer\nfrom transformers import AutoTokenizer",
    "tokenizer-module-first": "import hf_bpe.transformers.bpe\nfrom transformers import AutoTokenizer",
}


@pytest.mark.parametrize("imports", IMPORT_ORDERS.values(), ids=IMPORT_ORDERS.keys())
def test_import_registers_class_for_trained_dir(trained_dir, imports):
    lines = run_python(
        imports
        + f"""
import sys
tok = AutoTokenizer.from_pretrained({str(trained_dir)!r})
print(type(tok).__module__ + "." + type(tok).__name__)
print(tok({TEXT!r})["input_ids"])
# The import hook has left, and transformers' module kept its own loader.
hooks = [type(f).__name__ for f in sys.meta_path if type(f).__module__ == "hf_bpe.transformers.auto"]
loader = sys.modules["transformers.models.auto.tokenization_auto"].__loader__
print(hooks, type(loader).__module__ == "hf_bpe.transformers.auto")
"""
    )
    assert lines == ["hf_bpe.transformers.bpe.BPETokenizer", str(expected_ids(trained_dir)), "[] False"]


def test_import_leaves_transformers_alone_until_a_class_is_used():
    lines = run_python(
        """
        import sys
        import hf_bpe
        def loaded():
            return sorted(name for name in sys.modules if name.split(".")[0] == "transformers")
        print(loaded(), "BPETokenizer" in dir(hf_bpe), "CharBPETokenizer" in dir(hf_bpe))
        from hf_bpe import BPETokenizer
        import hf_bpe.transformers.bpe, hf_bpe.transformers.char_bpe
        print("transformers" in loaded(), BPETokenizer is hf_bpe.transformers.bpe.BPETokenizer)
        print(hf_bpe.CharBPETokenizer is hf_bpe.transformers.char_bpe.CharBPETokenizer)
        try:
            hf_bpe.NoSuchTokenizer
        except AttributeError as error:
            print(error)
        """
    )
    assert lines == ["[] True True", "True True", "True", "module 'hf_bpe' has no attribute 'NoSuchTokenizer'"]


def test_train_command_does_not_import_transformers(tmp_path):
    (tmp_path / "a.txt").write_text("".join(COURSE), encoding="utf-8")
    command = ["train", tmp_path / "a.txt", "--output", tmp_path / "out", "--vocab-size", "300", "--no-progress"]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hf_bpe.cli", *command], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "out" / "vocab.json").is_file()
    # -X importtime writes "import time: self | cumulative | module" on stderr for every module imported.
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert {"hf_bpe", "hf_bpe.models.bpe.training", "hf_bpe.models.bpe.trainer"} <= imported
    assert sorted(name for name in imported if name.split(".")[0] == "transformers") == []


def test_registration_is_safe_twice():
    lines = run_python(
        """
        import hf_bpe, hf_bpe.transformers.auto
        hf_bpe.transformers.auto.register(); hf_bpe.transformers.auto.register()
        from transformers.models.auto.tokenization_auto import REGISTERED_TOKENIZER_CLASSES
        print(sorted(f"{name}={cls.__module__}" for name, cls in REGISTERED_TOKENIZER_CLASSES.items()))
        """
    )
    assert lines == [
        str(
            [
                "BPETokenizer=hf_bpe.transformers.bpe",
                "CharBPETokenizer=hf_bpe.transformers.char_bpe",
                "PipelineTokenizer=hf_bpe.transformers.pipeline",
                "SentencePieceBPETokenizer=hf_bpe.transformers.pipeline",
                "UnigramTokenizer=hf_bpe.transformers.unigram",
                "WordPieceTokenizer=hf_bpe.transformers.wordpiece",
            ]
        )
    ]


def test_save_pretrained_dir_loads_through_auto(trained_dir, tmp_path):
    hf_bpe.BPETokenizer.from_pretrained(trained_dir).save_pretrained(tmp_path / "saved")
    config = json.loads((tmp_path / "saved" / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["tokenizer_class"] == "BPETokenizer"
    assert "auto_map" not in config
    lines = run_python(
        f"""
        import hf_bpe
        from transformers import AutoTokenizer
        tok = AutoTokenizer.from_pretrained({str(tmp_path / "saved")!r})
        print(type(tok).__name__, tok({TEXT!r})["input_ids"])
        """
    )
    assert lines == [f"BPETokenizer {expected_ids(trained_dir)}"]


@pytest.mark.parametrize("saved", [False, True], ids=["trained", "save_pretrained"])
def test_without_hf_bpe_loads_rust_backend_with_same_ids(trained_dir, tmp_path, saved):
    directory = trained_dir
    if saved:
        hf_bpe.BPETokenizer.from_pretrained(trained_dir).save_pretrained(tmp_path / "saved")
        directory = tmp_path / "saved"
    assert "auto_map" not in json.loads((directory / "tokenizer_config.json").read_text(encoding="utf-8"))
    lines = run_python(
        f"""
        import sys
        from transformers import AutoTokenizer
        tok = AutoTokenizer.from_pretrained({str(directory)!r})
        print(type(tok).__name__, "hf_bpe" in sys.modules)
        print(tok({TEXT!r})["input_ids"])
        """
    )
    assert lines == ["TokenizersBackend False", str(expected_ids(trained_dir))]


@pytest.fixture
def auto_class_registered():
    """``register_for_auto_class`` is a classmethod: it marks BPETokenizer itself, for every later save in this process
    (each would write the remote-code module too). Undone after the test."""
    yield
    hf_bpe.BPETokenizer._auto_class = None


def test_trust_remote_code_gives_the_installed_class(trained_dir, tmp_path, auto_class_registered):
    tok = hf_bpe.BPETokenizer.from_pretrained(trained_dir)
    tok.register_for_auto_class()
    tok.save_pretrained(tmp_path / "remote")
    config = json.loads((tmp_path / "remote" / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["auto_map"]["AutoTokenizer"][0] == "bpe.BPETokenizer"
    assert "from hf_bpe import BPETokenizer" in (tmp_path / "remote" / "bpe.py").read_text()
    lines = run_python(
        f"""
        from transformers import AutoTokenizer
        tok = AutoTokenizer.from_pretrained({str(tmp_path / "remote")!r}, trust_remote_code=True)
        import hf_bpe
        print(type(tok) is hf_bpe.BPETokenizer, tok({TEXT!r})["input_ids"])
        """
    )
    assert lines == [f"True {expected_ids(trained_dir)}"]


def test_trust_remote_code_without_hf_bpe_says_what_to_install(trained_dir, tmp_path, auto_class_registered):
    tok = hf_bpe.BPETokenizer.from_pretrained(trained_dir)
    tok.register_for_auto_class()
    tok.save_pretrained(tmp_path / "remote")
    # A fresh interpreter where hf_bpe cannot be imported (its import raises, as if not installed).
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import sys
                sys.modules["hf_bpe"] = None  # makes "import hf_bpe" fail like a missing package
                from transformers import AutoTokenizer
                AutoTokenizer.from_pretrained({str(tmp_path / "remote")!r}, trust_remote_code=True)
                """
            ),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    assert "hf_bpe" in done.stderr and "pip install" in done.stderr


def test_a_models_own_directory_loads_as_the_readme_says(tmp_path):
    """README's promise, exactly: after ``import hf_bpe``, ``AutoTokenizer`` on a directory holding only a model's
    ``tokenizer.json`` keeps transformers' Rust backend (nothing names hf_bpe's class there), while
    ``hf_bpe.from_pretrained`` gives hf_bpe's class, with the same ids."""
    import shutil

    from real_tokenizers import model_tokenizer_json

    shutil.copy(model_tokenizer_json("qwen3"), tmp_path / "tokenizer.json")
    lines = run_python(
        f"""
import hf_bpe
from transformers import AutoTokenizer
auto, ours = AutoTokenizer.from_pretrained({str(tmp_path)!r}), hf_bpe.from_pretrained({str(tmp_path)!r})
print(type(auto).__name__, type(ours).__module__ + "." + type(ours).__name__)
print(auto({TEXT!r})["input_ids"] == ours({TEXT!r})["input_ids"])
"""
    )
    assert lines == ["TokenizersBackend hf_bpe.transformers.bpe.BPETokenizer", "True"]
