"""``referee replay``: run a game from a transcript of what was heard and seen.

Input: one JSON object a line, ``{"heard": "two aces"}``, ``{"saw": ["AH", "7C"]}``, each
optionally with ``"t": seconds``. Output: one ``{"say": ...}`` line per announcement, then
``{"state": {...}}``. Bad lines get a message naming the line and are skipped.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from referee import session as sessions
from referee.errors import UserError
from referee.game.announce import Announcement
from referee.game.cards import parse_card
from referee.game.events import Close
from referee.game.rules import PRESETS
from referee.game.view import view
from referee.session import Session
from referee.store.journal import JournalError, checked_event

#: no transcript line is longer; a longer one (or a device without newlines) is skipped
MAX_LINE = 1 << 20


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
    try:
        print(json.dumps(data, ensure_ascii=False), flush=True)
    except UnicodeEncodeError:  # a terminal that cannot show a name: escape it
        print(json.dumps(data), flush=True)


def _say(said: list[Announcement]) -> None:
    for announcement in said:
        _emit(announcement.to_dict())


def _complain(number: int, message: str) -> None:
    print(f"referee replay: line {number}: {message}", file=sys.stderr, flush=True)
    _emit({"error": f"line {number}: {message}", "line": number})


def _open_session(args: argparse.Namespace) -> Session:
    """The replay's match (:func:`referee.session.open`); a new one says its opening."""
    session = sessions.open(
        args.players, rules=args.rules, settings=args.settings, journal=args.journal,
        resume=args.resume, db=args.db, scoring=args.scoring, record=bool(args.db),
        source="replay",
    )  # fmt: skip
    if not args.resume:
        _say(session.opening())
    return session


def _open_events(path: str) -> BinaryIO:
    """The transcript, read line by line as it arrives (a pipe or fifo works too)."""
    if path == "-":
        return sys.stdin.buffer
    try:
        source = open(path, "rb")  # noqa: SIM115 - closed by run()
    except FileNotFoundError:
        raise UserError(f"no such events file: {path}") from None
    except OSError as err:
        raise UserError(f"cannot read {path}: {err.strerror}") from None
    mode = os.fstat(source.fileno()).st_mode
    endless = stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
    if endless and not source.isatty() and not os.path.samefile(path, os.devnull):
        source.close()
        raise UserError(f"{path} is a device, not a transcript of heard/saw lines")
    return source


def _lines(source: BinaryIO) -> Iterator[tuple[int, str | None, str]]:
    """(number, text, why not) of each line: text None when the line is longer than
    :data:`MAX_LINE` (read no further than its end) or not UTF-8."""
    number = 0
    while raw := source.readline(MAX_LINE + 1):
        number += 1
        if len(raw) > MAX_LINE:
            while raw and not raw.endswith(b"\n"):
                raw = source.readline(MAX_LINE)
            yield number, None, f"longer than {MAX_LINE} bytes"
            continue
        try:
            yield number, raw.decode("utf-8-sig" if number == 1 else "utf-8"), ""
        except UnicodeDecodeError as err:
            yield number, None, f"not UTF-8 text ({err.reason} at byte {err.start})"


def _bad_text(item: Any) -> bool:
    """Whether a parsed line holds a string that is not text (a lone surrogate, \\ud800)."""
    stack = [item]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, dict):
            stack.extend(value)
            stack.extend(value.values())
    return False


def apply_line(session: Session, number: int, line: str) -> None:
    """Apply one transcript line, printing what the referee says (or why it was skipped)."""
    try:
        item = json.loads(line)
    except json.JSONDecodeError as err:
        _complain(number, f"not JSON ({err.msg})")
        return
    except (ValueError, RecursionError):  # 5,000 digits, or nested too deep
        _complain(number, "not JSON the referee can read (a number too long, or nested too deep)")
        return
    if not isinstance(item, dict):
        _complain(number, 'expected a JSON object like {"heard": "two aces"}')
        return
    if _bad_text(item):
        _complain(number, "not text: it holds a lone surrogate (an escape like \\ud800)")
        return
    t = item.get("t")
    if t is not None and (
        isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t)
    ):
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
            event = checked_event({**item, "t": t} if t is not None else item)
        except ValueError as err:
            _complain(number, f"bad event: {err}")
            return
        _say(session.submit(event))
    else:
        _complain(number, 'expected "heard" (text) or "saw" (a list of cards)')


def run(args: argparse.Namespace) -> int:
    source = _open_events(args.events)
    session = _open_session(args)
    try:
        for number, line, why in _lines(source):
            if line is None:
                _complain(number, why)
            elif line.strip():
                apply_line(session, number, line)
        _say(session.submit(Close()))
        _emit({"state": view(session.state)})
    except JournalError as err:
        raise UserError(str(err)) from None
    finally:
        session.close()
        if source is not sys.stdin.buffer:
            source.close()
    return 0
