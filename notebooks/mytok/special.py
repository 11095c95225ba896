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


def special_tokens(md: dict) -> list[tuple[str, int, bool]]:
    """``(text, id, needs_parse_special)`` of every token the partition looks for, longest text first.

    From the token types (control, unknown: needs parse_special; user-defined: always cut), then llama.cpp's
    rewrites by text (fill-in-the-middle roles, EOG_TEXTS, the three exceptions), sorted by the length of
    the text in UTF-8 bytes, longest first, equal lengths by id.

    >>> special_tokens({"tokenizer.ggml.tokens": ["a", "<pad>", "<s>"], "tokenizer.ggml.token_type": [1, 4, 3]})
    [('<pad>', 1, False), ('<s>', 2, True)]
    """
    raise NotImplementedError


def partition(text: str, specials: list[tuple[str, int, bool]], parse_special: bool) -> list[str | int]:
    """``text`` as plain runs (``str``) and special tokens (their id), the tokens tried in the order given.

    A token that needs parse_special is skipped when parse_special is false. Each token cuts all its
    occurrences, left to right, out of the plain runs left by the tokens before it.

    >>> partition("hi<|im_end|>!", [("<|im_end|>", 7, True)], parse_special=True)
    ['hi', 7, '!']
    >>> partition("hi<|im_end|>!", [("<|im_end|>", 7, True)], parse_special=False)
    ['hi<|im_end|>!']
    """
    raise NotImplementedError
