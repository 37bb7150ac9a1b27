"""Golden playthroughs: recorded matches replay to their recorded results, and broken records
stop ``manage.py replay`` with one line naming the move and the reason."""

from __future__ import annotations

import json
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tests.golden_io import GOLDEN, load_case

CASES = sorted(GOLDEN.glob("*/*.json"))
ROOT = Path(__file__).resolve().parents[2]


def run_replay(path: Path) -> str:
    out = StringIO()
    call_command("replay", str(path), stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_playthrough(path, tmp_path):
    case = load_case(path)
    record_file = tmp_path / "record.json"
    record_file.write_text(json.dumps(case["record"]))
    if "error" in case:
        with pytest.raises(CommandError) as caught:
            run_replay(record_file)
        assert str(caught.value) == case["error"]
    else:
        assert json.loads(run_replay(record_file)) == case["result"]


def test_golden_playthroughs_cover_every_player_count():
    counts = {
        len(load_case(p)["record"]["players"])
        for p in CASES
        if p.parent.name == "part-du-chef" and "result" in load_case(p)
    }
    assert counts == {2, 3, 4, 5}


def test_replay_of_an_illegal_record_exits_non_zero_with_one_line_and_no_traceback(tmp_path):
    record = load_case(GOLDEN / "part-du-chef" / "illegal-eats-chilli.json")["record"]
    record_file = tmp_path / "record.json"
    record_file.write_text(json.dumps(record))
    done = subprocess.run(
        [sys.executable, "manage.py", "replay", str(record_file)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == ["CommandError: move 3: A chilli cannot be eaten."]


@pytest.mark.parametrize(
    "text, error",
    [
        ("{", "malformed record: not JSON"),
        ("[]", "malformed record: a game record must be a JSON object"),
        ('{"format": "pgn"}', "malformed record: the record's 'format' must be 'game-record/1'"),
        (
            '{"format": "game-record/1", "game": "part-du-chef", "players": ["a"], "moves": []}',
            "malformed record: La Part du Chef is played by 2 to 5 players, not 1.",
        ),
        (
            '{"format": "game-record/1", "game": "part-du-chef", "players": ["a", "b"],'
            ' "moves": [7]}',
            "malformed record: move 0: each move must be an object",
        ),
    ],
)
def test_replay_of_a_malformed_record_names_the_problem(tmp_path, text, error):
    record_file = tmp_path / "record.json"
    record_file.write_text(text)
    with pytest.raises(CommandError) as caught:
        run_replay(record_file)
    assert str(caught.value).startswith(error)


def test_replay_of_a_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        run_replay(tmp_path / "nope.json")
