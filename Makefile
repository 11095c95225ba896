# gguftok: two commands set everything up.
#   make lab    virtual environment, packages, vocabularies, then JupyterLab on notebooks/
#   make test   the same set-up (plus Chromium for the browser tests), then lint and the whole test suite
# Both are idempotent: a second run installs and downloads nothing.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
PYTEST_ARGS ?=
# the suite over one worker process per core (pytest-xdist); a file's tests stay on one worker, in order, as
# nbval needs for a notebook's cells. One worker more than there are cores: many tests wait on a kernel, a
# browser, a subprocess or a deadline, and the extra worker fills that time. XDIST= runs it in this process.
XDIST  ?= -n $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 1)') --dist loadfile --no-loadscope-reorder
VOCAB  ?= qwen2
N      ?= 2000
FUZZ_ARGS ?=
LAB_ARGS ?=
PRESENT_ARGS ?=
# Jupyter refuses to run as root unless told; containers and CI machines often are root.
ROOT_ARGS := $(if $(filter 0,$(shell id -u)),--allow-root)

.PHONY: all setup vocab browser lint test lab present oracle fuzz golden test-oracle verify-export bench corpus-example synthetic notebooks clean

all: test

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "gguftok needs Python 3.10 or newer"'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || { echo "could not create $(VENV): on Debian, apt-get install python3-venv" >&2; exit 1; }
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[lab,test]'
	@touch $(STAMP)

setup: $(STAMP) vocab

# llama.cpp's 19 reference vocabularies, from the pinned llama-cpp-python sdist (never committed).
vocab: $(STAMP)
	$(PY) -m gguftok.data fetch

# Debian's Chromium for tests/browser (apt-get when root; otherwise those tests skip and say why).
browser:
	@bash scripts/install_browser.sh

lint: $(STAMP)
	$(PY) -m ruff check gguftok tests bench scripts solutions examples notebooks/mytok

# PYTHONDONTWRITEBYTECODE= : each worker would otherwise compile gguftok and rewrite every test module's asserts
# again (5 of the 11 s a worker spends collecting); the .pyc files go to __pycache__/, which git ignores.
# compileall first: on a fresh clone the workers would each compile the same modules at once.
test: setup browser lint
	PYTHONDONTWRITEBYTECODE= $(PY) -m compileall -q gguftok solutions tests bench scripts
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest $(XDIST) $(PYTEST_ARGS)

lab: setup
	$(PY) -m jupyter lab --notebook-dir=notebooks $(ROOT_ARGS) $(LAB_ARGS)

# Instructor mode: the step-through views in large type, code hidden (voila comes with the set-up). Each view is
# drawn as soon as its cell has run (progressive rendering), not after the whole page: bench/bench_present.py.
present: setup
	$(PY) -m voila notebooks/instructor.ipynb --progressive_rendering=True $(PRESENT_ARGS)

# The live reference: llama-cpp-python 0.3.36 built from the same sdist into its own environment.
oracle: $(STAMP)
	bash scripts/build_oracle.sh $(PYTHON) "$$($(PY) -m gguftok.data sdist-path)"

# Differential fuzzing against the oracle: make fuzz VOCAB=qwen2 N=20000 (VOCAB=all-bpe for every BPE vocabulary).
fuzz: setup oracle
	$(PY) -m gguftok.conformance.fuzz --vocab $(VOCAB) -n $(N) $(FUZZ_ARGS)

# Re-record the golden fixtures in data/golden/ from the oracle (about 8 minutes), with llama.cpp's
# built-in chat renderings (chat-builtin.json) and what gguf.GGUFReader reads from each vocabulary (gguf-reader.json).
golden: setup oracle
	$(PY) -m gguftok.conformance.golden
	$(PY) -m gguftok.conformance.chat_golden
	$(PY) tests/gguf_reference.py
	$(PY) -m gguftok.data write-course-manifest

# The opt-in live tests: a bounded fuzz of several vocabularies against the oracle.
test-oracle: setup oracle
	$(PY) -m pytest -m oracle tests/test_oracle_live.py tests/test_chat.py

# The Hugging Face export of every reference vocabulary (gguftok export --all-reference): each written as a folder,
# loaded back with transformers' AutoTokenizer and compared with gguftok on llama.cpp's cases, the golden fixture
# and 20000 fuzz texts, under every flag; one agreement line each, exit status 1 if one that exports exactly
# differs. One vocabulary takes about a minute (qwen2: 57 s); all 19 took 45 minutes on 2 busy cores (20 of CPU).
EXPORT_FUZZ ?= 20000
verify-export: setup
	$(PY) -m gguftok export --all-reference --fuzz $(EXPORT_FUZZ)

# Benchmarks, with their peers (Hugging Face tokenizers, tiktoken; llama.cpp when the oracle exists).
# Every vocabulary of every family, cold and warm, and the growth on hostile texts (about 40 minutes on 2 cores);
# make bench BENCH_ARGS="--readme" also rewrites the table in README.md.
BENCH_ARGS ?=
bench: setup browser
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[bench]'
	$(PY) bench/bench_peers.py --vocab qwen2 --all --growth --scale $(BENCH_ARGS)
	$(PY) bench/bench_metadata.py --all --no-reader
	$(PY) bench/bench_views.py
	$(PY) bench/bench_checks.py
	$(PY) bench/bench_present.py
	$(PY) bench/bench_export.py --markdown
	$(PY) bench/bench_dask.py --markdown

# Tokenize a small corpus with the Hugging Face datasets map (installs datasets into the venv).
corpus-example: setup
	$(PY) -m pip install --quiet --disable-pip-version-check 'datasets>=2.19'
	$(PY) examples/corpus_datasets.py

# Regenerate the lessons' synthetic vocabularies in data/synthetic/ (a test checks they are current).
synthetic: $(STAMP)
	$(PY) scripts/make_synthetic.py
	$(PY) -m gguftok.data write-course-manifest

# Re-execute the notebooks from their py:percent twins and write them with deterministic metadata.
notebooks: setup
	$(PY) scripts/run_notebooks.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis data/vocab
