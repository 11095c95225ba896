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
# The workbook's step-through views, alone and in large type, for a projector. Serve this notebook with
# voila (`make present`, or `voila notebooks/instructor.ipynb`): the code is hidden
# and only the views remain. Each view comes from the notebook named in its heading, where it is explained.

# %% tags=["nbval-ignore-output"]
from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.models.bpe import merge_ranks
from gguftok.viz.present import large_type
from gguftok.viz.pretokenize_view import LESSON_LINE, pretokenizer_explorer
from gguftok.viz.queue_view import queue_frames, queue_player, trace_frames
from gguftok.viz.special_view import special_playground
from gguftok.viz.stream_view import stream_frames, stream_player, token_pieces

qwen2 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf")
TOY = merge_ranks(["e r", "l o", "lo w", "low er", "e s", "es t", "low est", "n e", "w er"])
large_type()

# %% [markdown]
# ## 1 · Pre-tokenizers cut text into words (notebook 04)
#
# Pick a pre-tokenizer and type any text: every chip is one word, and merges never cross a chip's border.

# %% tags=["nbval-ignore-output"]
pretokenizer_explorer(LESSON_LINE, "qwen2")

# %% [markdown]
# ## 2 · The merge queue, pop by pop (notebook 05)
#
# The word `lower` with nine toy merges: the lowest rank pops first, and an entry whose pair is gone is
# skipped as stale. Press play or drag the slider.

# %% tags=["nbval-ignore-output"]
lower = queue_frames("lower", TOY)
queue_player(lower)

# %% [markdown]
# The same queue on a real word: ` tokenization` with Qwen2's 151,387 merges.

# %% tags=["nbval-ignore-output"]
tokenization = trace_frames(qwen2, qwen2.trace(" tokenization")[0])
queue_player(tokenization)

# %% [markdown]
# ## 3 · Special tokens are cut out first (notebook 06)
#
# Switch `parse_special` and watch the chat markers turn from pieces of text into single tokens.

# %% tags=["nbval-ignore-output"]
special_playground(text="<|im_start|>user\nHi[PAD151646]<|im_end|>\n<|im_start|>assistant\n", vocab="qwen2")

# %% [markdown]
# ## 4 · Streaming ids back into text (notebook 08)
#
# Ids arrive one at a time; bytes that are only part of a character wait until it is complete.

# %% tags=["nbval-ignore-output"]
STREAM_TEXT = "The llama 🦙 said 你好, 世界! Then it waved 👋🏽 and left 🎉."
ids = qwen2.encode(STREAM_TEXT)
streamed = stream_frames(token_pieces(qwen2, ids), ids)
stream_player(streamed)

# %% [markdown]
# ---

# %%
print(f"{len(lower)} frames for lower, {len(tokenization)} for ' tokenization', {len(streamed)} for the stream")
