"""Whatever a transcript or a journal holds, the referee gives a message, not a traceback,
and keeps every good line before a bad one (issue 17, case 10 and the random inputs)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.cli import main
from referee.game.cards import RANKS
from referee.game.engine import legal_ranks
from referee.game.events import EVENT_TYPES
from referee.game.rules import Rules
from referee.session import Session
from referee.store.journal import Journal, JournalError

PLAYERS = "Alice,Ben,Cara"


def replay_bytes(capsys, tmp: Path, data: bytes, *args: str) -> tuple[list[dict], str, int]:
    path = tmp / "events.jsonl"
    path.write_bytes(data)
    code = main(["replay", str(path), "--players", PLAYERS, *args])
    captured = capsys.readouterr()
    return [json.loads(line) for line in captured.out.splitlines()], captured.err, code


def test_a_t_of_5000_digits_is_a_named_bad_line(capsys, tmp_path):
    data = b'{"heard": "two aces"}\n{"heard": "one two", "t": ' + b"9" * 5000 + b"}\n"
    data += b'{"heard": "one two"}\n'
    out, err, code = replay_bytes(capsys, tmp_path, data)
    assert code == 0 and "line 2" in err and "Traceback" not in err
    assert out[-1]["state"]["pile"] == 3


def test_an_infinite_t_is_a_named_bad_line(capsys, tmp_path):
    out, err, code = replay_bytes(capsys, tmp_path, b'{"heard": "two aces", "t": Infinity}\n')
    assert code == 0 and "line 1" in err and out[-1]["state"]["pile"] == 0


def test_a_claim_of_no_rank_is_a_named_bad_line(capsys, tmp_path):
    """Hypothesis found it: a claim event with rank "" reached the engine, whose refusal
    ("Twos are due, not ...") named the rank, and the replay ended in a KeyError."""
    data = b'{"heard": "two aces"}\n{"event": "claim", "count": 0, "rank": ""}\n'
    data += b'{"heard": "one two"}\n'
    out, err, code = replay_bytes(capsys, tmp_path, data)
    assert code == 0 and "line 2" in err and "rank=''" in err and "Traceback" not in err
    assert out[-1]["state"]["pile"] == 3


def test_a_lone_surrogate_is_a_named_bad_line(capsys, tmp_path):
    data = b'{"heard": "\\ud800"}\n{"event": "name", "name": "\\udfff"}\n{"heard": "two aces"}\n'
    out, err, code = replay_bytes(capsys, tmp_path, data)
    assert code == 0 and "line 1" in err and "line 2" in err
    assert out[-1]["state"]["pile"] == 2


def test_a_line_that_is_not_utf8_is_skipped_and_the_rest_kept(capsys, tmp_path):
    data = b'{"heard": "two aces"}\n{"heard": "caf\xe9"}\n{"heard": "one two"}\n'
    out, err, code = replay_bytes(capsys, tmp_path, data)
    assert code == 0 and "line 2" in err and "UTF-8" in err
    assert out[-1]["state"]["pile"] == 3


def test_a_line_too_long_is_skipped(capsys, tmp_path):
    data = b'{"heard": "two aces"}\n{"heard": "' + b"x" * (2 << 20) + b'"}\n{"heard": "one two"}\n'
    out, err, code = replay_bytes(capsys, tmp_path, data)
    assert code == 0 and "line 2" in err and "longer than" in err
    assert out[-1]["state"]["pile"] == 3


def _bounded(*args: str) -> subprocess.CompletedProcess:
    """``referee ARGS`` in a process held to 2 GB and 60 s (a device read whole would take
    all the machine's memory)."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    return subprocess.run([sys.executable, "-m", "referee", *args], capture_output=True,
                          text=True, timeout=60, preexec_fn=limit)  # fmt: skip


def test_a_device_as_transcript_is_refused_and_dev_null_is_empty():
    done = _bounded("replay", "/dev/zero", "--players", PLAYERS)
    assert done.returncode == 2 and "is a device" in done.stderr
    done = _bounded("replay", "/dev/null", "--players", PLAYERS)
    assert done.returncode == 0 and json.loads(done.stdout.splitlines()[-1])["state"]["pile"] == 0


def test_a_device_as_journal_is_refused():
    done = _bounded("replay", "/dev/null", "--resume", "--journal", "/dev/zero")
    assert done.returncode == 2 and "not a regular file" in done.stderr
    assert "Traceback" not in done.stderr


# --- random lines: no traceback, every good line before a bad one kept --------------------

GOOD = [b'{"heard": "two aces"}', b'{"heard": "one two"}', b'{"heard": "one three"}']
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "heard",
                    "saw",
                    "t",
                    "event",
                    "count",
                    "rank",
                    "caller",
                    "name",
                    "cards",
                    "honest",
                    "note",
                    "x",
                ]
            )
            | st.text(),
            children,
            max_size=4,
        )
    ),  # fmt: skip
    max_leaves=12,
)
names = st.sampled_from(["Alice", "Ben", "Cara", "Dev", ""]) | st.text(max_size=5)
event_lines = st.fixed_dictionaries(
    {"event": st.sampled_from(sorted(EVENT_TYPES))},
    optional={"count": st.integers(-3, 60) | st.integers(), "rank": st.sampled_from(RANKS)
              | st.text(max_size=3), "caller": names | st.none(), "target": names | st.none(),
              "name": names, "honest": st.booleans(), "t": st.floats(-10, 1e6),
              "cards": st.lists(st.sampled_from(["AH", "2S", "10D", "KC", "JK"]) | st.text(
                  max_size=3), max_size=6)},
)  # fmt: skip
random_line = st.one_of(
    st.binary(max_size=60).map(lambda b: b.replace(b"\n", b"")),
    json_values.map(lambda v: json.dumps(v).encode()),
    event_lines.map(lambda v: json.dumps(v).encode()),
)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(random_line, min_size=1, max_size=4))
def test_random_transcript_lines_never_crash_and_keep_the_good_lines(tmp_path_factory, lines):
    import contextlib
    import io

    tmp = tmp_path_factory.mktemp("random")
    path = tmp / "events.jsonl"
    path.write_bytes(b"\n".join([GOOD[0], *lines, GOOD[1]]) + b"\n")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["replay", str(path), "--players", PLAYERS, "--journal", str(tmp / "j")])
    assert code == 0, err.getvalue()
    printed = [json.loads(x) for x in out.getvalue().splitlines()]
    assert "Alice: two aces." in [x.get("say") for x in printed]  # the good line before
    assert "Traceback" not in err.getvalue()
    # the journal holds what the session accepted: resuming it gives the same state
    resumed = Session.resume(tmp / "j")
    state = resumed.state
    assert (
        state.to_dict(legal_ranks(state) if state.phase != "over" else ()) == printed[-1]["state"]
    )
    resumed.close()


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(json_values | st.binary(max_size=40), min_size=1, max_size=3), st.booleans())
def test_random_journal_entries_resume_to_a_message_or_a_game(tmp_path_factory, values, raw):
    """Random bytes and JSON values written as journal lines (JSON objects with their
    checksums, as if the referee had written them, or anything appended raw): resuming either
    works or says which line is wrong, and never changes the file's good lines."""
    tmp = tmp_path_factory.mktemp("journal")
    path = tmp / "j.jsonl"
    live = Session.start(["Alice", "Ben"], Rules(), path)
    live.hear("two aces")
    live.close()
    good = path.read_bytes()
    if raw:
        with open(path, "ab") as f:
            f.write(b"".join((v if isinstance(v, bytes) else json.dumps(v).encode()) + b"\n"
                             for v in values))  # fmt: skip
    else:
        journal = Journal(path)
        for value in values:
            if isinstance(value, dict) and "h" not in value:
                journal._write(value)
        journal.close()
    try:
        resumed = Session.resume(path)
    except JournalError as err:
        assert "line" in str(err) or "journal" in str(err)
    else:
        assert resumed.state.pile_size >= 0
        resumed.close()
    assert path.read_bytes().startswith(good)
