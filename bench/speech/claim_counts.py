"""Claims' counts with the listener's ``COUNT_MEND`` off, then on: what the referee acts on
first for each claim said (an early reading taken at once, else the whole utterance's).

    nice -n 10 .venv/bin/python -m bench.speech.claim_counts --seed 81   # ~8 min on 2 cores

Each claim (one to four of a drawn rank, that rank due) is said by an espeak-ng voice
(bench/speech/corpus.py's) or, one in three, Piper's Joe, clean, in 20 dB kitchen noise and
under 15 and 10 dB babble. Writes ``bench/speech/claim_counts-<seed>.md``.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

from bench.speech.corpus import CONDITIONS, SynthCache, heard_in_turn
from referee.game.cards import RANKS, describe_count
from referee.speech.audio import ArraySource
from referee.speech.vocab import PHASE_INTENTS, ListenContext

HERE = Path(__file__).resolve().parent
PLAYERS = ("Alice", "Ben", "Cara", "Dev")


def acted_on(recognizer, audio, rank: str):
    """The claim the referee would act on first: an early reading not guessed, else the first
    whole reading of a claim; None when none."""
    recognizer.set_context(ListenContext.for_rank_due(rank, PLAYERS, intents=PHASE_INTENTS["play"]))
    heard = [h for h in recognizer.utterances(ArraySource(audio)) if h.intent.type == "claim"]
    early = [h for h in heard if h.utterance.partial and not h.guessed]
    finals = [h for h in heard if not h.utterance.partial]
    return (early or finals or [None])[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.speech.claim_counts", description=__doc__
    )
    parser.add_argument("--per-condition", type=int, default=60)
    parser.add_argument("--seed", type=int, default=81)
    parser.add_argument("--cache", type=Path, default=None)
    args = parser.parse_args(argv)
    from platformdirs import user_cache_dir

    from referee.speech import make_recognizer
    from referee.speech.listener import backend as listener

    cache = SynthCache(args.cache or Path(user_cache_dir("referee")) / "bench-speech")

    def claim(i: int, rng) -> tuple[str, str]:
        count, rank = rng.choice([1, 2, 2, 3, 3, 4]), rng.choice(RANKS)
        return f"{count}:{rank}", describe_count(count, rank)

    started = time.time()
    said = heard_in_turn(args.per_condition, args.seed, cache, claim)
    recognizer = make_recognizer("listener")
    rows, misses = [], []
    for mend in (False, True):
        listener.COUNT_MEND = mend
        counts = {c: {"right": 0, "wrong": 0, "none": 0} for c in CONDITIONS}
        for condition, label, audio in said:
            count, rank = label.split(":")
            h = acted_on(recognizer, audio, rank)
            right = h is not None and (h.intent.count, h.intent.rank) == (int(count), rank)
            counts[condition]["none" if h is None else "right" if right else "wrong"] += 1
            if h is not None and not right:
                misses.append((mend, condition, label, h.utterance.text, h.utterance.partial))
        rows.append((mend, counts))
    n = args.per_condition
    lines = [
        "# Claims' counts with COUNT_MEND off and on (bench/speech/claim_counts.py)",
        "",
        f"Rerun: `nice -n 10 .venv/bin/python -m bench.speech.claim_counts --per-condition {n} "
        f"--seed {args.seed}`",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, "
        f"{time.time() - started:.0f} s. {n} claims a condition (counts 1-4, the rank due).",
        "",
        "| COUNT_MEND | condition | right | another claim | none |",
        "|---|---|---|---|---|",
    ]
    for mend, counts in rows:
        for condition in CONDITIONS:
            c = counts[condition]
            lines.append(
                f"| {'on' if mend else 'off'} | {condition} | {c['right']}/{n} | {c['wrong']} | "
                f"{c['none']} |"
            )
    lines += ["", "Claims acted on wrongly (said -> read; early = at the first pause):", ""]
    for mend, condition, label, text, early in misses:
        when = "early" if early else "whole"
        lines.append(f"- {'on' if mend else 'off'}, {condition}: {label} -> {text!r} ({when})")
    out = HERE / f"claim_counts-{args.seed}.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
