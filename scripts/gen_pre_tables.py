"""Generate gguftok/pretokenize/pre-tables.json from llama.cpp's src/llama-vocab.cpp (pinned sdist).

Two tables, both read out of the C++ source rather than retyped:
- ``pre``: every ``tokenizer.ggml.pre`` string -> its pre-type and the flags its branch of
  ``llama_vocab::impl::load`` sets (clean_spaces, ignore_merges, add_bos, ...);
- ``regexes``: every pre-type -> the regex list and ``byte_encode`` of the ``llm_tokenizer_bpe`` constructor
  (``DEFAULT`` for the ``default:`` branch).
tests/test_pretokenize.py checks the regexes against an independent dump. Usage: python scripts/gen_pre_tables.py
"""

import json
import re
import tarfile
from pathlib import Path

from gguftok.data import SDIST_MODELS, sdist_path

OUT = Path(__file__).resolve().parent.parent / "gguftok" / "pretokenize" / "pre-tables.json"
C_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "'": "'", "0": "\0"}


def c_strings(code: str) -> list[str]:
    """The C string literals of ``code`` (comments removed), adjacent literals joined, escapes resolved."""
    code = re.sub(r"//[^\n]*", "", code)
    out: list[str] = []
    joined_with_previous = False
    i = 0
    while i < len(code):
        c = code[i]
        if c == '"':
            j, s = i + 1, []
            while code[j] != '"':
                if code[j] == "\\":
                    s.append(C_ESCAPES[code[j + 1]])
                    j += 2
                else:
                    s.append(code[j])
                    j += 1
            if joined_with_previous:
                out[-1] += "".join(s)
            else:
                out.append("".join(s))
            joined_with_previous = True
            i = j + 1
        else:
            if not c.isspace():
                joined_with_previous = False
            i += 1
    return out


def regex_table(src: str) -> dict:
    start = src.index("struct llm_tokenizer_bpe : llm_tokenizer {")
    body = src[start: src.index("std::vector<std::string> regex_exprs;", start)]
    table = {}
    for block in re.split(r"\n\s*break;", body):
        cases = re.findall(r"case LLAMA_VOCAB_PRE_TYPE_(\w+):", block) or (["DEFAULT"] if "default:" in block else [])
        if not cases or "regex_exprs" not in block:
            continue
        exprs = block[block.index("regex_exprs = {"): block.index("};", block.index("regex_exprs = {"))]
        entry = {"byte_encode": "byte_encode = false" not in block, "regexes": c_strings(exprs)}
        for case in cases:
            table[case] = entry
    return table


def pre_table(src: str) -> dict:
    start = src.index("if (tokenizer_pre.empty())")
    body = src[start: src.index("unknown pre-tokenizer type", start)]
    table = {}
    for branch in body.split("} else if (")[1:]:
        names = re.findall(r'tokenizer_pre == "([^"]+)"', branch)
        pre_type = re.search(r"pre_type = LLAMA_VOCAB_PRE_TYPE_(\w+);", branch).group(1)
        sets = {}
        for key, value in re.findall(r"^\s*([a-z_.]+) = ([A-Za-z_]+);", branch, re.M):
            if key != "pre_type":
                sets[key] = {"true": True, "false": False, "LLAMA_TOKEN_NULL": None}[value]
        for name in names:
            table[name] = {"type": pre_type, "set": sets}
    return table


def main() -> None:
    with tarfile.open(sdist_path(), "r:gz") as tar:
        src = tar.extractfile(SDIST_MODELS.replace("models/", "src/llama-vocab.cpp")).read().decode()
    doc = {"source": "llama.cpp src/llama-vocab.cpp, llama-cpp-python 0.3.36",
           "pre": pre_table(src), "regexes": regex_table(src)}
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"{OUT}: {len(doc['pre'])} pre strings, {len(doc['regexes'])} pre-types with regexes")


if __name__ == "__main__":
    main()
