"""llama.cpp itself, as a judge: a child process running llama-cpp-python 0.3.36 built from the pinned sdist.

``make oracle`` builds that environment (outside the repository); nothing else in gguftok needs it.

Example (with the oracle built)::

    with Oracle("data/vocab/ggml-vocab-gpt-2.gguf") as ref:
        ref.tokenize("Hello world", add_special=False, parse_special=False)   # [15496, 995]

Each call returns llama.cpp's answer, or a :class:`Crash` when llama.cpp aborted or crashed on that input
(it does, for some invalid UTF-8 and for very long words); the worker is then restarted for the next call.
"""

from __future__ import annotations

import base64
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..data import cache_dir
from ..errors import GguftokError

WORKER = Path(__file__).with_name("_worker.py")
LLAMA_CPP_VERSION = "0.3.36"


class OracleUnavailable(GguftokError, RuntimeError):
    """The oracle environment is missing or broken; the message says how to build it."""


@dataclass(frozen=True)
class Crash:
    """llama.cpp ended its process instead of answering (an abort, a segfault, or a time-out)."""

    reason: str  # "SIGABRT", "SIGSEGV", "timeout", "exit 1", ...
    stderr: str  # the last lines it printed

    def __str__(self) -> str:
        last = self.stderr.strip().splitlines()[-1:] or [""]
        return f"llama.cpp crashed ({self.reason}) {last[0]}".strip()


def oracle_python() -> str | None:
    """The Python that can import llama_cpp 0.3.36: ``$GGUFTOK_ORACLE_PYTHON``, this one, or the oracle venv."""
    env = os.environ.get("GGUFTOK_ORACLE_PYTHON")
    if env:
        return env
    try:
        import llama_cpp

        if llama_cpp.__version__ == LLAMA_CPP_VERSION:
            return sys.executable
    except ImportError:
        pass
    venv = Path(os.environ.get("GGUFTOK_ORACLE_VENV") or cache_dir() / "oracle-venv")
    python = venv / "bin" / "python"
    return str(python) if python.exists() else None


def why_unavailable() -> str | None:
    """``None`` if the oracle can run here, else the reason (for skips and error messages)."""
    if oracle_python() is None:
        return (f"the llama.cpp oracle is not built: run `make oracle` (llama-cpp-python {LLAMA_CPP_VERSION} "
                "from the pinned sdist, about 5 to 15 minutes)")
    return None


class Oracle:
    """llama.cpp's tokenizer for one vocabulary file, in a child process."""

    def __init__(self, vocab: str | os.PathLike[str], *, timeout: float = 120.0, python: str | None = None) -> None:
        self.path = str(Path(vocab).resolve())
        self.timeout = timeout
        self.python = python or oracle_python()
        if self.python is None:
            raise OracleUnavailable(why_unavailable())
        self.proc: subprocess.Popen[bytes] | None = None
        self.crashes = 0  # calls on which llama.cpp crashed
        self.deaths = 0  # crashes that took the worker (and its loaded vocabulary) down with them
        self.info: dict | None = None

    # ---------------------------------------------------------------------------------------- process
    def _start(self) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed when the worker ends)
        env = {**os.environ, "GGML_NO_BACKTRACE": "1", "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen([self.python, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, env=env)
        self._sel = selectors.DefaultSelector()
        self._sel.register(self.proc.stdout, selectors.EVENT_READ)
        info = self._send({"op": "load", "path": self.path})
        if isinstance(info, Crash):
            raise OracleUnavailable(f"llama.cpp could not load {self.path}: {info}")
        self.info = info

    def _died(self, reason: str | None = None) -> Crash:
        proc, self.proc = self.proc, None
        if reason == "timeout":
            proc.kill()
        code = proc.wait()
        self._stderr.seek(0)
        tail = self._stderr.read()[-4000:].decode("utf-8", "replace")
        self._stderr.close()
        self.crashes += 1
        self.deaths += 1
        if reason is None:
            reason = signal.Signals(-code).name if code < 0 else f"exit {code}"
        return Crash(reason, tail)

    def _send(self, req: dict):
        if self.proc is None:
            self._start()
        try:
            self.proc.stdin.write((json.dumps(req) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            return self._died()
        if not self._sel.select(self.timeout):
            return self._died("timeout")
        line = self.proc.stdout.readline()
        if not line:
            return self._died()
        reply = json.loads(line)
        if "crash" in reply:  # an isolated call died; the worker itself is fine
            self.crashes += 1
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - 2000))
            return Crash(reply["crash"], self._stderr.read().decode("utf-8", "replace"))
        if "error" in reply:
            raise OracleUnavailable(f"oracle worker: {reply['error']}")
        return reply

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
            self._stderr.close()
            self.proc = None

    def __enter__(self) -> Oracle:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -------------------------------------------------------------------------------------- the calls
    def tokenize(self, text: str | bytes, add_special: bool = True, parse_special: bool = False) -> list[int] | Crash:
        """``llama_tokenize``; a ``str`` is sent as UTF-8 (lone surrogates as their 3 bytes)."""
        raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
        try:
            raw.decode("utf-8")
            # very long words can overflow std::regex's recursion; and once this vocabulary has crashed the
            # worker a few times (pre "whitespace" with a gpt2 model aborts on any space), isolate every call
            risky = len(raw) > 20_000 or self.deaths >= 3
        except UnicodeDecodeError:
            risky = True  # llama.cpp aborts on some invalid UTF-8: run it in a forked child
        r = self._send({"op": "tokenize", "text": base64.b64encode(raw).decode(), "isolate": risky,
                        "add_special": bool(add_special), "parse_special": bool(parse_special)})
        return r if isinstance(r, Crash) else r["ids"]

    def detokenize(self, ids: list[int], remove_special: bool = False,
                   unparse_special: bool = False) -> bytes | Crash:
        """``llama_detokenize``: the bytes of the text (not necessarily valid UTF-8)."""
        r = self._send({"op": "detokenize", "ids": [int(i) for i in ids],
                        "remove_special": bool(remove_special), "unparse_special": bool(unparse_special)})
        return r if isinstance(r, Crash) else base64.b64decode(r["text"])

    def pieces(self, ids: list[int] | None = None, special: bool = False) -> list[bytes] | Crash:
        """``llama_token_to_piece`` of each id (default: every id), with lstrip 0."""
        r = self._send({"op": "pieces", "ids": None if ids is None else [int(i) for i in ids],
                        "special": bool(special)})
        return r if isinstance(r, Crash) else [base64.b64decode(p) for p in r["pieces"]]

    def facts(self) -> dict | Crash:
        """Special ids (-1 for none), add_bos/add_eos/add_sep, the end-of-generation ids, every attribute."""
        return self._send({"op": "facts"})

    def chat_builtin(self, template: str, messages: list[dict], add_ass: bool = True) -> str | Crash | None:
        """``llama_chat_apply_template``: llama.cpp's built-in rendering of ``messages`` (role and content only)
        for the template it recognizes in ``template``, or ``None`` when it recognizes none."""
        r = self._send({"op": "chat", "template": template, "add_ass": bool(add_ass),
                        "messages": [[m["role"], m.get("content") or ""] for m in messages]})
        if isinstance(r, Crash):
            return r
        return None if r["text"] is None else base64.b64decode(r["text"]).decode("utf-8")
