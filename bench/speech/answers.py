"""Answers to "Who called?": each player's name said alone, and chatter, as the referee hears
them while it asks.

    nice -n 10 .venv/bin/python -m bench.speech.answers        # ~25 min on 2 cores

The table is bench/table's strangers (Marco, Nadia, Rob, Yuki: three names the listener's
head never learned, ``referee.speech.listener.labels.FIRST_NAMES``). Each answer ("Rob.",
"Me, Rob!", "It was Yuki.") is said by an espeak-ng voice (bench/speech/corpus.py's) or,
one in three, Piper's Joe, clean, in 20 dB kitchen noise and under 15 and 10 dB babble, and
heard in the who_called phase: the name right, another player's, or nothing. Then minutes
of bench/speech/chatter (no game words; babble, kitchen and a quiet room in turn) are heard
in the same phase: every name taken is invented. Both are heard with the rules of ``--rules``
off, then on (``ANSWERS_UNLEARNED`` and ``ANSWER_AS_READ`` of
:mod:`referee.speech.listener.backend`, ``SPLIT_NAMES_KEPT`` of
:mod:`referee.speech.backends.whisper`). Writes ``bench/speech/answers.md`` (``--out``).
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from pathlib import Path

import numpy as np

from bench.speech.corpus import CONDITIONS, SynthCache, heard_in_turn, load_noise_beds
from referee.live.calls import acted_on_early
from referee.speech.audio import ArraySource
from referee.speech.vocab import ListenContext

HERE = Path(__file__).resolve().parent
PLAYERS = ("Marco", "Nadia", "Rob", "Yuki")
SAYINGS = ("{name}.", "{name}!", "Me, {name}!", "It was {name}.")


def answers(per_condition: int, seed: int, cache: SynthCache) -> list[tuple[str, str, np.ndarray]]:
    """(condition, name, audio) for each answer said."""

    def answer(i: int, rng: random.Random) -> tuple[str, str]:
        name = PLAYERS[i % len(PLAYERS)]
        return name, rng.choice(SAYINGS).format(name=name)

    return heard_in_turn(per_condition, seed, cache, answer)


def names_heard(recognizer, audio: np.ndarray) -> list[str]:
    """The names the referee would take as the answer: for each onset, a plain early reading
    of a name or a named call, else the whole reading."""
    recognizer.set_context(ListenContext.for_phase("who_called", PLAYERS))
    acted = {}  # onset -> what the referee acts on for those words
    for h in recognizer.utterances(ArraySource(audio)):
        if not h.utterance.partial:
            acted.setdefault(h.utterance.start, h)
        elif (h.intent.type == "name" or acted_on_early(h)) and not h.guessed:
            acted.setdefault(h.utterance.start, h)  # plain early names and named calls
    # a call naming its caller said then is that caller's answer too ("Me, Rob!" read "cheat
    # rob": Rob's call, as the referee takes it)
    return [
        h.intent.name if h.intent.type == "name" else h.intent.caller
        for h in acted.values()
        if h.intent.type == "name" or (h.intent.type == "call" and h.intent.caller)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.speech.answers", description=__doc__)
    parser.add_argument("--per-condition", type=int, default=60)
    parser.add_argument("--seed", type=int, default=51)
    parser.add_argument("--chatter-minutes", type=int, default=20)
    parser.add_argument("--first", type=int, default=700, help="the first chatter minute")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument(
        "--rules", default="ANSWER_AS_READ,SPLIT_NAMES_KEPT", help="turned off, then on, together"
    )
    parser.add_argument("--out", type=Path, default=HERE / "answers.md")
    args = parser.parse_args(argv)
    from platformdirs import user_cache_dir

    from bench.speech.chatter import Voices, minute
    from referee.speech import make_recognizer
    from referee.speech.backends import whisper
    from referee.speech.listener import backend as listener

    homes = {"ANSWERS_UNLEARNED": listener, "ANSWER_AS_READ": listener, "SPLIT_NAMES_KEPT": whisper}
    rules = args.rules.split(",")
    if unknown := set(rules) - set(homes):
        parser.error(f"unknown rules: {', '.join(sorted(unknown))} (known: {', '.join(homes)})")

    cache = SynthCache(args.cache or Path(user_cache_dir("referee")) / "bench-speech")
    started = time.time()
    said = answers(args.per_condition, args.seed, cache)
    voices, beds = Voices(cache), load_noise_beds()
    chatter = [
        minute(voices, beds, i, 3) for i in range(args.first, args.first + args.chatter_minutes)
    ]
    recognizer = make_recognizer("listener")
    rows = []
    for rule in (False, True):
        for name in rules:
            setattr(homes[name], name, rule)
        counts = {c: {"right": 0, "wrong": 0, "none": 0} for c in CONDITIONS}
        for condition, name, audio in said:
            heard = names_heard(recognizer, audio)
            outcome = "none" if not heard else "right" if heard[-1] == name else "wrong"
            counts[condition][outcome] += 1
        invented = [
            (bed, found) for audio, bed in chatter for found in names_heard(recognizer, audio)
        ]
        rows.append((rule, counts, invented))
    n = args.per_condition
    last = args.first + args.chatter_minutes - 1
    lines = [
        '# Answers to "Who called?" (bench/speech/answers.py)',
        "",
        f"Rerun: `nice -n 10 .venv/bin/python -m bench.speech.answers --per-condition {n} "
        f"--seed {args.seed} --chatter-minutes {args.chatter_minutes} --first {args.first} "
        f"--rules {args.rules}`",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, "
        f"{time.time() - started:.0f} s. Players {', '.join(PLAYERS)}; {n} answers a condition "
        f"({', '.join(SAYINGS)}); chatter minutes {args.first}-{last} (seed 3) heard while "
        "the referee asks.",
        "",
        f"| {' + '.join(rules)} | condition | name right | another's | none heard |",
        "|---|---|---|---|---|",
    ]
    for rule, counts, _ in rows:
        for condition in CONDITIONS:
            c = counts[condition]
            lines.append(
                f"| {'on' if rule else 'off'} | {condition} | {c['right']}/{n} | {c['wrong']} | "
                f"{c['none']} |"
            )
    lines += ["", "Names taken from chatter (none was said):", ""]
    for rule, _, invented in rows:
        per_hour = 60 * len(invented) / max(args.chatter_minutes, 1)
        found = ", ".join(f"{name} ({bed})" for bed, name in invented) or "none"
        lines.append(
            f"- {'on' if rule else 'off'}: {len(invented)} ({per_hour:.1f} an hour): {found}"
        )
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
