"""gguftok.viz.languages_view: the cost of one sentence per language, counted here with plain encode."""

from __future__ import annotations

import re
import unicodedata

import pytest
from viz_checks import assert_sanitizer_safe

from gguftok.viz.languages_view import SAMPLES, cost_figure, cost_numbers, cost_table, relative

SCRIPTS = {"English": "LATIN", "German": "LATIN", "French": "LATIN", "Spanish": "LATIN", "Russian": "CYRILLIC",
           "Chinese": "CJK", "Japanese": "HIRAGANA", "Hindi": "DEVANAGARI", "Arabic": "ARABIC", "Korean": "HANGUL"}
CHOSEN = ("llama-bpe", "qwen2", "llama-spm", "bert-bge", "nomic-bert-moe", "gemma-4")


@pytest.fixture(scope="module")
def chosen(toks):
    return {n: toks(n) for n in CHOSEN}


def test_samples_are_one_sentence_in_each_script():
    assert list(SAMPLES) == list(SCRIPTS)
    for lang, s in SAMPLES.items():
        names = [unicodedata.name(c, "") for c in s if c.isalpha()]
        assert names and sum(SCRIPTS[lang] in n for n in names) > len(names) / 2, lang
        assert s[-1] in ".。।" and s.count(".") + s.count("。") + s.count("।") == 1, lang


def test_numbers_are_encode_lengths(chosen):
    got = cost_numbers(chosen)
    assert got == {n: {lang: len(tok.encode(s, add_special=False)) for lang, s in SAMPLES.items()}
                   for n, tok in chosen.items()}
    assert relative({"v": {"English": 0, "German": 3}})["v"]["English"] != relative({"v": {"English": 0}})["v"][
        "English"]  # nan where English has no tokens: nan is not equal to itself
    with pytest.raises(ValueError):
        relative({"v": {"German": 3}})


def test_table(chosen):
    view = cost_table(chosen)
    assert_sanitizer_safe(view.html)
    lines = view.text.splitlines()
    assert lines[1].split() == ["vocabulary", *SAMPLES]
    for line, (name, tok) in zip(lines[2:], chosen.items(), strict=True):
        cells = re.findall(r"(\d+) \((\d+\.\d\d)/ch, (\d+\.\d)x\)", line)
        assert line.startswith(name) and len(cells) == len(SAMPLES)
        english = len(tok.encode(SAMPLES["English"], add_special=False))
        for (n, per_char, rel), s in zip(cells, SAMPLES.values(), strict=True):
            count = len(tok.encode(s, add_special=False))
            assert int(n) == count
            assert per_char == "%.2f" % (count / len(s)) and rel == "%.1f" % (count / english)


def test_figure_is_deterministic_and_labelled(chosen):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def bars(fig):
        return [(round(p.get_width(), 9), round(p.get_y(), 9)) for p in fig.axes[0].patches]

    first, second = cost_figure(chosen), cost_figure(chosen)
    try:
        assert bars(first) == bars(second) and bars(first)
        ax = first.axes[0]
        assert "English" in ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
        legend = [t.get_text() for t in ax.get_legend().get_texts()]
        assert legend == [lang for lang in SAMPLES if lang != "English"]
        counts = cost_numbers(chosen)
        patches = iter(ax.patches)  # one bar per vocabulary for each language in turn
        for lang in legend:
            for name in chosen:
                assert next(patches).get_width() == pytest.approx(counts[name][lang] / counts[name]["English"])
    finally:
        plt.close(first)
        plt.close(second)
