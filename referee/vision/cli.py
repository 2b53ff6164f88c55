"""``referee look``: read revealed cards from image files or from the camera."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("images", nargs="*", metavar="IMAGE", help="photos of a reveal")
    parser.add_argument("--camera", type=int, metavar="N", help="read from camera N instead")
    parser.add_argument("--json", action="store_true", help="one JSON object per image")
    parser.add_argument(
        "--deck", metavar="NAME", help="a deck profile from `referee calibrate deck`"
    )
    parser.add_argument(
        "--model", type=Path, default=None, help="detector weights (default: models/)"
    )
    parser.add_argument("--frames", type=int, default=45, help="camera: give up after this many")
    parser.add_argument(
        "--second-look",
        choices=("low", "crop"),
        default=None,
        help="read small cards (a laptop's view) again: at a lower confidence (low), and in "
        "a crop of them (crop, twice the time); off by default (bench/vision/second_look.md)",
    )


def _load(path: str, check: bool = False):
    """The image at ``path`` (BGR); ``check`` only makes sure it decodes (a JPEG at an
    eighth of its size, cheaply) and returns None, so that many photos never sit in memory
    at once."""
    import cv2

    from referee.errors import UserError

    p = Path(path)
    if not p.exists():
        raise UserError(f"no such image: {path}")
    if p.is_dir():
        raise UserError(f"{path} is a folder, not an image")
    img = cv2.imread(str(p), cv2.IMREAD_REDUCED_GRAYSCALE_8 if check else cv2.IMREAD_COLOR)
    if img is None or img.size == 0:
        raise UserError(f"cannot read {path} as an image (is it a JPEG/PNG photo?)")
    return None if check else img


def _say(path: str, reveal, as_json: bool) -> None:
    from referee.vision.reader import reveal_json

    if as_json:
        print(reveal_json(path, reveal), flush=True)
        return
    ranks = " ".join(c.rank for c in reveal.cards) or "-"
    confs = " ".join(f"{c.confidence:.2f}" for c in reveal.cards)
    line = f"{path}: {reveal.count} card(s): {ranks}"
    if confs:
        line += f"  (confidence {confs})"
    if not reveal.readable:
        line += f"  -- {reveal.message}"
    print(line, flush=True)


def _camera_frames(index: int):

    from referee.errors import UserError
    from referee.vision.camera import open_camera

    cap = open_camera(index)
    try:
        misses = 0
        while True:
            ok, frame = cap.read()
            if not ok or frame is None:
                misses += 1
                if misses >= 10:
                    raise UserError(f"camera {index} stopped giving pictures (unplugged?)")
                continue
            misses = 0
            yield frame
    finally:
        cap.release()


def run(args: argparse.Namespace) -> int:
    from referee.errors import UserError

    if args.camera is None and not args.images:
        raise UserError("give one or more IMAGE files, or --camera N")
    if args.camera is not None and args.images:
        raise UserError("give either IMAGE files or --camera N, not both")
    # check the files before loading the model, so mistakes are reported at once; each is
    # then read again when its turn comes (memory does not grow with the number of photos)
    problems = {}
    for p in args.images:
        try:
            _load(p, check=True)
        except UserError as err:
            problems[p] = str(err)
    if args.images and len(problems) == len(args.images):
        raise UserError("; ".join(problems.values()))
    from referee.vision.reader import CardReader

    look = None
    if getattr(args, "second_look", None):
        from referee.vision.second_look import SecondLook

        look = SecondLook() if args.second_look == "crop" else SecondLook(max_side=0.0)
    reader = CardReader(args.model, deck=args.deck, second_look=look)
    if args.camera is not None:
        reveal = reader.read_stable(_camera_frames(args.camera), max_frames=args.frames)
        _say(f"camera:{args.camera}", reveal, args.json)
        return 0 if reveal.readable else 1
    for path in args.images:
        img = None
        if path not in problems:
            try:
                img = _load(path)
            except UserError as err:  # changed or removed since it was checked
                problems[path] = str(err)
        if img is None:
            print(f"referee look: {problems[path]}", file=sys.stderr, flush=True)
            if args.json:
                print(json.dumps({"image": path, "cards": [], "count": 0,
                                  "error": problems[path]}), flush=True)  # fmt: skip
            continue
        _say(path, reader.read(img), args.json)
        del img
    return 2 if problems else 0


if __name__ == "__main__":  # pragma: no cover
    parser = argparse.ArgumentParser(prog="referee look")
    add_arguments(parser)
    sys.exit(run(parser.parse_args()))
