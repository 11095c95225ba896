"""mytok: your own tokenizer, written one stage at a time as you work through the notebooks.

Each module is one stage of the pipeline, in the order the text goes through it, and the notebook that
teaches the stage has you write it:

    metadata.py       01  read the key/value section of a GGUF file from raw bytes
    bytemap.py        02  the byte-level alphabet: 256 bytes <-> 256 printable characters
    merges.py         03  merge lines, the rank table, and training a small BPE yourself
    pretokenize.py    04  cut text into words with each model's regular expressions
    merge_queue.py    05  encode one word: the merge queue, lowest rank first
    special.py        06  cut special tokens out of the text first
    bos_eos.py        07  which tokens begin and end a sequence
    detokenize.py     08  ids back to bytes, and bytes to text as they stream in
    conformance.py    09  run llama.cpp's own test files against a tokenizer
    cache.py          10  a word cache that remembers the most recently used words
    sentencepiece.py  11  the other big family: merges by score, with byte fallback
    wordpiece.py      11  BERT's family: the longest token first, word by word
    unigram.py        11  the best-scoring split of the whole text (Viterbi)
    tokenizer.py      12  GgufTokenizer: every stage above, assembled

Every function starts as a template: its signature, a docstring with a tiny example, and
``raise NotImplementedError``. Replace that line with your code. Your package may import the standard
library, ``regex`` and ``numpy``, and its own modules (``from .bytemap import encode_bytes``); the notebooks
check it from outside.
"""
