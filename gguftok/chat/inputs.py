"""What the template is given: plain copies of the caller's messages, tools, documents and variables.

The copies hold only ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` and ``None`` (a ``str`` or
``int`` subclass is copied to the base type, so no caller object runs code in the sandbox, and none is a
:class:`~gguftok.chat.marks.Marked` string), nested at most MAX_DEPTH levels; each message's ``None`` values are
dropped, as transformers does. A dict key is a string, number, boolean or ``None``, or a tuple of them (kept a
tuple, as transformers keeps it, so that it stays hashable); two keys that the copy makes equal (a ``str``
subclass that hashed apart from its text) are refused. Whatever the caller's objects raise while they are read
(a mapping whose ``items`` fails) is a :class:`~gguftok.errors.ChatTemplateError` too.

>>> template_data([{"role": "user", "content": "hi", "tool_calls": None}], None, None, {"x": (1, 2)})
{'x': [1, 2], 'messages': [{'role': 'user', 'content': 'hi'}], 'tools': None, 'documents': None}
>>> template_data([{("a", 1): "v"}], None, None, {})["messages"]
[{('a', 1): 'v'}]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ChatTemplateError
from .budget import MAX_DEPTH
from .marks import check_reserved

_WHAT = "a message (or a tool, document or variable)"


def template_data(messages: Any, tools: Any, documents: Any, variables: Mapping[str, Any],
                  reserve: bool = False) -> dict[str, Any]:
    """The template's variables. With ``reserve`` (``encode_chat``), no string may hold the characters
    :mod:`gguftok.chat.marks` reserves."""

    def deep(depth: int) -> None:
        if depth > MAX_DEPTH:
            raise ChatTemplateError(f"the messages are nested more than {MAX_DEPTH} levels deep")

    def scalar(x: Any) -> tuple[bool, Any]:
        """(True, the plain copy) for None, a bool, str, int or float (by its type, not its ``__class__``)."""
        t = type(x)
        if x is None:
            return True, None
        if issubclass(t, bool):
            return True, bool(x)
        if issubclass(t, str):
            s = str.__str__(x)
            if reserve:
                check_reserved(s, _WHAT)
            return True, s
        if issubclass(t, int):
            return True, int.__int__(x)
        if issubclass(t, float):
            return True, float.__float__(x)
        return False, None

    def key(k: Any, depth: int) -> Any:
        deep(depth)
        ok, value = scalar(k)
        if ok:
            return value
        if issubclass(type(k), tuple):
            return tuple(key(v, depth + 1) for v in tuple.__iter__(k))
        raise ChatTemplateError(f"a dict key in {_WHAT} must be a string, number, boolean, None or a tuple of "
                                f"them, not {type(k).__name__}")

    def mapping(x: Any, depth: int, drop_none: bool = False) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for k, v in (dict.items(x) if issubclass(type(x), dict) else x.items()):
            if drop_none and v is None:
                continue
            pk = key(k, depth + 1)
            if pk in out:
                raise ChatTemplateError(f"two dict keys in {_WHAT} are the same once copied as plain data: {pk!r}")
            out[pk] = plain(v, depth + 1)
        return out

    def plain(x: Any, depth: int) -> Any:
        deep(depth)
        ok, value = scalar(x)
        if ok:
            return value
        t = type(x)
        if issubclass(t, Mapping):
            return mapping(x, depth)
        if issubclass(t, (list, tuple)):
            items = list.__iter__(x) if issubclass(t, list) else tuple.__iter__(x)  # not a subclass's __iter__
            return [plain(v, depth + 1) for v in items]
        raise ChatTemplateError(f"a chat template can only be given dicts, lists, strings, numbers, booleans "
                                f"and None, not {t.__name__}")

    if issubclass(type(messages), (str, bytes)) or not issubclass(type(messages), Sequence):
        raise ChatTemplateError("messages must be a list of dicts with 'role' and 'content'")
    try:
        msgs = []
        for m in messages:
            if not issubclass(type(m), Mapping):
                raise ChatTemplateError(f"each message must be a dict, not {type(m).__name__}")
            deep(1)
            msgs.append(mapping(m, 1, drop_none=True))
        data = {key(k, 0): plain(v, 0) for k, v in variables.items()}
        data.update(messages=msgs, tools=plain(tools, 0), documents=plain(documents, 0))
    except ChatTemplateError:
        raise
    except Exception as e:  # the caller's own objects failed while being read (a mapping's items(), a hash...)
        raise ChatTemplateError(f"{_WHAT} could not be read: {type(e).__name__}: {e}") from e
    return data
