"""``referee calibrate deck|mic|camera``: one subcommand per thing to calibrate.

The work lives beside this file (``deck.py``, ``camera.py``, ``mic.py``), each exposing
``add_<what>_arguments(parser)`` and ``run_<what>(args)``; they are imported only when used.
"""

from __future__ import annotations

import argparse
import importlib

TARGETS = {
    "deck": "show the table's own deck so the card reader adapts to it",
    "mic": "measure the room's noise and the players' voices",
    "camera": "check framing, focus, exposure and card size",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="target", metavar="deck|mic|camera", required=True)
    for target, help_text in TARGETS.items():
        module = importlib.import_module(f"referee.calibration.{target}")
        getattr(module, f"add_{target}_arguments")(sub.add_parser(target, help=help_text))


def run(args: argparse.Namespace) -> int:
    module = importlib.import_module(f"referee.calibration.{args.target}")
    return int(getattr(module, f"run_{args.target}")(args) or 0)
