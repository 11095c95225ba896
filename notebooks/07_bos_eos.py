# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 07 · BOS, EOS and the end of generation
#
# Two decisions sit at the edges of every prompt and every answer:
#
# * **At the start:** does the prompt begin with a *beginning-of-sequence* token (BOS)? Llama 3 was trained
#   with `<|begin_of_text|>` in front of every document; Qwen2 was not. One id more or less at position 0
#   and the model sees an input it never saw in training.
# * **At the end:** which ids mean "stop"? A generation loop halts when the model samples one of them. The
#   file names one *end-of-sequence* id (EOS), but llama.cpp stops on a whole *set* of ids, which it builds
#   at load time from the EOS id, an end-of-turn id, and a list of token texts.
#
# Neither decision is written out in full in a GGUF file. llama.cpp derives both from a few
# `tokenizer.ggml.*` keys plus defaults per tokenizer type and per pre-tokenizer. `gguftok` replays that
# load step (`gguftok.vocab.Vocab`), and the views in this notebook (`gguftok.viz.bos_view`) read their
# facts from it. Every number printed below is computed by `gguftok` on the real vocabulary files; a cell
# near the end checks the facts of all 19 against what llama.cpp itself reported (llama-cpp-python 0.3.36,
# the pinned version).

# %%
import json
import lzma
from pathlib import Path

from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.viz.bos_view import (
    bos_eos_facts,
    bos_explorer,
    bos_presets,
    eog_figure,
    eog_table,
    eot_candidates,
    facts_table,
    format_rule_cases,
    prompt_view,
    synthetic_eog,
    synthetic_rule_cases,
    vocab_bos_view,
)

NAMES = sorted(p.name.removeprefix("ggml-vocab-").removesuffix(".gguf")
               for p in vocab_dir().glob("ggml-vocab-*.gguf"))
TOK = {name: Tokenizer.from_gguf(vocab_dir() / f"ggml-vocab-{name}.gguf") for name in NAMES}
len(NAMES)

# %% [markdown]
# ## The rules, in the order llama.cpp applies them
#
# `add_bos` and `add_eos` are decided in four steps while the vocabulary loads; a later step overrides an
# earlier one.
#
# 1. **The tokenizer type sets a default.** SentencePiece (`tokenizer.ggml.model = llama`) and WordPiece
#    (`bert`) add BOS; Unigram (`t5`) adds EOS instead; byte-level BPE (`gpt2`) adds neither.
# 2. **Some pre-tokenizers change it.** For BPE, the string in `tokenizer.ggml.pre` selects a preset, and the
#    Llama 3 presets (`llama-bpe`, `llama3`, `llama-v3`, `falcon3`) and a few others switch BOS on (the cell
#    below lists them all, read from `gguftok`'s table of presets).
# 3. **The keys `tokenizer.ggml.add_bos_token` and `tokenizer.ggml.add_eos_token` win** when the file has
#    them, in either direction.
# 4. **Gemma 4 forces BOS on**, even against a key that says `false`.
#
# To see each rule alone, `synthetic_rule_cases` writes eight six-token vocabularies with `gguftok.writer`,
# each with one key changed, loads them, and asks `bos_reason`/`eos_reason` which rule decided.

# %%
print(", ".join(bos_presets()))

# %%
print(format_rule_cases(synthetic_rule_cases()))

# %% [markdown]
# Read the rows in pairs. Qwen2's preset leaves BOS off, Llama 3's switches it on, and the key beats both
# (rows 5 and 6). The last row is the one exception to "the key wins": for the `gemma4` model llama.cpp
# replaces the pre-tokenizer with its own Gemma 4 preset and turns BOS on after the keys were read.
#
# WordPiece (BERT) is special at encode time as well: with `add_special=True` it always wraps the text in
# `[CLS]` … `[SEP]`, whatever the flags say. That shows up in the table below as an EOS of "—" but a
# `[SEP]` at the end of every encoded prompt.

# %% [markdown]
# ## All 19 vocabularies
#
# The same rules on the 19 vocabularies that llama.cpp tests itself with. For each: the two flags and the
# rule behind them, the BOS, EOS and end-of-turn (EOT) ids with their texts, and the full end-of-generation
# (EOG) set.

# %%
FACTS = {name: bos_eos_facts(TOK[name]) for name in NAMES}
facts_table(FACTS)

# %%
print(facts_table(FACTS).text)

# %% [markdown]
# A few things to notice:
#
# * Only about half of the files carry an `add_bos_token` key; for the rest the defaults decide. `llama-bpe`
#   has no key at all, and still adds 128000 because of its pre-tokenizer preset.
# * Many byte-level BPE vocabularies (GPT-2, Qwen2, MPT, StarCoder, ...) have a BOS *id* (often the same
#   `<|endoftext|>` as EOS) but do not add it. Having a BOS token and adding it are separate facts.
# * `nomic-bert-moe` is the one vocabulary here that appends EOS to every prompt: a Unigram embedding model
#   whose file says so explicitly.
# * The EOG set is often larger than the EOS id alone. Qwen2 stops on three ids, Phi-3 on three, and the
#   fill-in-the-middle models (Refact, StarCoder) also stop on their `<fim_pad>`.
#
# The figure counts the set for each vocabulary, split into the EOS id and everything else the load step
# added.

# %% tags=["nbval-ignore-output"]
fig = eog_figure(FACTS)

# %% [markdown]
# ## A wrong or doubled BOS
#
# Llama 3 adds `<|begin_of_text|>` (128000) when `add_special=True`, the default of `Tokenizer.encode` and
# of `llama_tokenize`. With `add_special=False` the same text loses it.

# %%
llama3, qwen2 = TOK["llama-bpe"], TOK["qwen2"]
prompt_view(llama3, "Hello world")

# %% [markdown]
# Now a prompt that was built by a chat template, which already wrote `<|begin_of_text|>` as text at its
# start. Encoded with `parse_special=True` (as a template must be), that text becomes 128000, and
# `add_special=True` puts *another* 128000 in front: the prompt starts with two BOS ids. llama.cpp logs a
# warning for exactly this case, and the model's output shifts. The cure is to let one side add BOS, not
# both: encode template output with `add_special=False`.

# %%
TEMPLATED = "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
prompt_view(llama3, TEMPLATED, cases=[(True, True), (False, True)])

# %% [markdown]
# A missing BOS is the opposite mistake, and it is silent: nothing warns. The first case above had it with
# `add_special=False`. For a model that does not use BOS, like Qwen2, adding one by hand is just as wrong:
# `<|endoftext|>` (151643) would announce the *end* of a document before the prompt begins.

# %%
prompt_view(qwen2, "<|endoftext|>Hello world", cases=[(True, True), (True, False)])

# %% [markdown]
# With `parse_special=False` (the right setting for text from users) the characters `<|endoftext|>` stay
# ordinary text and never turn into an id; notebook 06 covers why.

# %% [markdown]
# ## How the end-of-generation set is built
#
# At load time llama.cpp does three things that change the stop set:
#
# 1. **It finds an end-of-turn id by text** when the file does not name one. It walks its hash map from
#    token text to id and takes the first text on a list (`<|eot_id|>`, `<|im_end|>`, `<|end|>`,
#    `<|endoftext|>`, ...). Qwen2 has two candidates, `<|im_end|>` and `<|endoftext|>`, so the winner depends
#    on the order in which libstdc++'s `std::unordered_map` happens to visit them. `gguftok.stdmap_order`
#    reproduces that order; here are the two positions.

# %%
for position, tid, text in eot_candidates(qwen2):
    print(f"position {position:>3d} in the map walk: {tid} {text}")
print("EOT chosen:", qwen2.eot_id, qwen2.token_text(qwen2.eot_id))

# %% [markdown]
# `<|im_end|>` is reached first, so Qwen2's EOT is 151645: right for a chat model, whose turns end with
# `<|im_end|>`. Nothing in the file says so; a different hash function would have picked `<|endoftext|>`.
#
# 2. **Every token whose text is on a second list becomes end-of-generation**, and is made a CONTROL token
#    if it was not one. Qwen2's vocabulary contains a `</s>` (id 128247) stored as an ordinary token: after
#    loading, it stops generation and is a control token (llama.cpp logs a "control-looking token" warning
#    for it).
# 3. **The EOS, EOT and end-of-message ids join the set**, and so do the fill-in-the-middle padding and
#    separator tokens that were found by text.
#
# The table shows, for Qwen2, why each id is in the set and what loading did to its type.

# %%
eog_table(qwen2)

# %%
print(eog_table(qwen2).text)

# %% [markdown]
# The same for Phi-3, whose file names EOS 32000 `<|endoftext|>` while its SentencePiece `</s>` (2) and its
# turn end `<|end|>` (32007) join through the text list. A generation loop that stops only at the EOS id
# would run straight past the end of a Phi-3 chat turn.

# %%
print(eog_table(TOK["phi-3"]).text)

# %% [markdown]
# ## Checked against llama.cpp
#
# `tests/golden/<name>.jsonl.xz` records what llama.cpp reported when it loaded each file (its second line
# holds the facts). Every flag and id in the table above agrees with it:

# %%
GOLDEN = Path("../tests/golden")
KEYS = ("add_bos", "add_eos", "bos", "eos", "eot", "eog")
mismatch = []
for name in NAMES:
    with lzma.open(GOLDEN / f"{name}.jsonl.xz", "rt") as fh:
        fh.readline()
        ref = json.loads(fh.readline())
    ours = TOK[name].facts()
    mismatch += [(name, k, ref[k], ours[k]) for k in KEYS if ref[k] != ours[k]]
print(f"{len(NAMES)} vocabularies, {len(KEYS)} facts each: {len(mismatch)} differences", mismatch)

# %% [markdown]
# The lesson this notebook follows sketches the rules with a short list of end-of-generation texts. At the
# pinned llama.cpp the list is longer (it includes `<eos>`, `<turn|>`, `<|tool_response>`, `[EOS]`, ...),
# the fill-in-the-middle tokens found by text join the set too, and two load-time exceptions remove an id
# again (gpt-oss's `<|end|>`, and a `</s>` next to `<|tool_response>`). That is why, for example, BERT's
# `[PAD]` (found as a fill-in-the-middle pad) and Command-R's `<PAD>` are in their sets above. The lesson's
# headline figures agree with ours: Qwen2 adds no BOS and encodes `Hello world` as `[9707, 1879]`, Llama 3
# puts 128000 first, and a Llama 3 file with `add_bos_token = false` adds none (the five rule cases it
# prints are rows 1, 2, 5 and 6 of our table above, plus SentencePiece, and they agree).

# %%
print(qwen2.encode("Hello world"), llama3.encode("Hello world")[:1])

# %% [markdown]
# The lesson's small end-of-generation example, a five-token vocabulary `<|endoftext|>`, `<|im_start|>`,
# `<|im_end|>`, `</s>`, `hello` with EOS 0, gives the same set when `gguftok` loads it: the EOS id plus the
# two other texts on llama.cpp's list. `<|im_start|>` opens a turn and does not stop anything.

# %%
synthetic_eog(["<|endoftext|>", "<|im_start|>", "<|im_end|>", "</s>", "hello"], eos=0)

# %% [markdown]
# ## Try it
#
# Choose a vocabulary file and type a text: the view shows its BOS/EOS rule, its end-of-generation ids, and
# the text encoded with `add_special` on and off.

# %% tags=["nbval-ignore-output"]
bos_explorer(text="Hello world", vocab="llama-bpe")

# %% [markdown]
# The same view without a widget, for `ggml-vocab-bert-bge.gguf`: note `[CLS]` and `[SEP]` around the text
# with `add_special=True`.

# %%
print(vocab_bos_view(TOK["bert-bge"], "Hello world", "bert-bge").text)

# %% [markdown]
# ## Summary
#
# * `add_bos`/`add_eos` come from, in order: the tokenizer type's default, the pre-tokenizer preset (the
#   Llama 3 family turns BOS on), the keys `tokenizer.ggml.add_bos_token`/`add_eos_token`, and Gemma 4's
#   forced BOS. Having a BOS id is not the same as adding it.
# * `encode(..., add_special=True)` adds what those flags say (and `[CLS]`/`[SEP]` for WordPiece). Text that
#   already begins with the BOS text, encoded with `parse_special=True`, gets a second BOS: encode template
#   output with `add_special=False`.
# * The stop set is built at load time: EOS, an EOT found by text in hash-map order (Qwen2: `<|im_end|>`),
#   every token whose text is on llama.cpp's list (made CONTROL on the way, like Qwen2's `</s>`), and the
#   fill-in-the-middle pad/separator tokens. Stop on `tok.is_eog(id)`, not on `tok.eos_id` alone.

# %% [markdown]
# ## Exercises
#
# Write each function in the code cell under its statement, run that cell, then run the check below it.
# The check calls your function on this lesson's examples and on many generated inputs (seeded, so the
# same every time), compares each answer with gguftok's own, and shows the first input where they
# differ: the input, the expected answer, yours, and for a list the first index that differs. Until you
# write the body it says *not attempted*. `gguftok.exercises.show("NN.name")` prints a task again.
# The solutions are in `solutions/lesson07.py` at the top of the repository.

# %%
from gguftok.exercises import check  # noqa: E402

# %% [markdown]
# ### Exercise 07.add_bos: does this vocabulary add BOS?
#
# Write `add_bos(md)` that decides llama.cpp's `add_bos` from a dictionary holding some of the keys
# `tokenizer.ggml.model`, `tokenizer.ggml.pre` and `tokenizer.ggml.add_bos_token`, with this notebook's
# four rules, a later one overriding an earlier one:
#
# 1. the model's default: `llama` (SentencePiece) and `bert` (WordPiece) add BOS; `gpt2`, `gemma4` and
#    `t5` do not;
# 2. for `gpt2` only, a pre string in `bos_presets()` (`from gguftok.viz.bos_view import bos_presets`)
#    turns it on; other models ignore `tokenizer.ggml.pre`;
# 3. the key `tokenizer.ggml.add_bos_token`, when present, wins;
# 4. the model `gemma4` adds BOS whatever the key says.
#
# The check uses the lesson's eight cases, 120 random combinations (all 91 pre strings), and the keys of
# ten real vocabularies. Each expected answer comes from writing a small vocabulary with those keys
# (`gguftok.writer`) and loading it with `gguftok.vocab.Vocab`.

# %%
from gguftok.viz.bos_view import bos_presets  # noqa: E402


def add_bos(md: dict) -> bool:
    """Whether llama.cpp adds BOS for a vocabulary with these ``tokenizer.ggml.*`` keys.

    >>> add_bos({"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "llama-bpe"})
    True
    """
    raise NotImplementedError


# %%
check("07.add_bos", add_bos)

# %% [markdown]
# ### Exercise 07.eog_ids: the end-of-generation set
#
# Generation stops at any end-of-generation (EOG) token. Write `eog_ids(tokens, eos)` that returns the
# EOG ids of a vocabulary whose token texts are `tokens` and whose EOS id is `eos`, as a sorted list: the
# EOS id, plus every token whose text is one of `EOG_TEXTS`
# (`from gguftok.exercises.lesson07 import EOG_TEXTS`), llama.cpp's list of end-of-turn texts.
#
# The check uses the lesson's ChatML and Llama 3 vocabularies and 80 random ones, mixing texts from that
# list with look-alikes (`</S>`, `< |im_end|>`). The expected ids come from writing each vocabulary
# with `gguftok.writer` and loading it (`gguftok.vocab.Vocab`'s `eog`).

# %%
from gguftok.exercises.lesson07 import EOG_TEXTS  # noqa: E402


def eog_ids(tokens: list[str], eos: int) -> list[int]:
    """The end-of-generation ids, sorted: ``eos`` and every token whose text is in ``EOG_TEXTS``.

    >>> eog_ids(["<|endoftext|>", "<|im_start|>", "<|im_end|>", "hello"], 0)
    [0, 2]
    """
    raise NotImplementedError


# %%
check("07.eog_ids", eog_ids)
