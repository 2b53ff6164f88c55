"""A match in progress: the fold of its events, with undo.

The history is the state (python-chess's move stack): every accepted event pushes the state
it produced; ``undo`` pops. Questions ("whose turn?") are answered from the state and change
nothing.
"""

from __future__ import annotations

from referee.game import engine
from referee.game.announce import Announcement, cards_phrase, standing_phrase
from referee.game.events import Event
from referee.game.rules import Rules
from referee.game.state import State

QUERIES = ("repeat", "score", "how_many", "whose_turn")


class Match:
    """Players, rules and the stack of states after each accepted event."""

    def __init__(self, players: list[str] | tuple[str, ...], rules: Rules) -> None:
        opening = engine.new_match(tuple(players), rules)
        self.rules = rules
        self.history: list[State] = [opening.state]
        self.events: list[Event] = []
        self.last_said: list[Announcement] = list(opening.said)
        self.opening_said = list(opening.said)

    @property
    def state(self) -> State:
        return self.history[-1]

    @property
    def players(self) -> tuple[str, ...]:
        return self.state.players

    def handle(self, event: Event) -> engine.Outcome:
        outcome = engine.apply(self.state, event)
        if outcome.accepted:
            self.history.append(outcome.state)
            self.events.append(event)
        if outcome.said:
            self.last_said = list(outcome.said)
        return outcome

    def undo(self) -> list[Announcement]:
        if len(self.history) == 1:
            return [Announcement("Nothing to undo.", "error")]
        self.history.pop()
        self.events.pop()
        said = [Announcement("Undone.", "undo"), *self.status()]
        self.last_said = said
        return said

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
        due = engine.policies.due_phrase(engine.legal_ranks(s))
        return [Announcement(f"{s.players[s.turn]}, {due}.", "turn")]

    def query(self, command: str) -> list[Announcement]:
        """Answer "repeat", "score", "how many cards" or "whose turn"."""
        if command == "repeat":
            return list(self.last_said)
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
