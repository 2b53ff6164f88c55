"""A match in progress: the fold of its events, with undo.

The history is the events (python-chess's move stack): every accepted event is pushed;
``undo`` pops it and the state goes back to what the events before it made. The states are
not all kept (an evening of 20,000 events would hold 20,000 copies): one in every
:data:`SNAPSHOT_EVERY`, and undo folds the few events after the nearest one again. The
engine is a pure fold, so that is exactly the state before. Questions ("whose turn?") are
answered from the state and change nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

from referee.game import engine
from referee.game.announce import Announcement, cards_phrase, standing_phrase
from referee.game.events import Event
from referee.game.rules import Rules
from referee.game.state import State

QUERIES = ("repeat", "score", "how_many", "whose_turn")

#: a state is kept after every this many events; undo re-folds at most this many
SNAPSHOT_EVERY = 64


class History:
    """The states after 0, 1, ... accepted events, as a read-mostly sequence:
    ``history[i]`` is the state after ``i`` events (folded again from a snapshot unless it is
    the current one), ``len(history)`` is one more than the number of events, and
    ``history[-1] = state`` replaces the current state."""

    def __init__(self, match: Match) -> None:
        self._match = match

    def __len__(self) -> int:
        return len(self._match.events) + 1

    def __getitem__(self, index: int) -> State:
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("history index out of range")
        return self._match._state_after(index)

    def __setitem__(self, index: int, state: State) -> None:
        if index not in (-1, len(self) - 1):
            raise IndexError("only the current state can be replaced")
        self._match._set_current(state)

    def __iter__(self) -> Iterator[State]:
        return (self[i] for i in range(len(self)))


class Match:
    """Players, rules, the accepted events and the state they fold into."""

    def __init__(self, players: list[str] | tuple[str, ...], rules: Rules) -> None:
        opening = engine.new_match(tuple(players), rules)
        self.rules = rules
        self.events: list[Event] = []
        self._current = opening.state
        #: the state after ``i`` events, for every ``i`` a multiple of SNAPSHOT_EVERY
        self._snapshots: dict[int, State] = {0: opening.state}
        self.history = History(self)
        self.last_said: list[Announcement] = list(opening.said)
        self.opening_said = list(opening.said)
        #: the events undone at each place in the history (by how many events came before
        #: them), oldest first: what the table has taken back at that place
        self._taken_back: dict[int, list[Event]] = {}

    @property
    def state(self) -> State:
        return self._current

    def _state_after(self, count: int) -> State:
        return self._current if count == len(self.events) else self._fold(count)

    def _fold(self, count: int) -> State:
        """The state after the first ``count`` events, from the snapshot at or before it."""
        base = count - count % SNAPSHOT_EVERY
        state = self._snapshots[base]
        for event in self.events[base:count]:
            state = engine.apply(state, event).state
        return state

    def _set_current(self, state: State) -> None:
        self._current = state
        if len(self.events) % SNAPSHOT_EVERY == 0:
            self._snapshots[len(self.events)] = state

    @property
    def players(self) -> tuple[str, ...]:
        return self.state.players

    def handle(self, event: Event) -> engine.Outcome:
        outcome = engine.apply(self.state, event)
        if outcome.accepted:
            place = len(self.events)
            for later in [k for k in self._taken_back if k > place]:
                del self._taken_back[later]  # another way on from here: not taken back there
            self.events.append(event)
            self._set_current(outcome.state)
        if outcome.said:
            self.last_said = list(outcome.said)
        return outcome

    def undo(self) -> list[Announcement]:
        if not self.events:
            return [Announcement("Nothing to undo.", "error")]
        self._snapshots.pop(len(self.events), None)
        undone = self.events.pop()
        self._taken_back.setdefault(len(self.events), []).append(undone)
        self._current = self._fold(len(self.events))
        said = [Announcement("Undone.", "undo"), *self.status()]
        self.last_said = said
        return said

    def taken_back(self) -> list[Event]:
        """The events the table undid here, at this place in the history, oldest first: a
        claim said again after its undo and heard the same way is most likely misheard the
        same way again (the referee's ears, not the player, were wrong)."""
        return list(self._taken_back.get(len(self.events), ()))

    def status(self) -> list[Announcement]:
        """Whose turn it is and what is due, or who won."""
        s = self.state
        if s.phase == "over":
            return [Announcement(f'Game {s.game} is over. Say "new game" to play again.', "over")]
        if s.phase == "reveal" and s.challenged is not None:
            claimer = s.players[s.pile[s.challenged].seat]
            return [Announcement(f"{claimer}, turn the cards over.", "reveal_request")]
        if s.phase == "who_called":
            return [Announcement("Who called?", "who_called")]
        return [engine.prompt(s)]

    def query(self, command: str) -> list[Announcement]:
        """Answer "repeat", "score", "how many cards" or "whose turn".

        What "repeat" says again is marked as said again (kind ``repeat``, the kind it had as
        ``repeats``): "Dev: three queens." repeated is not Dev claiming again, for anyone
        reading the referee's lines (a table that took it for a new claim undid the real one).
        """
        if command == "repeat":
            return [
                Announcement(a.text, "repeat", {**a.data, "repeats": a.kind})
                for a in self.last_said
            ]
        self.last_said = self._answer(command)
        return list(self.last_said)

    def _answer(self, command: str) -> list[Announcement]:
        s = self.state
        if command == "score":
            return [Announcement(f"Games won: {standing_phrase(s.players, s.wins)}", "standing")]
        if command == "how_many":
            hands = ", ".join(f"{p} {n}" for p, n in zip(s.players, s.hands, strict=True))
            return [Announcement(f"{hands}. The pile has {cards_phrase(s.pile_size)}.", "hands")]
        return self.status()
