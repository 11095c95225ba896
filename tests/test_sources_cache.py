"""The on-disk cache of remote metadata (gguftok.sources.cache) on its own: keys scoped to who claimed them, no
link followed out of the root (reading, listing, writing, clearing), and every damaged entry a silent miss."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import threading

import pytest

from gguftok.sources import cache as cache_module
from gguftok.sources.cache import MetadataCache, commit_key, content_key, hub_reference_key, scope, url_reference_key

SHA = "ab" * 32
KEY = content_key("https://huggingface.co", SHA)
DATA = b"GGUF" + bytes(range(60))

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink") or os.name != "posix", reason="POSIX links")


@pytest.fixture(autouse=True, params=["openat", "paths"])
def folders(request, monkeypatch):
    """Each test twice: relative to open folders (POSIX), and with the checks made on paths (what a system
    without openat gets, as Windows)."""
    if request.param == "paths":
        monkeypatch.setattr(cache_module, "_AT", False)
    return request.param


def kept(root, data: bytes = DATA, key: str = KEY) -> MetadataCache:
    cache = MetadataCache(root)
    cache.put([key], data, size=10**6, location="https://cdn.example/m.gguf?sig=secret", validator='"v"')
    return cache


def files_under(folder) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def index_name(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest() + ".json"


# ------------------------------------------------------------------------------------------ the keys


def test_keys_name_the_endpoint_that_claimed_them():
    assert content_key("https://huggingface.co", SHA) != content_key("https://mirror.example", SHA)
    assert content_key("HTTPS://HuggingFace.co/", SHA) == content_key("https://huggingface.co:443", SHA)
    assert content_key("http://127.0.0.1:8080", SHA) != content_key("http://127.0.0.1:8081", SHA)
    assert content_key("https://x.example/a", SHA) != content_key("https://x.example/b", SHA)
    assert commit_key("https://a.example", None, "me/m", "c" * 40, "m.gguf") != commit_key(
        "https://b.example", None, "me/m", "c" * 40, "m.gguf")
    assert hub_reference_key("https://a.example", "dataset", "me/m", "main", "m.gguf") == \
        "ref:https://a.example dataset me/m main m.gguf"
    assert url_reference_key("https://x.example/m.gguf") == "ref:https://x.example/m.gguf"
    # the scope holds no space, no credential and no query: the rest of the key is never read as part of it
    assert scope("https://user:secret@x.example/a b/?q=1#f") == "https://x.example/a%20b"
    assert " " not in scope("not a url at all")


def test_a_claim_kept_for_one_endpoint_is_a_miss_for_another(tmp_path):
    cache = kept(tmp_path / "c")
    assert cache.get(KEY).data == DATA
    assert cache.get(content_key("https://mirror.example", SHA)) is None
    assert cache.get(f"etag:{SHA}") is None  # the unscoped key of older versions names nobody: never a hit


# ------------------------------------------------------------------------------------------ links out of the root


@pytest.fixture
def linked(tmp_path):
    """A root whose index/ and blobs/ are links to folders outside it, holding files named as the cache names
    its own (a valid entry, even) and a file of someone else's."""
    outside = tmp_path / "outside"
    kept(outside)
    (outside / "index" / ".part-abc").write_bytes(b"someone's")
    (outside / "blobs" / "mine.txt").write_bytes(b"someone's")
    root = tmp_path / "root"
    root.mkdir()
    (root / "index").symlink_to(outside / "index", target_is_directory=True)
    (root / "blobs").symlink_to(outside / "blobs", target_is_directory=True)
    return root, outside


def test_clear_follows_no_linked_folder_out_of_the_root(linked):
    root, outside = linked
    before = files_under(outside)
    assert len(before) == 4
    assert MetadataCache(root).clear() == (0, 0)
    assert files_under(outside) == before
    assert (root / "index").is_symlink() and (root / "blobs").is_symlink()


def test_get_and_entries_follow_no_linked_folder(linked):
    root, outside = linked
    assert MetadataCache(outside).get(KEY) is not None  # the entry is good where it is
    assert MetadataCache(root).get(KEY) is None
    assert MetadataCache(root).entries() == []


def test_put_writes_nothing_through_a_linked_folder(linked):
    root, outside = linked
    before = files_under(outside)
    for linked_folder in ("index", "blobs"):
        with pytest.raises(OSError, match="link"):
            kept(root, b"GGUF other bytes", content_key("https://x.example", "cd" * 32))
        assert files_under(outside) == before
        (root / linked_folder).unlink()  # the other one still is a link
    kept(root, b"GGUF other bytes")  # real folders now
    assert files_under(outside) == before and MetadataCache(root).get(KEY).data == b"GGUF other bytes"


def test_a_linked_file_in_the_cache_is_neither_read_listed_written_through_nor_removed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.gguf"
    secret.write_bytes(DATA)  # the very bytes: even so, a link is not a kept file
    record = outside / "record.json"
    root = tmp_path / "root"
    cache = kept(root)
    blob = root / "blobs" / f"{hashlib.sha256(DATA).hexdigest()}.gguf"
    index = root / "index" / index_name(KEY)
    record.write_bytes(index.read_bytes())
    blob.unlink()
    blob.symlink_to(secret)
    assert cache.get(KEY) is None and cache.entries() == []
    index.unlink()
    index.symlink_to(record)
    assert cache.get(KEY) is None and cache.entries() == []
    assert cache.clear() == (0, 0)
    assert secret.read_bytes() == DATA and record.exists() and blob.is_symlink() and index.is_symlink()
    # a write replaces the links with files of its own: what they pointed to is untouched
    secret.write_bytes(b"GGUF" + bytes(len(DATA) - 4))  # the same length, other bytes
    kept(root)
    assert not blob.is_symlink() and not index.is_symlink() and cache.get(KEY).data == DATA
    assert secret.read_bytes() == b"GGUF" + bytes(len(DATA) - 4) and record.exists()


def test_clear_removes_from_the_folder_it_opened_when_it_is_swapped_for_a_link(tmp_path, monkeypatch, folders):
    """index/ replaced by a link to an outside folder right after it is listed (a race): the removals happen in
    the folder that was listed, never in the one the link leads to."""
    if folders == "paths":
        pytest.skip("the race is closed only relative to an open folder")
    root = tmp_path / "root"
    kept(root)
    outside = tmp_path / "outside"
    outside.mkdir()
    names = sorted(p.name for p in (root / "index").iterdir())
    for name in names:
        (outside / name).write_bytes(b"someone's")
    index_inode = (root / "index").stat().st_ino
    real_listdir, real_scandir = os.listdir, os.scandir
    swapped: list[bool] = []

    def swap(listed) -> None:
        is_index = (os.fstat(listed).st_ino if isinstance(listed, int) else os.stat(listed).st_ino) == index_inode
        if is_index and not swapped:
            swapped.append(True)
            os.rename(root / "index", root / "index.moved")
            os.symlink(outside, root / "index", target_is_directory=True)

    class Listed(list):
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

    def listdir(path="."):
        out = real_listdir(path)
        swap(path)
        return out

    def scandir(path="."):
        with real_scandir(path) as entries:
            out = Listed(entries)
        swap(path)
        return out

    monkeypatch.setattr(os, "listdir", listdir)
    monkeypatch.setattr(os, "scandir", scandir)
    MetadataCache(root).clear()
    monkeypatch.undo()
    assert swapped and (root / "index").is_symlink()
    assert sorted(p.name for p in outside.iterdir()) == names  # nothing removed out there
    assert list((root / "index.moved").iterdir()) == []  # the records, removed where they were listed


def test_clear_removes_only_the_caches_own_files(tmp_path):
    root = tmp_path / "root"
    kept(root)
    (root / "index" / "notes.json").write_text("mine")  # not a record name
    (root / "blobs" / "model.gguf").write_text("mine")  # not a blob name
    (root / "blobs" / ("cd" * 32 + ".gguf")).mkdir()  # a folder with a blob's name
    record = (root / "index" / index_name(KEY)).stat().st_size
    assert MetadataCache(root).clear() == (2, len(DATA) + record)
    assert sorted(p.name for p in (root / "index").iterdir()) == ["notes.json"]
    assert sorted(p.name for p in (root / "blobs").iterdir()) == ["cd" * 32 + ".gguf", "model.gguf"]


# ------------------------------------------------------------------------------------------ damaged entries


def corrupt_record(root, raw: bytes, key: str = KEY) -> None:
    (root / "index" / index_name(key)).write_bytes(raw)


GOOD = {"key": KEY, "blob": hashlib.sha256(DATA).hexdigest(), "length": len(DATA), "size": 10**6,
        "location": "https://cdn.example/m.gguf", "validator": '"v"', "stored": "2026-01-01T00:00:00Z"}


@pytest.mark.parametrize("raw", [
    b"[" * (64 << 10),  # nested past the recursion limit
    b"{" * 30000,
    b"\xff\xfe not utf-8",
    b"", b"null", b"[]", b'"text"', b"42",
    json.dumps({**GOOD, "blob": 7}).encode(),
    json.dumps({**GOOD, "blob": "AB" * 32}).encode(),
    json.dumps({**GOOD, "key": None}).encode(),
    json.dumps({**GOOD, "key": "another key"}).encode(),
    json.dumps({**GOOD, "length": True}).encode(),
    json.dumps({**GOOD, "length": "64"}).encode(),
    json.dumps({**GOOD, "length": len(DATA) + 1}).encode(),
    json.dumps({**GOOD, "length": 0}).encode(),
    json.dumps({**GOOD, "length": (1 << 30) + 1, "size": 1 << 40}).encode(),  # more than any metadata kept
    json.dumps({**GOOD, "size": 3}).encode(),
    json.dumps({**GOOD, "size": None}).encode(),
    json.dumps({k: v for k, v in GOOD.items() if k != "length"}).encode(),
    json.dumps({**GOOD, "pad": " " * (64 << 10)}).encode(),  # longer than any record of ours
], ids=lambda raw: repr(raw[:24]))
def test_a_corrupt_record_is_a_silent_miss_and_is_overwritten(tmp_path, raw):
    root = tmp_path / "root"
    cache = kept(root)
    corrupt_record(root, raw)
    assert cache.get(KEY) is None
    listed = cache.entries()
    assert all(isinstance(e.keys, list) for e in listed)
    kept(root)
    assert cache.get(KEY).data == DATA


def test_odd_fields_of_a_sound_record_are_ignored(tmp_path):
    root = tmp_path / "root"
    cache = kept(root)
    corrupt_record(root, json.dumps({**GOOD, "location": 5, "validator": ["x"], "stored": {}}).encode())
    got = cache.get(KEY)
    assert got.data == DATA and got.location == "" and got.validator is None
    (entry,) = cache.entries()
    assert entry.location == "" and entry.stored == ""


def test_a_damaged_blob_is_a_miss_and_the_next_read_rewrites_it(tmp_path):
    root = tmp_path / "root"
    cache = kept(root)
    blob = root / "blobs" / f"{hashlib.sha256(DATA).hexdigest()}.gguf"
    blob.write_bytes(b"GGUF" + bytes(len(DATA) - 4))  # the same length, other bytes
    assert cache.get(KEY) is None
    kept(root)
    assert cache.get(KEY).data == DATA
    blob.write_bytes(DATA + b"more")
    assert cache.get(KEY) is None
    blob.unlink()
    blob.mkdir()
    assert cache.get(KEY) is None and cache.entries() == []


def test_a_pipe_where_a_record_or_blob_should_be_does_not_block(tmp_path):
    root = tmp_path / "root"
    cache = kept(root)
    fifos = [root / "index" / index_name(KEY), root / "blobs" / f"{hashlib.sha256(DATA).hexdigest()}.gguf"]
    for fifo in fifos:
        fifo.unlink()
        os.mkfifo(fifo)
        box: dict[str, object] = {}

        def read(box: dict[str, object] = box) -> None:
            box.update(got=cache.get(KEY), listed=cache.entries())

        worker = threading.Thread(target=read, daemon=True)
        worker.start()
        worker.join(10)
        blocked = worker.is_alive()
        if blocked:  # release the reader stuck on the pipe (a writer that closes at once)
            for _ in range(2):
                with contextlib.suppress(OSError):
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                worker.join(5)
        assert not blocked, f"reading the cache blocked on the pipe {fifo.name}"
        assert box["got"] is None and box["listed"] == []
        fifo.unlink()
        kept(root)  # put back a sound entry
        assert stat.S_ISREG(fifo.stat().st_mode) and cache.get(KEY) is not None


def test_a_root_that_is_a_file_or_missing(tmp_path):
    missing = MetadataCache(tmp_path / "nowhere")
    assert missing.get(KEY) is None and missing.entries() == [] and missing.clear() == (0, 0)
    assert not (tmp_path / "nowhere").exists()
    afile = tmp_path / "file"
    afile.write_text("not a folder")
    cache = MetadataCache(afile)
    assert cache.get(KEY) is None and cache.entries() == [] and cache.clear() == (0, 0)
    with pytest.raises(OSError):
        kept(afile)
    assert afile.read_text() == "not a folder"


def test_a_root_that_is_a_link_is_used(tmp_path):
    """The root itself is where the user pointed the cache ($GGUFTOK_METADATA_CACHE): a link there is theirs."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "root").symlink_to(real, target_is_directory=True)
    cache = kept(tmp_path / "root")
    assert cache.get(KEY).data == DATA and len(cache.entries()) == 1
    assert cache.clear()[0] == 2 and list(real.iterdir()) == []
