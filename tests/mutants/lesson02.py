"""Wrong variants of lesson 02's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

KEPT = set(range(0x21, 0x7F)) | set(range(0xA1, 0xAD)) | set(range(0xAE, 0x100))
KEPT_WITHOUT_GAP = KEPT | {0xAD}  # forgets that the soft hyphen 0xAD moves


def _table_without_gap() -> dict[int, str]:
    table, moved = {}, 0
    for b in range(256):
        if b in KEPT_WITHOUT_GAP:
            table[b] = chr(b)
        else:
            table[b] = chr(0x100 + moved)
            moved += 1
    return table


WRONG = {
    "02.bytes_to_unicode": _table_without_gap,
    # undoes the shift by 256 for every character from U+0100 on: right up to U+0120 "Ġ" (the space), wrong from
    # U+0121 "ġ" (DEL, byte 127) on
    "02.unicode_to_bytes": lambda: {chr(b): b for b in KEPT} | {chr(c): c - 0x100 for c in range(0x100, 0x144)},
    "02.encode_bytes": lambda data: data.decode("latin-1"),
    "02.decode_token": lambda text: bytes(ord(c) - 256 if ord(c) >= 256 else ord(c) for c in text),
}
