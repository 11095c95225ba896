"""Numbers in notebook 07's prose that no cell prints (see tests/test_course.py)."""

NOT_DATA = {
    "160": "the number of random vocabularies an exercise's check generates, a size the check chooses",
}
