"""Stage 10: the word cache, a table from a word to its ids that keeps the words used most recently (notebook 10).

An ``OrderedDict`` keeps the entries least recently used first: a hit moves its key to the end, a new key goes
in at the end, and when there is one entry too many the first one goes. Every step is a dictionary operation,
so a lookup costs the same however many words the cache holds.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable


class LRUCache:
    """At most ``capacity`` entries, key -> value, in order of use: least recently used first.

    ``get(key)`` returns the value and makes the entry the most recently used, or returns ``None`` when the
    key is not there. ``put(key, value)`` stores the value (replacing an older one) as the most recently used
    entry; when the cache then holds more than ``capacity`` entries, the least recently used one goes.
    ``hits`` and ``misses`` count the ``get`` calls that found their key and those that did not. A cache of
    capacity 0 stores nothing.

    >>> cache = LRUCache(2)
    >>> cache.put("the", [1]); cache.put("cat", [2])
    >>> cache.get("the"), cache.get("dog")
    ([1], None)
    >>> cache.put("sat", [3])          # one too many: "cat" is the least recently used, so it goes
    >>> cache.keys(), len(cache), cache.hits, cache.misses
    (['the', 'sat'], 2, 1, 1)
    """

    def __init__(self, capacity: int):
        """An empty cache for at most ``capacity`` entries, with ``hits`` and ``misses`` at 0."""
        self.capacity = capacity
        self.entries: OrderedDict[str, list[int]] = OrderedDict()  # least recently used first
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> list[int] | None:
        """The value stored for ``key``, now the most recently used entry (a hit); ``None`` if there is none
        (a miss)."""
        if key not in self.entries:
            self.misses += 1
            return None
        self.hits += 1
        self.entries.move_to_end(key)
        return self.entries[key]

    def put(self, key: str, value: list[int]) -> None:
        """Store ``value`` for ``key`` as the most recently used entry; past ``capacity``, drop the least
        recently used entry."""
        self.entries[key] = value
        self.entries.move_to_end(key)  # a key that was already there is now the most recent too
        if len(self.entries) > self.capacity:
            self.entries.popitem(last=False)

    def keys(self) -> list[str]:
        """The keys, least recently used first."""
        return list(self.entries)

    def __len__(self) -> int:
        """The number of entries."""
        return len(self.entries)


def encode_words(words: list[str], encode: Callable[[str], list[int]], cache: LRUCache) -> list[int]:
    """The ids of ``words``, one word after the other, through ``cache``: each word is looked up once with
    ``cache.get``; on a miss ``encode(word)`` gives its ids and ``cache.put`` stores them. So ``encode`` runs
    only on misses.

    >>> encoded = []
    >>> def encode(word):
    ...     encoded.append(word)
    ...     return [len(word)]
    >>> class Remember(dict):          # any object with get and put will do; yours is LRUCache
    ...     def put(self, key, value):
    ...         self[key] = value
    >>> encode_words(["to", "be", "or", "not", "to", "be"], encode, Remember())
    [2, 2, 2, 3, 2, 2]
    >>> encoded
    ['to', 'be', 'or', 'not']
    """
    ids: list[int] = []
    for word in words:
        word_ids = cache.get(word)
        if word_ids is None:  # a miss: encode the word once, and keep the result for next time
            word_ids = encode(word)
            cache.put(word, word_ids)
        ids += word_ids
    return ids
