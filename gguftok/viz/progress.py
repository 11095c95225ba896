"""Progress for a long check: nothing for the first two seconds, then what is being done and how far it is.

A check or a grade that answers at once shows no progress; one that runs past :data:`DELAY` seconds shows a line
such as ``checking 01.read_metadata: case 312 of 1,206 · 3 s``, refreshed twice a second from a background
thread (so it moves even while one slow case runs), and removed when the job ends. In a notebook the line is a
display that is always created, empty, when the job starts, and emptied again when it ends: the output a cell
keeps is the same however long the job took. In a terminal the line goes to stderr, only when stderr is one.

>>> with Progress("checking 03.split_merge", total=3) as p:
...     for k in range(3):
...         _ = p.at(k + 1)
>>> p.line(0.0)
'checking 03.split_merge: 3 of 3'
>>> Progress("grading", total=13, unit="vocabulary").at(2, "qwen2").line(4.2)
'grading: vocabulary 2 of 13 (qwen2) · 4 s'
"""

from __future__ import annotations

import html
import sys
import threading
import time
from collections.abc import Callable

from .render import TEXT

DELAY = 2.0  # seconds of work before anything is shown
EVERY = 0.5  # seconds between two refreshes of the line


def _kernel_display() -> Callable[[str, str], None] | None:
    """A function that shows ``(html, text)`` in one display of the running cell, or ``None`` outside a kernel."""
    ipython = sys.modules.get("IPython")
    if ipython is None or getattr(ipython, "get_ipython", lambda: None)() is None:
        return None
    if type(ipython.get_ipython()).__name__ != "ZMQInteractiveShell":
        return None
    from IPython.display import display

    handle = display({"text/plain": ""}, raw=True, display_id=True)
    return lambda markup, text: handle.update({"text/html": markup, "text/plain": text} if text else
                                              {"text/plain": ""}, raw=True)


class Progress:
    """How far a job is (``at(done, label)``), shown only once it has run for ``delay`` seconds."""

    def __init__(self, what: str, total: int | None = None, *, unit: str = "", delay: float = DELAY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.what, self.total, self.unit, self.delay, self.clock = what, total, unit, delay, clock
        self.done, self.label, self.started = 0, "", clock()
        self._show: Callable[[str, str], None] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = False

    def at(self, done: int, label: str = "", total: int | None = None) -> Progress:
        """Record how far the job is: ``done`` of the total, and a short label for what it does now."""
        self.done, self.label = done, label
        if total is not None:
            self.total = total
        return self

    def line(self, elapsed: float) -> str:
        """The line shown after ``elapsed`` seconds (the seconds only past :data:`DELAY`)."""
        unit = f"{self.unit} " if self.unit else ""
        of = f"{unit}{self.done:,} of {self.total:,}" if self.total else f"{unit}{self.done:,}" if self.done else ""
        seconds = f" · {elapsed:.0f} s" if elapsed >= self.delay else ""
        if of and self.label:
            return f"{self.what}: {of} ({self.label}){seconds}"
        return f"{self.what}: {of or self.label}{seconds}" if of or self.label else f"{self.what}{seconds}"

    def _render(self) -> tuple[str, str]:
        text = self.line(self.clock() - self.started)
        fraction = min(1.0, self.done / self.total) if self.total else 0.0
        bar = (f'<div style="display:inline-block;width:12em;height:0.7em;border:1px solid #888888;'
               f'vertical-align:middle;margin-right:8px"><div style="width:{fraction * 100:.0f}%;height:100%;'
               f'background:#56B4E9"></div></div>') if self.total else ""
        return (f'<div style="color:{TEXT};background:#EBEBEB;padding:2px 6px;border-radius:3px">{bar}'
                f'<span>{html.escape(text)}</span></div>', text)

    def _refresh(self) -> None:
        if self._stop.wait(self.delay):
            return
        while True:
            markup, text = self._render()
            if self._show is not None:
                self._show(markup, text)
            elif sys.stderr.isatty():
                sys.stderr.write(f"\r{text}\x1b[K")
                sys.stderr.flush()
            self._shown = True
            if self._stop.wait(EVERY):
                return

    def __enter__(self) -> Progress:
        self.started = self.clock()
        self._show = _kernel_display()
        if self._show is not None or sys.stderr.isatty():
            self._thread = threading.Thread(target=self._refresh, name="gguftok-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._show is not None:
            self._show("", "")
        elif self._shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
