"""Wrong variants of lesson 09's exercises: each must fail its check at the first case where it differs."""

from __future__ import annotations

WRONG = {
    "09.first_difference": lambda got, exp: next(  # a list that is a prefix of the other: None
        (k for k, (a, b) in enumerate(zip(got, exp, strict=False)) if a != b), None),
    "09.parse_ids": lambda text: [int(x) for x in text.strip().strip("[]").split(",") if x.strip()],
}
