"""Solutions of the workbook's exercises, one module per lesson (``solutions/lesson03.py`` ...).

Each is written from the lesson's explanation, not by calling the gguftok function it is checked against,
wherever writing it is the point of the exercise. ``tests/test_exercises.py`` checks every one.
"""
