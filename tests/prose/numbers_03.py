"""Numbers in notebook 03's prose that are not properties of the data (see tests/test_course.py)."""

NOT_DATA = {
    "100": "how many real merges the check of 03.split_merge samples: a choice of the check",
    "200": "how many random merge lines the check of 03.split_merge generates: a choice of the check",
}
