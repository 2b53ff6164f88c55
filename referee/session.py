"""One refereed match as the outside world drives it: heard text and seen cards in,
announcements out, every accepted event journaled and every finished game recorded.

Both ``referee replay`` and the live referee use this; the engine below knows none of it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from referee import intents
from referee.game.announce import Announcement
from referee.game.cards import Card
from referee.game.events import Call, Claim, Event, Name, NewGame, NewRound, Pass, Reveal, Verdict
from referee.game.match import QUERIES, Match
from referee.game.record import GameRecord
from referee.game.rules import Rules
from referee.store.journal import Journal, resume

Recorder = Callable[[GameRecord], None]


class Session:
    """A match plus its journal and score recorder."""

    def __init__(self, match: Match, journal: Journal | None = None,
                 recorder: Recorder | None = None, recorded: int = 0) -> None:  # fmt: skip
        self.match = match
        self.journal = journal
        self.recorder = recorder
        self.recorded = recorded

    @classmethod
    def start(cls, players: Sequence[str], rules: Rules, journal_path: Path | None = None,
              recorder: Recorder | None = None, **meta: object) -> Session:  # fmt: skip
        match = Match(list(players), rules)
        journal = (
            Journal.create(journal_path, match.players, rules, **meta) if journal_path else None
        )
        return cls(match, journal, recorder)

    @classmethod
    def resume(cls, journal_path: Path, recorder: Recorder | None = None) -> Session:
        resumed = resume(journal_path)
        stored = {n.get("stored") for n in resumed.notes if "stored" in n}
        session = cls(resumed.match, Journal(journal_path), recorder)
        session.recorded = 0
        session._record_finished(already=stored)
        return session

    @property
    def state(self):  # noqa: ANN201 - State, kept loose for callers
        return self.match.state

    @property
    def players(self) -> tuple[str, ...]:
        return self.match.players

    def opening(self) -> list[Announcement]:
        """What to say first: the deal of a new match, or where a resumed one stands."""
        if self.match.events:
            back = Announcement(f"Back to game {self.state.game}.", "resume")
            return [back, *self.match.status()]
        return list(self.match.opening_said)

    def hear(self, text: str, t: float | None = None) -> list[Announcement]:
        """React to an utterance (already recognized as text)."""
        return self.act(intents.parse(text, self.players), t, heard=text)

    def act(self, intent: intents.Intent, t: float | None = None,
            heard: str = "") -> list[Announcement]:  # fmt: skip
        kind = intent.type
        if kind == "claim":
            return self.submit(Claim(intent.count or 0, intent.rank or "A", t=t))
        if kind == "call":
            if self.state.phase == "who_called" and intent.caller:
                return self.submit(Name(intent.caller, t=t))  # the caller named late
            return self.submit(Call(intent.caller, intent.target, t=t))
        if kind == "pass":
            return self.submit(Pass(t=t))
        if kind == "verdict":
            return self.submit(Verdict(bool(intent.honest), t=t))
        if kind == "name":
            if self.state.phase != "who_called":
                return []
            return self.submit(Name(intent.name or "", t=t))
        if kind == "command":
            return self.command(intent.command or "", t)
        if kind == "count":
            return [Announcement(f"{heard or intent.count}, what? Say the count and the rank.",
                                 "unknown")]  # fmt: skip
        shown = f' "{heard}"' if heard else ""
        return [Announcement(f"Sorry, I didn't catch{shown}.", "unknown")]

    def command(self, command: str, t: float | None = None) -> list[Announcement]:
        if command == "undo":
            said = self.match.undo()
            if said[0].kind == "undo" and self.journal:
                self.journal.append_undo()
            return said
        if command == "new_game":
            return self.submit(NewGame(t=t))
        if command == "new_round":
            return self.submit(NewRound(t=t))
        if command in QUERIES:
            return self.match.query(command)
        return [Announcement(f"I don't know how to {command}.", "unknown")]

    def see(self, cards: Sequence[Card], t: float | None = None) -> list[Announcement]:
        return self.submit(Reveal(tuple(cards), t=t))

    def submit(self, event: Event) -> list[Announcement]:
        outcome = self.match.handle(event)
        said = list(outcome.said)
        if outcome.accepted:
            if self.journal:
                self.journal.append(event)
            if self._record_finished():
                standing = getattr(self.recorder, "standing", None)
                if standing is not None:
                    said.append(Announcement(standing(), "match_standing"))
        return said

    def _record_finished(self, already: set | None = None) -> bool:
        """Hand every newly finished game to the recorder, and note it in the journal."""
        records = self.state.records
        fresh = self.recorded < len(records)
        while self.recorded < len(records):
            record = records[self.recorded]
            if self.recorder and record.game not in (already or set()):
                self.recorder(record)
                if self.journal:
                    self.journal.note(stored=record.game)
            self.recorded += 1
        return fresh

    def close(self) -> None:
        if self.journal:
            self.journal.close()
