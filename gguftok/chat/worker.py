"""The render process: where chat templates run, so that a render can be stopped on time and its memory is
bounded by the operating system, whatever the template does.

The sandbox's budget (:mod:`gguftok.chat.budget`) checks the time between the template's operations and
counts what it builds. One operation, though, can run long in C or in a library's Python code (``urlize`` on
a 4 MB string, a sort or a comparison of large lists) before the next check. So templates render in a child
process (one per parent process, started on first use, kept between renders):

- the parent stops it when a render passes its time limit (plus ``GRACE``): killed, and started again on
  the next render; a traceback that the child dumps just before (``faulthandler``) names the template line;
- on Linux the child limits its own address space to what it had plus ``max_memory`` while a render runs
  (``RLIMIT_AS``), so an allocation past the budget fails there with ``MemoryError``, reported with the line.

The child imports only the sandbox's modules (not numpy, not the tokenizer), and reads and writes
length-prefixed pickles on its stdin and on a private copy of its stdout; what it sends back holds only
strings, numbers, tuples and dicts, and the parent unpickles no class. Where there is no such process
(Windows, or ``ChatTemplate(isolate=False)``), templates render in the calling process with the budget's
checks alone.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import pickle
import re
import selectors
import struct
import subprocess
import sys
import threading
import time
import warnings
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ChatTemplateError

if TYPE_CHECKING:
    from .sandbox import Compiled

GRACE = 1.0  # seconds past a render's time limit before its process is stopped
START_TIMEOUT = 60.0  # seconds the child may take to start
_HEADER = struct.Struct(">Q")
_CACHE = 64  # compiled templates the child keeps
_CHAT = Path(__file__).resolve().parent
_BOOT = """
import sys, types
sys.path[:0] = {paths!r}
for name, path in {packages!r}:
    module = types.ModuleType(name)
    module.__path__ = [path]
    sys.modules[name] = module
from gguftok.chat.worker import serve
serve({fd})
"""


def available() -> bool:
    """Whether renders can run in a child process here."""
    return os.name == "posix" and bool(sys.executable)


# ----------------------------------------------------------------------------------------- the parent
class _Safe(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"the render process sent a {module}.{name}")


class RenderProcess:
    """The child process templates render in, and the pipes to it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._pid = os.getpid()
        self._dump: int | None = None  # the read end of the pipe the child's faulthandler writes to
        self._sel: selectors.BaseSelector | None = None
        self._buf = bytearray()  # what was read from the child and not yet taken

    def render(self, compiled: Compiled, context: dict[str, Any], *, timeout: float, max_chars: int,
               max_memory: int, runs: Any) -> tuple[str, dict[str, str] | None]:
        """:func:`gguftok.chat.sandbox.render` in the child: the text and the marks' registry, or
        ChatTemplateError (the child's, or a stopped render's). OSError: the child cannot be started."""
        name = compiled.name
        job = {"name": name, "source": compiled.source, "context": context, "timeout": timeout, "max_chars": max_chars,
               "max_memory": max_memory, "runs": runs, "dump_after": timeout + GRACE / 2}
        with self._lock:
            if os.getpid() != self._pid:  # a forked copy of the parent: the pipes are the parent's
                self._proc, self._pid, self._dump, self._sel = None, os.getpid(), None, None
            if self._proc is None or self._proc.poll() is not None:
                self._start()
            try:
                reply = self._ask(job, timeout + GRACE)
            except BaseException:
                self._stop()  # interrupted, or the pipe broke: never read a stale reply later
                raise
            if reply[0] == "stopped":
                line = self._line_of_dump(compiled)
                self._stop()
                raise ChatTemplateError(f"the template ran longer than the time limit ({timeout:g} s); its "
                                        "render was stopped", template=name, line=line)
            if reply[0] == "died":
                self._stop()
                raise ChatTemplateError(f"the render process ended unexpectedly ({reply[1]}), most likely out "
                                        f"of memory (the render may allocate at most {max_memory >> 20:,} MB)",
                                        template=name)
            if reply[0] == "ok":
                return reply[1], reply[2]
            _, reason, line, exiting = reply
            if exiting:
                self._stop()
        raise ChatTemplateError(reason, template=name, line=line)

    def _start(self) -> None:
        self._stop()
        r, w = os.pipe()
        boot = _BOOT.format(paths=[p for p in sys.path if p], packages=[("gguftok", str(_CHAT.parent)),
                                                                           ("gguftok.chat", str(_CHAT))], fd=w)
        try:
            self._proc = subprocess.Popen([sys.executable, "-c", boot], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, pass_fds=(w,), start_new_session=True)
        except BaseException:
            os.close(r)
            raise
        finally:
            os.close(w)
        self._dump = r
        os.set_blocking(r, False)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._proc.stdout, selectors.EVENT_READ)
        reply = self._read(START_TIMEOUT)
        if reply != ("ready",):
            self._stop()
            raise OSError(f"the render process did not start ({reply[0]})")

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        self._buf = bytearray()
        if self._sel is not None:
            self._sel.close()
            self._sel = None
        if proc is not None:
            with contextlib.suppress(OSError):
                proc.kill()
            proc.wait()
            for f in (proc.stdin, proc.stdout):
                if f is not None:
                    with contextlib.suppress(OSError):
                        f.close()
        if self._dump is not None:
            with contextlib.suppress(OSError):
                os.close(self._dump)
            self._dump = None

    def _ask(self, job: dict[str, Any], timeout: float) -> tuple:
        """Send ``job``; the child says when it starts rendering (once it has compiled the template), and the
        render then has ``timeout`` seconds."""
        assert self._proc is not None and self._proc.stdin is not None
        data = pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self._proc.stdin.write(_HEADER.pack(len(data)) + data)
            self._proc.stdin.flush()
        except BrokenPipeError:
            return self._read(START_TIMEOUT)  # the child's last words, or its end
        reply = self._read(START_TIMEOUT)
        return self._read(timeout) if reply == ("started",) else reply

    def _read(self, timeout: float) -> tuple:
        """The child's next reply; ``("stopped",)`` if none came within ``timeout`` seconds, ``("died", why)``
        if the child ended. (Read from the pipe itself, unbuffered, so that what select() says is all there is.)"""
        assert self._proc is not None and self._proc.stdout is not None and self._sel is not None
        deadline = time.monotonic() + timeout
        fd = self._proc.stdout.fileno()
        while True:
            if len(self._buf) >= _HEADER.size:
                (n,) = _HEADER.unpack_from(self._buf)
                if len(self._buf) >= _HEADER.size + n:
                    body = bytes(self._buf[_HEADER.size:_HEADER.size + n])
                    del self._buf[:_HEADER.size + n]
                    return _Safe(io.BytesIO(body)).load()
            left = deadline - time.monotonic()
            if left <= 0 or not self._sel.select(left):
                return ("stopped",)
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                code = self._proc.wait()
                return ("died", f"signal {-code}" if code < 0 else f"exit status {code}")
            self._buf += chunk

    def _line_of_dump(self, compiled: Compiled) -> int | None:
        """The template line the child was at when it was stopped, from the traceback it dumped."""
        deadline = time.monotonic() + 0.2
        chunks: list[bytes] = []
        while self._dump is not None and time.monotonic() < deadline:
            try:
                chunk = os.read(self._dump, 1 << 16)
            except BlockingIOError:
                if chunks:
                    break
                time.sleep(0.01)
                continue
            if not chunk:
                break
            chunks.append(chunk)
        dump = b"".join(chunks).decode("utf-8", "replace")
        # faulthandler lists the innermost frame first; the template's frames are in its generated code
        m = re.search(r'File "' + re.escape(compiled.filename) + r'", line (\d+)', dump)
        return None if m is None else compiled.template.get_corresponding_lineno(int(m.group(1)))


_PROCESS: RenderProcess | None = None
_PROCESS_LOCK = threading.Lock()
_WARNED = False


def process() -> RenderProcess | None:
    """The render process of this process (``None`` where there can be none)."""
    global _PROCESS
    if not available():
        return None
    with _PROCESS_LOCK:
        if _PROCESS is None:
            _PROCESS = RenderProcess()
            atexit.register(_shutdown)
        return _PROCESS


def _shutdown() -> None:
    if _PROCESS is not None and _PROCESS._pid == os.getpid():
        with _PROCESS._lock:
            _PROCESS._stop()


def unavailable(e: BaseException) -> None:
    """The render process could not start: say so once; renders run in this process."""
    global _WARNED
    if not _WARNED:
        _WARNED = True
        warnings.warn(f"gguftok.chat: templates render in this process ({e}); the time limit is then checked "
                      "between the template's operations only", RuntimeWarning, stacklevel=3)


# ------------------------------------------------------------------------------------------ the child
def _vm_bytes() -> int | None:
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@contextlib.contextmanager
def memory_limit(n: int) -> Any:
    """At most ``n`` more bytes of address space while the block runs (where the system can say so)."""
    try:
        import resource
    except ImportError:
        yield
        return
    vm = _vm_bytes()
    if vm is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = vm + n if hard == resource.RLIM_INFINITY else min(vm + n, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def serve(dump_fd: int) -> None:
    """The child's loop: read a job, render it, reply; until stdin closes."""
    import faulthandler
    import signal

    from .sandbox import compile_template, render

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything printed goes where stderr goes, not into the replies
    inp = sys.stdin.buffer
    dump = os.fdopen(dump_fd, "w")
    cache: OrderedDict[tuple[str, str], Any] = OrderedDict()

    def reply(value: Any) -> None:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        out.write(_HEADER.pack(len(data)) + data)
        out.flush()

    reply(("ready",))
    while True:
        header = inp.read(_HEADER.size)
        if len(header) < _HEADER.size:
            return
        job = pickle.loads(inp.read(_HEADER.unpack(header)[0]))
        exiting = False
        try:
            key = (job["source"], job["name"])
            compiled = cache.pop(key, None) or compile_template(job["source"], job["name"])
            cache[key] = compiled
            while len(cache) > _CACHE:
                cache.popitem(last=False)
            reply(("started",))
            faulthandler.dump_traceback_later(job["dump_after"], file=dump)
            try:
                with memory_limit(job["max_memory"]):
                    text, registry = render(compiled, job["context"], timeout=job["timeout"],
                                            max_chars=job["max_chars"], max_memory=job["max_memory"],
                                            runs=job["runs"])
            finally:
                faulthandler.cancel_dump_traceback_later()
            answer: tuple = ("ok", text, registry)
        except ChatTemplateError as e:
            exiting = e.reason.startswith("out of memory")  # start afresh: the heap may be left fragmented
            answer = ("error", e.reason, e.line, exiting)
        except MemoryError:
            exiting = True
            answer = ("error", "out of memory", None, True)
        reply(answer)
        if exiting:
            return
