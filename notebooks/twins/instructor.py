# ---
# jupyter:
#   jupytext:
#     formats: ipynb,twins//py:percent
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
# # Instructor mode: the tokenizer, step by step
#
# Every interactive view of the workbook, alone and in large type, for a projector: one section per view, in
# the order of the course, each named after the notebook that explains it. Serve this notebook with voila
# (`make present`, or `voila notebooks/instructor.ipynb`): the code is hidden and only the views remain, each
# running on the real vocabularies.

# %% tags=["nbval-ignore-output"]
from pathlib import Path

from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.models.bpe import merge_ranks
from gguftok.viz.bos_view import bos_explorer
from gguftok.viz.bytemap_view import byte_inspector
from gguftok.viz.cache_view import cache_explorer, notebook_text, plain_words
from gguftok.viz.compare_view import side_by_side_widget
from gguftok.viz.conformance_view import conformance_playground
from gguftok.viz.families_view import families_playground
from gguftok.viz.merges_view import MergeIndex, merge_list_widget, rank_lookup_widget
from gguftok.viz.present import large_type
from gguftok.viz.pretokenize_view import LESSON_LINE, pretokenizer_explorer
from gguftok.viz.queue_view import queue_frames, queue_player, trace_frames
from gguftok.viz.scoreboard_view import scoreboard_widget
from gguftok.viz.special_view import special_playground
from gguftok.viz.stream_view import stream_frames, stream_player, token_pieces
from gguftok.viz.widgets import vocab_browser

qwen2 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf")
qwen2_merges = MergeIndex.from_tokenizer(qwen2)
TOY = merge_ranks(["e r", "l o", "lo w", "low er", "e s", "es t", "low est", "n e", "w er"])
large_type()

# %% [markdown]
# ## 00 · One text through several vocabularies (notebook 00)
#
# Type any text: each ticked vocabulary shows the tokens it cuts the text into, how many, and how many per
# character. Tick others to compare families and languages.

# %% tags=["nbval-ignore-output"]
side_by_side_widget()

# %% [markdown]
# ## 01 · A vocabulary, page by page (notebook 01)
#
# Qwen2's tokens, filtered by any part of their text: `Ġ` is a space, `Ċ` a newline.

# %% tags=["nbval-ignore-output"]
vocab_browser(qwen2)

# %% [markdown]
# ## 02 · Bytes become characters (notebook 02)
#
# Type a text (escapes such as `\n` work): each byte, the character the byte map gives it, and the token ids.

# %% tags=["nbval-ignore-output"]
byte_inspector(qwen2)

# %% [markdown]
# ## 03 · Merge ranks (notebook 03)
#
# Look a pair up in Qwen2's merge list (`Ġ t` is a space then `t`): the lower the rank, the earlier it merges.
# Then page through the list from its first merge.

# %% tags=["nbval-ignore-output"]
rank_lookup_widget(qwen2_merges, "Ġ t")

# %% tags=["nbval-ignore-output"]
merge_list_widget(qwen2_merges)

# %% [markdown]
# ## 04 · Pre-tokenizers cut text into words (notebook 04)
#
# Pick a pre-tokenizer and type any text: every chip is one word, and merges never cross a chip's border.

# %% tags=["nbval-ignore-output"]
pretokenizer_explorer(LESSON_LINE, "qwen2")

# %% [markdown]
# ## 05 · The merge queue, pop by pop (notebook 05)
#
# The word `lower` with nine toy merges: the lowest rank pops first, and an entry whose pair is gone is skipped
# as stale. Press play or drag the slider.

# %% tags=["nbval-ignore-output"]
lower = queue_frames("lower", TOY)
queue_player(lower)

# %% [markdown]
# The same queue on a real word: ` tokenization` with Qwen2's merges.

# %% tags=["nbval-ignore-output"]
tokenization = trace_frames(qwen2, qwen2.trace(" tokenization")[0])
queue_player(tokenization)

# %% [markdown]
# ## 06 · Special tokens are cut out first (notebook 06)
#
# Switch `parse_special` and watch the chat markers turn from pieces of text into single tokens.

# %% tags=["nbval-ignore-output"]
special_playground(text="<|im_start|>user\nHi[PAD151646]<|im_end|>\n<|im_start|>assistant\n", vocab="qwen2")

# %% [markdown]
# ## 07 · BOS, EOS and the end of generation (notebook 07)
#
# Pick a vocabulary file: whether it adds BOS and EOS, which ids end generation, and the prompt it builds.

# %% tags=["nbval-ignore-output"]
bos_explorer(text="Hello world", vocab="llama-bpe")

# %% [markdown]
# ## 08 · Streaming ids back into text (notebook 08)
#
# Ids arrive one at a time; bytes that are only part of a character wait until it is complete.

# %% tags=["nbval-ignore-output"]
STREAM_TEXT = "The llama 🦙 said 你好, 世界! Then it waved 👋🏽 and left 🎉."
ids = qwen2.encode(STREAM_TEXT)
streamed = stream_frames(token_pieces(qwen2, ids), ids)
stream_player(streamed)

# %% [markdown]
# ## 09 · Conformance: your ids against llama.cpp's (notebook 09)
#
# Type a text and paste an id list (empty: the reference ids are filled in); the first id that differs is
# marked, with what each side's tokens spell.

# %% tags=["nbval-ignore-output"]
conformance_playground(text="Hello world, it's 2026!", vocab="qwen2")

# %% [markdown]
# ## 10 · The word cache (notebook 10)
#
# The words of this workbook's prose (the markdown of notebooks 01 to 06), replayed through an LRU cache: drag
# the slider to change its size and see the hit rate, and which frequent words stay cached.

# %% tags=["nbval-ignore-output"]
sources = [Path(f"twins/{name}.py") for name in ("01_gguf_metadata", "02_byte_map", "03_merge_ranks",
                                                "04_pretokenizers", "05_merge_queue", "06_special_tokens")]
prose = plain_words(qwen2, notebook_text(sources, "markdown"))
cache_explorer(prose)

# %% [markdown]
# ## 11 · The tokenizer families (notebook 11)
#
# Type a text and pick a vocabulary file: an emoji with `llama-spm` falls back to bytes, full-width letters with
# `nomic-bert-moe` are normalised, accents with `bert-bge` are removed.

# %% tags=["nbval-ignore-output"]
families_playground(text="Hello wörld 😀", vocab="ggml-vocab-llama-spm.gguf")

# %% [markdown]
# ## 12 · The scoreboard (notebook 12)
#
# The students' own tokenizer, assembled from their stages (the reference solution for any stage not written
# yet) and graded against llama.cpp on thirteen vocabularies; the button grades it again after an edit.

# %% tags=["nbval-ignore-output"]
scoreboard_widget()

# %% [markdown]
# ---

# %%
print(f"{len(lower)} frames for lower, {len(tokenization)} for ' tokenization', {len(streamed)} for the stream")
