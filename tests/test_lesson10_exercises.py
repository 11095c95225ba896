"""Lesson 10's exercises: the cost of a list-based cache is caught, a dictionary's is not, and the reports name
the call where a wrong cache first differs."""

from __future__ import annotations

from solutions_loader import solved, wrong_variants

from gguftok.exercises import case_args, check
from gguftok.exercises.lesson10 import COST_LIMIT, ModelLRU, key_work
from gguftok.viz.cache_view import simulate_lru

WRONG = wrong_variants()


class ListLRU:
    """Right answers, the wrong cost: keys and values in two lists, searched from the start on every call."""

    def __init__(self, capacity):
        self.capacity, self.order, self.values, self.hits, self.misses = capacity, [], [], 0, 0

    def get(self, key):
        if key not in self.order:
            self.misses += 1
            return None
        self.hits += 1
        i = self.order.index(key)
        self.order.append(self.order.pop(i))
        self.values.append(self.values.pop(i))
        return self.values[-1]

    def put(self, key, value):
        if key in self.order:
            i = self.order.index(key)
            del self.order[i], self.values[i]
        self.order.append(key)
        self.values.append(value)
        if len(self.order) > self.capacity:
            del self.order[0], self.values[0]

    def keys(self):
        return list(self.order)

    def __len__(self):
        return len(self.order)


def test_a_list_based_cache_agrees_on_every_case_but_fails_on_cost():
    result = check("10.LRUCache", ListLRU)
    assert result.status == "failed" and result.case is None and result.agreed == result.total, result.text
    lines = result.text.splitlines()
    assert lines[0].startswith(f"✗ 10.LRUCache: every one of the {result.total} cases agrees, but with 512 words")
    assert lines[1].startswith("  measured: ") and "key comparisons and hashes per operation" in lines[1]
    assert key_work(ListLRU) > 10 * COST_LIMIT


def test_dictionary_caches_are_cheap():
    assert key_work(solved("10.LRUCache")) < 8
    assert key_work(ModelLRU) < 8


def test_the_model_keeps_the_cache_that_simulate_lru_replays():
    # simulate_lru follows BPEModel.word_ids's own cache (tests/test_viz_cache.py): get, and put on a miss
    words = ["a", "b", "a", "c", "b", "a", "d", "a", "b", "c", "c", "a"]
    for capacity in (0, 1, 2, 3, 8):
        model = ModelLRU(capacity)
        for w in words:
            if model.get(w) is None:
                model.put(w, [len(w)])
        run = simulate_lru(words, capacity)
        assert (model.hits, model.misses, model.keys()) == (run.hits, run.misses, list(run.cache))


def test_a_first_in_first_out_cache_is_caught_at_the_first_call_that_shows_it():
    result = check("10.LRUCache", WRONG["10.LRUCache"])
    assert result.case == 0 and result.call == ("c = LRUCache(2); c.put('the', [1]); c.put('cat', [2]); "
                                                "c.get('the'); c.get('dog'); c.put('sat', [3]); c.get('cat'); "
                                                "c.get('the')")
    # the hit on 'the' leaves it oldest, so keys() shows it at once
    assert result.detail.startswith("first difference at index 2: expected (\"get('the')\", [1], 1, 0, 2, "
                                    "['cat', 'the']), got (\"get('the')\", [1], 1, 0, 2, ['the', 'cat'])")
    assert result.rerun == "rerun('10.LRUCache', 1)"
    assert case_args("10.LRUCache", 1)[0] == 2


def test_a_cache_that_never_stores_is_caught_on_the_words_encoded():
    result = check("10.encode_words", WRONG["10.encode_words"])
    assert result.case == 0
    assert result.call == "encode_words(['to', 'be', 'or', 'not', 'to', 'be'], encode, LRUCache(8))"
    assert result.detail.startswith("first difference at index 1: expected ['to', 'be', 'or', 'not'], got "
                                    "['to', 'be', 'or', 'not', 'to', 'be']")
