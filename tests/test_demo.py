"""``referee demo`` is the end-to-end test: espeak voices through the real recognizer, rendered
photos through the real detector, the real engine and voice, with the network blocked."""

from __future__ import annotations

import json
import wave

from tests.test_offline import run_offline


def test_the_demo_plays_every_kind_of_call_offline(tmp_path):
    out = tmp_path / "demo"
    done, attempts = run_offline(tmp_path, "demo", "--out", str(out), "--json", timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert attempts == "", attempts
    lines = [json.loads(x) for x in done.stdout.splitlines() if x.startswith("{")]
    verdicts = [x for x in lines if x.get("kind") == "verdict"]
    # a lie caught: the claimer picks up
    assert any(not v["honest"] and v["loser"] != "Cara" and "lied" in v["say"] for v in verdicts)
    # an honest play wrongly called: the caller picks up
    assert any(v["honest"] and v["loser"] == "Ben" for v in verdicts)
    # the last cards win
    assert any(x.get("kind") == "win" and x["winner"] == "Alice" for x in lines)
    state = lines[-1]["state"]
    assert state["winner"] == "Alice" and state["wins"]["Alice"] == 1
    # the cards were read by the camera, not judged by voice
    assert not any(x.get("kind") == "ask_verdict" for x in lines)
    with wave.open(str(out / "voice.wav")) as voice:
        assert voice.getnframes() / voice.getframerate() > 20  # every announcement was spoken
