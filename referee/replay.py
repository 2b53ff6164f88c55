"""``referee replay``: run a game from a transcript of what was heard and seen.

Input: one JSON object a line, ``{"heard": "two aces"}``, ``{"saw": ["AH", "7C"]}``, each
optionally with ``"t": seconds``. Output: one ``{"say": ...}`` line per announcement, then
``{"state": {...}}``. Bad lines get a message naming the line and are skipped.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from referee.errors import UserError
from referee.game.announce import Announcement
from referee.game.cards import parse_card
from referee.game.engine import legal_ranks
from referee.game.events import Close, event_from_dict
from referee.game.rules import PRESETS, rules_from
from referee.paths import default_journal
from referee.session import Recorder, Session
from referee.store.journal import JournalError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("events", help="JSONL file of heard/saw lines ('-' for standard input)")
    parser.add_argument("--players", help="names clockwise, comma separated; the first plays "
                        "first and the last deals")  # fmt: skip
    parser.add_argument("--rules", default="classic", help=f"preset: {', '.join(PRESETS)}")
    parser.add_argument("--set", dest="settings", action="append", default=[], metavar="KEY=VALUE",
                        help="a house rule, e.g. passing=always (repeatable)")  # fmt: skip
    parser.add_argument("--journal", type=Path, help="journal file (default: the user's data "
                        "directory, or REFEREE_JOURNAL)")  # fmt: skip
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the game in the journal, then apply the events",
    )
    parser.add_argument("--db", help="record finished games in this score database")
    parser.add_argument("--scoring", default="wins", help="scoring table for --db (default wins)")


def _emit(data: dict[str, Any]) -> None:
    print(json.dumps(data, ensure_ascii=False), flush=True)


def _say(said: list[Announcement]) -> None:
    for announcement in said:
        _emit(announcement.to_dict())


def _complain(number: int, message: str) -> None:
    print(f"referee replay: line {number}: {message}", file=sys.stderr, flush=True)
    _emit({"error": f"line {number}: {message}", "line": number})


def _recorder(
    args: argparse.Namespace, players: tuple[str, ...], rules: dict, key: str
) -> Recorder | None:
    """The score recorder for ``--db``; ``key`` (the journal's start) makes a resumed match
    the same match in the database."""
    if not args.db:
        return None
    from referee.store import open_recorder

    try:
        return open_recorder(args.db, players, rules, args.scoring, key=key)
    except ValueError as err:  # an unknown scoring table
        raise UserError(str(err)) from None


def _open_session(args: argparse.Namespace) -> Session:
    journal = args.journal or default_journal()
    if args.resume:
        try:
            from referee.store.journal import read_journal

            header, _entries, _dropped = read_journal(journal)
            recorder = _recorder(args, tuple(header["players"]), header["rules"], header["started"])
            session = Session.resume(journal, recorder)
        except JournalError as err:
            raise UserError(str(err)) from None
        if args.players and [p.strip() for p in args.players.split(",")] != list(session.players):
            raise UserError(f"the journal is a game of {', '.join(session.players)}, "
                            f"not {args.players}")  # fmt: skip
        return session
    if not args.players:
        raise UserError("name the players: --players Alice,Ben,Cara")
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    try:
        rules = rules_from(args.rules, args.settings)
        started = datetime.now(UTC).isoformat(timespec="microseconds")
        recorder = _recorder(args, tuple(players), rules.to_dict(), started)
        session = Session.start(players, rules, journal, recorder, source="replay", started=started)
    except (ValueError, JournalError) as err:
        raise UserError(str(err)) from None
    _say(session.opening())
    return session


def _open_events(path: str) -> TextIO:
    """The transcript, read line by line as it arrives (a pipe or fifo works too)."""
    if path == "-":
        return sys.stdin
    try:
        return open(path, encoding="utf-8")  # noqa: SIM115 - closed by run()
    except FileNotFoundError:
        raise UserError(f"no such events file: {path}") from None
    except OSError as err:
        raise UserError(f"cannot read {path}: {err.strerror}") from None


def apply_line(session: Session, number: int, line: str) -> None:
    """Apply one transcript line, printing what the referee says (or why it was skipped)."""
    try:
        item = json.loads(line)
    except json.JSONDecodeError as err:
        _complain(number, f"not JSON ({err.msg})")
        return
    if not isinstance(item, dict):
        _complain(number, 'expected a JSON object like {"heard": "two aces"}')
        return
    t = item.get("t")
    if t is not None and (isinstance(t, bool) or not isinstance(t, int | float)):
        _complain(number, f'"t" must be a number of seconds, not {t!r}')
        return
    if isinstance(item.get("heard"), str):
        _say(session.hear(item["heard"], t))
    elif isinstance(item.get("saw"), list):
        try:
            cards = [parse_card(code) for code in item["saw"]]
        except (ValueError, TypeError) as err:
            _complain(number, str(err))
            return
        _say(session.see(cards, t))
    elif isinstance(item.get("event"), str):
        try:
            event = event_from_dict({**item, "t": t} if t is not None else item)
        except (KeyError, TypeError, ValueError) as err:
            _complain(number, f"bad event: {err}")
            return
        _say(session.submit(event))
    else:
        _complain(number, 'expected "heard" (text) or "saw" (a list of cards)')


def run(args: argparse.Namespace) -> int:
    source = _open_events(args.events)
    session = _open_session(args)
    try:
        for number, line in enumerate(source, 1):
            if line.strip():
                apply_line(session, number, line)
        _say(session.submit(Close()))
        state = session.state
        _emit({"state": state.to_dict(legal_ranks(state) if state.phase != "over" else ())})
    except UnicodeDecodeError as err:
        raise UserError(f"{args.events} is not UTF-8 text: {err.reason}") from None
    except JournalError as err:
        raise UserError(str(err)) from None
    finally:
        session.close()
        if source is not sys.stdin:
            source.close()
    return 0
