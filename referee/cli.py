"""The ``referee`` command line: one subcommand per job, each living in its own module.

Subcommand modules are imported only when used, so ``referee replay`` never pays for
torch or the speech models. Each module exposes ``add_arguments(parser)`` and
``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from referee.errors import UserError, warn  # noqa: F401 - re-exported for callers

#: subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("referee.replay", "replay a game from a JSONL file of heard/saw events"),
    "listen": ("referee.speech.cli", "recognize claims and calls from the microphone or a wav"),
    "look": ("referee.vision.cli", "read revealed cards from images or the camera"),
    "calibrate": ("referee.calibration.cli", "teach the referee this table's deck, mic, camera"),
    "scores": ("referee.store.cli", "show standings, statistics and charts of past matches"),
    "play": ("referee.live.cli", "run the live referee at the table"),
    "demo": ("referee.live.demo", "play a recorded game through the real pipeline"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee",
        description="An offline referee for the card game Cheat: it listens, looks, judges, "
        "speaks and keeps score.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_module, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        parser = build_parser()
        if argv and argv[0] not in ("-h", "--help"):
            parser.print_usage(sys.stderr)
            print(f"referee: unknown command {argv[0]!r}", file=sys.stderr)
            return 2
        parser.print_help()
        return 0
    name, rest = argv[0], argv[1:]
    module = importlib.import_module(COMMANDS[name][0])
    sub = argparse.ArgumentParser(prog=f"referee {name}", description=COMMANDS[name][1])
    module.add_arguments(sub)
    args = sub.parse_args(rest)
    try:
        return int(module.run(args) or 0)
    except UserError as err:
        print(f"referee {name}: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
