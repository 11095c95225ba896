"""Stage 10: the word cache, a table from a word to its ids that keeps the words used most recently (notebook 10).

Byte-level BPE encodes each word on its own, so once a word's ids are known they can be kept and reused the
next time the word comes back. The cache holds at most ``capacity`` words: when one more would not fit, the
word used least recently goes (an LRU cache, for *least recently used*). A tokenizer looks a word up on every
word of every text, so a lookup must cost the same small amount however full the cache is: keep the entries
in a dictionary, never in a list searched from the start. ``collections.OrderedDict`` remembers the order of
its keys and has ``move_to_end(key)`` and ``popitem(last=False)``.
"""

from __future__ import annotations

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
        raise NotImplementedError

    def get(self, key: str) -> list[int] | None:
        """The value stored for ``key``, now the most recently used entry (a hit); ``None`` if there is none
        (a miss)."""
        raise NotImplementedError

    def put(self, key: str, value: list[int]) -> None:
        """Store ``value`` for ``key`` as the most recently used entry; past ``capacity``, drop the least
        recently used entry."""
        raise NotImplementedError

    def keys(self) -> list[str]:
        """The keys, least recently used first."""
        raise NotImplementedError

    def __len__(self) -> int:
        """The number of entries."""
        raise NotImplementedError


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
    raise NotImplementedError
