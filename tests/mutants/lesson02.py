"""Wrong variants of lesson 02's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

WRONG = {
    "02.byte_map": lambda: [chr(b) if 0x21 <= b <= 0x7E or 0xA1 <= b <= 0xFF else None for b in range(256)],
    "02.decode_token": lambda text: bytes(ord(c) - 256 if ord(c) >= 256 else ord(c) for c in text),
    "02.encode_bytes": lambda data: data.decode("latin-1"),
}
