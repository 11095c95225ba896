"""Stage 06: special tokens. Which token texts are cut out of the text before anything else, and the cut.

A vocabulary marks some tokens as special by their GGUF token type: control (3), user-defined (4) and unknown
(2). While it loads the file, llama.cpp changes some of those marks by the token's text, and then it sorts the
special tokens longest text first. The partition takes them in that order and cuts every occurrence out of the
text; only the plain text left between the cuts goes on to the pre-tokenizer.

>>> md = {"tokenizer.ggml.tokens": ["a", "<|im_end|>", "</s>"], "tokenizer.ggml.token_type": [1, 3, 1]}
>>> special_tokens(md)
[('<|im_end|>', 1, True), ('</s>', 2, True)]
>>> partition("hi</s>", special_tokens(md), parse_special=True)
['hi', 2]
"""

from __future__ import annotations

# Given: the GGUF token types that put a token in the special list.
UNKNOWN_TYPE, CONTROL_TYPE, USER_DEFINED_TYPE = 2, 3, 4

# Given: llama.cpp's list of end-of-generation texts. A token with one of these texts ends generation, and
# llama.cpp makes it a control token if its type says otherwise.
EOG_TEXTS = (
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>",
    "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>",
    "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>", "<｜end▁of▁sentence｜>", "[e~[")

# Given: the texts by which llama.cpp finds the fill-in-the-middle tokens when the file names no id for a role
# (the key tokenizer.ggml.<role>_token_id; the three first roles also have an older key name, the second).
FIM_TEXTS = {
    "fim_pre": ["<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>", "▁<PRE>",
                "<|code_prefix|>", "<|prefix|>"],
    "fim_suf": ["<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>", "▁<SUF>",
                "<|code_suffix|>", "<|suffix|>"],
    "fim_mid": ["<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>", "▁<MID>",
                "<|code_middle|>", "<|middle|>"],
    "fim_pad": ["<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"],
    "fim_rep": ["<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"],
    "fim_sep": ["<|file_sep|>"],
}
FIM_KEYS = {"fim_pre": ["fim_pre", "prefix"], "fim_suf": ["fim_suf", "suffix"], "fim_mid": ["fim_mid", "middle"],
            "fim_pad": ["fim_pad"], "fim_rep": ["fim_rep"], "fim_sep": ["fim_sep"]}

# Given: gpt-oss's tokens that llama.cpp always makes user-defined (and nothing else).
ALWAYS_USER_DEFINED = ("<|channel|>", "<|message|>", "<|start|>", "<|constrain|>")


def _has_id_key(md: dict, role: str, n_tokens: int) -> bool:
    """Whether the file names the id of a fill-in-the-middle role (an id past the vocabulary does not count)."""
    for name in FIM_KEYS[role]:
        value = md.get(f"tokenizer.ggml.{name}_token_id")
        if value is not None and value < n_tokens:
            return True
    return False


def special_tokens(md: dict) -> list[tuple[str, int, bool]]:
    """``(text, id, needs_parse_special)`` of every token the partition looks for, longest text first.

    >>> special_tokens({"tokenizer.ggml.tokens": ["a", "<pad>", "<s>"], "tokenizer.ggml.token_type": [1, 4, 3]})
    [('<pad>', 1, False), ('<s>', 2, True)]
    """
    texts = md["tokenizer.ggml.tokens"]
    types = md.get("tokenizer.ggml.token_type")
    if types is None:  # no types in the file: every token is normal
        types = [1] * len(texts)
    ids = {text: i for i, text in enumerate(texts)}
    # What each token is, from its type: "control" and "unknown" need parse_special, "user" is always cut.
    kind = {}
    for i, t in enumerate(types):
        if t in (CONTROL_TYPE, UNKNOWN_TYPE):
            kind[i] = "control"
        elif t == USER_DEFINED_TYPE:
            kind[i] = "user"

    # 1. A fill-in-the-middle token found by its text becomes control (DeepSeek Coder's <｜fim▁hole｜>).
    for role, candidates in FIM_TEXTS.items():
        if not _has_id_key(md, role, len(texts)):
            found = [ids[text] for text in candidates if text in ids]
            if found:
                kind[found[0]] = "control"
    # 2. Every end-of-generation text becomes control (Qwen2's </s>, which the file says is normal).
    for text in EOG_TEXTS:
        if text in ids:
            kind[ids[text]] = "control"
    # 3. Three exceptions, each setting the token's kind outright.
    for text in ALWAYS_USER_DEFINED:
        if text in ids:
            kind[ids[text]] = "user"
    has = ids.__contains__
    if has("<|end|>") and (has("<|call|>") or has("<|calls|>")) and (has("<|return|>") or has("<|flush|>")):
        kind[ids["<|end|>"]] = "user"  # gpt-oss and Solar Open end a turn with <|return|> or <|flush|> instead
    if has("</s>") and has("<|tool_response>"):  # Gemma 4's </s> is an ordinary token
        del kind[ids["</s>"]]  # normal again

    specials = [(texts[i], i, k == "control") for i, k in kind.items()]
    # Longest text first, measured in UTF-8 bytes; equal lengths by id.
    return sorted(specials, key=lambda s: (-len(s[0].encode("utf-8")), s[1]))


def partition(text: str, specials: list[tuple[str, int, bool]], parse_special: bool) -> list[str | int]:
    """``text`` as plain runs (``str``) and special tokens (their id), the tokens tried in the order given.

    >>> partition("hi<|im_end|>!", [("<|im_end|>", 7, True)], parse_special=True)
    ['hi', 7, '!']
    >>> partition("hi<|im_end|>!", [("<|im_end|>", 7, True)], parse_special=False)
    ['hi<|im_end|>!']
    """
    fragments: list[str | int] = [text] if text else []
    for needle, tid, needs_parse_special in specials:
        if needs_parse_special and not parse_special:
            continue
        if needle not in text:  # nowhere in the text, so in no fragment of it: nothing to cut
            continue
        out: list[str | int] = []
        for fragment in fragments:
            if isinstance(fragment, int):  # a token already cut is never searched again
                out.append(fragment)
                continue
            pieces = fragment.split(needle)  # every occurrence, left to right, none overlapping
            for k, piece in enumerate(pieces):
                if k > 0:
                    out.append(tid)
                if piece:
                    out.append(piece)
        fragments = out
    return fragments
