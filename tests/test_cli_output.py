"""What the ``arena`` command prints when its output is not a terminal: nothing wrapped,
a closed pipe ends it quietly (even in the middle of a tournament, which can be resumed),
``--version``, and ``replay verify`` naming the file on every line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from arena.cli.main import EXIT_BROKEN_PIPE, main
from arena.protocol import PROTOCOL_VERSION
from arena.replay import VERSION as REPLAY_VERSION
from leaderboard.rows import TournamentStatus
from leaderboard.store import Store
from tests.test_replay_export import finished_tournament_of_games
from tests.test_secrets import register_fakes
from tests.test_web_api import SHA

ARENA = [sys.executable, "-m", "arena.cli.main"]


def closed_pipe_run(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``arena ARGS`` with its stdout a pipe nobody reads any more (``| head`` after it exits)."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([*ARENA, *args], stdout=write, stderr=subprocess.PIPE, text=True, timeout=120,
                              cwd=cwd, stdin=subprocess.DEVNULL)
    finally:
        os.close(write)


def test_version_names_the_package_the_protocol_and_the_replay_format() -> None:
    proc = subprocess.run([*ARENA, "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout == (f"arena {version('arena')} (bot protocol {PROTOCOL_VERSION}, "
                           f"replay format {REPLAY_VERSION})\n")
    assert version("arena") != ""  # from the installed package's metadata


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'arena.sqlite'}"
    finished_tournament_of_games(url)
    return url


@pytest.mark.parametrize("args", [
    ["leaderboard", "--json"], ["leaderboard"], ["tournament", "list"], ["tournament", "list", "--json"],
    ["tournament", "show", "1", "--json"], ["bot", "list"], ["bot", "list", "--json"],
], ids=" ".join)
def test_a_closed_pipe_ends_a_command_quietly(args: list[str], filled: str) -> None:
    proc = closed_pipe_run([*args, "--db", filled])
    assert (proc.returncode, proc.stderr) == (EXIT_BROKEN_PIPE, "")


def test_a_closed_pipe_ends_selfplay_and_verify_quietly(tmp_path: Path) -> None:
    proc = closed_pipe_run(["selfplay", "--games", "2", "--replays", str(tmp_path)])
    assert (proc.returncode, proc.stderr) == (EXIT_BROKEN_PIPE, "")
    files = sorted(map(str, tmp_path.glob("*.json")))
    assert len(files) == 2  # the games were played before the summary failed to print
    proc = closed_pipe_run(["replay", "verify", *files])
    assert (proc.returncode, proc.stderr) == (EXIT_BROKEN_PIPE, "")


@pytest.mark.slow
def test_a_pipe_closed_during_a_tournament_stops_it_resumably(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.sqlite'}"
    with Store.open(url) as store:
        bots = register_fakes(store)
    with subprocess.Popen([*ARENA, "tournament", "run", "--bot", bots[0], "--bot", bots[1], "--players", "2",
                           "--rounds", "10", "--concurrency", "1", "--isolation", "none", "--seed", "3",
                           "--logs", str(tmp_path / "logs"), "--db", url],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()  # as `| head -n 1` does: one line, then the reader is gone
        proc.stdout.close()
        err = proc.stderr.read()
        assert proc.wait(timeout=120) == EXIT_BROKEN_PIPE
    assert first.startswith("tournament 1: 2 bots, table sizes 2, 10 round(s)")
    assert err == ("arena: the output was closed, so tournament 1 stopped; the finished matches are stored; go on "
                   f"with: arena tournament resume 1 --db {url}\n")
    with Store.open(url) as store:
        assert store.get_tournament(1).status is TournamentStatus.INTERRUPTED
        assert len(store.list_matches(tournament_id=1)) < 20
    resumed = subprocess.run([*ARENA, "tournament", "resume", "1", "--logs", str(tmp_path / "logs"), "--db", url],
                             capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert resumed.returncode == 0, resumed.stderr
    with Store.open(url) as store:
        assert store.get_tournament(1).status is TournamentStatus.FINISHED
        assert len(store.list_matches(tournament_id=1)) == 20


# -- nothing is wrapped when the output is not a terminal -------------------------------------------


def test_output_that_is_not_a_terminal_is_never_wrapped(tmp_path: Path) -> None:
    deep = tmp_path / ("a-folder-with-a-rather-long-name-" * 3) / ("and-another-one-" * 4)
    bot = deep / "bot.toml"
    url = f"sqlite:///{tmp_path / 'arena.sqlite'}"
    name = "a-bot-with-a-very-long-name-" + "x" * 34  # 62 characters: names may have 64
    with Store.open(url) as store:
        store.add_bot(name, "1.0.0", "an author with a long name, " * 3, "python", manifest_path=bot,
                      files_sha256=SHA)
    env = {**os.environ, "COLUMNS": "40"}  # what a narrow terminal would have asked for
    listed = subprocess.run([*ARENA, "bot", "list", "--db", url], capture_output=True, text=True, timeout=60,
                            env=env)
    assert listed.returncode == 0
    row = next(line for line in listed.stdout.splitlines() if name in line)  # the name whole, on one line
    assert str(bot) in row and "an author with a long name, " * 2 in row
    assert listed.stdout.count("\n") <= 8  # title, box and one row: no line wrapped

    main_replays = deep / "replays"
    assert main(["selfplay", "--games", "1", "--replays", str(main_replays)]) == 0
    [replay] = main_replays.glob("*.json")
    verified = subprocess.run([*ARENA, "replay", "verify", str(replay)], capture_output=True, text=True,
                              timeout=60, env=env)
    assert verified.returncode == 0
    assert verified.stdout.startswith(f"OK {replay}: reproduced ") and verified.stdout.count("\n") == 1


# -- replay verify names the file on every line ------------------------------------------------------


def test_replay_verify_names_the_file_in_every_line_and_goes_on(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--players", "3", "--games", "2", "--seed", "9", "--replays", str(tmp_path)]) == 0
    good, other = sorted(tmp_path.glob("*.json"))
    data = json.loads(other.read_text())
    data["result"]["cash"]["0"] += 1
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    broken = {
        "truncated.json": good.read_text()[:100],
        "not-a-replay.json": "[1, 2]",
        "no-events.json": json.dumps({k: v for k, v in json.loads(good.read_text()).items() if k != "events"}),
        "bad-game.json": json.dumps({**json.loads(good.read_text()), "game": 3}),
        "illegal.json": json.dumps({**data, "actions": [{"seat": 0, "action": "pass discard PLAIN"}]}),
    }
    for name, text in broken.items():
        (tmp_path / name).write_text(text)
    missing = tmp_path / "missing.json"
    files = [tmp_path / n for n in broken] + [missing, tampered, good]
    capsys.readouterr()
    assert main(["replay", "verify", *map(str, files)]) == 2  # an unusable file: 2, after checking every file
    captured = capsys.readouterr()
    errors = captured.err.splitlines()
    assert len(errors) == len(broken) + 1
    for path, line in zip([tmp_path / n for n in broken] + [missing], errors):
        assert line.startswith(f"arena: error: {path}: ") and "replay: " not in line, line
    assert errors[-1] == f"arena: error: {missing}: no such file"
    assert "field 'game' must be str, got int" in errors[3]
    out = captured.out.splitlines()
    assert out[0].startswith(f"MISMATCH {tampered}: result differs") and out[1].startswith(f"OK {good}: ")
    assert main(["replay", "verify", str(tampered), str(good)]) == 1
