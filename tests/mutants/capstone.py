"""Wrong parts for the capstone: one plausible mistake per stage whose effect reaches the graded answers (llama.cpp's
cases, the fuzz, the round trip), for the stages where the exercises' own wrong variants change no graded answer (a
merge line that starts with a space, say, never occurs in a real vocabulary). Where a stage has one, it is tried
before the exercises' variants."""

from __future__ import annotations

from solutions_loader import solved


def _off_by_one_arrays(data):
    """Every array read from its second item on (a loop started at 1)."""
    md = solved("01.read_metadata")(data)
    return {k: v[1:] if isinstance(v, list) else v for k, v in md.items()}


def _ranks_without_space(merges):
    """The rank table keyed by the two sides joined without their space: no lookup ever finds a pair."""
    return {line.replace(" ", "", 1): rank for rank, line in enumerate(merges)}


def _forgets_user_defined(md):
    """Only control and unknown tokens: user-defined ones (MPT's runs of spaces) are no longer cut out."""
    return [t for t in solved("06.special_tokens")(md) if t[2]]


def _never_bos(md):
    return False


def _cache_with_empty_misses() -> type:
    """A miss returns [] instead of None, so the tokenizer takes every new word for a cached empty one."""
    base = solved("10.LRUCache")

    class EmptyMisses(base):
        def get(self, key):
            got = super().get(key)
            return [] if got is None else got

    return EmptyMisses


# stage -> (the name replaced, the wrong part)
PARTS = {
    "metadata": ("read_metadata", _off_by_one_arrays),
    "merges": ("merge_ranks", _ranks_without_space),
    "special": ("special_tokens", _forgets_user_defined),
    "bos_eos": ("add_bos", _never_bos),
    "cache": ("LRUCache", _cache_with_empty_misses()),
}
