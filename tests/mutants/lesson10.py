"""Wrong variants of lesson 10's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

from solutions_loader import solved


def _first_in_first_out() -> type:
    """The reference class, but a hit leaves the entry where it is: the oldest entry goes, used or not."""

    class FirstInFirstOut(solved("10.LRUCache")):
        def get(self, key):
            if key not in self.entries:
                self.misses += 1
                return None
            self.hits += 1
            return self.entries[key]

    return FirstInFirstOut


def _never_stores(words, encode, cache):
    """Looks every word up, but forgets to store what a miss encoded."""
    ids = []
    for word in words:
        found = cache.get(word)
        ids += encode(word) if found is None else found
    return ids


WRONG = {
    "10.LRUCache": _first_in_first_out(),
    "10.encode_words": _never_stores,
}
