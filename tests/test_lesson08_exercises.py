"""Lesson 08's exercises: the references are llama.cpp's (through gguftok), the solution's decoder is Python's,
the properties catch a decoder that is not the student's own, and the reports name what is wrong."""

from __future__ import annotations

import codecs
import importlib.util
import itertools
import random
import textwrap

import pytest
from conftest import REPO, _require_vocab
from solutions_loader import solved, wrong_variants

from gguftok.detokenize import Pieces
from gguftok.exercises import check, workspace
from gguftok.exercises._data import tokenizer
from gguftok.exercises.lesson08 import (
    _one_token_vocab,
    _ref_detokenize,
    _ref_piece,
    final_type,
    final_types,
    vocab_names,
)

WRONG = wrong_variants()


@pytest.fixture(scope="module", autouse=True)
def _vocab():
    _require_vocab()


def test_final_types_is_final_type_of_every_token():
    """The whole-array form gives each token the type of the first rule its bits meet, as the loop does: on every
    combination of the bits, and on every token of the 19 vocabularies."""
    from gguftok.exercises.lesson08 import _RULE_ORDER, _final_types_of

    bits = [bit for bit, _ in _RULE_ORDER] + [1 << 12]
    combos = [sum(b for k, b in enumerate(bits) if m >> k & 1) for m in range(1 << len(bits))]
    assert _final_types_of(combos) == [final_type(a) for a in combos]
    for name in vocab_names():
        attrs = tokenizer(name).vocab.attrs
        assert final_types(name) == [final_type(a) for a in attrs], name


def test_the_types_given_to_piece_give_every_token_its_llama_cpp_piece():
    """With the final types (attributes after loading, as types), every id of all 19 vocabularies has the piece
    Tokenizer.token_to_piece gives; and the one-token reference agrees on a sample."""
    assert len(vocab_names()) == 19
    r = random.Random(0)
    for name in vocab_names():
        tok = tokenizer(name)
        texts, types, model = tok.vocab.texts, final_types(name), tok.vocab.model
        pieces = Pieces(_one_token_vocab(texts, types, model))
        assert all(pieces.piece(i) == tok.token_to_piece(i) for i in range(tok.n_vocab)), name
        for i in r.sample(range(tok.n_vocab), 200):
            assert _ref_piece(texts[i], types[i], model) == tok.token_to_piece(i), (name, i)


def test_the_detokenize_reference_is_decode_bytes_where_no_clean_up_runs():
    r = random.Random(1)
    for name in vocab_names():
        tok = tokenizer(name)
        if tok.vocab.clean_spaces:
            continue
        texts, types, model = tok.vocab.texts, final_types(name), tok.vocab.model
        for _ in range(30):
            ids = [r.randrange(tok.n_vocab) for _ in range(r.randint(0, 10))]
            ids = tok.encode("Hello wörld 😀 世界", add_special=True) if r.random() < 0.3 else ids
            assert _ref_detokenize(ids, texts, types, model, tok.vocab.add_space_prefix) == tok.decode_bytes(ids)


def _run(decoder, ops):
    return [decoder.flush() if op is None else decoder.push(op) for op in ops]


def test_the_solution_decodes_exactly_as_python_on_every_short_stream_cut_everywhere():
    bytes_ = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED,
              0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
    mine = solved("08.StreamDecoder")
    for length in range(1, 4):
        for data in itertools.product(bytes_, repeat=length):
            for cuts in itertools.product([False, True], repeat=length - 1):
                ops, start = [], 0
                for k, cut in enumerate(cuts, 1):
                    if cut:
                        ops.append(bytes(data[start:k]))
                        start = k
                ops += [bytes(data[start:]), None, b"\xe4", None]  # and a stream goes on after a flush
                python = codecs.getincrementaldecoder("utf-8")("replace")
                expected = [python.decode(b"", final=True) if op is None else python.decode(op) for op in ops]
                decoder = mine()
                assert [decoder.flush() if op is None else decoder.push(op) for op in ops] == expected, ops


def _standalone_solution() -> str:
    """The solution's module as a file of its own (no package around it, so no byte map to import)."""
    source = (REPO / "solutions" / "mytok" / "detokenize.py").read_text(encoding="utf-8")
    assert "from .bytemap import unicode_to_bytes\n" in source
    return source.replace("from .bytemap import unicode_to_bytes\n", "unicode_to_bytes = dict\n")


def _load(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_wrapper_around_pythons_decoder_passes_every_case_but_not_the_property(tmp_path):
    path = tmp_path / "wrapped.py"
    path.write_text(textwrap.dedent('''\
        import codecs

        class StreamDecoder:
            def __init__(self):
                self.d = codecs.getincrementaldecoder("utf-8")(errors="replace")

            def push(self, data):
                return self.d.decode(data)

            def flush(self):
                return self.d.decode(b"", final=True)
        '''), encoding="utf-8")
    r = check("08.StreamDecoder", _load(path).StreamDecoder)
    assert r.status == "failed" and r.case is None and r.agreed == r.total
    assert r.text.splitlines() == [
        f"✗ 08.StreamDecoder: every one of the {r.total} cases agrees, but StreamDecoder must do the UTF-8 work "
        "itself", "  measured: wrapped.py, line 1, uses codecs: write the UTF-8 rules yourself"]


def test_decoding_with_an_error_handler_is_found_in_the_source_and_a_hidden_import_at_run_time(tmp_path):
    solution = _standalone_solution()
    handler = solution.replace('text, _ = _decode(self._held, final=True)',
                               'text = self._held.decode("utf-8", errors="replace")')
    assert handler != solution
    (tmp_path / "handler.py").write_text(handler, encoding="utf-8")
    r = check("08.StreamDecoder", _load(tmp_path / "handler.py").StreamDecoder)
    assert "decodes with an error handler: self._held.decode('utf-8', errors='replace')" in r.got
    hidden = solution.replace('text, self._held = _decode(self._held + data, final=False)',
                              'text, self._held = _decode(self._held + data, final=False)\n'
                              '        getattr(__import__("co" + "decs"), "utf_8_decode")(b"")')
    (tmp_path / "hidden.py").write_text(hidden, encoding="utf-8")
    r = check("08.StreamDecoder", _load(tmp_path / "hidden.py").StreamDecoder)
    assert r.got == "StreamDecoder calls codecs.utf_8_decode: write the UTF-8 rules yourself", r.text


def test_a_decoder_that_keeps_every_byte_passes_every_case_but_not_the_property(tmp_path):
    path = tmp_path / "keeper.py"
    path.write_text(_standalone_solution() + textwrap.dedent('''

        class Keeper:
            """Decodes everything it was given, every time, and returns what it had not returned yet."""

            def __init__(self):
                self.data, self.sent = b"", 0

            def push(self, data):
                self.data += data
                text = _decode(self.data, final=False)[0]
                new, self.sent = text[self.sent:], len(text)
                return new

            def flush(self):
                text = _decode(self.data, final=True)[0][self.sent:]
                self.data, self.sent = b"", 0
                return text
        '''), encoding="utf-8")
    r = check("08.StreamDecoder", _load(path).Keeper)
    assert r.status == "failed" and r.case is None
    assert r.got == ("after 4,000 bytes pushed one at a time (the last three the start of 😀), StreamDecoder's "
                     "self.data has length 4,000: keep only the bytes of the unfinished character")


def test_piece_without_the_byte_map_of_notebook_02_says_so(tmp_path, monkeypatch):
    pkg = tmp_path / "mytok"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "bytemap.py").write_text((REPO / "notebooks" / "mytok" / "bytemap.py").read_text(encoding="utf-8"))
    (pkg / "detokenize.py").write_text((REPO / "solutions" / "mytok" / "detokenize.py").read_text(encoding="utf-8"))
    monkeypatch.setenv(workspace.ENV, str(pkg))
    r = check("08.piece")
    assert r.status == "error" and r.case == 0, r.text
    assert r.detail.startswith("RuntimeError: mytok/bytemap.py (notebook 02) still raises NotImplementedError in "
                               "unicode_to_bytes: piece needs it, write it first")
    assert check("08.StreamDecoder").ok  # the stream needs no byte map


def test_the_reports_of_the_wrong_variants():
    r = check("08.detokenize", WRONG["08.detokenize"])
    assert r.case == 2 and r.call.startswith("detokenize([1, 3, 4, 2], ['<unk>', '<s>', '</s>', '▁Hello'")
    assert r.expected == "b' Hello world'" and r.got == "b'Hello world'"
    r = check("08.StreamDecoder", WRONG["08.StreamDecoder"])
    assert r.case == 1 and r.call == r"d = StreamDecoder(); [d.push(b'ok \xf0\x9f'), d.push(b'\x98'), d.flush()]"
    assert r.expected == "['ok ', '', '\ufffd']" and r.got == "['ok ', '', '']"
    assert r.rerun == "rerun('08.StreamDecoder', 2)"
    r = check("08.piece", WRONG["08.piece"])
    assert r.call == "piece('<tool_call>', 4, 'gpt2')" and r.expected == "b'<tool_call>'" and r.got == "b''"
