"""The checking engine: run a student's function on every case of an exercise, compare each answer with the
reference's, and report the first difference.

Definitions, used by every check:

- A case is one call: its arguments (and, for big inputs, a short label to show instead of them).
- The expected outcome of a case is what the reference function (gguftok's own, the code the lesson
  explains, or an independent computation named in the exercise) returns for it, or, if the reference
  raises a ``ValueError``/``KeyError``/``IndexError``, "raises that kind of exception".
- Two answers agree when they are equal after lists and tuples are treated alike (``('a', 'b')`` agrees with
  ``['a', 'b']``); everything else compares with ``==``.
- **Not attempted**: called on the first case, the function raises ``NotImplementedError`` or returns ``...``
  (``Ellipsis``), which is what the notebook's templates do. The check stops there and says so. A
  ``NotImplementedError`` on a later case is reported like any other exception.
- Passed: every case agrees. Failed: the first case whose answer differs (for a list, its first differing
  index). Error: the first case on which the function raised (the exception and the line of the function
  that raised it are shown), unless the reference raised the same kind of exception there.
"""

from __future__ import annotations

import copy
import html
import inspect
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..viz.progress import Progress
from ..viz.render import PALETTE, TEXT, Rendered

EXPECTED_ERRORS = (ValueError, KeyError, IndexError)

_GREEN, _RED, _GREY = PALETTE[2], PALETTE[5], PALETTE[7]
_MONO = "font-family:monospace;white-space:pre-wrap"


_ATOMS = frozenset((str, bytes, int, float, bool, complex, type(None)))


def fresh_copy(x: Any) -> Any:
    """``copy.deepcopy(x)`` for the plain data cases hold (lists, tuples and dicts of strings, numbers, bytes and
    ``None``), built without deepcopy's bookkeeping: a list of 150,000 token texts is one C-level pass and a
    copy. Anything else is deep-copied. Strings and tuples of atoms are immutable: they are shared.

    >>> a = ["x", ("y", 1), {"k": [2, 3]}]
    >>> b = fresh_copy(a)
    >>> b == a, b is a, b[2]["k"] is a[2]["k"], b[1] is a[1]
    (True, False, False, True)
    """
    t = type(x)
    if t in _ATOMS:
        return x
    if t is list or t is tuple:
        if set(map(type, x)) <= _ATOMS:
            return list(x) if t is list else x
        items = [fresh_copy(i) for i in x]
        return items if t is list else tuple(items)
    if t is dict and set(map(type, x)) <= _ATOMS:
        return {k: fresh_copy(v) for k, v in x.items()}
    return copy.deepcopy(x)


@dataclass(frozen=True)
class Case:
    """One call of the exercise's function: ``fn(*args)``. ``label`` replaces the arguments when they are too
    big to show (a 151,387-line merge list); ``copy=False`` passes the arguments without a deep copy."""

    args: tuple
    label: str | None = None
    copy: bool = True


@dataclass(frozen=True)
class Property:
    """A property the answers alone do not show, checked once every case agrees: how the function works, not
    only what it returns (the merge queue's pops on a long word, say). ``test(fn)`` returns ``None`` when it
    holds, else a sentence saying what was measured."""

    description: str
    test: Callable[[Callable[..., Any]], str | None]


@dataclass(frozen=True)
class Raises:
    """The expected outcome "raises an exception of this kind" (the reference raised it)."""

    kind: type[BaseException]
    message: str

    def __repr__(self) -> str:
        return f"raises {self.kind.__name__} ({self.message})"


def short(value: Any, limit: int = 160) -> str:
    """``repr(value)``, cut in the middle past ``limit`` characters.

    >>> short("x" * 500, 20)
    "'xxxxxxx … xxxxxx' (502 characters)"
    """
    text = repr(value)
    if len(text) <= limit:
        return text
    half = limit // 2 - 2
    return f"{text[:half]} … {text[-half + 1:]} ({len(text)} characters)"


def _is_seq(x: Any) -> bool:
    return isinstance(x, list | tuple)


def agree(expected: Any, got: Any) -> bool:
    """Equal, with lists and tuples treated alike at every depth.

    >>> agree(("a", "b"), ["a", "b"]), agree([1, [2]], (1, (2,))), agree([1], [1, 2]), agree(b"a", "a")
    (True, True, False, False)
    """
    if _is_seq(expected) and _is_seq(got):
        return len(expected) == len(got) and all(agree(e, g) for e, g in zip(expected, got, strict=True))
    if isinstance(expected, dict) and isinstance(got, dict):
        return expected.keys() == got.keys() and all(agree(v, got[k]) for k, v in expected.items())
    if type(expected) is bool or type(got) is bool:  # True must not pass for 1
        return type(expected) is type(got) and expected == got
    try:
        return bool(expected == got)
    except Exception:  # an answer whose == raises (a NumPy array) agrees with nothing
        return False


def first_index(expected: Sequence, got: Sequence) -> int:
    """The first index where two sequences disagree, or the shorter length when one is a prefix.

    >>> first_index([1, 2, 3], [1, 5, 3]), first_index([1, 2], [1, 2, 3])
    (1, 2)
    """
    for k, (e, g) in enumerate(zip(expected, got, strict=False)):
        if not agree(e, g):
            return k
    return min(len(expected), len(got))


@dataclass
class Exercise:
    """One exercise: what to write (``statement``, ``template``), the cases, and the reference.

    ``examples()`` gives the lesson's fixed cases (cheap; the first one decides "not attempted"),
    ``generated()`` the seeded random and real-vocabulary ones. ``call(fn, *args)`` runs the student's
    function on one case (default ``fn(*args)``); ``reference(*args)`` gives the expected answer.
    """

    id: str
    title: str
    statement: str
    template: str  # the notebook cell to start from; "" for an exercise written in the student's package
    reference: Callable[..., Any]
    reference_name: str
    examples: Callable[[], list[Case]]
    generated: Callable[[], list[Case]] = list
    call: Callable[..., Any] | None = None
    module: str | None = None  # the stage of the student's package (mytok/<module>.py) that holds the function
    properties: Callable[[], list[Property]] = list
    loader: Callable[[], Any] | None = None  # replaces the plain load of the student's function (the capstone)
    _cases: list[Case] | None = field(default=None, repr=False)
    _expected: dict[int, Any] = field(default_factory=dict, repr=False)

    @property
    def lesson(self) -> int:
        return int(self.id.split(".")[0])

    @property
    def name(self) -> str:
        """The name of the function the student writes."""
        return self.id.split(".", 1)[1]

    def cases(self) -> list[Case]:
        """Every case, the lesson's examples first (built once, then cached)."""
        if self._cases is None:
            self._cases = list(self.examples()) + list(self.generated())
        return self._cases

    def expected(self, k: int) -> Any:
        """The reference's outcome for case ``k`` (cached)."""
        if k not in self._expected:
            args = self.cases()[k].args
            try:
                self._expected[k] = self.reference(*fresh_copy(args) if self.cases()[k].copy else args)
            except EXPECTED_ERRORS as e:
                self._expected[k] = Raises(_kind(e), str(e))
        return self._expected[k]

    def run(self, fn: Callable[..., Any], case: Case) -> Any:
        args = fresh_copy(case.args) if case.copy else case.args
        return self.call(fn, *args) if self.call else fn(*args)

    def describe(self, case: Case) -> str:
        """The call as text: ``split_merge('Ġ t')``, or the case's label."""
        if case.label is not None:
            return case.label
        return f"{self.name}({', '.join(short(a, 120) for a in case.args)})"

    def check(self, fn: Callable[..., Any] | None = None) -> CheckResult:
        """Run ``fn`` (default: the student's, read afresh from their package) on every case; see the module
        docstring for what passed, failed and not attempted mean."""
        return check_exercise(self, self.student() if fn is None else fn)

    @property
    def where(self) -> str:
        """Where the student writes it: ``mytok/bytemap.py``, or the notebook for an exercise without a module."""
        return f"mytok/{self.module}.py" if self.module else "the notebook"

    def student(self) -> Callable[..., Any]:
        """The student's function or class, from their package as it is on disk now."""
        from .workspace import WorkspaceError, load

        if self.loader is not None:
            return self.loader()
        if self.module is None:
            raise TypeError(f"{self.id} is written in the notebook: pass your function, check({self.id!r}, "
                            f"{self.name})")
        module = load(self.module)
        if not hasattr(module, self.name):
            raise WorkspaceError(f"{self.where} has no {self.name}: keep the name the template gave it")
        return getattr(module, self.name)

    def rerun(self, number: int, fn: Callable[..., Any] | None = None) -> Any:
        """Case ``number`` (as a report counts them, from 1) through the student's function again, with nothing
        caught: an exception shows its whole traceback, and a debugger (``%debug``) can be used on it."""
        return self.run(self.student() if fn is None else fn, self.case(number))

    def compare(self, number: int, fn: Callable[..., Any] | None = None) -> Comparison:
        """Case ``number`` again: its arguments, the reference's answer and the student's, all whole. The
        student's function runs with nothing caught, as in :meth:`rerun`."""
        case = self.case(number)
        got = self.run(self.student() if fn is None else fn, case)
        args = fresh_copy(case.args) if case.copy else case.args
        return Comparison(self.id, number, args, self.expected(number - 1), got)

    def case(self, number: int) -> Case:
        """Case ``number``, counted from 1 as the reports count them."""
        cases = self.cases()
        if not 1 <= number <= len(cases):
            raise IndexError(f"{self.id} has cases 1 to {len(cases)}, not {number}")
        return cases[number - 1]

    def show(self) -> Rendered:
        """The task: statement and template."""
        return statement_view(self)


def _kind(e: BaseException) -> type[BaseException]:
    for kind in EXPECTED_ERRORS:
        if isinstance(e, kind):
            return kind
    return type(e)


def _raised_at(e: BaseException) -> str:
    """The exception and the line of the student's code that raised it (no file names: they are machine paths)."""
    frames = traceback.extract_tb(e.__traceback__)
    frames = [f for f in frames if "/gguftok/exercises/" not in f.filename.replace("\\", "/")] or frames
    where = f" (line {frames[-1].lineno}: {frames[-1].line.strip()})" if frames and frames[-1].line else ""
    message = str(e)
    kind = type(e).__name__ if type(e).__module__ == "builtins" else f"{type(e).__module__}.{type(e).__name__}"
    return f"{kind}: {message}{where}" if message else f"{kind}{where}"


@dataclass(frozen=True)
class CheckResult:
    """The verdict of one check; ``.ok`` is True only when every case agreed. Renders as HTML and as text."""

    exercise: str
    status: str  # "passed", "failed", "error", "not attempted"
    total: int
    reference: str
    agreed: int = 0  # cases that agreed before the one reported
    case: int | None = None  # index of the case reported (0-based)
    call: str = ""
    expected: str = ""
    got: str = ""
    detail: str = ""  # first differing index, or the exception raised
    where: str = "the notebook"  # where the student writes it: mytok/<stage>.py, or the notebook
    rerun: str = ""  # a call the student can copy to run the reported case again, whole
    compare: str = ""  # a call that returns the case's input and both answers, whole
    whole: tuple[tuple[str, str], ...] = ()  # (what, repr) of the input and answers, uncut, for the folded part
    labelled: bool = False  # the input line shows the case's label, not its arguments

    @property
    def ok(self) -> bool:
        return self.status == "passed"

    def _lines(self) -> list[str]:
        if self.status == "passed":
            cases = "the one case agrees" if self.total == 1 else f"all {self.total} cases agree"
            return [f"✓ {self.exercise}: passed: {cases} with {self.reference}"]
        if self.status == "not attempted":
            todo = ("  Write the function's body in the cell above, run it, then run this cell again."
                    if self.where == "the notebook" else
                    f"  Write it in {self.where}, save the file, then run this cell again.")
            return [f"○ {self.exercise}: not attempted: {self.detail}", todo]
        word = "failed" if self.status == "failed" else "error"
        if self.case is None:  # a property, once every case agreed
            return [f"✗ {self.exercise}: every one of the {self.total} cases agrees, but {self.call}",
                    f"  measured: {self.got}"]
        lines = [f"✗ {self.exercise}: {word} on case {self.case + 1} of {self.total} "
                 f"({self.agreed} agreed before it)", f"  input:    {self.call}", f"  expected: {self.expected}"]
        if self.status == "failed":
            lines.append(f"  got:      {self.got}")
            if self.detail:
                lines.append(f"  {self.detail}")
        else:
            lines.append(f"  raised:   {self.detail}")
        if self.rerun:
            lines.append(f"  run it again, whole: {self.rerun}")
        if self.compare and self._cut():
            lines.append(f"  the input and both answers, whole: {self.compare}")
        return lines

    def _cut(self) -> bool:
        """Whether the lines above show less than the whole case (a cut value, or a label for the input)."""
        return self.labelled or any(" … " in x and x.endswith(" characters)")
                                    for x in (self.call, self.expected, self.got))

    @property
    def text(self) -> str:
        return "\n".join(self._lines())

    def __repr__(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return self.rendered().html

    def rendered(self) -> Rendered:
        colour = {"passed": _GREEN, "not attempted": _GREY}.get(self.status, _RED)
        lines = self._lines()
        rest = "\n".join(x.removeprefix("  ") for x in lines[1:])
        folded = ""
        if self.whole:
            parts = "".join(f'<div style="margin-top:4px"><b>{html.escape(what)}</b></div>'
                            f'<div style="{_MONO};max-height:24em;overflow:auto">{html.escape(value)}</div>'
                            for what, value in self.whole)
            folded = f"<details><summary>the case whole</summary>{parts}</details>"
        body = (f'<div style="padding:4px 8px;margin:2px 0;border:2px solid {colour[0]};border-radius:4px;'
                f'background:{colour[1]};color:{TEXT}"><div style="font-weight:bold">{html.escape(lines[0])}</div>'
                + (f'<div style="{_MONO}">{html.escape(rest)}</div>' if rest else "") + folded + "</div>")
        return Rendered(body, self.text)


WHOLE_LIMIT = 200_000  # characters of one whole value a report folds in; past it, compare() still gives it


def _whole(value: Any) -> str:
    """``repr(value)`` with its length, uncut up to :data:`WHOLE_LIMIT` characters.

    >>> _whole("ab")
    "'ab'  (a str of 2 characters)"
    """
    text = repr(value)
    size = f"a {type(value).__name__}"
    if isinstance(value, str | bytes | list | tuple | dict):
        unit = {str: "character", bytes: "byte"}.get(type(value), "item")
        size += f" of {len(value):,} {unit}{'' if len(value) == 1 else 's'}"
    if len(text) > WHOLE_LIMIT:
        text = text[:WHOLE_LIMIT] + f" … (the first {WHOLE_LIMIT:,} characters of {len(text):,})"
    return f"{text}  ({size})"


def _parameter_names(ex: Exercise, n: int) -> list[str]:
    """The reference's parameter names for a call of ``n`` arguments, or ``argument 1``, ``argument 2``, ..."""
    try:
        names = [p.name for p in inspect.signature(ex.reference).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        names = []
    return names[:n] if len(names) >= n else [f"argument {i + 1}" for i in range(n)]


def _whole_case(ex: Exercise, case: Case, expected: Any, got: Any = None, raised: str | None = None
                ) -> tuple[tuple[str, str], ...]:
    """The input, argument by argument, and both answers, uncut (up to :data:`WHOLE_LIMIT` characters each)."""
    names = _parameter_names(ex, len(case.args))
    parts = [(name, _whole(arg)) for name, arg in zip(names, case.args, strict=True)]
    parts.append(("expected", _whole(expected)))
    parts.append(("yours raised", raised) if raised is not None else ("yours", _whole(got)))
    return tuple(parts)


@dataclass(frozen=True)
class Comparison:
    """One case run again: its arguments, the reference's answer and the student's, whole.

    ``agree`` says whether the two answers agree as a check compares them."""

    exercise: str
    number: int
    args: tuple
    expected: Any
    got: Any

    @property
    def agree(self) -> bool:
        if isinstance(self.expected, Raises):
            return False
        return agree(self.expected, self.got)


def check_exercise(ex: Exercise, fn: Callable[..., Any]) -> CheckResult:
    """Run ``fn`` on ``ex``'s cases and return the verdict (see the module docstring). A check that runs past
    two seconds shows how far it is (:class:`gguftok.viz.progress.Progress`)."""
    if not callable(fn):
        raise TypeError(f"check needs the function you wrote, not {short(fn, 60)}")
    with Progress(f"checking {ex.id}", unit="case") as progress:
        return _check(ex, fn, progress)


def _check(ex: Exercise, fn: Callable[..., Any], progress: Progress) -> CheckResult:
    # The lesson's first example decides "not attempted" before any generated case is built.
    first = ex.examples()[0]
    try:
        got = ex.run(fn, first)
    except NotImplementedError:
        return CheckResult(ex.id, "not attempted", 0, ex.reference_name, where=ex.where,
                           detail=f"{ex.name} still raises NotImplementedError")
    except Exception:  # reported below, with the case
        got = None
    else:
        if got is Ellipsis:
            return CheckResult(ex.id, "not attempted", 0, ex.reference_name, where=ex.where,
                               detail=f"{ex.name} still returns ...")
    progress.at(0, "preparing the cases")
    cases = ex.cases()
    total = len(cases)
    for k, case in enumerate(cases):
        progress.at(k + 1, "", total)
        expected = ex.expected(k)
        base = dict(exercise=ex.id, total=total, reference=ex.reference_name, agreed=k, case=k,
                    call=ex.describe(case), expected=short(expected), rerun=_rerun_call(ex, k),
                    compare=f"compare({ex.id!r}, {k + 1})", labelled=case.label is not None)
        try:
            got = ex.run(fn, case)
        except Exception as e:
            if isinstance(expected, Raises) and isinstance(e, expected.kind):
                continue
            return CheckResult(status="error", detail=_raised_at(e),
                               whole=_whole_case(ex, case, expected, raised=_raised_at(e)), **base)
        if not isinstance(expected, Raises) and agree(expected, got):
            continue
        base["whole"] = _whole_case(ex, case, expected, got)  # only for the case reported: a repr can be long
        if isinstance(expected, Raises):
            return CheckResult(status="failed", got=short(got), detail="the reference raises here; yours returned",
                               **base)
        detail = ""
        if _is_seq(expected) and _is_seq(got):
            i = first_index(expected, got)
            e_item = short(expected[i], 80) if i < len(expected) else "(nothing: the list ends)"
            g_item = short(got[i], 80) if i < len(got) else "(nothing: the list ends)"
            detail = (f"first difference at index {i}: expected {e_item}, got {g_item} "
                      f"(lengths {len(expected)} and {len(got)})")
        elif type(expected) is not type(got) and expected is not None and got is not None:
            detail = f"expected a {type(expected).__name__}, got a {type(got).__name__}"
        return CheckResult(status="failed", got=short(got), detail=detail, **base)
    for prop in ex.properties():
        progress.at(total, "then how it works")
        problem = prop.test(fn)
        if problem is not None:
            return CheckResult(ex.id, "failed", total, ex.reference_name, agreed=total, call=prop.description,
                               got=problem)
    return CheckResult(ex.id, "passed", total, ex.reference_name, agreed=total)


def _rerun_call(ex: Exercise, k: int) -> str:
    """Code that runs case ``k`` again: the call itself when its arguments are small, else ``rerun(...)``."""
    case = ex.cases()[k]
    if case.label is None and ex.call is None:
        call = f"{ex.name}({', '.join(repr(a) for a in case.args)})"
        if len(call) <= 200:
            return call
    return f"rerun({ex.id!r}, {k + 1})"


def statement_view(ex: Exercise) -> Rendered:
    """The exercise's statement (markdown source, shown as preformatted text), then where to write it: the
    template for an exercise written in the notebook, the file of the student's package otherwise."""
    title = f"Exercise {ex.id}: {ex.title}"
    call = f"check({ex.id!r})" if ex.module else f"check({ex.id!r}, {ex.name})"
    code = f"Write {ex.name} in {ex.where}." if ex.module else ex.template
    text = f"{title}\n\n{ex.statement}\n\n{code}\n\nCheck it with: {call}"
    body = (f'<div style="border:1px solid #888888;border-radius:4px;padding:6px 8px">'
            f'<div style="font-weight:bold">{html.escape(title)}</div>'
            f'<div style="white-space:pre-wrap">{html.escape(ex.statement)}</div>'
            f'<pre style="{_MONO}">{html.escape(code)}</pre>'
            f'<div>Check it with: <code>{html.escape(call)}</code></div></div>')
    return Rendered(body, text)
