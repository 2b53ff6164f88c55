"""``referee play`` with a simulated microphone (a wav) and camera (image files): the real
recognizer, engine, journal and voice, including a camera failure and a resume after a kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from referee.speech.audio import write_wav
from referee.speech.synth import synthesize

PLAYERS = "Alice,Ben,Cara"


def table_audio(path: Path, lines: list[tuple[float, str]], total: float | None = None) -> Path:
    """A recording of the table: each (time, phrase) spoken at that time over a faint hiss."""
    spoken = [(t, synthesize(text, voice="en-us", speed=150)) for t, text in lines]
    end = total or max(t + len(s) / 16_000 for t, s in spoken) + 8.0
    audio = np.random.default_rng(0).normal(0, 0.002, int(end * 16_000)).astype(np.float32)
    for t, samples in spoken:
        start = int(t * 16_000)
        audio[start : start + len(samples)] += samples
    return write_wav(path, audio)


def play(
    tmp_path: Path, *args: str, timeout: float = 300
) -> tuple[list[dict], subprocess.CompletedProcess]:
    env = {**os.environ, "REFEREE_DATA_DIR": str(tmp_path / "data")}
    env.pop("DISPLAY", None)
    done = subprocess.run(
        [sys.executable, "-m", "referee", "play", "--no-window", "--json", "--journal",
         str(tmp_path / "journal.jsonl"), "--db", str(tmp_path / "scores.db"), *args],
        env=env, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    lines = [json.loads(x) for x in done.stdout.splitlines() if x.startswith("{")]
    return lines, done


def says(lines: list[dict]) -> list[str]:
    return [x["say"] for x in lines if "say" in x]


def test_no_camera_means_a_spoken_verdict(tmp_path):
    wav = table_audio(tmp_path / "table.wav", [(7.0, "two aces"), (14.0, "cheat Ben"),
                                               (24.0, "lie"), (34.0, "one two")])  # fmt: skip
    ears = tmp_path / "ears.wav"
    lines, done = play(tmp_path, "--players", PLAYERS, "--audio", str(wav), "--no-camera",
                       "--tts-out", str(tmp_path / "voice.wav"),
                       "--ears-out", str(ears))  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = says(lines)
    assert "Ben calls cheat on Alice. Alice, turn the cards over." in said
    assert "No camera here: say true or lie." in said
    assert "Alice lied. Alice picks up the pile, two cards." in said
    state = lines[-1]["state"]
    assert state["hands"] == {"Alice": 18, "Ben": 16, "Cara": 17}
    assert (tmp_path / "voice.wav").stat().st_size > 50_000
    # --ears-out: what the ears were fed, what they heard in it and when they were shut
    from referee.speech.audio import read_wav

    heard_audio = read_wav(ears)
    assert len(heard_audio) == pytest.approx(len(read_wav(wav)), abs=16_000)
    log = [json.loads(x) for x in ears.with_suffix(".wav.jsonl").read_text().splitlines()]
    heard = [x["heard"]["intent"] for x in log if "heard" in x]
    assert {"type": "claim", "count": 2, "rank": "A"} in heard
    assert {"type": "call", "caller": "Ben"} in heard
    assert any("muted" in x for x in log)


def test_a_bare_call_waits_for_the_callers_name(tmp_path):
    # "Cheat!", a breath, "Ben": the referee must not ask "Who called?" over the name
    cheat_ends = 14.0 + len(synthesize("cheat", voice="en-us", speed=150)) / 16_000
    wav = table_audio(tmp_path / "table.wav", [(7.0, "two aces"), (14.0, "cheat"),
                                               (cheat_ends + 0.45, "Ben")])  # fmt: skip
    lines, done = play(tmp_path, "--players", PLAYERS, "--audio", str(wav), "--no-camera")
    assert done.returncode == 0, done.stderr
    said = says(lines)
    assert "Ben calls cheat on Alice. Alice, turn the cards over." in said
    assert not any("Who called" in x for x in said)


def test_a_game_killed_mid_play_resumes_exactly(tmp_path):
    first = table_audio(tmp_path / "first.wav", [(7.0, "two aces"), (14.0, "one two")], total=60)
    env = {**os.environ, "REFEREE_DATA_DIR": str(tmp_path / "data")}
    env.pop("DISPLAY", None)
    journal = tmp_path / "journal.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "play", "--no-window", "--json", "--no-camera",
         "--realtime", "--players", PLAYERS, "--journal", str(journal), "--audio", str(first),
         "--db", str(tmp_path / "scores.db")],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    for line in proc.stdout:  # wait until Ben's claim was taken, then pull the plug
        if '"Ben: one two."' in line:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    rest = table_audio(tmp_path / "rest.wav", [(6.0, "one three")])
    lines, done = play(tmp_path, "--resume", "--audio", str(rest), "--no-camera")
    assert done.returncode == 0, done.stderr
    assert says(lines)[:2] == ["Back to game 1.", "Cara, threes."]
    state = lines[-1]["state"]
    assert state["pile"] == 4 and state["turn"] == "Alice" and state["rank_due"] == "4"
    assert state["hands"] == {"Alice": 16, "Ben": 16, "Cara": 16}


def test_no_microphone_is_a_clear_message(tmp_path):
    lines, done = play(tmp_path, "--players", PLAYERS, "--no-camera")
    assert done.returncode == 2
    assert "No microphone found. Plug one in or run `referee demo`." in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("args", [["--players", "Solo"], ["--resume"]])
def test_bad_starts_are_clear(tmp_path, args):
    wav = table_audio(tmp_path / "t.wav", [(0.5, "two aces")])
    _, done = play(tmp_path, *args, "--audio", str(wav), "--no-camera")
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_a_camera_that_fails_mid_game_falls_back_to_a_spoken_verdict(tmp_path):
    from referee.live.demo import reveal_photo

    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "1-broken.png").write_bytes(b"not a picture")  # the camera dies on the first call
    import cv2

    cv2.imwrite(str(frames / "2-five.png"), reveal_photo(("5H",), seed=3))
    wav = table_audio(tmp_path / "table.wav", [(7.0, "two aces"), (14.0, "cheat Ben"),
                                               (25.0, "true"), (35.0, "one two"),
                                               (42.0, "cheat Cara")])  # fmt: skip
    lines, done = play(tmp_path, "--players", PLAYERS, "--audio", str(wav), "--frames",
                       str(frames))  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = says(lines)
    assert "The camera stopped sending pictures. Say true or lie." in said, said
    assert "Alice told the truth. Ben picks up the pile, two cards." in said
    assert "One five: Ben lied. Ben picks up the pile, one card." in said
    assert lines[-1]["state"]["hands"] == {"Alice": 16, "Ben": 19, "Cara": 17}


def _started(tmp_path: Path, *args: str) -> subprocess.Popen:
    wav = table_audio(tmp_path / "table.wav", [(7.0, "two aces")], total=60)
    env = {**os.environ, "REFEREE_DATA_DIR": str(tmp_path / "data")}
    env.pop("DISPLAY", None)
    return subprocess.Popen(
        [sys.executable, "-m", "referee", "play", "--no-window", "--json", "--no-camera",
         "--realtime", "--players", PLAYERS, "--journal", str(tmp_path / "journal.jsonl"),
         "--audio", str(wav), "--db", str(tmp_path / "scores.db"), *args],
        env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip


@pytest.mark.parametrize("how", ["sigint", "key"])
def test_stopping_by_ctrl_c_or_a_key_still_prints_the_final_state(tmp_path, how):
    proc = _started(tmp_path, *(["--keys"] if how == "key" else []))
    assert proc.stdout is not None and proc.stdin is not None
    for line in proc.stdout:  # the claim was taken: stop the evening
        if '"Ben, twos."' in line:
            break
    if how == "sigint":
        proc.send_signal(signal.SIGINT)
    else:
        proc.stdin.write("q\n")
        proc.stdin.flush()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    last = json.loads(out.splitlines()[-1])
    assert last["state"]["pile"] == 2 and last["state"]["turn"] == "Ben"
    assert "Traceback" not in err


def test_the_ears_tape_lets_chunks_pass_once_closed(tmp_path):
    # the game may end while the ears' thread is still feeding a chunk: no error in that
    # thread, nothing written after the close, the log beside the wav
    from referee.live.cli import EarsTape
    from referee.speech.audio import Chunk, read_wav

    tape = EarsTape(tmp_path / "ears.wav")
    chunks = tape.tee(Chunk(i * 0.1, np.full(1600, 0.1, np.float32)) for i in range(4))
    assert next(chunks).start == 0.0
    tape.close([], [(0.5, 1.0)])
    assert [c.start for c in chunks] == pytest.approx([0.1, 0.2, 0.3])
    assert len(read_wav(tmp_path / "ears.wav")) == 1600
    log = (tmp_path / "ears.wav.jsonl").read_text().splitlines()
    assert json.loads(log[-1]) == {"muted": {"at": 0.5, "until": 1.0}}
