"""``arena play``: one match from the command line, its printed result and its replay file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.replay import load_replay, verify_replay
from tests.fake_bots import manifest_path


def test_play_prints_the_result_and_writes_the_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replays, logs = tmp_path / "replays", tmp_path / "logs"
    code = main(["play", "--bot", str(manifest_path("random")), "--bot", str(manifest_path("out-of-range")),
                 "--bot", str(manifest_path("random")), "--seed", "12", "--replays", str(replays),
                 "--logs", str(logs), "--decision-ms", "300", "--bank-ms", "500", "--max-faults", "2"])
    out = capsys.readouterr().out
    assert code == 0
    files = list(replays.glob("*.json"))
    assert len(files) == 1 and f"replay written to {files[0]}" in " ".join(out.split())
    replay = load_replay(files[0])
    assert verify_replay(replay).ok
    match = replay["match"]
    assert replay["seed"] == 12 and match["clocks"]["decision_ms"] == 300 and match["max_faults"] == 2
    assert [f["reason"] for f in match["faults"]] == ["illegal_action", "illegal_action"]
    assert match["forfeited_seats"] == [1]
    for seat, cash in match["cash"].items():
        assert f" {cash} " in out  # every seat's cash is printed
    assert "FORFEIT" in out and "illegal_action" in out
    assert (logs / "fake-random.log").is_file() and (logs / "fake-out-of-range.log").is_file()


def test_two_bots_play_the_imaginary_shareholder_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--bot", str(manifest_path("random")), "--bot", str(manifest_path("random")),
                 "--seed", "3", "--variant", "pro", "--replays", str(tmp_path), "--logs", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "(imaginary) reference" in out
    replay = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert replay["variant"] == "pro" and "imaginary" in replay["result"]["cash"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bot", "x"], "needs 2 to 6 --bot options, got 1"),
        (["--bot", "/no/such/bot.toml", "--bot", "127.0.0.1:1"], "no such manifest file"),
        (["--bot", "127.0.0.1:1", "--bot", "127.0.0.1:2", "--bank-ms", "-5"], "cannot be negative"),
    ],
)
def test_play_rejects_bad_input_with_one_line(args: list[str], message: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", *args]) == 2
    assert message in capsys.readouterr().err
