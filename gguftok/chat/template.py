"""A chat template: compiled in the sandbox once, rendered in the render process under its limits.

>>> ChatTemplate("{{ bos_token }}{{ messages[0].content | trim }}", bos_token="<s>").render(
...     [{"role": "user", "content": "  hi  "}])
'<s>hi'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import worker
from .budget import MAX_CHARS, MAX_MEMORY, TIMEOUT
from .inputs import template_data
from .sandbox import compile_template, render


class ChatTemplate:
    """A chat template compiled in gguftok's sandbox.

    ``name`` says where it came from in error messages (the metadata key); ``bos_token``/``eos_token`` are
    the texts the template sees under those names. A render stops with :class:`~gguftok.errors.ChatTemplateError`
    after ``timeout`` seconds, when the text or any one value the template builds exceeds ``max_chars``
    characters (or items), or when it would allocate more than ``max_memory`` bytes. Renders run in a child
    process that is stopped on time (:mod:`gguftok.chat.worker`); ``isolate=False`` renders in this process,
    where the time limit is checked between the template's operations only.
    """

    def __init__(self, source: str, name: str = "chat template", *, bos_token: str = "", eos_token: str = "",
                 timeout: float = TIMEOUT, max_chars: int = MAX_CHARS, max_memory: int = MAX_MEMORY,
                 isolate: bool = True) -> None:
        self._compiled = compile_template(source, name)
        self.source, self.name = source, name
        self.bos_token, self.eos_token = str(bos_token), str(eos_token)
        self.timeout, self.max_chars, self.max_memory = timeout, max_chars, max_memory
        self.isolate = isolate
        # The template's own texts: which user-defined tokens are its markup (as transformers decides too)
        self.literals = "\0".join(sorted(self._compiled.literals))

    def __repr__(self) -> str:
        return f"ChatTemplate({self.name!r}, {len(self.source):,} characters)"

    def render(self, messages: Sequence[Mapping[str, Any]], add_generation_prompt: bool = True, *,
               tools: Sequence[Any] | None = None, documents: Sequence[Any] | None = None, **variables: Any) -> str:
        """The conversation as text, exactly as transformers' ``apply_chat_template(..., tokenize=False)``
        renders it with ``bos_token``/``eos_token`` set to this template's (keys whose value is ``None`` are
        dropped from each message, as transformers does). ``variables`` are passed to the template too
        (e.g. ``enable_thinking=True``)."""
        return self._render(template_data(messages, tools, documents, variables), add_generation_prompt)[0]

    def literal_texts(self) -> frozenset[str]:
        """Every literal the template can write: its texts and string constants, and its BOS and EOS texts."""
        return self._compiled.literals | {self.bos_token, self.eos_token}

    def _render(self, data: dict[str, Any], add_generation_prompt: bool,
                runs: Mapping[str, Any] | None = None) -> tuple[str, dict[str, str] | None]:
        """The text (with the marks of ``runs``, see :mod:`gguftok.chat.marks`) and the marks' registry."""
        context = {"bos_token": self.bos_token, "eos_token": self.eos_token, **data,
                   "add_generation_prompt": bool(add_generation_prompt)}
        limits = {"timeout": self.timeout, "max_chars": self.max_chars, "max_memory": self.max_memory}
        child = worker.process() if self.isolate else None
        if child is not None:
            try:
                return child.render(self._compiled, context, runs=runs, **limits)
            except OSError as e:
                worker.unavailable(e)
        return render(self._compiled, context, runs=runs, **limits)
