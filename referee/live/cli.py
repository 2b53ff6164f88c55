"""``referee play``: the live referee at the table.

Real devices by default (microphone, webcam, speakers, a window). For machines without them
and for tests, file sources stand in: ``--audio FILE.wav`` plays a recording as the
microphone, ``--frames DIR`` shows its images as the camera (one per reveal), ``--tts-out``
writes the voice to a wav, ``--keys`` reads typed fallbacks from standard input.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from referee.errors import UserError, warn
from referee.game.announce import Announcement
from referee.game.rules import PRESETS
from referee.game.view import view
from referee.live.events import Stop
from referee.live.loading import Loading, begin, loaded
from referee.session import Session


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", help="names clockwise, comma separated (first plays first)")
    parser.add_argument("--rules", default="classic", help=f"preset: {', '.join(PRESETS)}")
    parser.add_argument("--set", dest="settings", action="append", default=[],
                        metavar="KEY=VALUE", help="a house rule (repeatable)")  # fmt: skip
    parser.add_argument(
        "--scoring", default="wins", help="wins|ranked|first_to:N|penalty|classic_order|trust_me"
    )
    parser.add_argument("--mic", help="microphone: device index or part of its name")
    parser.add_argument("--camera", type=camera_index, default=0, help="camera index (default 0)")
    parser.add_argument("--no-camera", action="store_true", help="judge by spoken verdicts only")
    parser.add_argument("--deck", help="a calibrated deck profile name")
    parser.add_argument("--voices", metavar="NAME",
                        help="a voice profile (calibrate voices): a bare call is credited to "
                        "its caller's voice")  # fmt: skip
    parser.add_argument("--no-learn-voices", dest="learn_voices", action="store_false",
                        help="without --voices: do not come to know the players' voices "
                        "from their claims (a bare call is then always asked about)")  # fmt: skip
    parser.add_argument("--db", help="score database (default: user data dir or REFEREE_DB)")
    parser.add_argument("--resume", action="store_true", help="continue the game in the journal")
    parser.add_argument("--list", action="store_true",
                        help="with --resume: list the games it can continue; stop")  # fmt: skip
    parser.add_argument("--journal", type=Path, help="journal file (default: user data dir)")
    parser.add_argument("--backend", help="speech recognizer backend")
    parser.add_argument("--vosk-model", help="a Vosk model folder (for --backend vosk)")
    parser.add_argument("--audio", type=Path, help="a wav file played as the microphone")
    parser.add_argument(
        "--realtime",
        action="store_true",
        help="play --audio at the speed it was recorded, not as fast as possible",
    )
    parser.add_argument("--frames", type=Path, help="a folder of images shown as the camera")
    parser.add_argument("--tts-out", type=Path, help="write everything said to this wav")
    parser.add_argument(
        "--keys",
        action="store_true",
        help="also read typed input: h honest, l lie, u undo, q quit, or a phrase",
    )
    parser.add_argument("--no-window", action="store_true", help="no screen window")
    parser.add_argument(
        "--brief", action="store_true",
        help="show each claim, don't say it back: the ears (shut while the referee speaks) "
        "open about a second sooner for calls",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print announcements as JSON lines")
    parser.add_argument(
        "--ears-out", type=Path, metavar="WAV",
        help="keep what the ears heard (the microphone, its echo cancelled) in this wav, and "
        "beside it (WAV.jsonl) what was heard in it and when the ears were shut: to find out "
        "afterwards why something was or was not heard",
    )  # fmt: skip


def _printer(as_json: bool):
    def on_say(announcement: Announcement, at: float) -> None:
        if as_json:
            print(json.dumps({"t": round(at, 2), **announcement.to_dict()}), flush=True)
        else:
            print(f"[{at:7.1f}s] {announcement.text}", flush=True)

    return on_say


def camera_index(text: str) -> int:
    """``--camera N``: a device index, 0 or more (OpenCV crashes reading camera -1)."""
    try:
        index = int(text)
    except ValueError:
        index = -1
    if index < 0:
        raise argparse.ArgumentTypeError(f"a camera is a number 0, 1, 2 ..., not {text!r}")
    return index


def open_session(args: argparse.Namespace) -> Session:
    """A new match, or the one in the journal with ``--resume`` (:func:`referee.session.open`)."""
    from referee import session as sessions

    return sessions.open(
        args.players, rules=args.rules, settings=args.settings, journal=args.journal,
        resume=args.resume, db=args.db, scoring=args.scoring, source="play",
    )  # fmt: skip


def list_saved(args: argparse.Namespace) -> int:
    """``play --resume --list``: the games a resume can continue, the latest first."""
    from referee.session import saved

    listed = saved(args.journal)
    for entry in listed:
        print(json.dumps(entry.to_dict()) if args.json else entry.describe(), flush=True)
    if not listed:
        print("referee: no saved games to resume", file=sys.stderr)
    return 0


def check_tts_out(path: Path | None) -> None:
    """``--tts-out`` is written when the game ends: refuse now what could not be written then."""
    import os

    if path is None:
        return
    if path.is_dir():
        raise UserError(f"--tts-out {path} is a folder; give a file, e.g. {path / 'voice.wav'}")
    folder = path.parent
    if not folder.is_dir():
        raise UserError(f"--tts-out {path}: there is no folder {folder}")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UserError(f"--tts-out {path}: cannot write there")


def make_recognizer(args: argparse.Namespace) -> Any:
    from referee.speech import make_recognizer as build

    options: dict[str, Any] = {}
    if args.vosk_model:
        options["model_dir"] = args.vosk_model
    return build(args.backend, **options)


def warn_about_names(recognizer: Any, players: Sequence[str]) -> None:
    """Print which players' names the recognizer may mix up (espeak-ng probes, ~1 s a name)."""
    from referee.speech.names import confusable_names, warnings
    from referee.speech.synth import espeak_available

    if espeak_available():
        for line in warnings(confusable_names(recognizer, players), players):
            warn(line)


def _voiced(args: argparse.Namespace, voices: Any, kept: Path | None = None) -> Any:
    """The recognizer saying each utterance's speaker by ``voices`` (a SpeakerProfile),
    what play teaches them kept in ``kept``. Voices only to be learned in play that cannot
    be (the voice encoder or its space missing or damaged) leave the game to go on without
    them, saying so."""
    from referee.speech.speakers import VoiceProfileError, voiced

    recognizer = make_recognizer(args)
    try:
        return voiced(recognizer, voices, kept)
    except VoiceProfileError as err:
        if not voices.heard_only:
            raise
        warn(f"{err}; the players' voices are not learned tonight: a bare call is asked about")
        return recognizer


def restore_voices(voices: Any, session: Session, resume: bool) -> Path | None:
    """Where what play teaches ``voices`` is kept: beside the game's journal. A resumed game
    (a crash, a closed lid) knows again the voices it had learned that evening
    (:meth:`SpeakerProfile.restore_learned`); a new one starts afresh."""
    if voices is None or session.journal is None:
        return None
    from referee.speech.speakers import VoiceProfileError

    kept = session.journal.path.with_suffix(".voices.npz")
    if not resume:
        kept.unlink(missing_ok=True)
        return kept
    try:
        restored = voices.restore_learned(kept)
    except VoiceProfileError as err:
        warn(f"{err}; the voices are learned anew from the claims")
        return kept
    if restored:
        warn(f"the players' voices learned before are known again ({restored} heard)")
    return kept


def make_audio(
    args: argparse.Namespace,
    on_level: Callable[[str], None] | None = None,
    clean: Callable[[Any, float], Any] | None = None,
) -> Any:
    """The microphone (its level watched: ``on_level`` hears when it goes silent or clips;
    default :func:`referee.errors.warn`; ``clean`` takes the referee's own voice out of it,
    see :class:`referee.speech.audio.MicSource`), or the ``--audio`` recording standing in
    for it."""
    from referee.speech.audio import MicSource, WavSource

    if args.audio:
        from referee.speech.audio import recording_problems

        source = WavSource(args.audio)
        for problem in recording_problems(args.audio, source.samples):
            warn(problem)  # as `listen` does
        return paced(source) if args.realtime else source
    from referee.speech.audio import list_input_devices, watch_levels

    if not list_input_devices():
        raise UserError("No microphone found. Plug one in or run `referee demo`.")
    return watch_levels(MicSource(args.mic, clean=clean), on_level or warn)


class EarsTape:
    """``--ears-out``: the chunks the ears are fed, written to a 16-bit wav as they pass
    (an evening is 115 MB an hour), and at the end a JSON-lines log beside it.

    The ears' thread may still be feeding a chunk when the game ends: once closed, the tape
    lets chunks pass unwritten (a write to a closed wav raised in that thread)."""

    def __init__(self, path: Path) -> None:
        import wave

        self.path = path
        self._lock = threading.Lock()
        self._closed = False
        self._wav = wave.open(str(path), "wb")  # noqa: SIM115 - closed in close()
        self._wav.setnchannels(1)
        self._wav.setsampwidth(2)
        self._wav.setframerate(16_000)
        self.start: float | None = None

    def tee(self, source: Any) -> Any:
        import numpy as np

        for chunk in source:
            if self.start is None:
                self.start = chunk.start
            pcm = np.clip(np.asarray(chunk.samples) * 32767.0, -32768, 32767).astype("<i2")
            with self._lock:
                if not self._closed:
                    self._wav.writeframes(pcm.tobytes())
            yield chunk

    def close(self, heard: list[dict], mutes: Iterable[tuple[float, float]]) -> None:
        with self._lock:
            self._closed = True
            self._wav.close()
        lines = [{"wav_starts_at": self.start}]
        lines += [{"heard": h} for h in heard]
        lines += [{"muted": {"at": round(at, 3), "until": round(until, 3)}} for at, until in mutes]
        self.path.with_suffix(self.path.suffix + ".jsonl").write_text(
            "".join(json.dumps(line) + "\n" for line in lines)
        )


def paced(source: Any) -> Any:
    """Deliver recorded chunks no faster than they were recorded, like a microphone."""
    began = time.monotonic()
    for chunk in source:
        ahead = chunk.start - (time.monotonic() - began)
        if ahead > 0:
            time.sleep(ahead)
        yield chunk


def make_eyes(args: argparse.Namespace) -> tuple[Any, Any]:
    """(camera feed, card reader); (None, None) when judging by voice only. The reader's
    models load in the background (:class:`referee.live.loading.Loading`)."""
    if args.no_camera:
        return None, None
    from referee.live.camera import CameraError, ImageFeed, Webcam

    try:
        camera = ImageFeed.from_folder(args.frames) if args.frames else Webcam(args.camera)
    except CameraError as err:
        raise UserError(str(err)) from None
    if isinstance(camera, Webcam):  # a missing camera is told now, not at the first reveal
        try:
            next(iter(camera.frames()), None)
        except CameraError as err:
            warn(f"{err} (Until it works, each called play is judged by a spoken true or "
                 "lie; --camera N picks another camera.)")  # fmt: skip
    return camera, Loading(lambda: _card_reader(args.deck), "reader", start=False)


def _card_reader(deck: str | None) -> Any:
    from referee.vision import CardReader  # slow to import too: in the loading thread

    return CardReader(deck=deck)


def make_voice(args: argparse.Namespace, post: Callable[[Any], None]) -> Any:
    """The referee's voice (spawned first: its worker starts while the rest loads), posting
    its progress to the loop when it can (``Voice(on_event=...)``)."""
    import inspect

    from referee.live.loop import voice_events
    from referee.voice import Voice

    options: dict[str, Any] = {"on_error": warn}  # no sound, say why (once)
    if "on_event" in inspect.signature(Voice).parameters:
        options["on_event"] = voice_events(post)
    return Voice(args.tts_out, **options)


def check_names_later(recognizer: Any, args: argparse.Namespace, players: Sequence[str]) -> None:
    """The names check in the background, on a recognizer of its own, once the game's own
    has loaded (so that the first sentence is not kept waiting ~1 s a name)."""
    import os

    def check() -> None:
        with contextlib.suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        try:
            loaded(recognizer)
            warn_about_names(make_recognizer(args), players)
        except Exception as err:  # noqa: BLE001 - a warning only: the game goes on
            warn(f"the names check failed ({err})")

    threading.Thread(target=check, name="names", daemon=True).start()


def _stop_on_sigint(referee: Any) -> Callable[[], bool]:
    """Ctrl-C stops the loop at the next event (so the final state is printed); a second
    one interrupts at once."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        return lambda: False
    hit: list[bool] = []

    def on_sigint(_signum: int, _frame: Any) -> None:
        if hit:
            raise KeyboardInterrupt
        hit.append(True)
        referee.post(Stop("interrupted"))

    signal.signal(signal.SIGINT, on_sigint)
    return lambda: bool(hit)


def _print_final(session: Session, as_json: bool) -> None:
    shown = view(session.state)
    print(json.dumps({"state": shown}) if as_json else f"referee: {shown['wins']}", flush=True)


def _played_printer() -> Callable[[Announcement, float | None, float], None]:
    """``play --json``: a line for each sentence once the voice has said it (audio times;
    ``started`` only when the voice tells)."""

    def on_played(announcement: Announcement, started: float | None, ended: float) -> None:
        line: dict[str, Any] = {"played": announcement.text, "kind": announcement.kind}
        if started is not None:
            line["started"] = round(started, 2)
        line["ended"] = round(ended, 2)
        print(json.dumps(line), flush=True)

    return on_played


def _keyboard() -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in sys.stdin:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


def run(args: argparse.Namespace) -> int:
    from referee.live.loop import LiveReferee
    from referee.live.screen import Window

    if args.list:
        return list_saved(args)
    check_tts_out(args.tts_out)
    referee: LiveReferee | None = None

    def on_level(message: str) -> None:  # the microphone's level: on the screen as well
        warn(message)
        if referee is not None:
            referee.notice(message)

    echo: list[Any] = []  # the voice's echo stage, once there is a voice (before any sound)
    audio = make_audio(args, on_level, clean=lambda s, at: echo[0](s, at) if echo else s)
    tape = EarsTape(args.ears_out) if getattr(args, "ears_out", None) else None
    if tape is not None:
        audio = tape.tee(audio)
    session = open_session(args)
    voice = make_voice(args, lambda event: referee.post(event) if referee else None)
    stage = getattr(voice, "echo_stage", lambda _warn: None)(warn)  # None: nothing to cancel
    if stage is not None:  # the ears may stay open while the referee speaks (barge-in)
        echo.append(stage)
    # the models load while the referee greets the table (begun once the greeting is on its
    # way: their imports would slow it down; the loop waits for them only once it is said);
    # the names check, slowest of all, after them
    voices = None
    if args.voices:  # a bare "Cheat!" is credited to its voice (Heard.speaker)
        from referee.speech.speakers import for_table

        voices = for_table(args.voices, session.state.players, warn=warn)
    elif getattr(args, "learn_voices", True):  # ...once the claims have taught the voices
        from referee.speech.speakers import SpeakerProfile

        voices = SpeakerProfile.heard_in_play(session.state.players)
    kept = restore_voices(voices, session, args.resume)
    recognizer = Loading(
        lambda: make_recognizer(args) if voices is None else _voiced(args, voices, kept),
        "recognizer",
        start=False,
    )
    camera, reader = make_eyes(args)
    printer, greeted = _printer(args.json), []

    def on_say(announcement: Announcement, at: float) -> None:
        printer(announcement, at)
        if not greeted:  # the greeting is on its way: load what the game needs
            greeted.append(True)
            begin(recognizer, reader)
            if not args.audio:  # a real table: say which names the ears may mix up
                check_names_later(recognizer, args, session.state.players)

    window = None if args.no_window else Window()
    referee = LiveReferee(
        session, recognizer, audio, camera=camera, reader=reader, voice=voice,
        window=window, keys=_keyboard() if args.keys else None, on_say=on_say,
        on_played=_played_printer() if args.json else None,
        follow_voice=not args.audio and not args.tts_out,  # the voice sounds where it listens
        live_audio=not args.audio or args.realtime,
        unsaid=frozenset({"claim"} if args.brief else ()),
    )  # fmt: skip
    interrupted = _stop_on_sigint(referee)
    try:
        referee.run()
        if interrupted():
            print("referee: stopped; `referee play --resume` continues this game", file=sys.stderr)
        _print_final(session, args.json)
    except KeyboardInterrupt:  # a second Ctrl-C, or one before the loop could stop
        print("referee: stopped; `referee play --resume` continues this game", file=sys.stderr)
        _print_final(session, args.json)
    finally:
        session.close()
        if tape is not None:
            tape.close(referee.heard_log, getattr(referee.recognizer, "mutes", []))
        written = voice.close()
        if window:
            window.close()
        if camera:
            camera.close()
        if written:
            print(f"referee: voice written to {written}", file=sys.stderr)
    return 0
