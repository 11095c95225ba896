"""The capstone: assemble the student's ``GgufTokenizer`` from their own package, and grade it against llama.cpp.

**Assembly.** Every stage module of the student's package is loaded afresh, in pipeline order. A function or
class the student has not written yet (its body is still the template's ``raise NotImplementedError``) is
replaced by the reference solution's, re-bound to the student's module so that it calls the student's other
functions; the report says which parts are theirs. So the capstone works at any point of the course, and
every part the student has written is the one used.

**Grade.** For each vocabulary, three measures:

- llama.cpp's own test cases (``ggml-vocab-*.gguf.inp`` / ``.out``, encoded with ``add_special=False,
  parse_special=False``), the ground truth recorded by llama.cpp itself;
- a differential fuzz: seeded random mixed-script strings, with ``add_special=True``, against gguftok's
  ``Tokenizer`` (which agrees with llama.cpp on every golden fixture);
- the round trip: ``decode(encode(s))`` of the same strings against gguftok's decode of its own ids.

The first mismatch of each measure is kept whole, so it can be run again.

>>> report = assemble()
>>> [p.stage for p in report.parts][:3]
['metadata', 'bytemap', 'merges']
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import textwrap
import types
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from ..conformance.cases import read_cases
from ..data import vocab_dir
from ..viz.progress import Progress
from . import workspace

# The five vocabularies of the lesson's own test run, the other byte-level BPE ones, two SentencePiece ones, a
# WordPiece one and a Unigram one.
LESSON_VOCABS = ("qwen2", "llama-bpe", "gpt-2", "starcoder", "refact")
OTHER_BPE = ("command-r", "deepseek-coder", "deepseek-llm", "falcon", "mpt", "qwen35")
SPM_VOCABS = ("llama-spm", "phi-3")
WPM_VOCABS, UGM_VOCABS = ("bert-bge",), ("nomic-bert-moe",)
GRADED = LESSON_VOCABS + OTHER_BPE + SPM_VOCABS + WPM_VOCABS + UGM_VOCABS
# A vocabulary without a test file of llama.cpp's (nomic-bert-moe) is graded on this many of llama.cpp's answers
# recorded in data/golden/ instead (encoded without special tokens), the texts of valid UTF-8 up to GOLDEN_CHARS.
GOLDEN_CASES, GOLDEN_CHARS = 120, 400
FUZZ, ROUND_TRIP = 200, 300  # random strings per vocabulary for each measure
# Characters of several scripts, digits, spaces, newlines and apostrophes, for the fuzz and the round trip.
# Module-level values the student writes (not functions): the pre-tokenizer's patterns (an empty string until then).
CONSTANTS = {"pretokenize": ("GPT2", "LLAMA3", "QWEN2")}
ALPHABET = "abcXYZ 019'’\n\t.,!?-_éüñßçΩжд世界語日本😀🚀👍🏽ạ\u0301 한국אבعربي़"


@dataclass(frozen=True)
class Part:
    """One stage of the package: the names it must define, and which of them are the student's."""

    stage: str
    names: tuple[str, ...]
    mine: tuple[str, ...]

    @property
    def lesson(self) -> int:
        return workspace.LESSONS[self.stage]

    @property
    def status(self) -> str:
        if len(self.mine) == len(self.names):
            return "yours"
        return "partly yours" if self.mine else "reference"


@dataclass
class Assembly:
    """The assembled package: its parts, and the ``GgufTokenizer`` class built from them."""

    parts: list[Part]
    package: types.ModuleType
    tokenizer: types.ModuleType

    @property
    def GgufTokenizer(self) -> type:
        return self.tokenizer.GgufTokenizer

    def all_mine(self) -> bool:
        return all(p.status == "yours" for p in self.parts)


def _is_stub(fn) -> bool:
    """Whether a function is still the template: a docstring (optional) and ``raise NotImplementedError``."""
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return False
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return (len(body) == 1 and isinstance(body[0], ast.Raise) and body[0].exc is not None
            and "NotImplementedError" in ast.unparse(body[0].exc))


def is_written(obj) -> bool:
    """A function is written once its body is more than the template's ``raise``; a class once any of its own
    methods is."""
    if inspect.isclass(obj):
        wrapped = (classmethod, staticmethod)
        methods = [v.__func__ if isinstance(v, wrapped) else v for v in vars(obj).values()
                   if inspect.isfunction(v) or isinstance(v, wrapped)]
        return any(is_written(m) for m in methods)
    return inspect.isfunction(obj) and not _is_stub(obj)


def _public(module: types.ModuleType) -> list[str]:
    """The functions and classes a module defines itself (not the ones it imports), in source order."""
    names = []
    for name, value in vars(module).items():
        if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(value) or inspect.isclass(value):
            names.append(name)
    return names


def _rebind(fn: types.FunctionType, module: types.ModuleType) -> types.FunctionType:
    """``fn`` with ``module``'s globals: the reference's code, calling the student's functions."""
    new = types.FunctionType(fn.__code__, vars(module), fn.__name__, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__, new.__doc__, new.__qualname__ = fn.__kwdefaults__, fn.__doc__, fn.__qualname__
    new.__module__ = module.__name__
    return new


def assemble() -> Assembly:
    """The student's package as it is on disk now, with the reference in every part not written yet."""
    folder, ref_folder = workspace.workspace_dir(), workspace.solutions_dir()
    if ref_folder is None:
        raise workspace.WorkspaceError("the capstone needs the reference solutions (solutions/mytok/) for the "
                                       "parts not written yet; run it from a checkout of the repository")
    workspace._import(workspace.SOLUTION_PACKAGE, ref_folder, None)
    package = workspace._import(workspace.PACKAGE, folder, None)
    parts = []
    for stage in workspace.STAGES:
        ref_mod = __import__(f"{workspace.SOLUTION_PACKAGE}.{stage}", fromlist=["_"])
        names = tuple(_public(ref_mod))
        student = _student(stage) if stage == "tokenizer" else None
        if student is not None and not is_written(getattr(student, "GgufTokenizer", None)):
            # The reference class, compiled as a module of the student's package: its imports are the student's.
            mod = _load_as(f"{workspace.PACKAGE}.{stage}", ref_folder / f"{stage}.py")
            mine = tuple(n for n in names if is_written(getattr(student, n, None)))
            for n in mine:  # chat_prompt may be written before the class
                setattr(mod, n, getattr(student, n))
        else:
            mod = _student(stage)
            mine = tuple(n for n in names if is_written(getattr(mod, n, None)))
            constants = CONSTANTS.get(stage, ())
            names += constants
            mine += tuple(n for n in constants if getattr(mod, n, "") != "")
            if any(n not in mine for n in constants):
                for k, v in vars(ref_mod).items():  # the reference's values, and the given tables built from them
                    if (k in constants and k not in mine) or (k.isupper() and _holds_empty(getattr(mod, k, None))):
                        setattr(mod, k, v)
            for k, v in vars(ref_mod).items():  # the reference's helpers and imports, where the student has none
                if not k.startswith("__") and k not in vars(mod) and k not in names:
                    setattr(mod, k, _translate(v, package))
            for n in names:
                if n not in mine:
                    ref = getattr(ref_mod, n)
                    setattr(mod, n, _rebind(ref, mod) if inspect.isfunction(ref) else ref)
        setattr(package, stage, mod)
        parts.append(Part(stage, names, mine))
    return Assembly(parts, package, package.tokenizer)


def _holds_empty(value) -> bool:
    """Whether a given table still holds an unwritten pattern (``""``), as one built from the student's ``GPT2``."""
    if isinstance(value, dict):
        return any(_holds_empty(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(v == "" or _holds_empty(v) for v in value)
    return False


def _translate(value, package: types.ModuleType):
    """A name the reference imported from its own package (``from . import bytemap``, ``from .bytemap import
    encode_bytes``) means the student's module or function of that name; anything else is kept."""
    prefix = workspace.SOLUTION_PACKAGE + "."
    if isinstance(value, types.ModuleType) and value.__name__.startswith(prefix):
        return getattr(package, value.__name__.removeprefix(prefix), value)
    owner = getattr(value, "__module__", None) or ""
    if owner.startswith(prefix) and not getattr(value, "__name__", "_").startswith("_"):
        stage = getattr(package, owner.removeprefix(prefix), None)
        return getattr(stage, value.__name__, value) if stage is not None else value
    return value


def _student(stage: str) -> types.ModuleType:
    return __import__(f"{workspace.PACKAGE}.{stage}", fromlist=["_"])


def _load_as(name: str, path) -> types.ModuleType:
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(name, path, loader=workspace._FreshLoader(name, str(path)))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------------------------------- grade
@dataclass(frozen=True)
class Mismatch:
    """The first input where the student's tokenizer and the reference part, whole."""

    text: str
    expected: object
    got: object


@dataclass
class VocabGrade:
    name: str
    family: str
    cases: tuple[int, int] = (0, 0)  # (passed, total) of llama.cpp's own cases
    fuzz: tuple[int, int] = (0, 0)
    round_trip: tuple[int, int] = (0, 0)
    first: dict[str, Mismatch] = field(default_factory=dict)  # measure -> its first mismatch
    error: str | None = None  # the tokenizer could not be built

    @property
    def ok(self) -> bool:
        return self.error is None and all(a == b for a, b in (self.cases, self.fuzz, self.round_trip))


@dataclass
class Grade:
    parts: list[Part]
    vocabs: list[VocabGrade]

    @property
    def ok(self) -> bool:
        return all(v.ok for v in self.vocabs)


@cache
def _reference(name: str):
    from ..tokenizer import Tokenizer

    return Tokenizer.from_gguf(vocab_dir() / f"ggml-vocab-{name}.gguf")


@cache
def golden_cases(name: str) -> list[tuple[bytes, list[int]]]:
    """The first :data:`GOLDEN_CASES` texts of llama.cpp's recorded answers for ``name`` (``data/golden/``) that are
    valid UTF-8 of at most :data:`GOLDEN_CHARS` characters, with llama.cpp's ids for them without special tokens,
    as ``read_cases`` gives a test file's; ``[]`` when there is no such record."""
    from ..conformance.golden import GOLDEN_DIR, read_fixture

    path = GOLDEN_DIR / f"{name}.jsonl.xz"
    if not path.exists():
        return []
    out = []
    for case in read_fixture(path).encode:
        ids = case.answers[0]
        if not (isinstance(case.text, str) and len(case.text) <= GOLDEN_CHARS and isinstance(ids, list)):
            continue
        with contextlib.suppress(UnicodeEncodeError):  # a lone surrogate: not a text a str of the fuzz can be
            out.append((case.text.encode("utf-8"), ids))
            if len(out) == GOLDEN_CASES:
                break
    return out


def random_strings(n: int, seed: int) -> list[str]:
    """``n`` seeded random strings of 0 to 40 characters of :data:`ALPHABET`."""
    import random

    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randrange(41))) for _ in range(n)]


def _call(fn, *args):
    try:
        return fn(*args)
    except Exception as e:  # the student's code: reported as the answer
        return f"{type(e).__name__}: {e}"


def grade_vocab(cls: type, name: str, fuzz: int = FUZZ, round_trip: int = ROUND_TRIP, seed: int = 1212) -> VocabGrade:
    """Grade the class ``cls`` (a ``GgufTokenizer``) on one vocabulary."""
    path = vocab_dir() / f"ggml-vocab-{name}.gguf"
    family = ("SentencePiece" if name in SPM_VOCABS else "WordPiece" if name in WPM_VOCABS else
              "Unigram" if name in UGM_VOCABS else "byte-level BPE")
    result = VocabGrade(name, family)
    try:
        tok = _built(cls, path)
    except Exception as e:
        result.error = f"{type(e).__name__}: {e}"
        return result
    ref = _reference(name)
    inp, out = path.with_name(path.name + ".inp"), path.with_name(path.name + ".out")
    cases = (read_cases(inp.read_bytes(), out.read_text(encoding="utf-8")) if inp.exists() and out.exists()
             else golden_cases(name))
    if cases:
        texts = [raw.decode("utf-8", errors="surrogateescape") for raw, _ in cases]
        answers = iter([ids for _, ids in cases])
        result.cases = _measure(result, "cases", texts, lambda s: next(answers),
                                lambda s: _call(tok.encode, s, False, False))
    result.fuzz = _measure(result, "fuzz", random_strings(fuzz, seed),
                           lambda s: ref.encode(s, add_special=True, parse_special=False),
                           lambda s: _call(tok.encode, s, True, False))

    def back(s: str):
        ids = _call(tok.encode, s, False, False)
        return _call(tok.decode, ids) if isinstance(ids, list) else ids

    result.round_trip = _measure(result, "round trip", random_strings(round_trip, seed + 1),
                                 lambda s: ref.decode(ref.encode(s, add_special=False, parse_special=False)), back)
    return result


_ASSEMBLED: tuple[tuple, Assembly] | None = None
# the tokenizers the last graded class built, by (path, mtime_ns, size) of the file: grading the same class again
# (the scoreboard's button, while no file of the package changed) reads each vocabulary once; another class
# replaces them (a tokenizer refers to its class, so a table by class would keep every class graded alive)
_BUILT: tuple[type | None, dict[tuple, object]] = (None, {})


def _built(cls: type, path) -> object:
    """``cls.from_gguf(path)``, kept for the next grade of the same class while the file is unchanged."""
    global _BUILT
    if _BUILT[0] is not cls:
        _BUILT = (cls, {})
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    made = _BUILT[1]
    if key not in made:
        made[key] = cls.from_gguf(path)
    return made[key]


def _fingerprint() -> tuple:
    """What :func:`assemble` reads, as ``(path, mtime_ns, size)`` of each file of the student's package and of the
    reference solutions: when none changed, the assembly it gave last time is still the one on disk."""
    folders = [workspace.workspace_dir(), workspace.solutions_dir()]
    out = []
    for folder in folders:
        if folder is None:
            continue
        for path in sorted(folder.glob("*.py")):
            with contextlib.suppress(OSError):
                st = path.stat()
                out.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(out)


def assembled() -> Assembly:
    """:func:`assemble`, built again only when a file of the student's package (or of the solutions) changed:
    the same class, so that the tokenizers built from it can be kept between checks."""
    global _ASSEMBLED
    key = _fingerprint()
    if _ASSEMBLED is None or _ASSEMBLED[0] != key:
        _ASSEMBLED = (key, assemble())
    return _ASSEMBLED[1]


def _measure(result: VocabGrade, measure: str, texts: Sequence[str], expected, got) -> tuple[int, int]:
    """(agreed, total) of ``got(s) == expected(s)`` over ``texts``; the first disagreement goes to ``result``."""
    agreed = 0
    for s in texts:
        want, have = expected(s), got(s)
        if have == want:
            agreed += 1
        elif measure not in result.first:
            result.first[measure] = Mismatch(s, want, have)
    return agreed, len(texts)


def grade(assembly: Assembly | None = None, names: Sequence[str] = GRADED, fuzz: int = FUZZ,
          round_trip: int = ROUND_TRIP, until_failure: bool = False) -> Grade:
    """Assemble (unless given) and grade on every vocabulary of ``names`` that has been fetched (with
    ``until_failure``, up to the first that fails: its mismatch is what a quick check shows). A grade that runs
    past two seconds shows which vocabulary it is on (:class:`gguftok.viz.progress.Progress`)."""
    with Progress("grading your GgufTokenizer", unit="vocabulary") as progress:
        progress.at(0, "assembling your package")
        assembly = assembly or assembled()
        present = [n for n in names if (vocab_dir() / f"ggml-vocab-{n}.gguf").exists()]
        grades = []
        for k, name in enumerate(present):
            progress.at(k + 1, name, len(present))
            grades.append(grade_vocab(assembly.GgufTokenizer, name, fuzz, round_trip))
            if until_failure and not grades[-1].ok:
                break
    return Grade(assembly.parts, grades)
