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
# running on the real vocabularies. Under each view, folded, are speaker notes: what to say and what to ask.

# %% tags=["nbval-ignore-output"]
# Each view below imports and loads what it needs itself, so the first appears while the others are still
# being built; these few names are for the word cache's cell.
from gguftok.viz.cache_view import cache_explorer, plain_words, workbook_text
from gguftok.viz.present import large_type

large_type()

# %% [markdown]
# ## 00 · One text through several vocabularies (notebook 00)
#
# Type any text: each ticked vocabulary shows the tokens it cuts the text into, how many, and how many per
# character. Tick others to compare families and languages.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.compare_view import side_by_side_widget

side_by_side_widget()

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - Ask the class to guess which vocabulary needs the fewest tokens for the Japanese, then type it.
# - Point at tokens per character: that is what a context window and a bill are counted in.
# - Tick gpt-2: an old vocabulary spends several tokens on one emoji.
#
# </details>

# %% [markdown]
# ## 01 · A vocabulary, page by page (notebook 01)
#
# Qwen2's tokens, filtered by any part of their text: `Ġ` is a space, `Ċ` a newline.

# %% tags=["nbval-ignore-output"]
from gguftok import Tokenizer
from gguftok.data import vocab_dir
from gguftok.viz.widgets import vocab_browser

qwen2 = Tokenizer.from_gguf(vocab_dir() / "ggml-vocab-qwen2.gguf")
vocab_browser(qwen2)

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - A vocabulary is only a numbered list of strings, read from the file's metadata: no model weights.
# - Filter for Ġthe: the space is part of the token, so ' the' and 'the' are two tokens.
# - Ask: why would a vocabulary hold both?
#
# </details>

# %% [markdown]
# ## 02 · Bytes become characters (notebook 02)
#
# Type a text (escapes such as `\n` work): each byte, the character the byte map gives it, and the token ids.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.bytemap_view import byte_inspector

byte_inspector(qwen2)

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - Type é, then an emoji: one character, two or four bytes, each byte drawn as one printable character.
# - The byte map is why a byte-level vocabulary can spell any text: 256 characters cover every byte.
# - Ask: what does a space become? (Ġ)
#
# </details>

# %% [markdown]
# ## 03 · Merge ranks (notebook 03)
#
# Look a pair up in Qwen2's merge list (`Ġ t` is a space then `t`): the lower the rank, the earlier it merges.
# Then page through the list from its first merge.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.merges_view import MergeIndex, merge_list_widget, rank_lookup_widget

qwen2_merges = MergeIndex.from_tokenizer(qwen2)
rank_lookup_widget(qwen2_merges, "Ġ t")

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - The rank is the line number in the merge list: lower merges first.
# - Look up a pair the class suggests, then one that is not there: no rank, never merged.
#
# </details>

# %% tags=["nbval-ignore-output"]
merge_list_widget(qwen2_merges)

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - The first merges are the most frequent pairs of the training text: spaces and common letters.
# - Ask: where would you expect your own language's letters to appear in this list?
#
# </details>

# %% [markdown]
# ## 03 · Where a merge list comes from: training a toy BPE (after notebook 03)
#
# Type a small corpus and step: count every pair of neighbouring symbols, merge the most frequent into a new
# token (a tie goes to the pair that occurs first in the corpus), rewrite the corpus, and count again. The
# merges, in the order they were learnt, are a merge list: the step is the rank.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.training_view import CORPUS, training_player

training_player(CORPUS, merges=10)

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - Before pressing play, ask the class to count the pairs by hand and name the first merge.
# - Point at the tie rule: with equal counts the pair met first in the corpus wins; it must be a rule, or two trainings would not agree.
# - Type your own corpus, say a few words of the class's names, and watch common endings become tokens.
#
# </details>

# %% [markdown]
# ## 04 · Pre-tokenizers cut text into words (notebook 04)
#
# Pick a pre-tokenizer and type any text: every chip is one word, and merges never cross a chip's border.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.pretokenize_view import LESSON_LINE, pretokenizer_explorer, vocab_split_explorer

pretokenizer_explorer(LESSON_LINE, "qwen2")

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - Merges never cross a chip's border: the pre-tokenizer decides what can become one token.
# - Switch to gpt-2 and look at 12345 and 'LL: digits and contractions are cut differently.
#
# </details>

# %% [markdown]
# The same text under the pre-tokenizers of two vocabularies, one row each: a word the other row does not cut at
# the same place is marked ✗. Type, and change either vocabulary.

# %% tags=["nbval-ignore-output"]
vocab_split_explorer(LESSON_LINE, "qwen2", "gpt-2")

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - Ask the class to predict the rows for a phone number, then type one.
# - Compare llama-bpe with gpt-2 on code with indentation: runs of spaces are kept or cut differently.
# - gemma-4 splits only at newlines: its merges see whole lines.
#
# </details>

# %% [markdown]
# ## 05 · The merge queue, pop by pop (notebook 05)
#
# Type a word and pick the merges: nine toy merges, or any byte-level BPE vocabulary. The lowest rank pops
# first, and an entry whose pair is gone is skipped as stale. Press play, drag the slider, or set the speed.

# %% tags=["nbval-ignore-output"]
from gguftok.models.bpe import merge_ranks
from gguftok.viz.queue_view import queue_explorer

TOY = merge_ranks(["e r", "l o", "lo w", "low er", "e s", "es t", "low est", "n e", "w er"])
queue_explorer("lower", "toy merges", toy=TOY)

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - Start with lower and the toy merges: ask which pair pops first, then play one step at a time.
# - Stop on the stale entry: w+er was queued, but w was merged into low first.
# - Switch to qwen2 and type a long word such as ␣tokenization: the same queue, with real ranks.
#
# </details>

# %% [markdown]
# ## 06 · Special tokens are cut out first (notebook 06)
#
# Switch `parse_special` and watch the chat markers turn from pieces of text into single tokens.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.special_view import special_playground

special_playground(text="<|im_start|>user\nHi[PAD151646]<|im_end|>\n<|im_start|>assistant\n", vocab="qwen2")

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - With parse_special off, a user who types a chat marker gets plain text, not a control token.
# - Ask: why must a chat server keep it off for what users type?
#
# </details>

# %% [markdown]
# ## 07 · BOS, EOS and the end of generation (notebook 07)
#
# Pick a vocabulary file: whether it adds BOS and EOS, which ids end generation, and the prompt it builds.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.bos_view import bos_explorer

bos_explorer(text="Hello world", vocab="llama-bpe")

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - BOS is a flag of the file, not of the text: switch vocabularies and watch it come and go.
# - Ask: what happens when a chat template adds BOS too? (two of them)
#
# </details>

# %% [markdown]
# ## 08 · Streaming ids back into text (notebook 08)
#
# Ids arrive one at a time; bytes that are only part of a character wait until it is complete.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.stream_view import stream_frames, stream_player, token_pieces

STREAM_TEXT = "The llama 🦙 said 你好, 世界! Then it waved 👋🏽 and left 🎉."
ids = qwen2.encode(STREAM_TEXT)
streamed = stream_frames(token_pieces(qwen2, ids), ids)
stream_player(streamed)

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - Stop on the emoji: its first token is half a character, and printing it now would show garbage.
# - Ask: what should a chat window print while it waits?
#
# </details>

# %% [markdown]
# ## 09 · Conformance: your ids against llama.cpp's (notebook 09)
#
# Type a text and paste an id list (empty: the reference ids are filled in); the first id that differs is
# marked, with what each side's tokens spell.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.conformance_view import conformance_playground

conformance_playground(text="Hello world, it's 2026!", vocab="qwen2")

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - Change one id in the list: the first difference is marked, with what each side spells.
# - Ask: why is the first difference the one to fix first?
#
# </details>

# %% [markdown]
# ## 10 · The word cache (notebook 10)
#
# The words of this workbook's prose (the markdown of notebooks 01 to 06, a copy kept in `data/corpus`),
# replayed through an LRU cache: drag the slider to change its size and see the hit rate, and which frequent
# words stay cached.

# %% tags=["nbval-ignore-output"]
prose = plain_words(qwen2, workbook_text("markdown"))
cache_explorer(prose)

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - Slide the size down: the hit rate falls slowly, because a few words make most of any text.
# - Ask: which words stay cached even when the cache is tiny?
#
# </details>

# %% [markdown]
# ## 11 · The tokenizer families (notebook 11)
#
# Type a text and pick a vocabulary file: an emoji with `llama-spm` falls back to bytes, full-width letters with
# `nomic-bert-moe` are normalised, accents with `bert-bge` are removed.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.families_view import families_playground

families_playground(text="Hello wörld 😀", vocab="ggml-vocab-llama-spm.gguf")

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - Same text, other families: SentencePiece, WordPiece and Unigram have no merge list.
# - Pick bert-bge and type accents: they are gone before the model sees the text.
#
# </details>

# %% [markdown]
# SentencePiece merges by score, not by rank: type a word and step. Each step lists the neighbouring pairs that
# are tokens, with their scores; the highest merges (the leftmost on ties). A character the vocabulary lacks
# falls back to its bytes' `<0xXX>` tokens.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.spm_view import spm_player

spm_player("Hello wörld 😀", "llama-spm")

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - Ask which pair will merge first, then step: the best score wins, wherever it is in the word.
# - Go to the last step: the emoji is no token, so it becomes four byte tokens.
# - Type a word of the class's language and count its byte tokens.
#
# </details>

# %% [markdown]
# ## 12 · The scoreboard (notebook 12)
#
# The students' own tokenizer, assembled from their stages (the reference solution for any stage not written
# yet) and graded against llama.cpp on fifteen vocabularies; the button grades it again after an edit.

# %% tags=["nbval-ignore-output"]
from gguftok.viz.scoreboard_view import scoreboard_widget

scoreboard_widget()

# %% [markdown]
# <details><summary>Speaker notes</summary>
#
# - Each row is one vocabulary; a mismatch shows the first text where the ids part.
# - After a student edits a stage, press the button: the grade is computed again.
#
# </details>
