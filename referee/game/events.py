"""What can happen at the table, as the engine sees it.

Every event may carry ``t``: the table clock in seconds (audio time live, the ``"t"`` field in a
replay), used only by turn timers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.game.cards import Card, parse_card


@dataclass(frozen=True)
class Event:
    t: float | None = field(default=None, kw_only=True)


@dataclass(frozen=True)
class Claim(Event):
    """The player whose turn it is lays cards face down and says e.g. "two aces"."""

    count: int
    rank: str


@dataclass(frozen=True)
class Call(Event):
    """Someone shouts "Cheat!". ``caller`` may be unknown (the referee asks who called);
    ``target`` names the claimer when an earlier claim is called (extended window)."""

    caller: str | None = None
    target: str | None = None


@dataclass(frozen=True)
class Name(Event):
    """A bare player name, the answer to "Who called?"."""

    name: str


@dataclass(frozen=True)
class Pass(Event):
    pass


@dataclass(frozen=True)
class Reveal(Event):
    """Cards seen face up: a called play turned over, or cards laid out of the game."""

    cards: tuple[Card, ...]


@dataclass(frozen=True)
class Verdict(Event):
    """A spoken or keyed verdict when the camera cannot read a reveal."""

    honest: bool


@dataclass(frozen=True)
class NewGame(Event):
    pass


@dataclass(frozen=True)
class NewRound(Event):
    """German rounds: the last player takes the pile face down out of the game."""


@dataclass(frozen=True)
class Tick(Event):
    """Time passes (for turn timers)."""


@dataclass(frozen=True)
class Close(Event):
    """No more events will come (end of a replay): an uncalled last play stands."""


EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__.lower(): cls
    for cls in (Claim, Call, Name, Pass, Reveal, Verdict, NewGame, NewRound, Tick, Close)
}


def event_to_dict(event: Event) -> dict[str, Any]:
    data: dict[str, Any] = {"event": type(event).__name__.lower()}
    for key, value in vars(event).items():
        if key == "cards":
            value = [str(c) for c in value]
        if value is not None:
            data[key] = value
    return data


def event_from_dict(data: dict[str, Any]) -> Event:
    data = dict(data)
    cls = EVENT_TYPES[data.pop("event")]
    if "cards" in data:
        data["cards"] = tuple(parse_card(c) for c in data["cards"])
    return cls(**data)
