"""``referee calibrate voices``: learn each player's voice, so a bare "Cheat!" has a caller.

    referee calibrate voices --players Alice,Ben,Cara,Dev            # from the microphone
    referee calibrate voices --players Alice,Ben --from DIR --name friday

From the microphone each player, prompted by name (said aloud by the referee's voice when it
has one, and printed), says their name, "cheat" and one claim. With ``--from DIR`` the
recordings ``DIR/<Player>-<N>.wav`` (any rate and channels, any words) stand in for the
microphone. The profile (:class:`referee.speech.speakers.SpeakerProfile`, a folder with a
versioned ``profile.json`` and the samples) is saved under the name given (``default``),
and ``referee listen|play --voices NAME`` use it. Before saving it checks that the voices
are told apart: each sample is matched against the other players' voiceprints and one made
of that player's other samples, and the pairs that are confused are named.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

#: what each player is asked to say, in turn ({name} is theirs)
PROMPTS = ("{name}, say your name.", "{name}, say cheat.", "{name}, say a claim, like two aces.")
RECORD_S = 2.5


def add_voices_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", required=True, help="names, comma separated: A,B,C,D")
    parser.add_argument("--from", dest="source", type=Path, metavar="DIR",
                        help="recordings DIR/<Player>-<N>.wav, not the microphone")  # fmt: skip
    parser.add_argument("--name", default="default", help="profile name (default: default)")
    parser.add_argument("--out", type=Path, help="profile folder (default: user data dir)")
    parser.add_argument("--mic", help="microphone: device index or part of its name")
    parser.add_argument("--rounds", type=int, default=1, help="times through the prompts")
    parser.add_argument("--seconds", type=float, default=RECORD_S, help="seconds per answer")
    parser.add_argument("--silent", action="store_true", help="print the prompts, don't say them")


def speech_span(samples: np.ndarray, pad_s: float = 0.15) -> np.ndarray:
    """The stretch of a recording from its first to its last loud 20 ms (within 25 dB of the
    loudest), with ``pad_s`` either side: what was said, without the wait around it."""
    from referee.speech.types import SAMPLE_RATE

    frame = 320
    n = len(samples) // frame
    if n == 0:
        return samples
    db = 10 * np.log10(np.mean(samples[: n * frame].reshape(n, frame) ** 2, axis=1) + 1e-12)
    loud = np.flatnonzero(db >= db.max() - 25)
    pad = int(pad_s * SAMPLE_RATE)
    return samples[max(0, loud[0] * frame - pad) : min(len(samples), (loud[-1] + 1) * frame + pad)]


def _record_from_mic(players: list[str], args: argparse.Namespace) -> dict[str, list[np.ndarray]]:
    """Prompt each player by name and record their answers."""
    from referee.errors import UserError
    from referee.speech.audio import MicSource, level_problem, list_input_devices

    if not list_input_devices():
        raise UserError(
            "No microphone found. Plug one in, or give recordings with --from DIR "
            "(DIR/<Player>-<N>.wav)."
        )
    voice = None
    if not args.silent:
        try:
            from referee.voice import Voice

            voice = Voice(on_error=lambda m: print(f"referee: {m}", file=sys.stderr))
        except Exception as err:  # no voice: the prompts are printed all the same
            print(f"referee: cannot speak the prompts ({err}); read them here", file=sys.stderr)
    samples: dict[str, list[np.ndarray]] = {p: [] for p in players}
    try:
        for _ in range(max(1, args.rounds)):
            for player in players:
                for prompt in PROMPTS:
                    text = prompt.format(name=player)
                    print(text, flush=True)
                    if voice is not None:
                        voice.say(text)
                        deadline = time.monotonic() + 8
                        while voice.speaking() and time.monotonic() < deadline:
                            time.sleep(0.05)
                        time.sleep(0.2)
                    chunks = list(MicSource(args.mic, seconds=args.seconds))
                    audio = np.concatenate([c.samples for c in chunks]) if chunks else None
                    if audio is None or level_problem(audio) == "silent":
                        raise UserError("the microphone recorded nothing: is it muted?")
                    samples[player].append(speech_span(audio))
    finally:
        if voice is not None:
            voice.close(timeout=5)
    return samples


def report(profile) -> list[str]:
    """Lines for the table: each voice's match to its own samples and to the nearest other
    voice (centred cosines, :meth:`~referee.speech.speakers.SpeakerProfile.pairwise`: 1 is
    the same voice; the table's voices spread out from 0)."""
    sims, within = profile.pairwise()
    lines = []
    for i, p in enumerate(profile.players):
        others = [(float(sims[i, k]), q.name) for k, q in enumerate(profile.players) if k != i]
        near = max(others) if others else (0.0, "-")
        lines.append(f"  {p.name}: {len(p.samples)} samples, like their own voice >= "
                     f"{within[i]:.2f}, nearest other voice {near[1]} {near[0]:.2f}")  # fmt: skip
    return lines


def run_voices(args: argparse.Namespace) -> int:
    from referee.errors import UserError
    from referee.speech import speakers

    players = [p.strip() for p in args.players.split(",") if p.strip()]
    if len(players) < 2:
        raise UserError("name at least two players: --players Alice,Ben")
    if len(set(p.lower() for p in players)) != len(players):
        raise UserError(f"--players names someone twice: {args.players}")
    if not speakers.valid_name(args.name):
        raise UserError(f"profile name {args.name!r}: use letters, digits, '-', '_' or '.'")
    t0 = time.time()
    problems: list[str] = []
    if args.source is not None:
        if not args.source.is_dir():
            raise UserError(f"no such folder: {args.source}")
        try:
            samples, problems = speakers.load_samples(args.source, players)
        except speakers.VoiceProfileError as err:
            raise UserError(str(err)) from None
        source = str(args.source)
    else:
        samples = _record_from_mic(players, args)
        source = f"microphone {args.mic or 'default'}"
    for p in problems:
        print(f"referee: warning: {p}", file=sys.stderr)
    try:
        profile = speakers.SpeakerProfile.enroll(args.name, samples, source=source)
    except speakers.VoiceProfileError as err:
        raise UserError(str(err)) from None
    folder = args.out or speakers.profiles_dir() / args.name
    path = profile.save(folder)
    print(f"voices {args.name!r}: {', '.join(players)} from {source} in "
          f"{time.time() - t0:.0f} s -> {path}")  # fmt: skip
    for line in report(profile):
        print(line)
    single = [p.name for p in profile.players if len(p.samples) < 2]
    if single:
        print("referee: warning: one sample only for " + ", ".join(single) + ": their voices "
              "could not be checked; record two or more", file=sys.stderr)  # fmt: skip
    confused = profile.confusions()
    if confused:
        for a, b, _ in confused:
            print(f"referee: warning: {a} and {b} sound alike to the referee: a bare call by "
                  f"either may be asked about or taken for the other's; name yourself when "
                  f"calling (\"{a}, cheat!\")", file=sys.stderr)  # fmt: skip
    else:
        print("every voice is told apart")
    target = args.name if args.out is None else folder
    print(f"use it with: referee play --players {','.join(players)} --voices {target}")
    return 0
