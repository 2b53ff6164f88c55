"""House rules: every variant of RULES.md is one named setting; presets bundle them.

>>> r = rules_from(preset="british")
>>> r.rank_order, r.passing
('updown_same', 'always')
>>> rules_from(overrides=["jokers=2", "decks=2"]).max_cards_per_play(4)
8
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

RANK_ORDERS = ("ascending", "updown", "updown_same", "free", "rounds")
PASSING = ("never", "always", "exhausted")
CARDS_PER_PLAY = ("any", "one", "escalating")
CHALLENGE_WINDOWS = ("next_claim", "extended")
TIMERS = (0, 15, 30)


@dataclass(frozen=True)
class Rules:
    """The table's choice of house rules. The defaults are the classic game."""

    rank_order: str = "ascending"
    passing: str = "never"
    decks: int | str = "auto"
    two_decks_from: int = 7
    jokers: int = 0  # per deck
    max_cards: int | None = None  # None: 4 per deck
    cards_per_play: str = "any"
    count_is_honest: bool = False
    challenge_window: str = "next_claim"
    four_of_a_kind: bool = False
    pairs_at_start: bool = False
    open_play: bool = False
    timer: int = 0
    play_on: bool = False  # play on for the minor places after the first player goes out

    def __post_init__(self) -> None:
        _check("rank_order", self.rank_order, RANK_ORDERS)
        _check("passing", self.passing, PASSING)
        _check("cards_per_play", self.cards_per_play, CARDS_PER_PLAY)
        _check("challenge_window", self.challenge_window, CHALLENGE_WINDOWS)
        _check("timer", self.timer, TIMERS)
        _check("decks", self.decks, (1, 2, "auto"))
        _check("jokers", self.jokers, (0, 2))
        if self.two_decks_from < 2:
            raise ValueError("two_decks_from must be at least 2")
        if self.max_cards is not None and not 1 <= self.max_cards <= 8:
            raise ValueError("max_cards must be between 1 and 8")

    def deck_count(self, players: int) -> int:
        if self.decks == "auto":
            return 2 if players >= self.two_decks_from else 1
        return int(self.decks)

    def deck_size(self, players: int) -> int:
        return self.deck_count(players) * (52 + self.jokers)

    def max_cards_per_play(self, players: int) -> int:
        if self.cards_per_play == "one":
            return 1
        return self.max_cards or 4 * self.deck_count(players)

    def copies_of_rank(self, players: int) -> int:
        return 4 * self.deck_count(players)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _check(name: str, value: object, allowed: tuple) -> None:
    if value not in allowed:
        choices = "|".join(str(a) for a in allowed)
        raise ValueError(f"{name} must be one of {choices}, not {value!r}")


PRESETS: dict[str, Rules] = {
    "classic": Rules(),
    "british": Rules(rank_order="updown_same", passing="always"),
    "german": Rules(rank_order="rounds", passing="always", count_is_honest=True),
    "open": Rules(open_play=True),
}
PRESET_ALIASES = {
    "bullshit": "classic", "bs": "classic", "i_doubt_it": "classic", "uk": "british",
    "mogeln": "german", "luegen": "german", "teaching": "open",
}  # fmt: skip

_BOOL_WORDS = {"on": True, "true": True, "yes": True, "1": True,
               "off": False, "false": False, "no": False, "0": False}  # fmt: skip


def _coerce(name: str, raw: str) -> Any:
    field_types = {f.name: f.type for f in fields(Rules)}
    if name not in field_types:
        known = ", ".join(sorted(field_types))
        raise ValueError(f"unknown setting {name!r}; settings are: {known}")
    kind = str(field_types[name])
    text = raw.strip().lower()
    if "bool" in kind:
        if text not in _BOOL_WORDS:
            raise ValueError(f"{name} must be on or off, not {raw!r}")
        return _BOOL_WORDS[text]
    if name == "decks":
        return text if text == "auto" else _int(name, text)
    if name == "max_cards":
        return None if text in ("", "none", "auto", "default") else _int(name, text)
    if "int" in kind:
        return _int(name, text)
    return text


def _int(name: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{name} must be a number, not {text!r}") from None


def rules_from(preset: str | None = None, overrides: list[str] | None = None) -> Rules:
    """Build rules from a preset name and ``KEY=VALUE`` overrides (the CLI's ``--set``)."""
    name = (preset or "classic").strip().lower()
    name = PRESET_ALIASES.get(name, name)
    if name not in PRESETS:
        raise ValueError(f"unknown rules preset {preset!r}; presets: {', '.join(PRESETS)}")
    changes: dict[str, Any] = {}
    for item in overrides or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--set takes KEY=VALUE, not {item!r}")
        key = key.strip().replace("-", "_")
        changes[key] = _coerce(key, value)
    return replace(PRESETS[name], **changes)


def rules_from_dict(data: dict[str, Any]) -> Rules:
    return Rules(**data)
