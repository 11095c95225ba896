"""Issue 19, item 4: every failure of a template, from parsing to rendering, is a ChatTemplateError naming the line.

Templates that parsed used to reach Python's compiler and fail there (SyntaxError, IndentationError,
RecursionError, after 6.5 s of compiling for one of them). The sandbox now measures the syntax tree before
compiling (nesting, blocks, loops, size) and refuses what Python would not compile.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gguftok import ChatTemplateError
from gguftok.chat import MAX_TEMPLATE, ChatTemplate
from gguftok.chat.sandbox import MAX_BLOCKS, MAX_LOOPS, MAX_NESTING, MAX_NODES
from gguftok.conformance.chat_golden import VOCABS, templates

ISSUE = {
    "plus_chain": "{{ " + "+".join(["1"] * 250) + " }}",  # SyntaxError: too many nested parentheses
    "getitem_chain": "{{ messages" + "[0]" * 250 + " }}",  # SyntaxError after 6.5 s of compiling
    "nested_fors": "{% for a in [1] %}" * 150 + "{% endfor %}" * 150,  # IndentationError
    "filter_chain": "{{ 1" + "|string" * 2000 + " }}",  # RecursionError
}


@pytest.mark.parametrize("name", list(ISSUE))
def test_the_issues_templates_fail_with_the_line_before_compiling(name):
    start = time.monotonic()
    with pytest.raises(ChatTemplateError) as e:
        ChatTemplate(ISSUE[name], "t")
    assert time.monotonic() - start < 5
    assert e.value.template == "t" and e.value.line == 1, e.value
    assert "nest" in e.value.reason, e.value.reason
    with pytest.raises(ChatTemplateError) as e:  # the same on a later line
        ChatTemplate("line 1\n{{ 'ok' }}\n" + ISSUE[name], "t")
    assert e.value.line == 3


BLOCKS = {  # the blocks that nest: opening and closing tags
    "for": ("{% for a in [1] %}", "{% endfor %}"),
    "for_recursive": ("{% for a in [1] recursive %}", "{% endfor %}"),
    "if": ("{% if 1 %}", "{% endif %}"),
    "call": ("{% call m() %}", "{% endcall %}"),
    "set_block": ("{% set a %}", "{% endset %}"),
    "filter_block": ("{% filter upper %}", "{% endfilter %}"),
    "with": ("{% with a = 1 %}", "{% endwith %}"),
}
_CALLER = "{% macro m() %}{{ caller() }}{% endmacro %}"
NESTERS = {
    **{k: (lambda n, o=o, c=c: _CALLER + o * n + "x" + c * n) for k, (o, c) in BLOCKS.items()},
    "macro": lambda n: "".join(f"{{% macro m{i}() %}}" for i in range(n)) + "x" + "{% endmacro %}" * n,
    "parens": lambda n: "{{ " + "(" * n + "1" + ")" * n + " }}",
    "list": lambda n: "{{ " + "[" * n + "1" + "]" * n + " }}",
    "dict": lambda n: "{{ " + "{'a': " * n + "1" + "}" * n + " }}",
    "call_expr": lambda n: "{{ " + "dict(a=" * n + "1" + ")" * n + " }}",
    "concat": lambda n: "{{ " + "'a' ~ (" * n + "'b'" + ")" * n + " }}",
    "not": lambda n: "{{ " + "not " * n + "1 }}",
    "minus": lambda n: "{{ " + "- " * n + "1 }}",
    "cond": lambda n: "{{ " + "1 if 1 else " * n + "1 }}",
    "and": lambda n: "{{ " + "1 and " * n + "1 }}",
    "attr": lambda n: "{{ messages" + ".a" * n + " }}",
    "getitem": lambda n: "{{ messages" + "[0]" * n + " }}",
    "filter": lambda n: "{{ 1" + "|string" * n + " }}",
    "test": lambda n: "{{ " + "(" * n + "1" + " is defined)" * n + " }}",
}


@pytest.mark.parametrize("kind", list(NESTERS))
def test_any_nesting_at_any_depth_is_a_template_error_or_renders(kind):
    """For every construct that nests, at every depth up to 600: it compiles and renders, or it fails with a
    ChatTemplateError naming a line; never a Python error. The sandbox's own bounds decide below 100 (for loops
    from 17, blocks from 67, the tree's levels from about 80), sampled there every depth to 40 and every 7 after;
    above, one depth in 25 (Jinja's parser runs out of recursion from about 245 on, refused the same way at
    every depth past it)."""
    failed_at = None
    for n in [*range(1, 40), *range(40, 100, 7), *range(100, 600, 25)]:
        try:
            tmpl = ChatTemplate(NESTERS[kind](n), "t")
        except ChatTemplateError as e:
            assert e.line is not None, (kind, n, e)
            failed_at = failed_at or n
            continue
        try:
            tmpl.render([{"role": "user", "content": "hi"}])
        except ChatTemplateError as e:
            assert e.line is not None, (kind, n, e)
    assert failed_at is None or failed_at > 10, (kind, failed_at)  # real templates nest a dozen deep


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from(sorted(BLOCKS)), min_size=1, max_size=150), st.integers(0, 3),
       st.sampled_from(sorted(set(NESTERS) - set(BLOCKS) - {"macro"})), st.integers(1, 400))
def test_mixed_nesting_is_a_template_error_or_renders(kinds, lines, inner, depth):
    """Blocks of every kind inside one another, around an expression nested ``depth`` deep, on many lines."""
    source = NESTERS[inner](depth)
    for k in kinds:
        opening, closing = BLOCKS[k]
        source = opening + "\n" * lines + source + closing
    source = _CALLER + source
    try:
        tmpl = ChatTemplate(source, "t")
    except ChatTemplateError as e:
        assert e.line is not None and 1 <= e.line <= source.count("\n") + 1, e
        return
    try:
        tmpl.render([{"role": "user", "content": "hi"}])
    except ChatTemplateError as e:
        assert e.line is not None, e


def test_the_shipped_templates_are_far_from_the_bounds(vocab_path):
    from jinja2 import nodes
    from jinja2.parser import Parser

    from gguftok.chat.sandbox import _Environment

    for vocab in VOCABS:
        for name, source in templates(vocab).items():
            ast = Parser(_Environment(), source).parse()
            count, stack, deepest = 0, [(ast, 0, 0, 0)], (0, 0, 0)
            while stack:
                node, depth, blocks, loops = stack.pop()
                count += 1
                blocks += isinstance(node, (nodes.For, nodes.If, nodes.Macro, nodes.CallBlock))
                loops += isinstance(node, nodes.For)
                deepest = tuple(map(max, deepest, (depth, blocks, loops)))
                stack.extend((c, depth + 1, blocks, loops) for c in node.iter_child_nodes())
            assert deepest[0] * 3 < MAX_NESTING and deepest[1] * 3 < MAX_BLOCKS and deepest[2] * 3 < MAX_LOOPS
            assert count * 10 < MAX_NODES and len(source) * 10 < MAX_TEMPLATE, (vocab, name, count)


def test_too_large_a_template_is_refused_before_parsing():
    start = time.monotonic()
    with pytest.raises(ChatTemplateError, match="characters; the limit"):
        ChatTemplate("{{ x }}" * (MAX_TEMPLATE // 7 + 1))
    with pytest.raises(ChatTemplateError, match="syntax nodes") as e:
        ChatTemplate("{{ x }}\n" * (MAX_NODES // 2))
    assert e.value.line is not None
    assert time.monotonic() - start < 10


RUNTIME = {
    "zero_division": ("a\n{{ 1 // 0 }}", "ZeroDivisionError"),
    "undefined_attribute": ("a\n{{ messages[0].x.y }}", "UndefinedError"),
    "index": ("a\n{{ [1][5] + 1 }}", "UndefinedError"),
    "type": ("a\n{{ 'a' + 1 }}", "TypeError"),
    "range_step": ("a\n{{ range(1, 2, 0) }}", "ValueError"),
    "percent": ("a\n{{ '%d' % 'x' }}", "TypeError"),
    "fill_char": ("a\n{{ 'x'.center(3, 'ab') }}", "TypeError"),
    "dictsort": ("a\n{{ [1] | dictsort }}", "AttributeError"),
    "sum": ("a\n{{ messages | sum }}", "TypeError"),
    "raise": ("a\n{{ raise_exception('no') }}", "raise_exception"),
    "recursion": ("a\n{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "recursed"),
    "unsafe": ("a\n{{ ''.__class__ }}", "unsafe"),
    "format_spec": ("a\n{{ '{:q}'.format(1) }}", "ValueError"),
    "too_big": ("a\n{{ 'x' * 3000000 }}{{ 'x' * 3000000 }}", "max_chars"),
    "loop_over_int": ("a\n{% for x in 5 %}{% endfor %}", "TypeError"),
    "json": ("a\n{{ {(1, 2): 3} | tojson }}", "TypeError"),
}


@pytest.mark.parametrize("isolate", [True, False])
@pytest.mark.parametrize("name", list(RUNTIME))
def test_every_runtime_failure_names_its_line(name, isolate):
    source, needle = RUNTIME[name]
    with pytest.raises(ChatTemplateError) as e:
        ChatTemplate(source, "t", isolate=isolate).render([{"role": "user", "content": "hi"}])
    assert needle in e.value.reason and (e.value.template, e.value.line) == ("t", 2), e.value
