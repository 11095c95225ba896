"""How much of a multi-GB model file does gguftok read, and how long does a remote load take? (issue 22)

    python bench/bench_sources.py                 # 8 GiB and 1 GiB synthetic files, 5 repeats
    python bench/bench_sources.py --repeats 9 --size-gib 16
    python bench/bench_sources.py --rtt 20        # a simulated link: 20 ms a round trip, 3 more a new connection

The files are synthetic: Qwen2's real key/value section (ggml-vocab-qwen2.gguf, 151,936 tokens), 2,000 tensor
infos, then holes up to the size (sparse: no disk space), written by ``tests/loopback.py``'s ``sparse_model``,
as the tests do. Each is loaded:

- ``local``: ``Tokenizer.from_gguf(path)`` (memory-mapped: the bytes read are the extent the parse touched);
- ``https first``: from the loopback server of the tests (``http://127.0.0.1``, read as an ``https://`` URL is:
  range requests in growing blocks on one kept-alive connection), into an empty metadata cache;
- ``https urllib``: the same with the one-connection-per-block transport of before (``urllib``), for the
  keep-alive's share (on loopback a connection is cheap; on a real link each one costs a TCP and a TLS handshake,
  about 5 round trips);
- ``https cached``: again, the cache filled: one ``HEAD`` and no body bytes;
- ``hf first`` / ``hf cached`` / ``hf commit``: ``hf://`` through ``huggingface_hub`` against the tests' stand-in of
  the Hub (``HF_ENDPOINT``) and its CDN (another origin); ``hf commit`` names the revision by its commit, which
  never changes, so a cached read sends no request.

Figures: bytes read against the file's size, requests, new connections (``huggingface_hub``'s session keeps
its own across loads), the median of the repeats of
``read_metadata`` (where the source matters) and of ``from_gguf`` (what a user waits for: read, then build the
tables), and ratios against ``local``. Temporary files and the cache are removed at the end.

``--rtt MS`` makes the loopback servers wait, before each answer, one round trip, and on each new connection three
more (TCP, then a TLS 1.2 handshake): a model of a real link, not a measurement of one, to show what the
keep-alive saves there.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the loopback server and the sparse files of the tests

from loopback import HubStandIn, Loopback, sparse_model  # noqa: E402

import gguftok.sources.http as http_source  # noqa: E402
from gguftok import ReadReport, Tokenizer, open_source, read_metadata  # noqa: E402
from gguftok.data import vocab_dir  # noqa: E402

COMMIT = "c0ffee" * 6 + "beef"  # the stand-in's commit of every repository


def median_of(repeats: int, fn: Callable[[], object], before: Callable[[], object] | None = None) -> float:
    """The median wall-clock time of ``repeats`` runs of ``fn``; ``before()`` (untimed) runs before each."""
    times = []
    for _ in range(repeats):
        if before is not None:
            before()
        gc.collect()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


@contextlib.contextmanager
def urllib_transport() -> Iterator[None]:
    """Reads go through the transport of before the keep-alive: ``urllib``, a connection per request."""
    saved = http_source.KeepAliveTransport
    http_source.KeepAliveTransport = http_source.UrllibTransport  # type: ignore[misc,assignment]
    try:
        yield
    finally:
        http_source.KeepAliveTransport = saved  # type: ignore[misc]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--size-gib", type=int, default=8, help="the large file's size (the small one is 1 GiB)")
    parser.add_argument("--rtt", type=float, default=0.0, help="simulated round trip, in ms (default: none)")
    args = parser.parse_args()
    vocab = vocab_dir() / "ggml-vocab-qwen2.gguf"
    if not vocab.exists():
        raise SystemExit("the vocabularies are missing: run `make vocab`")
    for name in ("GGUFTOK_OFFLINE", "HF_HUB_OFFLINE", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        os.environ.pop(name, None)
    print(f"# {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, load "
          f"average {os.getloadavg()[0]:.2f}; median of {args.repeats} runs; loopback (127.0.0.1)"
          + (f", a simulated round trip of {args.rtt:g} ms (3 more a new connection)" if args.rtt else ""))
    tmp = Path(tempfile.mkdtemp(prefix="gguftok-bench-sources-"))
    try:
        run(tmp, vocab, args.repeats, [args.size_gib << 30, 1 << 30], args.rtt / 1e3)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(tmp: Path, vocab: Path, repeats: int, sizes: list[int], rtt: float) -> None:
    cache = tmp / "metadata-cache"
    os.environ["GGUFTOK_METADATA_CACHE"] = str(cache)

    def empty_cache() -> None:
        shutil.rmtree(cache, ignore_errors=True)

    files = {}
    read_bytes: dict[int, list[int]] = {}  # the bytes each first read of a file of that size took
    for size in sizes:
        path = tmp / f"qwen2-{size >> 30}g.gguf"
        files[size] = (path, sparse_model(path, vocab, size))
    with Loopback() as web, Loopback() as hub_server, Loopback() as cdn:
        for server in (web, hub_server, cdn):
            server.latency = rtt
        hub = HubStandIn(hub_server, cdn)
        hub.add("bench/models", {p.name: p for p, _ in files.values()}, commit=COMMIT)
        os.environ["HF_ENDPOINT"] = hub.endpoint
        with contextlib.suppress(ImportError):
            from huggingface_hub import constants

            constants.HF_HUB_OFFLINE = False
        for size, (path, kv_end) in files.items():
            url = web.serve(f"/{path.name}", path)
            hf = f"hf://bench/models/{path.name}"
            cases: list[tuple[str, Callable[[], object], Callable[[], object] | None]] = [
                ("local", lambda p=path: open_source(str(p)), None),
                ("https first", lambda u=url: open_source(u, progress=False), empty_cache),
                ("https urllib", lambda u=url: open_source(u, progress=False), empty_cache),
                ("https cached", lambda u=url: open_source(u, progress=False), None),
                ("hf first", lambda r=hf: open_source(r, progress=False), empty_cache),
                ("hf cached", lambda r=hf: open_source(r, progress=False), None),
                ("hf commit", lambda r=f"{hf}@{COMMIT}": open_source(r, progress=False), None),
            ]
            print(f"\n{path.name}: {size:,} bytes; the key/value section ends at {kv_end:,}")
            print(f"{'source':13s} {'bytes read':>11s} {'of the file':>11s} {'requests':>8s} {'new conns':>9s} "
                  f"{'read ms':>8s} {'x local':>7s} {'load ms':>8s} {'x local':>7s}")
            base: tuple[float, float] | None = None
            reads: dict[str, float] = {}
            for name, make, before in cases:
                with urllib_transport() if name == "https urllib" else contextlib.nullcontext():
                    if before is not None:
                        before()
                    servers = (web,) if name.startswith("https") else (hub_server, cdn)
                    opened = sum(s.connections for s in servers)
                    report = read_once(make)
                    connections = sum(s.connections for s in servers) - opened
                    read_s = median_of(repeats, lambda m=make: read_metadata(m()), before)
                    load_s = median_of(repeats, lambda m=make: Tokenizer.from_gguf(m()), before)
                if base is None:
                    base = (read_s, load_s)
                reads[name] = read_s
                if report.cache is None or report.cache == "stored":
                    read_bytes.setdefault(size, []).append(report.bytes_read)
                print(f"{name:13s} {report.bytes_read:11,} {100 * report.bytes_read / report.size:10.3f}% "
                      f"{report.requests:8d} {connections if name != 'local' else '-':>9} {1e3 * read_s:8.1f} "
                      f"{read_s / base[0]:6.2f}x {1e3 * load_s:8.1f} {load_s / base[1]:6.2f}x", flush=True)
            print(f"keep-alive: https first / https urllib = {reads['https first'] / reads['https urllib']:.2f}x "
                  f"(read); https first / local = {reads['https first'] / reads['local']:.2f}x")
    sizes_read = {size: sorted(set(got)) for size, got in read_bytes.items()}
    same = len({tuple(v) for v in sizes_read.values()}) == 1
    print(f"\nbytes read per file size: {', '.join(f'{s >> 30} GiB: {v}' for s, v in sizes_read.items())}; "
          + ("the same whatever the size" if same else "NOT the same: they grow with the file"))


def read_once(make: Callable[[], object]) -> ReadReport:
    """The :class:`ReadReport` of one ``read_metadata`` of a fresh source."""
    md = read_metadata(make())  # type: ignore[arg-type]
    assert md.origin is not None
    return md.origin


if __name__ == "__main__":
    main()
