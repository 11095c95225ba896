"""Numbers in notebook 08's prose that no cell prints (see tests/test_course.py)."""

NOT_DATA = {
    "256": "the byte-level alphabet has one character per byte value, by its definition",
    "300": "the number of random byte streams the StreamDecoder check generates, a size the check chooses",
    "4,000": "the length of the stream the StreamDecoder check pushes byte by byte, a size the check chooses",
}
