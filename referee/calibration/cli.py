"""``referee calibrate deck|mic|camera|voices``: one subcommand per thing to calibrate.

The work lives beside this file (``deck.py``, ``camera.py``, ``mic.py``, ``voices.py``), each
exposing ``add_<what>_arguments(parser)`` and ``run_<what>(args)``; only the one asked for is
imported, so calibrating the microphone never loads the card detector.
"""

from __future__ import annotations

import argparse
import importlib

TARGETS = {
    "deck": "show the table's own deck so the card reader adapts to it",
    "mic": "measure the room's noise and the players' voices",
    "camera": "check framing, focus, exposure and card size",
    "voices": "learn each player's voice, so a bare call has a caller",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    lines = "; ".join(f"{name}: {text}" for name, text in TARGETS.items())
    parser.add_argument("target", choices=list(TARGETS), help=lines)
    parser.add_argument(
        "options", nargs=argparse.REMAINDER, help="its options (referee calibrate TARGET -h)"
    )


def run(args: argparse.Namespace) -> int:
    module = importlib.import_module(f"referee.calibration.{args.target}")
    parser = argparse.ArgumentParser(prog=f"referee calibrate {args.target}",
                                     description=TARGETS[args.target])  # fmt: skip
    getattr(module, f"add_{args.target}_arguments")(parser)
    options = parser.parse_args(args.options)
    return int(getattr(module, f"run_{args.target}")(options) or 0)
