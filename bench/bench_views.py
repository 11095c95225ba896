"""Do the teaching views stay responsive on a 151,936-token vocabulary? Times per call, against the 100 ms a
widget can take per keystroke before it feels slow (there is no peer to race: the ratio is to that budget).

    python bench/bench_views.py
"""

from __future__ import annotations

from _common import best_of

from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.viz import token_chips
from gguftok.viz.vocab import vocab_page

BUDGET = 0.100


def main() -> None:
    tok = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf")
    vocab_page(tok, "warm-up")  # the first filter decodes every token's piece once (kept afterwards)
    text = "The tokenizer of a GGUF file, with llama.cpp's exact ids: 世界 😀 naïve café. " * 20
    ids = tok.encode(text)
    cases = {
        "vocab_page, no filter, page 4000": lambda: vocab_page(tok, page=4000),
        "vocab_page, filter 'token'": lambda: vocab_page(tok, "token"),
        "vocab_page, filter '世'": lambda: vocab_page(tok, "世"),
        f"token_chips, {len(ids)} tokens": lambda: token_chips(tok, ids),
    }
    print(f"{'view':40s} {'seconds':>8s} {'of budget':>10s}")
    for name, fn in cases.items():
        t = best_of(5, fn)
        print(f"{name:40s} {t:8.3f} {t / BUDGET:9.2f}x")


if __name__ == "__main__":
    main()
