"""The scoring tables of RULES.md: how finished games add up to a match standing.

Pure: reads :class:`~referee.game.record.GameRecord` values, never the database or the
live game. Each table is a name a table chooses at match start::

    wins            match table (default): a win per game; the standing is the win tally
    ranked          1st/2nd/3rd score 3/2/1
    first_to:N      first to N wins takes the match (best_of:3 is first_to:2)
    penalty         losers score the cards left in hand; lowest cumulative total wins
    classic_order   no points; winners first, the others ranked by cards left in hand
    trust_me        +10 out, -1 per card left, +10 per liar caught, +10 when wrongly
                    called, +25 per false card that got away (only lies the referee saw)

>>> from referee.game.record import GameRecord
>>> g = GameRecord(game=1, players=("Alice", "Ben"), winner="Alice",
...                places=("Alice", "Ben"), cards_left={"Alice": 0, "Ben": 5})
>>> [(s.player, s.wins, s.rank) for s in standings([g], ("Alice", "Ben"), "wins")]
[('Alice', 1, 1), ('Ben', 0, 2)]
>>> spoken_standing([g], ("Alice", "Ben"), "penalty")
'Alice 0, Ben 5. Alice leads.'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from referee.game.record import GameRecord

KINDS = ("wins", "ranked", "first_to", "penalty", "classic_order", "trust_me")

_ALIASES = {
    "wins": "wins",
    "match": "wins",
    "match_table": "wins",
    "ranked": "ranked",
    "penalty": "penalty",
    "penalty_points": "penalty",
    "classic_order": "classic_order",
    "classic": "classic_order",
    "trust_me": "trust_me",
    "trustme": "trust_me",
}

#: points for 1st, 2nd, 3rd place in the ranked table
RANKED_POINTS = (3, 2, 1)

TRUST_ME_OUT = 10
TRUST_ME_PER_CARD_LEFT = -1
TRUST_ME_LIAR_CAUGHT = 10
TRUST_ME_WRONGLY_CALLED = 10
TRUST_ME_LIE_GOT_AWAY = 25

TRUST_ME_NOTE = "Hidden lies count only when I saw the cards."


class ScoringError(ValueError):
    """An unknown or malformed scoring name; the message says what is accepted."""


@dataclass(frozen=True)
class Scoring:
    """A scoring table chosen at match start. ``target`` is N of ``first_to:N``."""

    kind: str
    target: int | None = None

    @property
    def name(self) -> str:
        """The canonical name, as stored and as ``parse_scoring`` reads it back."""
        return f"first_to:{self.target}" if self.kind == "first_to" else self.kind

    @property
    def label(self) -> str:
        """What people call it at the table."""
        return {
            "wins": "match table",
            "ranked": "ranked table (3/2/1)",
            "first_to": f"first to {self.target} wins",
            "penalty": "penalty points (lowest wins)",
            "classic_order": "classic order",
            "trust_me": "Trust Me",
        }[self.kind]

    @property
    def has_points(self) -> bool:
        """False for classic order, which ranks without points."""
        return self.kind != "classic_order"

    @property
    def lower_is_better(self) -> bool:
        return self.kind == "penalty"

    def __str__(self) -> str:
        return self.name


def parse_scoring(text: str | Scoring | None) -> Scoring:
    """Read a scoring name such as ``"wins"``, ``"first_to:2"`` or ``"best_of:5"``.

    >>> parse_scoring("first_to:3")
    Scoring(kind='first_to', target=3)
    >>> parse_scoring("best_of:3").name
    'first_to:2'
    """
    if isinstance(text, Scoring):
        return text
    if text is None or not str(text).strip():
        return Scoring("wins")
    raw = str(text).strip().lower().replace("-", "_").replace(" ", "_")
    head, sep, arg = raw.partition(":")
    if head in ("first_to", "best_of"):
        if not sep or not arg.isdigit() or int(arg) < 1:
            raise ScoringError(
                f"scoring {text!r} needs a positive number: first_to:2 (best of 3), "
                "first_to:3 (best of 5), or best_of:5"
            )
        n = int(arg)
        if head == "best_of":
            if n % 2 == 0:
                raise ScoringError(f"best_of needs an odd number of games, not {n}")
            n = n // 2 + 1
        return Scoring("first_to", n)
    if sep or head not in _ALIASES:
        raise ScoringError(
            f"unknown scoring {text!r}; choose one of: wins, ranked, first_to:N, penalty, "
            "classic_order, trust_me"
        )
    return Scoring(_ALIASES[head])


@dataclass(frozen=True)
class Standing:
    """One player's line in the match standing.

    ``points`` is what the table scores (the win tally for ``wins`` and ``first_to``,
    penalty points for ``penalty``) and ``None`` for classic order. ``rank`` is shared by
    tied players (1, 2, 2, 4). ``cards_left`` is the total over the match.
    """

    player: str
    rank: int
    wins: int
    points: int | None
    games: int
    cards_left: int


def game_points(record: GameRecord, scoring: Scoring | str) -> dict[str, int]:
    """Points each player of one game scores under ``scoring`` (wins for classic order)."""
    scoring = parse_scoring(scoring)
    players = _record_players(record)
    points = dict.fromkeys(players, 0)
    kind = scoring.kind
    if kind in ("wins", "first_to", "classic_order"):
        if record.winner is not None:
            points[record.winner] = 1
    elif kind == "ranked":
        for place, player in enumerate(record.places[: len(RANKED_POINTS)]):
            points[player] = RANKED_POINTS[place]
    elif kind == "penalty":
        for player in players:
            if player != record.winner:
                points[player] = record.cards_left.get(player, 0)
    elif kind == "trust_me":
        for player in players:
            points[player] = (
                (TRUST_ME_OUT if player == record.winner else 0)
                + TRUST_ME_PER_CARD_LEFT * record.cards_left.get(player, 0)
                + TRUST_ME_LIAR_CAUGHT * record.calls_won.get(player, 0)
                + TRUST_ME_WRONGLY_CALLED * record.wrongly_called.get(player, 0)
                + TRUST_ME_LIE_GOT_AWAY * record.unchallenged_false_cards_seen.get(player, 0)
            )
    return points


def progression(
    records: Iterable[GameRecord], players: Sequence[str], scoring: Scoring | str
) -> dict[str, list[int]]:
    """Cumulative points (wins for classic order) per player: index 0 is before game 1."""
    scoring = parse_scoring(scoring)
    records = _in_order(records)
    everyone = _everyone(records, players)
    totals = {p: [0] for p in everyone}
    for record in records:
        scored = game_points(record, scoring)
        for p in everyone:
            totals[p].append(totals[p][-1] + scored.get(p, 0))
    return totals


def standings(
    records: Iterable[GameRecord], players: Sequence[str], scoring: Scoring | str = "wins"
) -> list[Standing]:
    """The standing after ``records``, best first; ties share a rank and keep seat order.

    ``players`` is the match's seat order; anyone who appears only in records follows.
    """
    scoring = parse_scoring(scoring)
    records = _in_order(records)
    everyone = _everyone(records, players)
    wins = dict.fromkeys(everyone, 0)
    games = dict.fromkeys(everyone, 0)
    cards = dict.fromkeys(everyone, 0)
    points = dict.fromkeys(everyone, 0)
    for record in records:
        if record.winner is not None:
            wins[record.winner] += 1
        for p, scored in game_points(record, scoring).items():
            points[p] += scored
        for p in _record_players(record):
            games[p] += 1
            cards[p] += record.cards_left.get(p, 0)
    champion = _first_to_winner(records, scoring)

    def key(p: str) -> tuple[int, ...]:
        kind = scoring.kind
        if kind in ("wins", "first_to"):
            return (0 if p == champion else 1, -wins[p])
        if kind == "penalty":
            return (points[p],)
        if kind == "classic_order":
            return (-wins[p], cards[p])
        return (-points[p],)

    ordered = sorted(everyone, key=key)  # stable: ties keep seat order
    result: list[Standing] = []
    for i, p in enumerate(ordered):
        rank = result[-1].rank if i and key(p) == key(ordered[i - 1]) else i + 1
        result.append(
            Standing(
                player=p,
                rank=rank,
                wins=wins[p],
                points=points[p] if scoring.has_points else None,
                games=games[p],
                cards_left=cards[p],
            )
        )
    return result


def match_winner(
    records: Iterable[GameRecord],
    players: Sequence[str],
    scoring: Scoring | str = "wins",
    *,
    finished: bool = False,
) -> str | None:
    """Who has won the match, or ``None`` while it is undecided.

    ``first_to:N`` is decided the moment someone reaches N wins (later games change
    nothing). The other tables have no end of their own: the table decides when the match
    is over (``finished=True``), and then the sole leader wins; a tie at the top has no
    winner.
    """
    scoring = parse_scoring(scoring)
    records = _in_order(records)
    if scoring.kind == "first_to":
        return _first_to_winner(records, scoring)
    if not finished or not records:
        return None
    table = standings(records, players, scoring)
    leaders = [s for s in table if s.rank == 1]
    return leaders[0].player if len(leaders) == 1 else None


def note(records: Iterable[GameRecord], scoring: Scoring | str) -> str:
    """What the standing must admit, or ``""``: Trust Me counts only lies the referee saw."""
    scoring = parse_scoring(scoring)
    records = list(records)
    if scoring.kind == "trust_me" and any(not r.all_plays_seen for r in records):
        return TRUST_ME_NOTE
    return ""


def spoken_standing(
    records: Iterable[GameRecord],
    players: Sequence[str],
    scoring: Scoring | str = "wins",
    *,
    finished: bool = False,
) -> str:
    """A short sentence for the referee to say after a game.

    >>> from referee.game.record import GameRecord
    >>> won = lambda n, w: GameRecord(game=n, players=("Alice", "Ben", "Cara", "Dev"),
    ...     winner=w, places=(w,), cards_left={})
    >>> spoken_standing([won(1, "Alice"), won(2, "Ben"), won(3, "Alice")],
    ...                 ("Alice", "Ben", "Cara", "Dev"))
    'Alice 2, Ben 1, Cara and Dev 0. Alice leads.'
    """
    scoring = parse_scoring(scoring)
    records = _in_order(records)
    if not records:
        return "No games yet."
    table = standings(records, players, scoring)

    def shown(s: Standing) -> int:
        return s.points if s.points is not None else s.wins

    groups: list[tuple[list[str], int]] = []
    for s in table:
        if groups and groups[-1][1] == shown(s):
            groups[-1][0].append(s.player)
        else:
            groups.append(([s.player], shown(s)))
    parts = [f"{_and(names)} {_number(value)}" for names, value in groups]
    sentence = ", ".join(parts) + ". "
    winner = match_winner(records, players, scoring, finished=finished)
    leaders = [s.player for s in table if s.rank == 1]
    if winner is not None:
        sentence += f"{winner} wins the match."
    elif len(leaders) == len(table):
        sentence += "All level." if not finished else "The match ends all level."
    elif len(leaders) == 1:
        sentence += f"{leaders[0]} leads."
    elif finished:
        sentence += f"The match ends with {_and(leaders)} level at the top."
    else:
        sentence += f"{_and(leaders)} are level."
    extra = note(records, scoring)
    return f"{sentence} {extra}" if extra else sentence


def _first_to_winner(records: Sequence[GameRecord], scoring: Scoring) -> str | None:
    if scoring.kind != "first_to" or scoring.target is None:
        return None
    tally: dict[str, int] = {}
    for record in records:
        if record.winner is None:
            continue
        tally[record.winner] = tally.get(record.winner, 0) + 1
        if tally[record.winner] >= scoring.target:
            return record.winner
    return None


def _record_players(record: GameRecord) -> list[str]:
    seen = list(record.players)
    for name in (*record.places, *([record.winner] if record.winner else [])):
        if name not in seen:
            seen.append(name)
    return seen


def _everyone(records: Sequence[GameRecord], players: Sequence[str]) -> list[str]:
    everyone = list(dict.fromkeys(players))
    for record in records:
        for p in _record_players(record):
            if p not in everyone:
                everyone.append(p)
    return everyone


def _in_order(records: Iterable[GameRecord]) -> list[GameRecord]:
    return sorted(records, key=lambda r: r.game)


def _and(names: Sequence[str]) -> str:
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def _number(value: int) -> str:
    return f"minus {-value}" if value < 0 else str(value)
