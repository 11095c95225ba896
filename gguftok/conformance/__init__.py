"""Checking gguftok against llama.cpp: the oracle, input generators, golden fixtures, the differential fuzzer.

Nothing here is needed to tokenize; it is how we know the tokenizer is right.
"""
