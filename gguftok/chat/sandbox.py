"""The sandbox a chat template runs in: transformers' Jinja environment, tightened, and the one function that
compiles a template into it (:func:`compile_template`) and the one that renders it (:func:`render`).

The environment is transformers' (immutable sandbox, ``trim_blocks``, ``lstrip_blocks``, loop controls,
``raise_exception``, ``strftime_now``, ``tojson``, ``namespace``, ``dict``), and:

- unsafe attributes raise at once; ``{% include %}``, ``{% import %}`` and ``{% extends %}`` are refused;
- every call, filter, test, loop, output, ``~`` and growing operator goes through the render's
  :class:`~gguftok.chat.budget.Budget` (time, sizes, bytes), the amplifying ones checked before they run;
- while ``encode_chat`` renders, the template's literals that hold guarded text reach it as
  :class:`~gguftok.chat.marks.Marked` strings, and the operations that write or join text keep their marks
  (:mod:`gguftok.chat.marks`);
- a template is refused before compiling when it nests deeper than Python compiles what Jinja makes of it
  (MAX_NESTING levels of its syntax tree, MAX_BLOCKS blocks, MAX_LOOPS loops, MAX_NODES nodes), and every failure, from
  parsing to rendering, is a :class:`~gguftok.errors.ChatTemplateError` naming the template line.

>>> t = compile_template("{% for m in messages %}{{ m.content | upper }}{% endfor %}", "demo")
>>> render(t, {"messages": [{"role": "user", "content": "hi"}]}, timeout=5, max_chars=100, max_memory=1 << 24)
('HI', None)
"""

from __future__ import annotations

import functools
import inspect
import json
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import jinja2
import jinja2.ext
from jinja2 import nodes
from jinja2.parser import Parser
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError
from jinja2.utils import Namespace
from jinja2.visitor import NodeTransformer

from ..errors import ChatTemplateError
from . import budget as bg
from .budget import MAX_INT_BITS, MAX_JSON_INDENT, MAX_TEMPLATE, Limit
from .marks import MARK_OVERHEAD, OPEN, Marked, Marker

MAX_NESTING = 80  # levels of the syntax tree on a path (Python nests 200 parentheses; Jinja writes <= 2 a level)
MAX_BLOCKS = 64  # for, if, macro and call blocks inside one another (Python indents at most 100 levels)
MAX_LOOPS = 16  # for loops inside one another (Python nests at most 20 loops in one function)
MAX_NODES = 20_000  # nodes of the syntax tree (compiling costs ~0.1 ms and ~5 KB a node; Gemma 4 has 917)
_INTERNAL = "gguftok_"  # the prefix of the sandbox's own filters, which a template may not name


class _Raised(Exception):
    """raise_exception() was called by the template."""


# --------------------------------------------------------------------------------- literals and their marks
# A Marked string exists only while encode_chat renders (there is a Marker then). The operations that write
# text out or join texts run on their inputs' materialized texts (marks in the text), and read their result
# back (Marker.lift); every other operation sees, and makes, plain text.
def _mat(value: Any) -> Any:
    """A Marked string's materialized text (anything else as it is)."""
    return bg.current().marker.materialize(value) if type(value) is Marked else value


def _mat_items(values: Any) -> tuple[Any, bool]:
    """``values`` (a value, or the items of a list, tuple or dict) materialized, and whether any was Marked."""
    if isinstance(values, (list, tuple)):
        marked = any(type(v) is Marked for v in values)
        return (type(values)(_mat(v) for v in values) if marked else values), marked
    if isinstance(values, dict):
        marked = any(type(v) is Marked for v in values.values())
        return ({k: _mat(v) for k, v in values.items()} if marked else values), marked
    return _mat(values), type(values) is Marked


def _lift(value: Any) -> Any:
    """The result of an operation on materialized texts, read back (see :meth:`Marker.lift`)."""
    return bg.current().marker.lift(value) if isinstance(value, str) else value


def _agreeing(plain: Any, on_marks: Callable[[], Any]) -> Any:
    """``plain`` (the result of an operation on the texts, what the template sees), with the marks that the same
    operation on the materialized texts kept, if it made the same text; else ``plain`` alone. So a width, a
    position or a prefix the marks would shift (``center``, ``'%-20s'``, ``removeprefix``) costs the trust,
    never the exactness of the render."""
    if not isinstance(plain, str):
        return plain
    plain = str.__str__(plain)  # no marks (Jinja's format returns the type of its format string)
    try:
        marked = _lift(on_marks())
    except ChatTemplateError:  # the operation cut a mark apart
        return plain
    return marked if marked == plain else plain


# ------------------------------------------------------------------------------ guards on the filters
# Filters that build text from their first argument, and the other arguments they write into it: they run on
# materialized texts, so that marks survive (``'<|im_end|>' | trim``, ``x | replace('a', '<|x|>')``).
_TEXT_FILTERS = {"trim": (), "indent": (), "center": (), "replace": ("new",), "format": ("args", "kwargs"),
                 "join": ("d",)}


def _filter_check(name: str, b: bg.Budget, a: dict[str, Any]) -> None:  # a: the bound arguments, by name
    """Checks for the Jinja filters whose result can be much larger than their arguments."""
    if name == "replace":
        bg.check_replace(b, a.get("s"), a.get("old"), a.get("new"), a.get("count"))
    elif name == "indent":
        s, width = a.get("s", ""), a.get("width", 4)
        w = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
        lines = s.count("\n") + 1 if isinstance(s, str) else 1
        b.check_size(bg.size(s, b.max_chars) + lines * max(0, w), "an indented string")
    elif name == "wordwrap":
        s, width, wrap = a.get("s", ""), a.get("width", 79), a.get("wrapstring") or "\n"
        lines = len(s) // max(1, width if isinstance(width, int) else 1) + 1 if isinstance(s, str) else 1
        b.check_size(bg.size(s, b.max_chars) + lines * len(str(wrap)), "a wrapped string")
    elif name == "format":
        value = a.get("value")
        if isinstance(value, str):
            bg.check_percent(b, value, a.get("kwargs") or a.get("args"))
    elif name == "tojson":
        indent = a.get("indent")
        width = len(indent) if isinstance(indent, str) else indent if isinstance(indent, int) else 0
        if width > MAX_JSON_INDENT:
            raise Limit(f"tojson indent {width} is larger than {MAX_JSON_INDENT}")
        n = bg.size(a.get("x"), b.max_chars)
        b.check_size(n * (2 + width), "a JSON text")
        bg.text_bytes(b, n * (2 + width), "a JSON text", n)
    elif name == "sum":
        start = a.get("start", 0)
        if isinstance(start, (list, tuple, str)):
            items = a["iterable"] = list(a.get("iterable", ()))
            b.check_size(bg.total_size(items, b.max_chars) + len(start), "a sum")


# Filters that make a list of their first argument's items (a string's characters, for the first group), and
# filters that write their first argument as text.
_ITEMS = {"list": True, "batch": True, "slice": True, "sort": True, "unique": True, "groupby": True, "join": True,
          "reverse": False, "dictsort": False, "items": False, "sum": False, "max": False, "min": False,
          "random": False}
_KEYED = frozenset(("sort", "unique", "groupby", "dictsort", "max", "min"))  # a key (lowercased text) per item
_AS_TEXT = frozenset(("string", "pprint", "tojson", "urlencode", "xmlattr", "e", "escape", "forceescape"))
# Filters whose result is small, or lazy (each item goes through the guards later): no size check on the value
_SMALL = frozenset(("length", "count", "first", "last", "random", "int", "float", "abs", "round", "wordcount",
                    "filesizeformat", "default", "d", "attr", "select", "reject", "selectattr", "rejectattr", "map",
                    "safe", "string"))


def _items(b: bg.Budget, value: Any, what: str, chars: bool) -> Any:
    """``value``, checked before a filter makes a list of its items; an iterator is read here, one item at a
    time, under the budget (its items come from guarded operations)."""
    if isinstance(value, (str, range, list, tuple, dict, set, frozenset)) or not hasattr(value, "__next__"):
        bg.check_chars(b, value, what, chars)
        return value
    out = []
    for i, x in enumerate(value):
        out.append(x)
        if not i & 1023:
            b.tick()
            b.check_size(len(out), what)
            b.check_bytes(8 * len(out), what)
    return out


@functools.cache  # the same wrapper for every environment: wrapping Jinja's filters cost 5 ms a template
def _guard_filter(name: str, func: Callable) -> Callable:
    sig = inspect.signature(func)
    skip = 1 if getattr(func, "jinja_pass_arg", None) is not None else 0
    text_args = _TEXT_FILTERS.get(name)

    @functools.wraps(func)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        b = bg.current()
        b.tick()
        bg.check_args(b, args[skip + 1:], kwargs)  # the value itself may be large; what is done with it is checked
        inputs = (*args, *kwargs.values())
        value = args[skip] if len(args) > skip else None
        if name in _ITEMS and len(args) > skip:
            value = _items(b, value, f"|{name}", _ITEMS[name])
            if name == "join":
                value = list(value)
                bg.check_join(b, value, args[skip + 1] if len(args) > skip + 1 else kwargs.get("d", ""))
            elif name in _KEYED:
                bg.text_bytes(b, bg.size(value, b.max_chars), f"|{name}", len(value))
            args = (*args[:skip], value, *args[skip + 1:])
        elif name in _AS_TEXT:
            bg.check_render(b, value, f"|{name}")
        on_marks = None
        if name in ("replace", "indent", "wordwrap", "format", "tojson", "sum") or text_args is not None:
            bound = sig.bind(*args, **kwargs)
            _filter_check(name, b, bound.arguments)  # may replace a generator by the list it checked
            args, kwargs = bound.args, bound.kwargs
            if text_args is not None and b.marker is not None:
                first = list(bound.arguments)[skip]
                marked = False
                for arg in (first, *text_args):
                    if arg in bound.arguments:
                        bound.arguments[arg], m = _mat_items(bound.arguments[arg])
                        marked = marked or m
                if marked:
                    margs, mkwargs = bound.args, bound.kwargs
                    on_marks = functools.partial(func, *margs, **mkwargs)
        elif name not in _ITEMS and name not in _SMALL:
            b.check_size(bg.size(value, b.max_chars), "a filtered value")
        result = func(*args, **kwargs)
        if on_marks is not None:
            result = _agreeing(result, on_marks)
        return b.result(result, *inputs)

    return guarded


@functools.cache
def _guard_test(func: Callable) -> Callable:
    @functools.wraps(func)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        bg.current().tick()
        return func(*args, **kwargs)

    return guarded


# -------------------------------------------------------------------------- guards on the str methods
# The str methods that build text from the string they are called on and the texts they are given: they run on
# materialized texts. (Methods that answer a question or split, ``startswith``, ``split``, run on the text.)
_TEXT_METHODS = frozenset(("strip", "lstrip", "rstrip", "center", "ljust", "rjust", "zfill", "expandtabs",
                           "removeprefix", "removesuffix", "replace", "join", "format", "format_map", "lower",
                           "upper", "title", "capitalize", "swapcase", "casefold", "translate"))


def _str_method(b: bg.Budget, obj: Any, args: tuple, kwargs: dict) -> tuple[tuple, Callable[[], Any] | None]:
    """Checks for the str methods whose result can be much larger than their arguments; the arguments to call
    ``obj`` with, and, when Marked texts are involved, the same call on the materialized texts."""
    s, name = obj.__self__, obj.__name__
    marked_self = type(s) is Marked and name in _TEXT_METHODS
    margs = args
    if name == "join" and args:
        items = list(_items(b, args[0], "a join", True))
        bg.check_join(b, items, s)
        args = (items, *args[1:])
        mitems, m = _mat_items(items)
        margs, marked = ((mitems, *args[1:]), m or marked_self)
    elif name == "replace":
        bg.check_replace(b, s, *args, **kwargs)
        marked = marked_self or (len(args) >= 2 and type(args[1]) is Marked)
        if len(args) >= 2:
            margs = (args[0], _mat(args[1]), *args[2:])
    else:
        marked = marked_self
        if name == "expandtabs":
            tab = bg._largest_int(args) or bg._largest_int(kwargs) or 8
            b.check_size(len(s) + s.count("\t") * tab, "an expanded string")
        elif name == "translate" and args and isinstance(args[0], Mapping):
            longest = max((len(v) for v in args[0].values() if isinstance(v, str)), default=1)
            b.check_size(len(s) * max(1, longest), "a translated string")
        elif name in ("split", "rsplit"):
            sep = args[0] if args else kwargs.get("sep")
            bg.check_split(b, s, sep, args[1] if len(args) > 1 else kwargs.get("maxsplit", -1))
        elif name == "splitlines":
            bg.check_split(b, s, None, -1, lines=True)
    if not marked or b.marker is None:
        return args, None
    method = getattr(_mat(s), name)
    return args, functools.partial(method, *margs, **kwargs)


# ------------------------------------------------------------------------ what the template may call
def _raise_exception(message: Any) -> None:
    raise _Raised(str(message))


def _tojson(x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None,
            sort_keys: bool = False) -> str:
    # transformers' tojson: json.dumps with these options (Jinja's own escapes HTML characters)
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _strftime_now(format: str) -> str:
    return datetime.now().strftime(format)


class _TemplateDict:
    """``dict(...)`` for templates, without the class itself (transformers does the same)."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict:
        return dict(*args, **kwargs)

    def fromkeys(self, *args: Any, **kwargs: Any) -> dict:
        return dict.fromkeys(*args, **kwargs)


class _TemplateNamespace(Namespace):
    """``namespace(...)`` that refuses attributes starting with an underscore (as transformers does)."""

    def __init__(*args: Any, **kwargs: Any) -> None:  # Jinja's signature trick, so that namespace(self=...) works
        self, args = args[0], args[1:]
        attrs = dict(*args, **kwargs)
        for name in attrs:
            _TemplateNamespace._check_name(name)
        Namespace.__init__(self, attrs)

    def __setitem__(self, name: str, value: Any) -> None:
        _TemplateNamespace._check_name(name)
        Namespace.__setitem__(self, name, value)

    @staticmethod
    def _check_name(name: Any) -> None:
        if isinstance(name, str) and name.startswith("_"):
            raise SecurityError(f"a namespace attribute may not start with an underscore: {name!r}")


_LOOP, _OUT, _CONCAT = _INTERNAL + "loop_guard", _INTERNAL + "output_guard", _INTERNAL + "concat_guard"
_LIT, _LIT_OUT, _BUILT = _INTERNAL + "literal", _INTERNAL + "literal_output", _INTERNAL + "built"


def _loop_guard(iterable: Any) -> Any:
    b = bg.current()
    b.tick()
    for i, item in enumerate(iterable):
        if not i & 63:
            b.tick()
        yield item


def _output_guard(value: Any) -> str:
    b = bg.current()
    b.tick()
    if isinstance(value, str):
        value = _mat(value)
    else:
        bg.check_render(b, value, "an output")
        value = str(value)
    b.check_size(len(value), "an output")
    b.charge(sys.getsizeof(value) + 8)  # held in the output until the render ends
    return value


def _literal(s: str) -> str:
    marker = bg.current().marker  # (not at compile time: Jinja would fold the constant into the code)
    return marker.literal(s) if marker is not None else s


def _literal_output(s: str) -> str:
    marker = bg.current().marker
    return marker.materialize(marker.literal(s)) if marker is not None else s


def _built(value: Any) -> Any:
    """A list, tuple or dict the template wrote (``[a, b]``, ``(a,)``, ``{k: v}``): charged, its nesting checked."""
    return bg.current().result(value)


def _concat_guard(parts: list[Any]) -> str:
    b = bg.current()
    b.check_size(bg.total_size(parts, b.max_chars), "a ~ concatenation")
    for p in parts:
        bg.check_render(b, p, "a ~ concatenation")
    parts, marked = _mat_items(parts)
    text = "".join([p if isinstance(p, str) else str(p) for p in parts])
    return b.result(_lift(text) if marked else text)


class _Harden(NodeTransformer):
    """Route every loop, output, ``~`` and literal through the budget's checks and the marks."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = nodes.Filter(node.iter, _LOOP, [], [], None, None, lineno=node.lineno)
        return node

    def visit_Output(self, node: nodes.Output) -> nodes.Node:
        out = []
        for n in node.nodes:
            if isinstance(n, nodes.TemplateData):
                out.append(nodes.Filter(nodes.Const(n.data, lineno=n.lineno), _LIT_OUT, [], [], None, None,
                                        lineno=n.lineno))
            else:
                out.append(nodes.Filter(self.visit(n), _OUT, [], [], None, None, lineno=n.lineno))
        node.nodes = out
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return nodes.Filter(nodes.List(node.nodes, lineno=node.lineno), _CONCAT, [], [], None, None,
                            lineno=node.lineno)

    def visit_List(self, node: nodes.Node) -> nodes.Node:
        self.generic_visit(node)
        if getattr(node, "ctx", "load") != "load":  # a tuple assigned to: {% for k, v in ... %}
            return node
        return nodes.Filter(node, _BUILT, [], [], None, None, lineno=node.lineno)

    visit_Tuple = visit_Dict = visit_List

    def visit_Const(self, node: nodes.Const) -> nodes.Node:
        if isinstance(node.value, str):
            return nodes.Filter(node, _LIT, [], [], None, None, lineno=node.lineno)
        return node


_SCOPE_KWARGS = ("_loop_vars", "_block_vars")  # what Jinja's code adds to a call inside a loop or a block


class _Environment(ImmutableSandboxedEnvironment):
    """transformers' environment (immutable sandbox, trim_blocks, lstrip_blocks, loopcontrols, its helpers),
    with every call, filter, test, loop, output and growing operator checked against the render's budget."""

    intercepted_binops = frozenset(("+", "*", "**", "%"))

    def __init__(self) -> None:
        super().__init__(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
        self.filters["tojson"] = _tojson
        self.filters = {name: _guard_filter(name, f) for name, f in self.filters.items()}
        self.tests = {name: _guard_test(f) for name, f in self.tests.items()}
        self.filters.update({_LOOP: _loop_guard, _OUT: _output_guard, _CONCAT: _concat_guard, _LIT: _literal,
                             _LIT_OUT: _literal_output, _BUILT: _built})
        del self.globals["lipsum"]  # no chat template uses it, and it can write any amount of text
        self.globals.update(raise_exception=_raise_exception, strftime_now=_strftime_now, dict=_TemplateDict(),
                            namespace=_TemplateNamespace)

    def concat(self, parts: Any) -> str:  # type: ignore[override]  # a macro's or a block's output, joined
        b = bg.current()
        if b.marker is not None:  # a call block's or a filter block's result is written as it is: its marks too
            parts = [b.marker.materialize(p) if type(p) is Marked else p for p in parts]
        text = "".join(parts)
        b.check_size(len(text), "a block's output")
        b.charge(sys.getsizeof(text))
        return b.marker.lift(text) if b.marker is not None and OPEN in text else text

    def getitem(self, obj: Any, argument: Any) -> Any:
        value = super().getitem(obj, argument)
        if isinstance(argument, slice):  # a new list or string (an item or attribute is one that exists)
            b = bg.current()
            b.tick()
            return b.result(value, obj)
        return value

    def unsafe_undefined(self, obj: Any, attribute: str) -> Any:
        # Jinja returns an Undefined that fails only when used ({{ x|attr('__class__') }} prints ''): fail now
        raise SecurityError(f"access to attribute {attribute!r} of {type(obj).__name__!r} object is unsafe")

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        b = bg.current()
        b.tick()
        inputs = (left, right)
        if operator == "*":
            for seq, n in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(n, int):
                    b.check_size(len(seq) * max(0, n), "a repeated sequence")
                    b.check_bytes((4 if isinstance(seq, str) else 8) * len(seq) * max(0, n), "a repeated sequence")
            if isinstance(left, int) and isinstance(right, int) and \
                    left.bit_length() + right.bit_length() > MAX_INT_BITS:
                raise Limit(f"an integer of more than {MAX_INT_BITS} bits")
            if type(left) is Marked or type(right) is Marked:  # repeating keeps every mark whole
                return b.result(_lift(_mat(left) * _mat(right)), *inputs)
        elif operator == "**":
            if isinstance(left, int) and isinstance(right, int) and right > 0 and abs(left) > 1 and \
                    right * left.bit_length() > MAX_INT_BITS:
                raise Limit(f"an integer of more than {MAX_INT_BITS} bits")
        elif operator == "+":
            if isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
                b.check_size(len(left) + len(right), "a sum")
            if isinstance(left, str) and isinstance(right, str) and (type(left) is Marked or type(right) is Marked):
                return b.result(_lift(_mat(left) + _mat(right)), *inputs)  # joining keeps every mark whole
        elif operator == "%" and isinstance(left, str):
            bg.check_percent(b, left, right)
            bg.check_render(b, right, "a %-format argument")
            mright, marked = _mat_items(right)
            if marked or type(left) is Marked:
                plain = self.binop_table["%"](left, right)
                return b.result(_agreeing(plain, lambda: _mat(left) % mright), *inputs)
        return b.result(self.binop_table[operator](left, right), *inputs)

    def call(self, context: Any, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        b = bg.current()
        b.tick()
        if not self.is_safe_callable(obj):
            raise SecurityError(f"{obj!r} is not safely callable")
        # Inside a loop or a block, Jinja's generated code passes the loop's (block's) variables as the keyword
        # arguments _loop_vars and _block_vars, for Context.call alone (it gives them to a pass_context callable
        # and drops them): they are not the template's arguments, so neither checked nor given to a str method.
        scope = {k: kwargs.pop(k) for k in _SCOPE_KWARGS if k in kwargs}
        bg.check_args(b, args, kwargs)
        inputs = (obj, getattr(obj, "__self__", None), *args, *kwargs.values())
        on_marks = None
        if isinstance(getattr(obj, "__self__", None), str) and inspect.isbuiltin(obj):
            args, on_marks = _str_method(b, obj, args, kwargs)
        result = context.call(obj, *args, **kwargs, **scope)
        if on_marks is not None:
            result = _agreeing(result, on_marks)
        return b.result(result, *inputs)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        fmt = super().wrap_str_format(value)
        if fmt is None:
            return None
        template = value.__self__
        on_marks = super().wrap_str_format(getattr(_mat(template), value.__name__)) if type(template) is Marked \
            else fmt

        def checked(*args: Any, **kwargs: Any) -> str:
            b = bg.current()
            b.tick()
            bg.check_args(b, args, kwargs)
            if value.__name__ == "format":
                bg.check_format(b, template, args, kwargs)
            else:
                bg.check_format(b, template, (), args[0] if args and isinstance(args[0], Mapping) else {})
            result = fmt(*args, **kwargs)
            items = [_mat_items(a) for a in args]
            kw, marked_kw = _mat_items(kwargs)
            if b.marker is not None and (type(template) is Marked or marked_kw or any(m for _, m in items)):
                result = _agreeing(result, lambda: on_marks(*[a for a, _ in items], **kw))
            return b.result(result)

        return checked


_FORBIDDEN = {nodes.Include: "{% include %}", nodes.Import: "{% import %}", nodes.FromImport: "{% from ... import %}",
              nodes.Extends: "{% extends %}"}


# ------------------------------------------------------------------------------------------- compiling
@dataclass
class Compiled:
    """A template compiled in the sandbox: the Jinja template, and the texts of its literals."""

    name: str
    source: str
    template: jinja2.Template
    literals: frozenset[str]  # its TemplateData texts and string constants, as the template has them

    @property
    def filename(self) -> str:
        return self.template.filename or ""


def compile_template(source: str, name: str) -> Compiled:
    """``source`` compiled in the sandbox, or :class:`ChatTemplateError` naming the line that fails."""
    if not isinstance(source, str):
        raise ChatTemplateError(f"a chat template is a string, not {type(source).__name__}", template=name)
    if len(source) > MAX_TEMPLATE:
        raise ChatTemplateError(f"the template has {len(source):,} characters; the limit is {MAX_TEMPLATE:,}",
                                template=name)
    filename = f"<{name}>"
    env = _Environment()
    parser = Parser(env, source, filename=filename)
    try:
        ast = parser.parse()
    except jinja2.TemplateSyntaxError as e:
        raise ChatTemplateError(f"syntax error: {e.message}", template=name, line=e.lineno) from None
    except RecursionError:
        raise ChatTemplateError("the template is nested too deeply to parse", template=name,
                                line=parser.stream.current.lineno) from None
    except MemoryError:
        raise ChatTemplateError("out of memory parsing the template", template=name,
                                line=parser.stream.current.lineno) from None
    _check_tree(ast, name)
    literals = frozenset({n.data for n in ast.find_all(nodes.TemplateData)}
                         | {n.value for n in ast.find_all(nodes.Const) if isinstance(n.value, str)})
    ast = _Harden().visit(ast)
    ast.set_environment(env)
    code_source = ""
    try:
        code_source = env.compile(ast, filename=filename, raw=True)
        code = compile(code_source, filename, "exec")
    except jinja2.TemplateSyntaxError as e:
        raise ChatTemplateError(f"syntax error: {e.message}", template=name, line=e.lineno) from None
    except (SyntaxError, RecursionError, MemoryError, ValueError) as e:  # past the nesting checks: never expected
        line = _template_line(code_source, e.lineno) if isinstance(e, SyntaxError) else None
        raise ChatTemplateError(f"the template cannot be compiled ({type(e).__name__}: {e})", template=name,
                                line=line) from None
    template = env.template_class.from_code(env, code, env.make_globals(None), None)
    return Compiled(name, source, template, literals)


def _check_tree(ast: nodes.Template, name: str) -> None:
    """Refuse, before compiling, what the sandbox does not run: loading other templates, naming its own
    filters, and nesting deeper than Python compiles what Jinja generates (walked without recursion)."""
    stack: list[tuple[nodes.Node, int, int, int]] = [(ast, 0, 0, 0)]
    count = 0
    while stack:
        node, depth, blocks, loops = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise ChatTemplateError(f"the template has more than {MAX_NODES:,} syntax nodes (expressions, blocks "
                                    "and texts)", template=name, line=getattr(node, "lineno", None))
        line = getattr(node, "lineno", None)
        for kind, what in _FORBIDDEN.items():
            if isinstance(node, kind):
                raise ChatTemplateError(f"{what} is not allowed: a chat template cannot load other templates",
                                        template=name, line=line)
        if isinstance(node, (nodes.Filter, nodes.Test)) and node.name.startswith(_INTERNAL):
            raise ChatTemplateError(f"no filter or test named {node.name!r}", template=name, line=line)
        if isinstance(node, nodes.For):
            loops += 1
            blocks += 2 if node.recursive else 1
        elif isinstance(node, (nodes.If, nodes.Macro, nodes.CallBlock)):
            blocks += 1
        if loops > MAX_LOOPS:
            raise ChatTemplateError(f"for loops nested more than {MAX_LOOPS} deep", template=name, line=line)
        if blocks > MAX_BLOCKS:
            raise ChatTemplateError(f"blocks (for, if, macro, call) nested more than {MAX_BLOCKS} deep",
                                    template=name, line=line)
        if depth > MAX_NESTING:
            raise ChatTemplateError(f"the template nests more than {MAX_NESTING} levels deep (expressions and "
                                    "blocks within one another)", template=name, line=line)
        stack.extend((child, depth + 1, blocks, loops) for child in node.iter_child_nodes())


def _template_line(code_source: str, python_line: int | None) -> int | None:
    """The template line of a line of the Python code Jinja generated (from its ``debug_info``)."""
    m = re.search(r"^debug_info = '([^']*)'$", code_source, re.MULTILINE)
    if m is None or python_line is None or not m.group(1):
        return None
    pairs = sorted((int(py), int(tl)) for tl, py in (p.split("=") for p in m.group(1).split("&")))
    line = None
    for py, tl in pairs:
        if py > python_line:
            break
        line = tl
    return line


# ------------------------------------------------------------------------------------------- rendering
def render(compiled: Compiled, context: dict[str, Any], *, timeout: float, max_chars: int, max_memory: int,
           runs: Mapping[str, Any] | None = None) -> tuple[str, dict[str, str] | None]:
    """The rendered text, in this process, under a budget; with ``runs`` (encode_chat), the text carries the
    marks of the template's trusted runs and the registry of their keys is returned with it."""
    b = bg.Budget(timeout, max_chars, max_memory)
    if runs is not None:
        b.marker = Marker(runs)
        context = {**context, "bos_token": b.marker.literal(context.get("bos_token", "")),
                   "eos_token": b.marker.literal(context.get("eos_token", ""))}
    token = bg.activate(b)
    out: list[str] = []
    n = 0
    gen = compiled.template.generate(context)
    try:
        for chunk in gen:
            if type(chunk) is Marked:  # a call block's or a filter block's result, written as it is
                chunk = b.marker.materialize(chunk)
            n += len(chunk) - (chunk.count(OPEN) * MARK_OVERHEAD if runs is not None else 0)
            if n > max_chars:
                raise Limit(f"the rendered text exceeds max_chars ({max_chars:,} characters)")
            out.append(chunk)
        text = "".join(out)
    except (Exception, RecursionError, MemoryError) as e:
        raise error(compiled, e, gen, max_memory) from None
    finally:
        bg.deactivate(token)
    return text, (b.marker.registry if runs is not None else None)


def error(compiled: Compiled, e: BaseException, gen: Any = None, max_memory: int = bg.MAX_MEMORY) -> ChatTemplateError:
    """``e`` as ChatTemplateError, with the template line where it happened."""
    line = None
    tb = e.__traceback__
    while tb is not None:  # Jinja rewrites its frames to the template's lines: take the innermost
        if tb.tb_frame.f_code.co_filename == compiled.filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    if line is None and gen is not None and gen.gi_frame is not None:  # stopped between two chunks
        line = compiled.template.get_corresponding_lineno(gen.gi_frame.f_lineno)
    if isinstance(e, ChatTemplateError):
        reason = e.reason
    elif isinstance(e, _Raised):
        reason = f"raise_exception: {e}"
    elif isinstance(e, Limit):
        reason = str(e)
    elif isinstance(e, SecurityError):
        reason = f"unsafe: {e}"
    elif isinstance(e, RecursionError):
        reason = "the template recursed too deeply"
    elif isinstance(e, MemoryError):
        reason = f"out of memory (the render may allocate at most {max_memory / (1 << 20):,.0f} MB)"
    elif isinstance(e, jinja2.TemplateError):
        reason = f"{type(e).__name__}: {e.message}"
    else:
        reason = f"{type(e).__name__}: {e}"
    return ChatTemplateError(reason, template=compiled.name, line=line)

