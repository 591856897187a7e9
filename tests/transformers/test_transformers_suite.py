"""transformers' own tokenizer test suite, ``TokenizerTesterMixin``, run against BPETokenizer on GPT-2's files and
against WordPieceTokenizer on a vocabulary hf_bpe trains.

The mixin ships in the transformers sdist (``tests/test_tokenization_common.py``), not in the wheel: it is
downloaded with pip for the installed transformers version, once, and cached beside GPT-2's files (see
:func:`suite_package`). The test classes are ours, modelled on transformers' GPT-2 and BERT tokenization tests:
one loads GPT-2's ``vocab.json`` + ``merges.txt`` (saved by hf_bpe), one a WordPiece directory (``vocab.txt`` +
``tokenizer.json``) saved by hf_bpe. The expected tokens and ids of the mixin's integration test come from the
Rust backend loaded from the same files (``GPT2Tokenizer``; ``BertTokenizer`` on the same ``vocab.txt``). Mixin
tests that need the model hub are pointed at these local directories. The mixin costs about a minute per class,
so it runs once per class; GPT-2's directory with only ``tokenizer.json`` is a plain test against the Rust backend.
Where hf_bpe deliberately follows the Rust backend instead of the Python backend's contract, the test is marked
``xfail(strict=True)`` with the reason, and the README lists it.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import unittest.mock
from collections.abc import Callable
from pathlib import Path

import pytest
import transformers
from conftest import COURSE, multilingual_text
from transformers import BertTokenizer, GPT2Tokenizer

from hf_bpe import BPETokenizer, WordPieceTokenizer
from hf_bpe.models.wordpiece.training import train_wordpiece_from_iterator
from hf_bpe.reference.gpt2 import gpt2_files
from hf_bpe.reference.package_index import cache_lock

#: The sdist's files the mixin needs (it imports the two backend mixins relatively).
SUITE_FILES = ("test_tokenization_common.py", "test_tokenizers_backend_mixin.py", "test_sentencepiece_backend_mixin.py")
#: The package name: transformers' ``get_tests_dir()`` walks up to a directory whose name ends in "tests".
PACKAGE = "transformers_tests"


def suite_package(version: str = transformers.__version__) -> Path:
    """A directory holding the package ``transformers_tests`` with the mixin of transformers ``version``,
    made on first use under ``$HF_BPE_CACHE`` (default ``~/.cache/hf_bpe``) from the sdist on the package index."""
    root = Path(os.environ.get("HF_BPE_CACHE") or Path.home() / ".cache" / "hf_bpe") / f"transformers-{version}-suite"
    if (root / PACKAGE / SUITE_FILES[0]).is_file():
        return root
    # Every pytest-xdist worker imports this module: one downloads, the others wait and find its directory.
    with cache_lock(root.with_name(f".{root.name}.lock"), f"fetching transformers=={version}'s test suite"):
        if not (root / PACKAGE / SUITE_FILES[0]).is_file():
            _make_suite_package(version, root)
    return root


def _make_suite_package(version: str, root: Path) -> None:
    root.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hf-bpe-suite-", dir=root.parent) as scratch:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:"]
        done = subprocess.run([*command, "--dest", scratch, f"transformers=={version}"], capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"pip could not download transformers=={version}: {done.stderr.strip()[-500:]}")
        archive_path = next(Path(scratch).glob("transformers-*.tar.gz"))
        package = Path(scratch) / "out" / PACKAGE
        (package / "fixtures").mkdir(parents=True)
        with tarfile.open(archive_path) as archive:
            for name in SUITE_FILES:
                member = archive.extractfile(f"{archive_path.name.removesuffix('.tar.gz')}/tests/{name}")
                if member is None:
                    raise RuntimeError(f"{archive_path.name} has no tests/{name}")
                (package / name).write_bytes(member.read())
        (package / "__init__.py").write_text("", encoding="utf-8")
        # The mixin reads this file in setUpClass and never uses its text; the sdist leaves fixtures out.
        (package / "fixtures" / "sample_text.txt").write_text("This is a sample text.\n", encoding="utf-8")
        try:
            os.replace(Path(scratch) / "out", root)
        except OSError:  # another run made it first
            if not (root / PACKAGE / SUITE_FILES[0]).is_file():
                raise


sys.path.insert(0, str(suite_package()))
TokenizerTesterMixin = importlib.import_module(f"{PACKAGE}.test_tokenization_common").TokenizerTesterMixin
sys.path.pop(0)


def _deliberate(reason: str, raises: type[BaseException]):  # type: ignore[no-untyped-def]
    """Mark a mixin test that fails where hf_bpe deliberately follows the Rust backend: strictly, and only with
    the exception that difference raises."""
    return pytest.mark.xfail(strict=True, reason=reason, raises=raises)


#: Where hf_bpe follows the Rust backend and the mixin checks the Python backend's contract (README, "transformers'
#: test suite").
OVERFLOW_ROWS = (
    "deliberate: return_overflowing_tokens gives the Rust backend's rows (one per window, with "
    "overflow_to_sample_mapping), not the Python backend's overflowing_tokens/num_truncated_tokens keys; the mixin "
    "checks that shape only for TokenizersBackend instances"
)


class _HfBpeSuite(TokenizerTesterMixin):
    """The mixin with hf_bpe's deliberate differences marked; subclasses give the class and directory."""

    def _as_one_test(self, test: Callable[[], None]) -> None:
        """Run a mixin test with its subtests folded in, so that an xfail mark covers the whole of it."""
        with unittest.mock.patch.object(self, "subTest", lambda *args, **kwargs: contextlib.nullcontext()):
            test()

    @_deliberate(OVERFLOW_ROWS, KeyError)  # the Python contract's result["overflowing_tokens"]
    def test_maximum_encoding_length_single_input(self) -> None:
        self._as_one_test(super().test_maximum_encoding_length_single_input)

    @_deliberate(OVERFLOW_ROWS, AssertionError)  # "ValueError not raised": the Rust backend gives windows here
    def test_maximum_encoding_length_pair_input(self) -> None:
        self._as_one_test(super().test_maximum_encoding_length_pair_input)


class VocabMergesFilesTest(_HfBpeSuite, unittest.TestCase):
    """GPT-2's vocab.json + merges.txt, saved as hf_bpe saves a directory (tokenizer_config.json names
    BPETokenizer, which AutoTokenizer finds through hf_bpe's registration), with ``<|endoftext|>`` as the pad
    token too, so that the mixin's padding tests run (they skip a tokenizer without one).

    The mixin runs on this directory only (it takes about a minute): of GPT-2's two forms it covers more, hf_bpe's
    own saving and loading and the padding tests. The other, a directory with only the Rust backend's
    ``tokenizer.json``, is :func:`test_gpt2_tokenizer_json_only_directory`.
    """

    tokenizer_class = BPETokenizer
    test_seq2seq = False
    integration_expected_decoded_text: str | None = None

    @classmethod
    def setUpClass(cls) -> None:
        cls._scratch = Path(tempfile.mkdtemp(prefix="hf-bpe-mixin-"))
        tokenizer = BPETokenizer.from_pretrained(str(gpt2_files()), pad_token="<|endoftext|>")
        tokenizer.save_pretrained(cls._scratch / "gpt2")
        cls.from_pretrained_id = [str(cls._scratch / "gpt2")]
        super().setUpClass()
        # The reference for the integration test: the Rust backend on GPT-2's own files.
        rust = GPT2Tokenizer.from_pretrained(str(gpt2_files()))
        text = cls.integration_test_input_string
        cls.integration_expected_tokens = rust.tokenize(text)
        cls.integration_expected_token_ids = rust.encode(text, add_special_tokens=False)
        cls.integration_expected_decoded_text = rust.decode(cls.integration_expected_token_ids)

    @classmethod
    def tearDownClass(cls) -> None:
        super().tearDownClass()
        shutil.rmtree(cls._scratch, ignore_errors=True)


def test_gpt2_tokenizer_json_only_directory(tmp_path: Path) -> None:
    """GPT-2 as transformers' Rust backend saves it (tokenizer.json + tokenizer_config.json, no vocab.json) loads
    into BPETokenizer and gives the Rust backend's tokens, ids, rows and decoded text."""
    rust = GPT2Tokenizer.from_pretrained(str(gpt2_files()))
    rust.save_pretrained(tmp_path / "gpt2-json")
    assert sorted(os.listdir(tmp_path / "gpt2-json")) == ["tokenizer.json", "tokenizer_config.json"]
    ours = BPETokenizer.from_pretrained(str(tmp_path / "gpt2-json"))
    assert ours.vocab_size == 50257
    text = TokenizerTesterMixin.integration_test_input_string
    assert ours.tokenize(text) == rust.tokenize(text)
    ids = ours.encode(text, add_special_tokens=False)
    assert ids == rust.encode(text, add_special_tokens=False)
    assert ours.decode(ids) == rust.decode(ids)
    lines = text.splitlines()
    options = {"truncation": True, "max_length": 8, "stride": 2, "return_overflowing_tokens": True}
    assert dict(ours(lines, return_offsets_mapping=True, **options)) == dict(
        rust(lines, return_offsets_mapping=True, **options)
    )


class WordPieceVocabTxtTest(_HfBpeSuite, unittest.TestCase):
    """The mixin on WordPieceTokenizer, loaded from a directory hf_bpe trained and saved (``vocab.txt`` +
    ``tokenizer.json``); the integration test's expected tokens, ids and decoded text come from transformers' Rust
    ``BertTokenizer`` loaded from the same ``vocab.txt``."""

    tokenizer_class = WordPieceTokenizer
    test_seq2seq = False
    integration_expected_decoded_text: str | None = None

    @classmethod
    def setUpClass(cls) -> None:
        cls._scratch = Path(tempfile.mkdtemp(prefix="hf-bpe-mixin-wordpiece-"))
        texts = [*COURSE] * 3 + [multilingual_text(300, 3), TokenizerTesterMixin.integration_test_input_string] * 2
        train_wordpiece_from_iterator(texts, vocab_size=1500).save(cls._scratch / "wordpiece")
        cls.from_pretrained_id = [str(cls._scratch / "wordpiece")]
        super().setUpClass()
        (cls._scratch / "vocab-only").mkdir()
        shutil.copy(cls._scratch / "wordpiece" / "vocab.txt", cls._scratch / "vocab-only" / "vocab.txt")
        rust = BertTokenizer.from_pretrained(str(cls._scratch / "vocab-only"))
        text = cls.integration_test_input_string
        cls.integration_expected_tokens = rust.tokenize(text)
        cls.integration_expected_token_ids = rust.encode(text, add_special_tokens=False)
        cls.integration_expected_decoded_text = rust.decode(cls.integration_expected_token_ids)

    @classmethod
    def tearDownClass(cls) -> None:
        super().tearDownClass()
        shutil.rmtree(cls._scratch, ignore_errors=True)


def test_the_full_signature_is_stored_when_the_files_name_no_pad_token(tmp_path: Path) -> None:
    """The mixin's ``test_tokenizer_store_full_signature`` on GPT-2's files saved with no pad token (the suite's
    class above gives one): every argument of ``__init__`` is in ``init_kwargs`` all the same."""
    BPETokenizer.from_pretrained(str(gpt2_files())).save_pretrained(tmp_path / "gpt2")

    class NoPadToken(TokenizerTesterMixin, unittest.TestCase):  # type: ignore[misc, valid-type]
        tokenizer_class = BPETokenizer
        from_pretrained_id = str(tmp_path / "gpt2")

    NoPadToken.setUpClass()
    try:
        case = NoPadToken("test_tokenizer_store_full_signature")
        assert case.get_tokenizer().pad_token is None
        case.test_tokenizer_store_full_signature()
    finally:
        NoPadToken.tearDownClass()
