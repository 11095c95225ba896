"""Wrong variants of lesson 07's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

from gguftok.exercises.lesson07 import EOG_TEXTS

WRONG = {
    "07.add_bos": lambda md: (md.get("tokenizer.ggml.add_bos_token") if "tokenizer.ggml.add_bos_token" in md
                              else md["tokenizer.ggml.model"] in ("llama", "bert")
                              or md.get("tokenizer.ggml.pre") == "llama-bpe"),  # no gemma4 rule, one preset
    "07.eog_ids": lambda tokens, eos: sorted(i for i, t in enumerate(tokens) if t in EOG_TEXTS),  # forgets EOS
}
