"""Issue 20, item 10: whatever the caller passes as dict keys (or as objects that misbehave while they are
read), the template gets plain data or the call raises ChatTemplateError, never a raw TypeError.

A key is a string, number, boolean, None, or a tuple of them (kept a tuple, as transformers keeps it); any
other key type is refused; keys that the plain copy makes equal are refused.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest

from gguftok import ChatTemplateError, Tokenizer
from gguftok.chat import MAX_DEPTH, ChatTemplate

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
chat_template_utils = pytest.importorskip("transformers.utils.chat_template_utils")

SYNTHETIC = Path(__file__).resolve().parent.parent / "data" / "synthetic" / "byte-level-286.gguf"
SOURCE = "{% for m in messages %}{{ m }}{% for k, v in m | dictsort %}|{{ k }}={{ v }}{% endfor %}{% endfor %}"


class OddMapping(Mapping):
    """A Mapping that is not a dict: it can hold keys no dict can (a tuple holding a list)."""

    def __init__(self, items):
        self._items = list(items)

    def __getitem__(self, key):
        for k, v in self._items:
            if k is key:
                return v
        raise KeyError(key)

    def __iter__(self):
        return (k for k, _ in self._items)

    def __len__(self):
        return len(self._items)


class Unhashable:
    __hash__ = None


class HashRaises:
    def __hash__(self):
        raise RuntimeError("no hash")


class FlakyStr(str):
    """A str subclass that hashes once (to go into the caller's dict), then raises on hash and eq."""

    broken = False

    def __hash__(self):
        if FlakyStr.broken:
            raise RuntimeError("no hash")
        return 1

    def __eq__(self, other):
        if FlakyStr.broken:
            raise RuntimeError("no eq")
        return str.__eq__(self, other)


class SameText(str):
    def __hash__(self):  # hashes apart from the plain string of the same text
        return 12345


class LiesAboutItsClass:
    @property
    def __class__(self):
        return str


class ItemsRaise(OddMapping):
    def __iter__(self):
        raise RuntimeError("iteration failed")


class DictItemsRaise(dict):
    def items(self):
        raise RuntimeError("items() failed")


class IterRaises(list):
    def __iter__(self):
        raise RuntimeError("__iter__ failed")


def deep_tuple(n):
    t = ("x",)
    for _ in range(n):
        t = (t,)
    return t


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.from_gguf(SYNTHETIC)


def transformers_render(messages):
    rendered, _ = chat_template_utils.render_jinja_template(conversations=[messages], chat_template=SOURCE)
    return rendered[0]


# keys a template can be given: rendered exactly as transformers renders them
GOOD_KEYS = {
    "tuple": ("a", "b"), "tuple-of-numbers": (1, 2.5, True, None), "nested-tuple": (("a",), ("b", (1,))),
    "empty-tuple": (), "none": None, "int": 7, "float": 1.5, "bool": False,
}


@pytest.mark.parametrize("name", GOOD_KEYS)
def test_plain_keys_render_as_transformers_does(name, tok):
    key = GOOD_KEYS[name]
    messages = [{key: "v", "role": "user"}] if name not in ("int", "float", "bool", "none") else [{key: "v"}]
    tmpl = ChatTemplate("{% for m in messages %}{{ m }}{% endfor %}")
    rendered, _ = chat_template_utils.render_jinja_template(conversations=[messages], chat_template=tmpl.source)
    assert tmpl.render(messages) == rendered[0]
    assert tok.decode(tok.encode_chat(messages, template=tmpl, add_special=False)) == rendered[0]
    # and deeper in: inside a message's content, in tools, documents and variables
    nested = [{"role": "user", "content": [{key: ["v", {key: 1}]}]}]
    assert ChatTemplate("{{ messages }}{{ tools }}{{ documents }}{{ x }}").render(
        nested, tools=[{key: 1}], documents=[{key: 2}], x={key: 3}) == \
        f"{nested!r}[{{{key!r}: 1}}][{{{key!r}: 2}}]{{{key!r}: 3}}"


def test_the_issues_tuple_key_renders_and_sorts_as_transformers_does():
    messages = [{("a", "b"): 1}]
    assert ChatTemplate(SOURCE).render(messages) == transformers_render(messages)


BAD_KEYS = {
    "tuple-with-a-list": (OddMapping([(("a", ["b"]), 1)]), "not list"),
    "list": (OddMapping([(["a"], 1)]), "not list"),
    "dict": (OddMapping([({"a": 1}, 1)]), "not dict"),
    "frozenset": ({frozenset({1}): 1}, "not frozenset"),
    "tuple-with-a-frozenset": ({("a", frozenset()): 1}, "not frozenset"),
    "bytes": ({b"x": 1}, "not bytes"),
    "object": ({object(): 1}, "not object"),
    "unhashable": (OddMapping([(Unhashable(), 1)]), "not Unhashable"),
    "hash-raises": (OddMapping([(HashRaises(), 1)]), "not HashRaises"),
    "tuple-with-hash-raising": (OddMapping([(("a", HashRaises()), 1)]), "not HashRaises"),
    "lies-about-its-class": ({LiesAboutItsClass(): 1}, "not LiesAboutItsClass"),
    "same-text-twice": ({SameText("a"): 1, "a": 2}, "the same once copied"),
    "same-tuple-twice": ({(SameText("a"),): 1, ("a",): 2}, "the same once copied"),
    "nested-too-deep": ({deep_tuple(MAX_DEPTH + 5): 1}, "nested more than"),
}


@pytest.mark.parametrize("name", BAD_KEYS)
@pytest.mark.parametrize("where", ["message", "content", "tools", "variable"])
def test_odd_keys_are_a_template_error(name, where, tok):
    mapping, match = BAD_KEYS[name]
    kwargs = {"message": {"messages": [mapping]}, "content": {"messages": [{"role": "user", "content": [mapping]}]},
              "tools": {"messages": [], "tools": [mapping]}, "variable": {"messages": [], "x": mapping}}[where]
    tmpl = ChatTemplate("{{ messages }}{{ tools }}{{ x }}")
    with pytest.raises(ChatTemplateError, match=match):
        tmpl.render(**kwargs)
    with pytest.raises(ChatTemplateError, match=match):
        tok.encode_chat(template=tmpl, **kwargs)


def test_keys_whose_hash_or_eq_raise_once_stored_are_copied_as_their_text():
    key = FlakyStr("k")
    data = {key: 1, "role": "user"}
    FlakyStr.broken = True
    try:
        assert ChatTemplate("{{ messages[0].k }}{{ messages[0] }}").render([data]) == "1{'k': 1, 'role': 'user'}"
    finally:
        FlakyStr.broken = False


@pytest.mark.parametrize(("value", "match"), [
    (ItemsRaise([("a", 1)]), "RuntimeError: iteration failed"),
    (LiesAboutItsClass(), "not LiesAboutItsClass"),
], ids=["items-raises", "lies-about-its-class"])
def test_objects_that_fail_while_read_are_a_template_error(value, match):
    with pytest.raises(ChatTemplateError, match=match):
        ChatTemplate("{{ messages }}").render([{"role": "user", "content": value}])
    with pytest.raises(ChatTemplateError, match=match):
        ChatTemplate("{{ messages }}").render([value] if isinstance(value, dict) else [{"x": value}])


def test_a_list_or_dict_subclass_is_copied_by_its_items_not_its_methods():
    assert ChatTemplate("{{ messages[0] }}").render([DictItemsRaise(role="user")]) == "{'role': 'user'}"
    assert ChatTemplate("{{ messages[0].content }}").render([{"role": "user", "content": IterRaises([1, 2])}]) == \
        "[1, 2]"
