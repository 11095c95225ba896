"""Conversations for checking chat templates, and llama.cpp's built-in renderings of them.

``CONVERSATIONS`` are the cases every template is rendered on (the tests compare gguftok with transformers'
renderer on each). ``python -m gguftok.conformance.chat_golden`` asks the oracle's
``llama_chat_apply_template`` (llama.cpp's hard-coded renderers, chosen by looking at the template) for each
template of each vocabulary that has one, and writes ``data/golden/chat-builtin.json``, so that the default
tests compare with llama.cpp without the oracle.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..data import vocab_dir
from ..metadata import read_metadata

VOCABS = ["command-r", "gemma-4", "phi-3", "qwen2", "qwen35"]  # the reference vocabularies with a template
# every (vocabulary, template name) they ship: Command-R has tool_use and rag beside its default (None)
TEMPLATES = [(v, t) for v in VOCABS for t in ([None, "tool_use", "rag"] if v == "command-r" else [None])]
GOLDEN = Path(__file__).resolve().parents[2] / "data" / "golden" / "chat-builtin.json"


def _m(role: str, content: str) -> dict:
    return {"role": role, "content": content}


CONVERSATIONS: dict[str, list[dict]] = {
    "single": [_m("user", "Hello")],
    "system": [_m("system", "You are terse."), _m("user", "Hi there")],
    "multi": [_m("user", "Hi"), _m("assistant", "Hello! How can I help?"), _m("user", "Tell me a joke.")],
    "system_multi": [_m("system", "Answer in French."), _m("user", "Hello"), _m("assistant", "Bonjour !"),
                     _m("user", "How are you?"), _m("assistant", "Très bien, merci.")],
    "non_ascii": [_m("user", "Grüße, 你好, مرحبا, 🙂"), _m("assistant", "Ça va — très bien."),
                  _m("user", "ありがとう")],
    "empty": [_m("user", ""), _m("assistant", ""), _m("user", "")],
    "whitespace": [_m("user", "  padded  "), _m("assistant", "\nline\n"), _m("user", "\ttab\t")],
    "ends_with_assistant": [_m("user", "2+2?"), _m("assistant", "4")],
    "special_text": [_m("user", "What do <|im_end|>, <|end|>, <turn|> and <|END_OF_TURN_TOKEN|> mean?")],
}

WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string", "description": "The city's name"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"]}}}

# Cases that need what only some templates take: (vocabulary, template name) -> {case: render arguments}
TOOL_CASES: dict[tuple[str, str | None], dict[str, dict]] = {
    ("gemma-4", None): {
        "tools": {"messages": [_m("user", "Weather in Paris?")], "tools": [WEATHER_TOOL]},
        "tool_call": {"tools": [WEATHER_TOOL], "messages": [
            _m("user", "Weather in Paris?"),
            {"role": "assistant", "content": None, "tool_calls": [
                {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
            {"role": "tool", "tool_responses": [{"name": "get_weather", "response": {"temperature": 21}}]}]},
        "thinking": {"messages": [_m("system", "Think first."), _m("user", "Why is the sky blue?")],
                     "enable_thinking": True},
    },
    ("command-r", "tool_use"): {
        "tools": {"messages": [_m("user", "Who won the 2022 World Cup?")], "tools": [{
            "name": "internet_search", "description": "Returns a list of relevant document snippets",
            "parameter_definitions": {"query": {"description": "Query to search the internet with",
                                                "type": "str", "required": True}}}]},
    },
    ("command-r", "rag"): {
        "documents": {"messages": [_m("user", "What is the tallest penguin?")], "documents": [
            {"title": "Tall penguins", "text": "Emperor penguins are the tallest."},
            {"title": "Penguin habitats", "text": "Emperor penguins only live in Antarctica."}],
            "citation_mode": "accurate"},
    },
}


def templates(name: str) -> dict[str | None, str]:
    """The chat templates of a reference vocabulary: ``None`` for ``tokenizer.chat_template``, else the name."""
    md = read_metadata(vocab_dir() / f"ggml-vocab-{name}.gguf")
    key = "tokenizer.chat_template"
    return {(None if k == key else k[len(key) + 1:]): v for k, v in md.items()
            if k == key or k.startswith(key + ".")}


def record(out: Path = GOLDEN) -> dict:
    """Ask the oracle for every (vocabulary, template, conversation, add_ass) and write ``out``."""
    from .oracle import Crash, Oracle

    rows = []
    for name in VOCABS:
        with Oracle(vocab_dir() / f"ggml-vocab-{name}.gguf") as ref:
            for tname, source in sorted(templates(name).items(), key=lambda kv: kv[0] or ""):
                for case, messages in CONVERSATIONS.items():
                    for add_ass in (True, False):
                        text = ref.chat_builtin(source, messages, add_ass)
                        if isinstance(text, Crash):
                            raise RuntimeError(f"{name} {tname} {case}: {text}")
                        rows.append({"vocab": name, "template": tname, "case": case, "add_ass": add_ass,
                                     "text": text})
    golden = {"llama_cpp_python": "0.3.36", "function": "llama_chat_apply_template", "renders": rows}
    out.write_text(json.dumps(golden, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return golden


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=GOLDEN)
    args = ap.parse_args(argv)
    golden = record(args.out)
    known = sum(r["text"] is not None for r in golden["renders"])
    print(f"{args.out}: {len(golden['renders'])} renders, {known} from a template llama.cpp recognizes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
