"""Wrong variants of lesson 08's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

WRONG = {
    "08.held_back": lambda data: next((len(data) - s for s in range(max(0, len(data) - 3), len(data))
                                       if data[s] >= 0xC0 and all(0x80 <= c <= 0xBF for c in data[s + 1:])
                                       and len(data) - s < (2 if data[s] < 0xE0 else 3 if data[s] < 0xF0 else 4)), 0),
    "08.stream_decode": lambda pieces: [p.decode("utf-8", "replace") for p in pieces] + [""],
}
