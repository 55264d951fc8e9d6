"""Replays: written by selfplay, verified by re-playing, tampering detected, corrupt files refused clearly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.games.base import ReplayError
from arena.games.union_pacific import default_game
from arena.policies import RandomPolicy, play_in_process
from arena.replay import action_event_spans, build_replay, load_replay, verify_replay, write_replay


def _replay(players: int = 3, seed: int = 5, variant: str = "standard") -> dict:
    game = default_game()
    state = play_in_process(game.new_state(players, seed, variant), [RandomPolicy(seed + s) for s in range(players)])
    return build_replay(game, state, seed=seed, variant=variant, seats=[f"bot{s}" for s in range(players)])


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_replay_reproduces_itself(players: int) -> None:
    replay = json.loads(json.dumps(_replay(players, seed=players)))  # through JSON, as on disk
    result = verify_replay(replay)
    assert result.ok, result.message
    assert result.actions == len(replay["actions"]) > 0


def test_every_payout_is_an_event_in_the_documented_form() -> None:
    replay = _replay(2, seed=9)
    dividends = [e for e in replay["events"] if e["type"] == "dividend"]
    assert [d["number"] for d in dividends] == [1, 2, 3]
    participants = {"0", "1", "imaginary"}
    total: dict[str, int] = {}
    for d in dividends:
        for company in d["companies"]:
            assert set(company) >= {"company", "value", "holdings", "payouts"}
            assert set(company["payouts"]) <= participants
            for who, amount in company["payouts"].items():
                total[who] = total.get(who, 0) + amount
        for who, amount in d["union_pacific"]["payouts"].items():
            total[who] = total.get(who, 0) + amount
    assert "imaginary" in dividends[-1]["union_pacific"]["holdings"] or any(
        "imaginary" in c["holdings"] for c in dividends[-1]["companies"])
    assert {k: v for k, v in total.items() if v} == {k: v for k, v in replay["result"]["cash"].items() if v}


@pytest.mark.parametrize("players", [2, 4])
def test_action_event_spans_say_which_events_each_action_produced(players: int) -> None:
    replay = json.loads(json.dumps(_replay(players, seed=11)))
    spans = action_event_spans(replay)
    assert len(spans) == len(replay["actions"])
    # Contiguous, in order, from the set-up's events to the last event.
    game = default_game()
    state = game.new_state(players, 11, "standard")
    assert spans[0][0] == len(state.events) and spans[-1][1] == len(replay["events"])
    assert all(a[1] == b[0] and a[0] <= a[1] for a, b in zip(spans, spans[1:]))
    # Each span is what applying that one action adds to the engine's event log.
    for (first, end), entry in zip(spans, replay["actions"]):
        before = len(state.events)
        state.apply_action(entry["seat"], state.string_to_action(entry["action"]))
        assert (first, end) == (before, len(state.events))
    # The simultaneous first investment: the picks but the last produce no event.
    picks = [span for span, a in zip(spans, replay["actions"]) if a["action"].startswith("first-invest")]
    assert [end - first for first, end in picks[:-1]] == [0] * (players - 1) and picks[-1][1] > picks[-1][0]


def test_action_event_spans_refuse_a_replay_that_does_not_reproduce() -> None:
    replay = _replay()
    replay["events"].append({"type": "game_end"})
    with pytest.raises(ReplayError, match="does not reproduce its stored events"):
        action_event_spans(replay)


def test_tampered_cash_is_a_mismatch() -> None:
    replay = _replay()
    replay["result"]["cash"]["0"] += 1
    result = verify_replay(replay)
    assert not result.ok and "result differs" in result.message


def test_tampered_event_is_a_mismatch_naming_the_event() -> None:
    replay = _replay()
    i = next(i for i, e in enumerate(replay["events"]) if e["type"] == "dividend")
    replay["events"][i]["companies"][0]["value"] += 1
    result = verify_replay(replay)
    assert not result.ok and f"event #{i} differs" in result.message


def test_an_illegal_action_in_a_replay_is_a_clear_error() -> None:
    replay = _replay()
    replay["actions"][5]["action"] = "build EPRG Denver-El Paso MOUNTAIN"
    with pytest.raises(ReplayError, match="action #5"):
        verify_replay(replay)


@pytest.mark.parametrize("mutate,message", [
    (lambda r: r.pop("seed"), "missing field 'seed'"),
    (lambda r: r.update(seed="x"), "'seed' must be int"),
    (lambda r: r.update(format="other"), "'format'"),
    (lambda r: r.update(version=99), "version 99"),
    (lambda r: r["board"].update(sha256="0" * 64), "board"),
    (lambda r: r.update(game="chess"), "unknown game"),
    (lambda r: r.update(players=9), "2 to 6 players"),
    (lambda r: r["actions"].__setitem__(0, "nonsense"), "action #0"),
])
def test_structurally_broken_replays_raise_replay_error(mutate, message: str) -> None:
    replay = _replay()
    mutate(replay)
    with pytest.raises(ReplayError, match=message):
        verify_replay(replay)


def test_load_replay_refuses_corrupt_and_truncated_files(tmp_path: Path) -> None:
    path = write_replay(tmp_path / "r.json", _replay())
    assert verify_replay(load_replay(path)).ok
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    with pytest.raises(ReplayError, match="corrupt or truncated"):
        load_replay(path)
    with pytest.raises(ReplayError, match="no such file"):
        load_replay(tmp_path / "missing.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(ReplayError, match="JSON object"):
        load_replay(tmp_path / "list.json")


def test_cli_selfplay_then_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--players", "2", "--games", "3", "--seed", "4", "--replays", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "decisions per game" in out and "endings: normal" in out and "imaginary shareholder" in out
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 3
    assert main(["replay", "verify", *map(str, files)]) == 0
    data = json.loads(files[0].read_text())
    data["result"]["cash"]["1"] -= 3
    files[0].write_text(json.dumps(data))
    assert main(["replay", "verify", str(files[0])]) == 1
    assert "MISMATCH" in capsys.readouterr().out


def test_cli_verify_of_a_corrupt_file_is_one_clear_line_not_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "arena-replay", "version": 1, "game": "union_pacific", "seed": ')
    proc = subprocess.run([sys.executable, "-m", "arena.cli.main", "replay", "verify", str(bad)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("arena: error:") and "corrupt or truncated" in proc.stderr


def test_selfplay_rejects_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--players", "7"]) == 2
    assert "--players must be 2 to 6" in capsys.readouterr().err
