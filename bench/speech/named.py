"""Named calls: is the caller the referee credits the one who called?

    nice -n 10 .venv/bin/python -m bench.speech.named --clips 320 --seed 11 --out bench/speech

espeak-ng's voices say calls that name their caller, by name and by seat ("Cara, cheat!",
"liar, Ben!", "cheat, player four!"), clean, in 20 dB kitchen noise and under 15 and 10 dB
babble, each through the recognizer as it listens during play. A wrong caller costs the
table two undos (the verdict and the call); a call left bare costs one "Who called?". Per
condition: the caller the referee acts on (the first early reading it acts on,
:func:`referee.live.calls.acted_on_early`, else the last whole reading) right, wrong, bare
(asked), or no call heard; and the made (guessed) named calls by confidence, right and
wrong (how ``NAMED_MIN`` was chosen: ``--named-min 0`` shows them all). Synthetic voices
only; ~4 minutes for 320 clips.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from bench.speech import add_without, corpus, turn_off
from referee.game.cards import RANKS
from referee.live.calls import acted_on_early
from referee.speech.audio import ArraySource
from referee.speech.recognizer import Recognizer
from referee.speech.vocab import ListenContext

SEATS = ("one", "two", "three", "four")
SAYINGS = (
    "{name}, cheat!", "cheat, {name}!", "{name}, bullshit!", "liar, {name}!", "{name}! Cheat!",
    "cheat, player {seat}!", "bullshit, player {seat}!",
)  # fmt: skip
CONDITIONS = ("clean", "noise 20 dB", "babble 15 dB", "babble 10 dB")
BUCKETS = (0.02, 0.05, 0.1, 0.2)
MARGINS = (0.25, 0.5, 1.0, 2.0)
CACHE = Path.home() / ".cache" / "referee-bench" / "espeak"


def clips(n: int, seed: int, cache: corpus.SynthCache):
    """(condition, text, caller, voice, audio, rank due, words' end) for ``n`` named calls."""
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    beds = corpus.load_noise_beds()
    for _ in range(n):
        seat = rng.randrange(len(corpus.PLAYERS))
        text = rng.choice(SAYINGS).format(name=corpus.PLAYERS[seat], seat=SEATS[seat])
        condition = rng.choice(CONDITIONS)
        voice = rng.choice(corpus.VOICES)
        speed, pitch = rng.choice(corpus.SPEEDS), rng.choice(corpus.PITCHES)
        audio, end = corpus.place(cache.get(text, voice, speed, pitch))
        if condition.startswith("noise"):
            audio = corpus.mix(audio, beds[rng.choice(corpus.NOISE_BEDS)], 20, 0.1, nrng)
        elif condition.startswith("babble"):
            snr = int(condition.split()[1])
            bed = corpus.babble(cache, rng, len(audio) / 16000 + 1)
            audio = corpus.mix(audio, bed, snr, 0.1, nrng)
        yield condition, text, corpus.PLAYERS[seat], voice, audio, rng.choice(RANKS), end


def acted_on(heard) -> tuple[str | None, bool, float | None]:
    """The call the referee acts on: (its caller or None, whether any call was heard, when
    it was known in audio time)."""
    calls = [h for h in heard if h.intent.type == "call"]
    early = next((h for h in calls if acted_on_early(h)), None)
    if early is not None:
        return early.intent.caller, True, early.decided_at
    finals = [h for h in calls if not h.utterance.partial]
    if not finals:
        return None, False, None
    return finals[-1].intent.caller, True, finals[-1].decided_at


def bucket(confidence: float) -> str:
    return next((f"< {b}" for b in BUCKETS if confidence < b), f">= {BUCKETS[-1]}")


def margin_bucket(margin: float) -> str:
    return next((f"< {b}" for b in MARGINS if margin < b), f">= {MARGINS[-1]}")


def run(n: int, seed: int) -> dict:
    recognizer = Recognizer(backend_name="listener", warn=lambda m: None)
    backend = recognizer.backend
    margins: dict[str, float] = {}  # made phrase -> its margin, for the clip in hand
    decode = backend.decode

    def decode_noting_margins(audio, *, final: bool = True):
        backend.last_margin = float("inf")
        hypothesis = decode(audio, final=final)
        if hypothesis.guessed:
            margins[hypothesis.text] = backend.last_margin
        return hypothesis

    backend.decode = decode_noting_margins
    outcomes: dict[str, Counter] = {c: Counter() for c in CONDITIONS}
    made: Counter = Counter()
    by_margin: Counter = Counter()
    each: list[dict] = []
    wrong = []
    cache = corpus.SynthCache(CACHE)
    latency: dict[str, list[float]] = {c: [] for c in CONDITIONS}
    for i, (condition, text, caller, voice, audio, rank, end) in enumerate(clips(n, seed, cache)):
        recognizer.set_context(ListenContext.for_phase("play", corpus.PLAYERS, legal_ranks=(rank,)))
        margins.clear()
        heard = list(recognizer.utterances(ArraySource(audio)))
        credited, any_call, known_at = acted_on(heard)
        if credited is not None and known_at is not None:
            latency[condition].append(round(known_at - end, 3))
        outcome = (
            "unheard" if not any_call
            else "bare" if credited is None
            else "right" if credited == caller
            else "wrong"
        )  # fmt: skip
        outcomes[condition][outcome] += 1
        if outcome == "wrong":
            wrong.append({"condition": condition, "said": text, "voice": voice,
                          "credited": credited})  # fmt: skip
        for h in (h for h in heard if not h.utterance.partial):
            if h.intent.type == "call" and h.intent.caller and h.guessed:
                ok = "right" if h.intent.caller == caller else "wrong"
                made[f"{bucket(h.utterance.confidence or 0.0)} {ok}"] += 1
                margin = margins.get(h.utterance.text, float("inf"))
                by_margin[f"{margin_bucket(margin)} {ok}"] += 1
                each.append({"confidence": h.utterance.confidence, "margin": margin, "ok": ok,
                             "condition": condition, "said": text})  # fmt: skip
        if (i + 1) % 40 == 0:
            print(f"  {i + 1}/{n}", file=sys.stderr, flush=True)
    return {
        "outcomes": {c: dict(v) for c, v in outcomes.items()},
        "latency": latency,
        "made_by_confidence": dict(sorted(made.items())),
        "made_by_margin": dict(sorted(by_margin.items())),
        "made": each,
        "wrong": wrong,
    }


def report(results: dict, meta: dict) -> str:
    lines = [
        "# Named calls: the caller credited (bench/speech/named.py)",
        "",
        f"Rerun: `{meta['command']}` (at {meta['rev']}).",
        "",
        "| condition | calls | caller right | caller wrong | bare (asked) | no call heard |",
        "|---|---|---|---|---|---|",
    ]
    for condition, c in results["outcomes"].items():
        total = sum(c.values())
        cells = [f"{c.get(k, 0)} ({100 * c.get(k, 0) / max(total, 1):.0f}%)"
                 for k in ("right", "wrong", "bare", "unheard")]  # fmt: skip
        lines.append(f"| {condition} | {total} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "A named call acted on, known after its words end (seconds, audio time, decoding on "
        "this machine included, as bench/speech's latency; p50 / p95 / max):",
        "",
        "| condition | n | p50 | p95 | max |",
        "|---|---|---|---|---|",
    ]
    for condition, xs in results["latency"].items():
        if xs:
            p50, p95 = np.percentile(xs, 50), np.percentile(xs, 95)
            lines.append(f"| {condition} | {len(xs)} | {p50:.2f} | {p95:.2f} | {max(xs):.2f} |")
    lines += ["", "Made (guessed) named calls, whole readings, by confidence:", ""]
    lines += [f"- {k}: {v}" for k, v in results["made_by_confidence"].items()]
    lines += ["", "The same by margin (over the likeliest naming another caller):", ""]
    lines += [f"- {k}: {v}" for k, v in results["made_by_margin"].items()]
    lines += ["", "Wrong callers:", ""]
    lines += [f"- {w['condition']}: \"{w['said']}\" ({w['voice']}) credited to {w['credited']}"
              for w in results["wrong"]]  # fmt: skip
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clips", type=int, default=320)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--named-min", type=float, default=None,
                        help="override the listener's NAMED_MIN (0: never made bare)")  # fmt: skip
    add_without(parser)
    parser.add_argument("--out", type=Path, help="write named[-NAME].md/.json here")
    parser.add_argument("--name", default="", help="suffix of the report's file name")
    args = parser.parse_args(argv)
    if args.named_min is not None:
        from referee.speech.listener import backend

        backend.NAMED_MIN = args.named_min
    turn_off(parser, args.without)
    results = run(args.clips, args.seed)
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True, cwd=Path(__file__).parent).stdout.strip()  # fmt: skip
    meta = {"rev": rev, "command": "python -m bench.speech.named " + " ".join(argv or sys.argv[1:])}
    text = report(results, meta)
    print(text)
    if args.out:
        stem = "named" + (f"-{args.name}" if args.name else "")
        (args.out / f"{stem}.md").write_text(text)
        (args.out / f"{stem}.json").write_text(json.dumps(results | {"meta": meta}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
