"""What the template is given: plain copies of the caller's messages, tools, documents and variables.

The copies hold only ``dict``, ``list``, ``str``, ``int``, ``float``, ``bool`` and ``None`` (a ``str`` or
``int`` subclass is copied to the base type, so no caller object runs code in the sandbox, and none is a
:class:`~gguftok.chat.marks.Marked` string), nested at most MAX_DEPTH levels; each message's ``None`` values are
dropped, as transformers does.

>>> template_data([{"role": "user", "content": "hi", "tool_calls": None}], None, None, {"x": (1, 2)})
{'x': [1, 2], 'messages': [{'role': 'user', 'content': 'hi'}], 'tools': None, 'documents': None}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ChatTemplateError
from .budget import MAX_DEPTH
from .marks import check_reserved


def template_data(messages: Any, tools: Any, documents: Any, variables: Mapping[str, Any],
                  reserve: bool = False) -> dict[str, Any]:
    """The template's variables. With ``reserve`` (``encode_chat``), no string may hold the characters
    :mod:`gguftok.chat.marks` reserves."""

    def plain(x: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise ChatTemplateError(f"the messages are nested more than {MAX_DEPTH} levels deep")
        if x is None or isinstance(x, bool):
            return bool(x) if x is not None else None
        if isinstance(x, str):
            s = str.__str__(x)
            if reserve:
                check_reserved(s, "a message (or a tool, document or variable)")
            return s
        if isinstance(x, int):
            return int(x)
        if isinstance(x, float):
            return float(x)
        if isinstance(x, Mapping):
            return {plain(k, depth + 1): plain(v, depth + 1) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [plain(v, depth + 1) for v in x]
        raise ChatTemplateError(f"a chat template can only be given dicts, lists, strings, numbers, booleans "
                                f"and None, not {type(x).__name__}")

    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise ChatTemplateError("messages must be a list of dicts with 'role' and 'content'")
    msgs = []
    for m in messages:
        if not isinstance(m, Mapping):
            raise ChatTemplateError(f"each message must be a dict, not {type(m).__name__}")
        msgs.append(plain({k: v for k, v in m.items() if v is not None}, 1))
    data = {str.__str__(k) if isinstance(k, str) else k: plain(v, 0) for k, v in variables.items()}
    data.update(messages=msgs, tools=plain(tools, 0), documents=plain(documents, 0))
    return data
