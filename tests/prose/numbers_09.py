"""Numbers in notebook 09's prose that no cell prints (see tests/test_course.py)."""
