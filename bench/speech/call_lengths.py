"""How long true calls stay over the voice gate: the floor under ``SOUND_MIN_S``.

    nice -n 10 .venv/bin/python -m bench.speech.call_lengths        # ~8 min on 2 cores

Bare calls ("Cheat!", "Liar!", "B.S.!", ...) said by espeak-ng voices (bench/speech/corpus.py's,
at their speeds and pitches) and, one in three, Piper's Joe (at a pitch factor), clean, in
20 dB kitchen noise and under 15 and 10 dB babble, are heard by the recognizer as in play.
They are heard with the rule off (``SOUND_MIN_S`` 0); for each condition: how many were
heard as a call, the shortest of those calls from onset to the end of the words
(``Utterance.end - Utterance.start``, the length :data:`referee.speech.recognizer.SOUND_MIN_S`
is compared with) and how many the rule would drop. Writes ``bench/speech/call_lengths.md``.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from pathlib import Path

import numpy as np

from bench.speech.corpus import CONDITIONS, SynthCache, heard_in_turn
from referee.game.cards import RANKS
from referee.speech.audio import ArraySource
from referee.speech.vocab import ListenContext

HERE = Path(__file__).resolve().parent
CALLS = ("Cheat!", "Cheater!", "Bullshit!", "Liar!", "I doubt it!", "B.S.!")
PLAYERS = ("Alice", "Ben", "Cara", "Dev")


def clips(per_condition: int, seed: int, cache: SynthCache) -> list[tuple[str, str, np.ndarray]]:
    """(condition, words, audio) for each call said."""
    return heard_in_turn(per_condition, seed, cache, lambda i, rng: (CALLS[i % 6],) * 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.speech.call_lengths", description=__doc__
    )
    parser.add_argument("--per-condition", type=int, default=90)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--backend", default="listener")
    parser.add_argument("--cache", type=Path, default=None)
    args = parser.parse_args(argv)
    from platformdirs import user_cache_dir

    from referee.speech import make_recognizer
    from referee.speech import recognizer as heard_by

    floor = heard_by.SOUND_MIN_S
    heard_by.SOUND_MIN_S = 0.0  # every call heard, however short: counted against the floor

    cache = SynthCache(args.cache or Path(user_cache_dir("referee")) / "bench-speech")
    started = time.time()
    said = clips(args.per_condition, args.seed, cache)
    recognizer = make_recognizer(args.backend)
    ranks = random.Random(args.seed + 1)
    lengths: dict[str, list[float]] = {c: [] for c in CONDITIONS}
    for condition, _, audio in said:
        ctx = ListenContext.for_phase("play", PLAYERS, legal_ranks=(ranks.choice(RANKS),))
        recognizer.set_context(ctx)
        heard = [h for h in recognizer.utterances(ArraySource(audio)) if not h.utterance.partial]
        calls = [h.utterance for h in heard if h.intent.type == "call"]
        if calls:
            lengths[condition].append(min(u.end - u.start for u in calls))
    lines = [
        "# How long true calls stay over the voice gate",
        "",
        f"Rerun: `nice -n 10 .venv/bin/python -m bench.speech.call_lengths --per-condition "
        f"{args.per_condition} --seed {args.seed}`",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, "
        f"{time.time() - started:.0f} s, backend {args.backend}. SOUND_MIN_S = {floor}: a call "
        "read from less is dropped (here heard with the rule off, to count what it would drop).",
        "",
        "| condition | heard as a call | shortest (s) | five shortest | the rule would drop |",
        "|---|---|---|---|---|",
    ]
    for condition in CONDITIONS:
        found = sorted(lengths[condition])
        shortest = f"{found[0]:.2f}" if found else "-"
        five = ", ".join(f"{x:.2f}" for x in found[:5])
        dropped = sum(1 for x in found if round(x * 50) < round(floor * 50))  # 20 ms frames
        lines.append(
            f"| {condition} | {len(found)}/{args.per_condition} | {shortest} | {five} | {dropped} |"
        )
    (HERE / "call_lengths.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
