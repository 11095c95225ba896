"""The limits of one render, and what the operations a template can run cost against them.

A render has a deadline (``timeout`` seconds), a size limit on the text and on any one value it builds
(``max_chars`` characters or items), and a memory budget (``max_memory`` bytes). Memory is counted in bytes as
CPython holds it (``sys.getsizeof`` of each object a value reaches, each object once), never in characters:
a 4,000,000-character string split on commas is 1.3 million string objects of about 60 bytes each. Every value
the template builds is charged when it is built, so what the template holds at any time is at most what it was
charged; the operations that can build much more than they are given are checked before they run.

In the render process (:mod:`gguftok.chat.worker`) the operating system enforces ``max_memory`` as well, and the
parent stops the process on time whatever it is doing; the accounting here is what names the template line.

>>> b = Budget(timeout=5, max_chars=100, max_memory=1 << 20)
>>> b.check_size(101, "a string")
Traceback (most recent call last):
...
gguftok.chat.budget.Limit: a string of more than 100 characters or items (max_chars)
>>> words = "a bc de".split()   # three new strings ("a" is interned: Python holds it already)
>>> nbytes(words, 1 << 20) == sys.getsizeof(words) + 2 * sys.getsizeof("bc")
True
>>> nbytes([words, words], 1 << 20) == sys.getsizeof([words, words])   # words is held by `words` too
True
"""

from __future__ import annotations

import itertools
import re
import string
import sys
import time
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import Any

from jinja2.utils import Namespace

TIMEOUT = 5.0  # seconds a render may take
MAX_CHARS = 4_000_000  # characters in the rendered text, and characters or items in any one value the template builds
MAX_MEMORY = 256 << 20  # bytes a render may allocate (the render process's limit; the accounting keeps 3/4 of it)
ACCOUNTED = 0.75  # the share of max_memory the accounting charges values against, before the OS limit is reached
MAX_TEMPLATE = 262_144  # characters of template source (Gemma 4's, the longest shipped, has 12,045)
MAX_INT_BITS = 1 << 16  # the largest integer a template may compute
MAX_JSON_INDENT = 64
MAX_DEPTH = 100  # nesting of the messages, tools and variables passed in
MAX_BUILT_DEPTH = 2 * MAX_DEPTH  # nesting of a value the template builds (it may wrap what it was given)
_MB = 1 << 20


class Limit(Exception):
    """A time, size or memory limit was hit (the template reports it as ChatTemplateError with the line)."""


class Budget:
    """The limits of one render: a deadline, the size of any one value, the bytes charged so far."""

    def __init__(self, timeout: float, max_chars: int, max_memory: int) -> None:
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.max_chars = max_chars
        self.max_memory = max_memory
        self.memory_left = int(max_memory * ACCOUNTED)
        self.marker: Any = None  # gguftok.chat.marks.Marker while encode_chat renders, else None

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise Limit(f"the template ran longer than the time limit ({self.timeout:g} s)")

    def charge(self, n: int) -> None:
        """``n`` more bytes allocated."""
        self.memory_left -= n
        if self.memory_left < 0:
            raise Limit(f"the template allocated more than its memory limit ({self._memory()})")

    def _memory(self) -> str:
        return f"{int(self.max_memory * ACCOUNTED) / _MB:,.0f} MB of the render's {self.max_memory / _MB:,.0f} MB"

    def check_size(self, n: int, what: str = "a value") -> None:
        if n > self.max_chars:
            raise Limit(f"{what} of more than {self.max_chars:,} characters or items (max_chars)")

    def check_bytes(self, n: int, what: str) -> None:
        """An operation about to allocate ``n`` bytes: refuse it before it runs if the budget cannot take it."""
        if n > self.memory_left:
            raise Limit(f"{what} would need about {n / _MB:,.1f} MB, more than the memory left "
                        f"({max(self.memory_left, 0) / _MB:,.1f} MB; the limit is {self._memory()})")

    def result(self, value: Any, *inputs: Any) -> Any:
        """Check and charge a value the template just built (a value that is one of ``inputs`` costs nothing)."""
        if isinstance(value, (str, list, tuple, dict)):
            self.check_size(len(value))
        elif isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_INT_BITS:
            raise Limit(f"an integer of more than {MAX_INT_BITS} bits")
        if value is None or isinstance(value, (bool, int, float)) or any(value is x for x in inputs):
            return value
        self.charge(nbytes(value, self.memory_left + 1))
        check_height(self, value)
        return value


_BUDGET: ContextVar[Budget | None] = ContextVar("gguftok_chat_budget", default=None)


def current() -> Budget:
    """The budget of the render running now."""
    b = _BUDGET.get()
    if b is None:  # Jinja folds constant expressions at compile time: refuse, so they run under a budget
        raise Limit("not rendering")
    return b


def activate(b: Budget) -> Any:
    return _BUDGET.set(b)


def deactivate(token: Any) -> None:
    _BUDGET.reset(token)


# ---------------------------------------------------------------------------------------- the cost models
_LEAVES = (str, bytes, int, float, bool, type(None))


def nbytes(value: Any, limit: int) -> int:
    """The bytes ``value`` newly holds: ``sys.getsizeof`` of it and of every object it reaches that nothing else
    holds, counted up to just past ``limit`` only. An object that something else holds too (an input of the
    operation that built ``value``, a value built before, an interned string) was counted when it was made,
    or is the caller's: ``[s.split(',')] + l`` is a new list of two references, not a second copy of
    ``s.split(',')`` and ``l``. A value nested more than MAX_BUILT_DEPTH deep is refused. The walk holds one
    iterator per level, nothing per object."""
    if isinstance(value, _LEAVES):
        return sys.getsizeof(value)
    total = 0
    stack: list[Any] = []

    def enter(x: Any) -> None:
        nonlocal total
        total += sys.getsizeof(x)
        if isinstance(x, Namespace):
            x = object.__getattribute__(x, "_Namespace__attrs")
            total += sys.getsizeof(x)
        if isinstance(x, dict):
            children: Any = itertools.chain(x.keys(), x.values())
        elif isinstance(x, (list, tuple, set, frozenset)):
            children = iter(x)
        else:
            return
        if len(stack) >= MAX_BUILT_DEPTH:
            raise Limit(f"a value nested more than {MAX_BUILT_DEPTH} levels deep")
        stack.append(children)

    enter(value)
    while stack and total <= limit:
        x = next(stack[-1], _END)
        if x is _END:
            stack.pop()
        elif sys.getrefcount(x) <= _OWNED:  # held by this container only (and by x, and by the call's argument)
            if isinstance(x, _LEAVES):
                total += sys.getsizeof(x)
            else:
                enter(x)
    return total


_OWNED = 3
_CONTAINERS = (list, tuple, dict, set, frozenset, Namespace)


def _children(x: Any) -> Any:
    if isinstance(x, Namespace):
        x = object.__getattribute__(x, "_Namespace__attrs")
    return itertools.chain(x.keys(), x.values()) if isinstance(x, dict) else iter(x)


def check_height(b: Budget, value: Any) -> None:
    """A container the template built may hold containers at most MAX_BUILT_DEPTH deep: Python hashes, compares
    and prints nested values by recursing in C (a tuple nested a million deep crashes ``hash``). Each container
    is visited once (its height remembered for the walk), whoever else holds it."""
    if not isinstance(value, _CONTAINERS):
        return
    heights: dict[int, int] = {}
    frames: list[list[Any]] = [[value, _children(value), 0]]
    steps = 0
    while frames:
        frame = frames[-1]
        child = next(frame[1], _END)
        steps += 1
        if not steps & 4095:
            b.tick()
        if child is _END:
            frames.pop()
            h = frame[2] + 1
            heights[id(frame[0])] = h
            if frames:
                frames[-1][2] = max(frames[-1][2], h)
        elif isinstance(child, _CONTAINERS):
            h = heights.get(id(child))
            if h is not None:
                frame[2] = max(frame[2], h)
            elif len(frames) >= MAX_BUILT_DEPTH:
                raise Limit(f"a value nested more than {MAX_BUILT_DEPTH} levels deep")
            else:
                frames.append([child, _children(child), 0])
_END = object()


def size(value: Any, limit: int) -> int:
    """How many characters ``str(value)`` would have, roughly, counting up to just past ``limit`` only."""
    total, stack = 0, [value]
    while stack and total <= limit:
        x = stack.pop()
        if isinstance(x, str):
            total += len(x)
        elif isinstance(x, (list, tuple, set, frozenset)):
            total += 2 + len(x)
            if total <= limit:
                stack.extend(x)
        elif isinstance(x, dict):
            total += 2 + 2 * len(x)
            if total <= limit:
                stack.extend(x.keys())
                stack.extend(x.values())
        elif isinstance(x, Namespace):
            stack.append(dict(object.__getattribute__(x, "_Namespace__attrs")))
        elif isinstance(x, int) and not isinstance(x, bool):
            total += x.bit_length() // 3 + 1
        else:
            total += 8
    return total


def total_size(values: Any, limit: int) -> int:
    """The sum of :func:`size` over ``values``, counted up to just past ``limit`` only."""
    total = 0
    for v in values:
        total += size(v, limit - total)
        if total > limit:
            break
    return total


def text_bytes(b: Budget, chars: int, what: str, items: int = 1) -> None:
    """Before building ``items`` strings of ``chars`` characters in all: at most 4 bytes a character (UCS-4)
    and a string header (about 80 bytes, with its list slot) each."""
    b.check_bytes(4 * chars + 80 * items, what)


def check_args(b: Budget, args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
    """No argument may be an integer larger than max_chars (a width, a count), nor all of them print longer."""
    values = (*args, *kwargs.values())
    for a in values:
        if isinstance(a, int) and not isinstance(a, bool) and abs(a) > b.max_chars:
            raise Limit(f"an argument of {a:,} is larger than max_chars ({b.max_chars:,})")
    b.check_size(total_size(values, b.max_chars), "arguments")


_PERCENT = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?[a-zA-Z%]")


def _largest_int(args: Any) -> int:
    vals = args.values() if isinstance(args, Mapping) else args if isinstance(args, (tuple, list)) else [args]
    return max((abs(v) for v in vals if isinstance(v, int) and not isinstance(v, bool)), default=0)


def check_percent(b: Budget, fmt: str, args: Any) -> None:
    """``fmt % args``: the widths and precisions it asks for must add up to at most max_chars."""
    star = _largest_int(args)
    total = sum((star if w == "*" else int(w or 0)) + (star if p == "*" else int(p or 0))
                for w, p in _PERCENT.findall(fmt))
    b.check_size(total, "a %-format width")
    b.check_size(size(args, b.max_chars), "a %-format argument")


def check_format(b: Budget, fmt: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
    """``fmt.format(...)``: the same for str.format's field widths."""
    nested = max(_largest_int(args), _largest_int(kwargs))
    total = 0
    try:
        for _, field, spec, _ in string.Formatter().parse(fmt):
            if field is not None and spec:
                total += nested if "{" in spec else sum(int(n) for n in re.findall(r"\d+", spec))
    except ValueError:
        return  # str.format raises the same error itself
    b.check_size(total, "a format width")


def check_join(b: Budget, items: list[Any], sep: Any) -> None:
    sep_len = len(sep) if isinstance(sep, str) else 0
    total = sep_len * max(0, len(items) - 1)
    total += total_size(items, b.max_chars - min(total, b.max_chars))
    b.check_size(total, "a joined string")
    text_bytes(b, total, "a joined string", len(items))  # str.join makes a string of each item first


def check_replace(b: Budget, s: Any, old: Any, new: Any, count: Any = None) -> None:
    if isinstance(s, str) and isinstance(old, str) and isinstance(new, str):
        n = s.count(old) if old else len(s) + 1
        if isinstance(count, int) and count >= 0:
            n = min(n, count)
        b.check_size(len(s) + n * max(0, len(new) - len(old)), "a replaced string")


def check_split(b: Budget, s: str, sep: Any, maxsplit: Any, lines: bool = False) -> None:
    """``s.split(sep)`` (or ``splitlines``): how many strings it makes, before it makes them."""
    if lines:
        n = sum(map(s.count, ("\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"))) + 1
    elif isinstance(sep, str) and sep:
        n = s.count(sep) + 1
    else:
        n = len(s) // 2 + 1  # split on whitespace: at most one word every two characters
    if isinstance(maxsplit, int) and maxsplit >= 0:
        n = min(n, maxsplit + 1)
    b.check_size(n, "a split")
    text_bytes(b, len(s), "a split", n)


def check_chars(b: Budget, value: Any, what: str, chars: bool = True) -> None:
    """Before making a list of an iterable's items (``|list``, ``|sort``, ``|join``...): one slot each, and with
    ``chars``, a string is a list of one-character strings."""
    if isinstance(value, str):
        if chars:
            b.check_size(len(value), what)
            text_bytes(b, 0, what, len(value))
    elif isinstance(value, (range, list, tuple, dict, set, frozenset)):
        b.check_size(len(value), what)
        b.check_bytes(8 * len(value) + 64, what)


def check_render(b: Budget, value: Any, what: str) -> None:
    """Before writing a value as text (``str()``, ``repr``, JSON): the text, and a string for each item while
    it is being written."""
    if isinstance(value, (str, int, float, bool, type(None))):
        return
    n = size(value, b.max_chars)
    b.check_size(n, what)
    text_bytes(b, 2 * n, what, n // 2 + 1)
