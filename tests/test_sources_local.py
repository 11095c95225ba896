"""Local sources (issue 22): a multi-GB model is read no further than its metadata; split models; references.

Bytes read are measured twice: what the reader was given (``origin.bytes_read``, the extent of the memory map
the parser may touch) and, on Linux, the pages of the file the kernel holds after the load (``mincore`` after
dropping the file from the page cache): neither grows from a 1 GiB file to an 8 GiB one.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import struct
import sys

import pytest
from gguf_reference import ours_digests

from gguftok import GGUFError, Tokenizer, read_metadata
from gguftok.errors import SourceError
from gguftok.sources import Options, Source, check_shard, kind_of, open_source
from gguftok.sources.base import BytesReader
from gguftok.sources.local import first_shard, shard_of
from gguftok.writer import write_gguf

BLOCK = Options().max_block


def test_an_8_gb_model_is_read_no_further_than_its_metadata(sparse_models, vocab_path):
    local = read_metadata(vocab_path("qwen2"))
    read = {}
    for size, (path, kv_end) in sparse_models.items():
        assert path.stat().st_size == size and path.stat().st_blocks * 512 < 16 << 20  # sparse: holes
        md = read_metadata(path)
        assert md.kv_end == kv_end and md.tensor_count == 2000
        assert {k: v for k, v in ours_digests(md).items()} == ours_digests(local)
        assert md.origin.kind == "file" and md.origin.size == size
        assert kv_end <= md.origin.bytes_read <= kv_end + BLOCK
        read[size] = md.origin.bytes_read
    assert read[1 << 30] == read[8 << 30]  # it does not grow with the file


def _resident_bytes(path) -> int:
    """The bytes of ``path`` in the page cache (Linux ``mincore`` over a private map of the file)."""
    libc = ctypes.CDLL(None, use_errno=True)
    size = os.path.getsize(path)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY) as mm:
        addr = ctypes.addressof(ctypes.c_char.from_buffer(mm))
        pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
        vec = (ctypes.c_ubyte * pages)()
        assert libc.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(size), vec) == 0, ctypes.get_errno()
        resident = bytes(vec).count(1) + bytes(vec).count(3)
    return resident * mmap.PAGESIZE


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mincore and posix_fadvise: Linux")
def test_the_pages_read_from_disk_do_not_grow_with_the_file(sparse_models):
    touched = {}
    for size, (path, kv_end) in sparse_models.items():
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
        if _resident_bytes(path) > 0:
            pytest.skip("this file system keeps the pages cached whatever we ask (tmpfs?)")
        read_metadata(path)
        touched[size] = _resident_bytes(path)
        # the metadata, plus the kernel's read-ahead around the faults (a few MB): never the tensors
        assert kv_end <= touched[size] <= kv_end + (32 << 20), touched
    assert touched[1 << 30] == touched[8 << 30]


def test_the_tokenizer_of_the_8_gb_model_is_qwen2s(sparse_models, toks):
    path, _ = sparse_models[8 << 30]
    tok = Tokenizer.from_gguf(path)
    assert tok.encode("Hello world!") == toks("qwen2").encode("Hello world!") == [9707, 1879, 0]
    assert tok.source_path == os.path.abspath(path) and tok.vocab.md.origin.size == 8 << 30


class MemorySource(Source):
    """The bytes of a file delivered in blocks as small as asked: every place the parser can run out of bytes."""

    kind = "file"

    def __init__(self, data: bytes, **options) -> None:
        super().__init__("<memory>", Options(**options))
        self.data = data

    def open(self) -> BytesReader:
        reader = BytesReader(self.data, "<bytes>", self.options)
        reader.close = lambda: setattr(self, "report", reader.report())
        return reader


def test_small_blocks_give_the_same_metadata_as_the_whole_file(each_vocab):
    """A parse that runs out of bytes anywhere (a header, a string, a bulk window, a number array) asks for
    more and goes on: with blocks from 64 bytes, every vocabulary reads the same as from the whole file."""
    blob = each_vocab.read_bytes()
    whole = read_metadata(blob)
    md = read_metadata(MemorySource(blob, first_block=64, max_block=64 << 10))
    assert ours_digests(md) == ours_digests(whole) and md.offsets == whole.offsets and md.kv_end == whole.kv_end
    assert md.origin.bytes_read <= whole.kv_end + (64 << 10)


@pytest.mark.parametrize("cut", [0, 3, 10, 23, 30, 100, 1000, 5000, 20000])
def test_small_blocks_give_the_same_errors_as_the_whole_file(vocab_path, cut):
    blob = vocab_path("llama-spm").read_bytes()
    md = read_metadata(blob)
    blob = blob[:min(cut, md.kv_end - 1)] if cut < 20000 else blob[:md.kv_end - 3]
    with pytest.raises(GGUFError) as whole:
        read_metadata(blob)
    with pytest.raises(GGUFError) as blocks:
        read_metadata(MemorySource(blob, first_block=64, max_block=256))
    assert str(blocks.value).removeprefix("<bytes>") == str(whole.value).removeprefix("<bytes>")


# ------------------------------------------------------------------------------------------ split models


def _shards(tmp_path, vocab_path, count=3):
    """A split model as gguf-split writes it: the first shard has every key, the others only split.*."""
    md = read_metadata(vocab_path("gpt-2"))
    kv = {k: (md.types[k] if not isinstance(md.types[k], tuple) else md.types[k][-1], md[k]) for k in md
          if k.startswith("tokenizer.ggml.")}
    paths = []
    for no in range(count):
        keys = {"split.no": (4, no), "split.count": (4, count), "split.tensors.count": (4, 0)}
        if no == 0:
            keys.update({k: (t, list(v) if hasattr(v, "tolist") or isinstance(v, list) else v) for k, (t, v)
                         in kv.items()})
        p = tmp_path / f"gpt2-Q4-{no + 1:05d}-of-{count:05d}.gguf"
        write_gguf(p, keys, arch="gpt2")
        paths.append(p)
    return paths


def test_the_first_shard_of_a_split_model_loads(tmp_path, vocab_path, toks):
    first, second, third = _shards(tmp_path, vocab_path)
    tok = Tokenizer.from_gguf(first)
    assert tok.encode("Hello world") == toks("gpt-2").encode("Hello world")
    for later in (second, third):
        with pytest.raises(SourceError, match=r"shard \d of 3 of a split model; only the first shard holds the "
                           r"tokenizer: load .*gpt2-Q4-00001-of-00003\.gguf") as e:
            Tokenizer.from_gguf(later)
        assert e.value.reason == "shard" and str(first) in str(e.value)
    assert read_metadata(second)["split.no"] == 1  # the metadata itself reads


def test_a_later_shard_under_another_name_is_known_by_its_split_keys(tmp_path, vocab_path):
    _, second, _ = _shards(tmp_path, vocab_path)
    renamed = second.rename(tmp_path / "part-two.gguf")
    with pytest.raises(SourceError, match=r"shard 2 of 3 .* -00001-of-00003.gguf"):
        Tokenizer.from_gguf(renamed)


def test_shard_names():
    assert shard_of("a-00001-of-00002.gguf") == (1, 2) and shard_of("a.gguf") is None
    assert first_shard("https://h/x/m-00003-of-00004.gguf") == "https://h/x/m-00001-of-00004.gguf"
    src = open_source("hf://me/repo/m-00002-of-00002.gguf")
    with pytest.raises(SourceError, match=r"load hf://me/repo/m-00001-of-00002.gguf"):
        check_shard(src)  # before anything is read


# ------------------------------------------------------------------------------------------ references


def test_reference_kinds(tmp_path, vocab_path):
    assert [kind_of(r) for r in ("a.gguf", "./a:b.gguf", "https://h/a.gguf", "http://127.0.0.1/a", "hf://a/b/c",
                                 "ollama:x", "file:///a")] == ["file", "file", "https", "http", "hf", "ollama", "file"]
    for ref in ("s3://bucket/m.gguf", "ftp://h/m.gguf"):
        with pytest.raises(SourceError, match=r"cannot read .*:// references") as e:
            open_source(ref)
        assert e.value.reason == "bad-reference"
    path = vocab_path("gpt-2")
    assert read_metadata(f"file://{path}").kv_end == read_metadata(path).kv_end


def test_a_missing_file_says_so(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no such file: .*nothing.gguf"):
        read_metadata(tmp_path / "nothing.gguf")


def test_options_are_checked():
    for bad in ({"timeout": 0}, {"deadline": -1}, {"first_block": 1}, {"max_metadata": "x"}):
        with pytest.raises(ValueError):
            Options(**bad)


def test_a_short_file_through_a_source(tmp_path):
    (tmp_path / "s.gguf").write_bytes(b"GGUF" + struct.pack("<I", 3))
    with pytest.raises(GGUFError, match="the GGUF header needs 24 bytes but the file ends after 8"):
        read_metadata(open_source(tmp_path / "s.gguf"))


def _outcome(source):
    try:
        md = read_metadata(source)
    except GGUFError as e:
        return str(e)
    return ours_digests(md), md.kv_end


@pytest.mark.parametrize("name", ["llama-spm", "bert-bge"])
def test_mutated_files_read_in_blocks_as_whole(vocab_path, name):
    """Hostile files (test_metadata_fuzz's mutations) give the same values or the same error, whether the
    parser has the whole file or gets it in small blocks."""
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from test_metadata_fuzz import mutate, original

    blob, spots = original(vocab_path(name))

    @settings(max_examples=25, deadline=None)
    @given(st.data())
    def check(data):
        mutated = mutate(data, blob, spots)
        cut = data.draw(st.integers(24, len(blob)))
        mutated = bytes(mutated[:cut])
        first = data.draw(st.sampled_from([64, 1000, 4096]))
        assert _outcome(MemorySource(mutated, first_block=first, max_block=64 << 10)) == _outcome(mutated)

    check()
