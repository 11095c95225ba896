"""The render processes: where chat templates run, so that a render can be stopped on time and its memory
is bounded by the operating system, whatever the template does.

The sandbox's budget (:mod:`gguftok.chat.budget`) checks the time between the template's operations and
counts what it builds. One operation, though, can run long in C or in a library's Python code (``urlize`` on
a 4 MB string, a sort or a comparison of large lists) before the next check. So templates render in child
processes (started on first use and kept between renders; as many as renders run at once in this process, up to
MAX_PROCESSES, each rendering one template at a time):

- the parent stops a child when a render passes its time limit (plus ``GRACE``): killed, and replaced by a child
  that the parent started in the background as soon as the render passed its limit, so the next render does not
  wait for one to start; a traceback that the child dumps just before (``faulthandler``) names the template line;
- on Linux a child limits its own address space to what it had plus ``max_memory`` while a render runs
  (``RLIMIT_AS``), so an allocation past the budget fails there with ``MemoryError``, reported with the line;
- a child never outlives its parent, nor burns the CPU past a render's time limit when its parent cannot stop
  it: it is killed when the parent dies (Linux's parent-death signal, which the kernel sends even during one long
  C call; elsewhere a thread that checks its parent between operations), and a render may use the CPU at most
  its time limit plus ``GRACE`` and a second (``RLIMIT_CPU``, enforced by the kernel).

A child imports only the sandbox's modules (not numpy, not the tokenizer), and reads and writes
length-prefixed pickles on its stdin and on a private copy of its stdout; what it sends back holds only
strings, numbers, tuples and dicts, and the parent unpickles no class. Where there is no such process
(Windows, or ``ChatTemplate(isolate=False)``), templates render in the calling process with the budget's
checks alone.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import math
import os
import pickle
import queue
import re
import selectors
import signal
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
START_TIMEOUT = 60.0  # seconds the child may take to start (and to compile a template)
CPU_MARGIN = 1.0  # CPU seconds a render may use past its time limit and GRACE before the kernel kills its child
MAX_PROCESSES = 4  # render processes per process (started only while that many renders run at once)
PARENT_CHECK = 0.25  # seconds between a child's checks that its parent lives (where there is no death signal)
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
serve({fd}, {parent})
"""


def available() -> bool:
    """Whether renders can run in a child process here."""
    return os.name == "posix" and bool(sys.executable)


# ----------------------------------------------------------------------------------------- the parent
class _Safe(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"the render process sent a {module}.{name}")


class _Spawner:
    """Starts the render processes, always from one thread that lives as long as this process: Linux sends a
    child its parent-death signal when the *thread* that started it ends, so a child started from a request's
    thread (``ThreadingHTTPServer``) would die with the request."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Any, list, threading.Event]] = queue.SimpleQueue()
        threading.Thread(target=self._run, name="gguftok-chat-spawner", daemon=True).start()

    def _run(self) -> None:
        while True:
            fn, box, done = self._jobs.get()
            try:
                box.append((True, fn()))
            except BaseException as e:  # handed to the caller
                box.append((False, e))
            done.set()

    def call(self, fn: Any) -> Any:
        box: list[tuple[bool, Any]] = []
        done = threading.Event()
        self._jobs.put((fn, box, done))
        done.wait()
        ok, value = box[0]
        if not ok:
            raise value
        return value


_SPAWNER: _Spawner | None = None
_SPAWNER_LOCK = threading.Lock()


def _spawn(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
    global _SPAWNER
    with _SPAWNER_LOCK:
        if _SPAWNER is None:
            _SPAWNER = _Spawner()
        spawner = _SPAWNER
    return spawner.call(lambda: subprocess.Popen(*args, **kwargs))


class RenderProcess:
    """One child process templates render in, and the pipes to it (one render at a time)."""

    def __init__(self, on_overdue: Any = None) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._pid = os.getpid()
        self._dump: int | None = None  # the read end of the pipe the child's faulthandler writes to
        self._sel: selectors.BaseSelector | None = None
        self._buf = bytearray()  # what was read from the child and not yet taken
        self._on_overdue = on_overdue  # called when a render passes its time limit (its grace begins)
        self.failed = False  # the last start failed

    @property
    def pid(self) -> int | None:
        proc = self._proc
        return None if proc is None else proc.pid

    def running(self) -> bool:
        proc = self._proc
        return proc is not None and proc.poll() is None and os.getpid() == self._pid

    def start(self) -> None:
        """Start the child now, if it is not running (OSError: it cannot be started)."""
        with self._lock:
            self._forked()
            if not self.running():
                self._start()

    def stop(self) -> None:
        with self._lock:
            self._stop()

    def _forked(self) -> None:
        if os.getpid() != self._pid:  # a forked copy of the parent: the pipes are the parent's
            self._proc, self._pid, self._dump, self._sel, self._buf = None, os.getpid(), None, None, bytearray()

    def render(self, compiled: Compiled, context: dict[str, Any], *, timeout: float, max_chars: int,
               max_memory: int, runs: Any) -> tuple[str, dict[str, str] | None]:
        """:func:`gguftok.chat.sandbox.render` in the child: the text and the marks' registry, or
        ChatTemplateError (the child's, or a stopped render's). OSError: the child cannot be started."""
        name = compiled.name
        job = {"name": name, "source": compiled.source, "context": context, "timeout": timeout, "max_chars": max_chars,
               "max_memory": max_memory, "runs": runs, "dump_after": timeout + GRACE / 2,
               "cpu": timeout + GRACE + CPU_MARGIN}
        with self._lock:
            self._forked()
            if self._proc is None or self._proc.poll() is not None:
                self._start()
            try:
                reply = self._ask(job, timeout)
            except BaseException:
                self._stop()  # interrupted, or the pipe broke: never read a stale reply later
                raise
            if reply[0] == "stopped" or (reply[0] == "died" and reply[2] == -signal.SIGXCPU):
                line = self._line_of_dump(compiled) if reply[0] == "stopped" else None
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
        self.failed = True
        self._stop()
        r, w = os.pipe()
        boot = _BOOT.format(paths=[p for p in sys.path if p], packages=[("gguftok", str(_CHAT.parent)),
                                                                           ("gguftok.chat", str(_CHAT))], fd=w,
                            parent=os.getpid())
        try:
            self._proc = _spawn([sys.executable, "-c", boot], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
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
        self.failed = False

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
        render then has ``timeout`` seconds, and GRACE more once the pool was told it is overdue."""
        assert self._proc is not None and self._proc.stdin is not None
        data = pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self._proc.stdin.write(_HEADER.pack(len(data)) + data)
            self._proc.stdin.flush()
        except BrokenPipeError:
            return self._read(START_TIMEOUT)  # the child's last words, or its end
        reply = self._read(START_TIMEOUT)
        if reply != ("started",):
            return reply
        reply = self._read(timeout)
        if reply != ("stopped",):
            return reply
        if self._on_overdue is not None:
            self._on_overdue()  # this child will most likely be stopped: its replacement can start now
        return self._read(GRACE)

    def _read(self, timeout: float) -> tuple:
        """The child's next reply; ``("stopped",)`` if none came within ``timeout`` seconds, ``("died", why,
        returncode)`` if the child ended. (Read from the pipe itself, unbuffered, so that what select() says is
        all there is.)"""
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
                return ("died", f"signal {-code}" if code < 0 else f"exit status {code}", code)
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


class RenderPool:
    """The render processes of this process: a render takes an idle one (the one used last, whose compiled
    templates are warm), or starts one if fewer than ``size`` run, or waits for one. When a render passes its
    time limit, a spare child starts in the background; if the render is then stopped, the spare takes the
    stopped child's place (else it waits, started, for the next stop)."""

    def __init__(self, size: int = MAX_PROCESSES) -> None:
        self.size = max(1, int(size))
        self._cond = threading.Condition()
        self._idle: list[RenderProcess] = []
        self._all: list[RenderProcess] = []
        self._spare: RenderProcess | None = None  # started when a render ran late, for the next stop
        self._starting_spare = False
        self._replaced: list[RenderProcess] = []  # stopped processes waiting for the spare to take their place

    def pids(self) -> list[int]:
        """The process ids of the running render processes (the spare's too)."""
        with self._cond:
            procs = [*self._all, *([self._spare] if self._spare is not None else [])]
        return [p.pid for p in procs if p.pid is not None and p.running()]

    def render(self, compiled: Compiled, context: dict[str, Any], **kwargs: Any) -> tuple[str, dict[str, str] | None]:
        """:meth:`RenderProcess.render` in an idle render process."""
        proc = self._take()
        try:
            return proc.render(compiled, context, **kwargs)
        finally:
            self._give(proc)

    def _take(self) -> RenderProcess:
        with self._cond:
            while True:
                if self._idle:
                    return self._idle.pop()
                if len(self._all) < self.size:
                    proc = RenderProcess(self._overdue)
                    self._all.append(proc)
                    return proc
                self._cond.wait()

    def _give(self, proc: RenderProcess) -> None:
        if proc.running() or proc.failed:
            with self._cond:  # running, or it could not start (the next render tries again, and says why)
                self._idle.append(proc)
                self._cond.notify()
            return
        with self._cond:  # stopped (or ended): the spare takes its place (once up), or it restarts in the background
            if self._spare is not None or self._starting_spare:
                self._replaced.append(proc)
                self._place_spare()
                return
        self._restart_later(proc)

    def _place_spare(self) -> None:
        """(Holding the lock.) A started spare takes the place of a stopped process, if one waits for it."""
        if self._spare is None or not self._replaced:
            return
        proc, spare, self._spare = self._replaced.pop(0), self._spare, None
        self._all[self._all.index(proc)] = spare
        self._idle.append(spare)
        self._cond.notify()

    def _restart_later(self, proc: RenderProcess) -> None:
        threading.Thread(target=self._restart, args=(proc,), name="gguftok-chat-restart", daemon=True).start()

    def _restart(self, proc: RenderProcess) -> None:
        with contextlib.suppress(OSError):  # the next render tries again, and says why
            proc.start()
        with self._cond:
            self._idle.append(proc)
            self._cond.notify()

    def _overdue(self) -> None:
        with self._cond:
            if self._spare is not None or self._starting_spare:
                return
            self._starting_spare = True
        threading.Thread(target=self._start_spare, name="gguftok-chat-spare", daemon=True).start()

    def _start_spare(self) -> None:
        spare: RenderProcess | None = RenderProcess(self._overdue)
        try:
            spare.start()
        except OSError:
            spare = None
        with self._cond:
            self._starting_spare = False
            if spare is not None:
                self._spare = spare
                self._place_spare()
                return
            waiting, self._replaced = self._replaced, []
        for proc in waiting:  # no spare: they restart themselves
            self._restart_later(proc)

    def stop(self) -> None:
        with self._cond:
            procs = [*self._all, *([self._spare] if self._spare is not None else [])]
        for p in procs:
            p.stop()


_PROCESS: RenderPool | None = None
_PROCESS_LOCK = threading.Lock()
_WARNED = False


def process() -> RenderPool | None:
    """The render processes of this process (``None`` where there can be none)."""
    global _PROCESS
    if not available():
        return None
    with _PROCESS_LOCK:
        if _PROCESS is None:
            _PROCESS = RenderPool()
        return _PROCESS


def _shutdown() -> None:
    if _PROCESS is not None:
        _PROCESS.stop()


def _forget() -> None:
    """In a forked child: the render processes and the spawner thread are the parent's."""
    global _PROCESS, _SPAWNER, _PROCESS_LOCK, _SPAWNER_LOCK
    _PROCESS, _SPAWNER = None, None
    _PROCESS_LOCK, _SPAWNER_LOCK = threading.Lock(), threading.Lock()


atexit.register(_shutdown)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget)


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
def _soft_limit(name: str, limit_of: Any) -> Any:
    """While the block runs, the soft limit ``resource.<name>`` is ``limit_of(resource)`` (at most the hard
    limit), then what it was; where the system has no such limit, or ``limit_of`` gives ``None``, nothing."""
    try:
        import resource
    except ImportError:
        yield
        return
    which = getattr(resource, name, None)
    limit = None if which is None else limit_of(resource)
    if limit is None:
        yield
        return
    soft, hard = resource.getrlimit(which)
    try:
        resource.setrlimit(which, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    except (ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        resource.setrlimit(which, (soft, hard))


def memory_limit(n: int) -> Any:
    """At most ``n`` more bytes of address space while the block runs (where the system can say so)."""
    vm = _vm_bytes()
    return _soft_limit("RLIMIT_AS", lambda resource: None if vm is None else vm + n)


def _die_with(parent: int) -> None:
    """End this process when ``parent`` ends: Linux's parent-death signal (SIGKILL, which the kernel delivers
    even in the middle of one long C call); elsewhere (or if it cannot be set), a thread that checks between
    operations."""
    signalled = False
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            signalled = libc.prctl(1, signal.SIGKILL, 0, 0, 0) == 0  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # it ended before the signal was set
        os._exit(1)
    if signalled:
        return

    def watch() -> None:
        while True:
            time.sleep(PARENT_CHECK)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="gguftok-chat-parent", daemon=True).start()


def cpu_limit(seconds: float) -> Any:
    """At most ``seconds`` more CPU time (whole seconds, rounded up) while the block runs: past it the kernel
    sends SIGXCPU, which ends the process (where the system has RLIMIT_CPU)."""

    def limit(resource: Any) -> int:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return math.ceil(usage.ru_utime + usage.ru_stime + seconds)

    return _soft_limit("RLIMIT_CPU", limit)


def serve(dump_fd: int, parent: int) -> None:
    """The child's loop: read a job, render it, reply; until stdin closes (or the parent ends)."""
    import faulthandler

    from .sandbox import compile_template, render

    _die_with(parent)
    with contextlib.suppress(ImportError, ValueError, OSError):
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))  # SIGXCPU: no core
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
            compiled = cache.pop(key, None)
            if compiled is None:
                with cpu_limit(START_TIMEOUT + CPU_MARGIN):
                    compiled = compile_template(job["source"], job["name"])
            cache[key] = compiled
            while len(cache) > _CACHE:
                cache.popitem(last=False)
            reply(("started",))
            faulthandler.dump_traceback_later(job["dump_after"], file=dump)
            try:
                with cpu_limit(job["cpu"]), memory_limit(job["max_memory"]):
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
