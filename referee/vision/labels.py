"""The detector's classes: 13 ranks and the joker (suits never matter in Cheat)."""

from __future__ import annotations

RANK_CLASSES: tuple[str, ...] = (
    "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "JK",
)  # fmt: skip
CLASS_OF: dict[str, int] = {r: i for i, r in enumerate(RANK_CLASSES)}
