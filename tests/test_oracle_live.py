"""Opt-in live check against llama.cpp itself (``make test-oracle``, or ``pytest -m oracle``).

A time-bounded differential fuzz of a few vocabularies; it needs the oracle built by ``make oracle`` and says
why it skips when it is not there.
"""

from __future__ import annotations

import os

import pytest

from gguftok.conformance.fuzz import fuzz_vocab
from gguftok.conformance.oracle import why_unavailable

pytestmark = pytest.mark.oracle
SECONDS = float(os.environ.get("GGUFTOK_ORACLE_SECONDS", "20"))


@pytest.fixture(scope="module", autouse=True)
def need_oracle():
    reason = why_unavailable()
    if reason:
        print(f"\nskipping the live oracle tests: {reason}")
        pytest.skip(reason)


@pytest.mark.parametrize(("name", "pre"), [("gpt-2", None), ("qwen2", None), ("llama-bpe", None),
                                           ("deepseek-llm", None), ("gemma-4", None), ("gpt-2", "tekken"),
                                           ("gpt-2", "superbpe")])
def test_live_fuzz_finds_no_disagreement(name, pre, vocab_path):
    vocab_path(name)  # fails under CI, skips elsewhere, when the vocabularies are missing
    report = fuzz_vocab(name, n=10**9, seconds=SECONDS, seed=int.from_bytes(os.urandom(4), "little"), pre=pre,
                        log=lambda m: None)
    print(report.line())
    assert report.inputs > 0
    assert not report.mismatches, "\n".join(report.mismatches[:3])
