"""Shared fixtures: the pinned vocabularies, found in one place."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from gguftok.data import load_manifest, missing_or_wrong, vocab_dir

REPO = Path(__file__).resolve().parent.parent
# Prepared tables (gguftok.tables) in a folder of this run's own, never the user's cache: every tokenizer of the
# suite starts unprepared unless a test prepares it. Child processes (the CLI, notebook kernels) inherit it.
os.environ["GGUFTOK_TABLES"] = _TABLES = tempfile.mkdtemp(prefix="gguftok-tables-")
atexit.register(shutil.rmtree, _TABLES, ignore_errors=True)
_STARTED = time.time()
MANIFEST = load_manifest()
VOCAB_NAMES = sorted(n.removeprefix("ggml-vocab-").removesuffix(".gguf") for n in MANIFEST if n.endswith(".gguf"))


def _require_vocab() -> Path:
    """data/vocab, complete (sizes checked); missing files fail under CI and skip elsewhere, saying why."""
    dest = vocab_dir()
    missing = missing_or_wrong(dest, MANIFEST, deep=False)
    if missing:
        why = f"{len(missing)} pinned vocabulary files missing from {dest} (e.g. {missing[0]}); run `make vocab`"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    return dest


@pytest.fixture(scope="session")
def vocab_path():
    """``vocab_path("qwen2")`` -> the path of ``ggml-vocab-qwen2.gguf``."""
    dest = _require_vocab()
    return lambda name, suffix=".gguf": dest / f"ggml-vocab-{name}{suffix}"


@pytest.fixture(scope="session")
def toks(vocab_path):
    """``toks("qwen2")`` -> the Tokenizer of ``ggml-vocab-qwen2.gguf``, loaded once per session."""
    from gguftok import Tokenizer

    cache: dict[str, Tokenizer] = {}

    def get(name: str) -> Tokenizer:
        if name not in cache:
            cache[name] = Tokenizer.from_gguf(vocab_path(name))
        return cache[name]

    return get


@pytest.fixture(scope="session", params=VOCAB_NAMES)
def each_vocab(request, vocab_path) -> Path:
    """Each of the 19 pinned vocabulary files in turn."""
    return vocab_path(request.param)


FAILED = pytest.StashKey[bool]()  # set on a test whose call failed, for its fixtures' teardown


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Mark the test whose call failed (pytest's recipe for a test's outcome in fixtures)."""
    report = yield
    if report.when == "call" and report.failed:
        item.stash[FAILED] = True
    return report


def _file_rank(path: str, count: int) -> tuple:
    """The order files start in: the browser layer first (each workbook file a JupyterLab and minutes of work, then
    voila's), then the notebooks (a kernel each), then the rest by number of tests, most first, as pytest-xdist
    would order them."""
    if path.startswith("tests/browser/"):
        return (0, 0 if "/test_workbook_" in path else 1)
    if path.endswith(".ipynb"):
        return (1, 0)
    return (2, -count)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Longest files first, so that no worker is left with one at the end while the others stand idle.

    pytest-xdist hands out whole files (``--dist loadfile``) in this order when told not to reorder them
    (``--no-loadscope-reorder``, as ``make test`` does); its own order, most tests first, ran the browser layer
    last, and the last of it ran alone. The tests of each file keep their order (nbval runs a notebook's cells
    in turn)."""
    files: dict[str, int] = {}
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        files[path] = files.get(path, 0) + 1
    first = {path: i for i, path in enumerate(files)}
    index = {id(item): i for i, item in enumerate(items)}

    def key(item):
        path = item.nodeid.split("::", 1)[0]
        return (_file_rank(path, files[path]), first[path], index[id(item)])

    items.sort(key=key)


def pytest_terminal_summary(terminalreporter):
    """Name the folder of screenshots the browser tests wrote in this run (for people; never compared)."""
    shots = REPO / "build" / "screenshots"
    fresh = [p for p in shots.glob("*.png") if p.stat().st_mtime >= _STARTED]
    if fresh:
        terminalreporter.write_line(f"screenshots of the workbook's views in JupyterLab ({len(fresh)}): {shots}")


# ------------------------------------------------------------------ gguftok.sources: servers on loopback


@pytest.fixture
def metadata_cache(tmp_path, monkeypatch):
    """An empty on-disk cache of remote metadata for one test (``$GGUFTOK_METADATA_CACHE``), and no offline mode."""
    root = tmp_path / "metadata-cache"
    monkeypatch.setenv("GGUFTOK_METADATA_CACHE", str(root))
    for name in ("GGUFTOK_OFFLINE", "HF_HUB_OFFLINE", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return root


@pytest.fixture(scope="session")
def loopback():
    """An HTTP server on 127.0.0.1 for the session (``tests/loopback.py``); each test adds what it serves."""
    from loopback import Loopback

    with Loopback() as srv:
        yield srv


@pytest.fixture(scope="session")
def sparse_models(tmp_path_factory, vocab_path):
    """``{size: (path, kv_end)}``: Qwen2's key/value section, 2,000 tensor infos, holes up to 1 GiB and 8 GiB."""
    from loopback import sparse_model

    folder = tmp_path_factory.mktemp("sparse")
    out = {}
    for size in (1 << 30, 8 << 30):
        path = folder / f"qwen2-{size >> 30}g.gguf"
        out[size] = (path, sparse_model(path, vocab_path("qwen2"), size))
    return out


@pytest.fixture(scope="session")
def certificate(tmp_path_factory):
    """A self-signed certificate for localhost, and its key."""
    import shutil

    if shutil.which("openssl") is None:
        pytest.skip("openssl (the command) makes the certificate of the https server")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "2", "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1"], check=True, capture_output=True)
    return cert, key
