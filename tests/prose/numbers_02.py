"""Numbers in notebook 02's prose that no cell prints (see tests/test_course.py)."""

NOT_DATA = {
    "100": "how many Qwen2 tokens the check of 02.encode_bytes samples: a choice of the check",
    "150": "how many normal Qwen2 tokens the check of 02.decode_token samples: a choice of the check",
}
