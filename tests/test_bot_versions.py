"""Bot versions with real bot processes: a registered version plays exactly the files that
were checked (a frozen copy), never files changed since; a bot that fails to start is said
at once; `arena play` takes registered names and exits 1 when a seat never started."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.botfiles import BotFilesError, FrozenFilesChanged, bot_root, freeze, keep, legacy_files_sha256, tree_sha256
from arena.host.manifest import load_manifest
from arena.host.sandbox import IsolationPolicy
from arena.registry import AlreadyRegistered, register_bot, spec_for
from arena.tournaments import TournamentConfig, create_tournament, run_tournament
from leaderboard.errors import UnknownBotError
from leaderboard.store import Store

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = ROOT / "sample_bots" / "python" / "random_bot"


def arena(*args: str, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli.main", *args], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, cwd=cwd,
                          env={**os.environ, "COLUMNS": "400"})


def random_bot(folder: Path, name: str, *, extra: str = "") -> Path:
    """A copy of the random sample bot called ``name`` (manifest and Describe agree); ``extra``
    is Python put at the top of bot.py (it runs at import)."""
    shutil.copytree(RANDOM_BOT, folder, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "random-bot"', f'name = "{name}"'))
    code = (folder / "bot.py").read_text().replace('name = "random-bot"', f'name = "{name}"')
    (folder / "bot.py").write_text(code.replace("from arena.sdk import", f"{extra}\nfrom arena.sdk import", 1))
    return folder


def flat(text: str) -> str:
    return " ".join(text.split())


# -- the frozen copy (no bot process) -------------------------------------------------


def test_the_copy_is_the_hashed_files_and_read_only(tmp_path: Path) -> None:
    bot = random_bot(tmp_path / "src", "copied")
    (bot / "__pycache__").mkdir()
    (bot / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"cache")
    (bot / "data").mkdir()
    (bot / "data" / "table.txt").write_text("weights")
    os.symlink("data/table.txt", bot / "table-link")  # inside the folder: kept as a link
    manifest = load_manifest(bot)
    copy = keep(freeze(manifest, tmp_path / "files"), tmp_path / "files")
    assert copy.sha256 == tree_sha256(bot) == tree_sha256(copy.dir)
    assert copy.dir == tmp_path / "files" / "copied" / copy.sha256[:24]
    assert copy.manifest.path == copy.dir / "bot.toml" and copy.manifest.working_dir == copy.dir
    assert not (copy.dir / "__pycache__").exists(), "caches are neither copied nor hashed"
    assert os.readlink(copy.dir / "table-link") == "data/table.txt"
    assert (copy.dir / "table-link").read_text() == "weights"
    assert not os.access(copy.dir / "bot.py", os.W_OK) or os.geteuid() == 0
    assert (copy.dir / "bot.py").stat().st_mode & 0o222 == 0 and copy.dir.stat().st_mode & 0o222 == 0
    (bot / "bot.py").write_text((bot / "bot.py").read_text() + "# changed\n")
    changed = tree_sha256(bot)
    assert changed != copy.sha256
    os.chmod(bot / "bot.py", 0o755)  # the executable bit is part of what is hashed
    assert tree_sha256(bot) != changed


@pytest.mark.parametrize("make, reason", [
    (lambda b: os.symlink("/etc/passwd", b / "passwd"), "outside the bot's folder"),
    (lambda b: os.symlink("../../secret.txt", b / "secret"), "outside the bot's folder"),
    # each link alone stays inside, but through one another they lead out
    (lambda b: ((b / "d").mkdir(), os.symlink("..", b / "d" / "up"), os.symlink("d/up/../secret.txt", b / "s")),
     "leads outside the bot's folder"),
    (lambda b: os.mkfifo(b / "pipe"), "not a regular file, folder or link"),
])
def test_links_out_of_the_folder_and_special_files_are_refused(tmp_path: Path, make, reason: str) -> None:
    (tmp_path / "secret.txt").write_text("the host's secret")
    bot = random_bot(tmp_path / "src", "sneaky")
    make(bot)
    with pytest.raises(BotFilesError, match=reason):
        keep(freeze(load_manifest(bot), tmp_path / "files"), tmp_path / "files")
    leftovers = [p for p in (tmp_path / "files").rglob("*") if p.is_file()] if (tmp_path / "files").exists() else []
    assert leftovers == [], "a refused copy leaves nothing behind"
    assert not any("the host's secret" in p.read_text(errors="replace") for p in leftovers)


def test_a_manifest_outside_its_working_dir_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "bot.toml").write_text('name = "x"\nversion = "1"\nlanguage = "python"\n'
                                             'command = ["python", "bot.py"]\nworking_dir = "../b"\n')
    with pytest.raises(BotFilesError, match="not one inside the other"):
        bot_root(load_manifest(tmp_path / "a"))


def test_a_version_from_before_copies_plays_only_while_its_files_are_unchanged(tmp_path: Path) -> None:
    bot = random_bot(tmp_path / "old", "old-bot")
    with Store.open(str(tmp_path / "a.sqlite")) as store:
        # as the migration leaves a bot added before Arena kept copies
        row = store.add_bot("old-bot", "1.0.0", "Arena", "python", manifest_path=bot / "bot.toml",
                            files_sha256=legacy_files_sha256(bot))
        assert spec_for(row).manifest is not None and spec_for(row).participant == "old-bot@1"
        (bot / "bot.py").write_text((bot / "bot.py").read_text() + "# changed\n")
        with pytest.raises(FrozenFilesChanged, match=r"files of old-bot@1 .* changed since it was checked .*"
                                                     r"refusing to play unchecked files; 'arena bot add .*bot.toml'"):
            spec_for(row)


# -- real processes -----------------------------------------------------------------------


@pytest.mark.slow
def test_a_version_plays_the_checked_files_and_a_changed_copy_is_refused(tmp_path: Path) -> None:
    db = ["--db", str(tmp_path / "arena.sqlite")]
    bot = random_bot(tmp_path / "src", "steady")
    other = random_bot(tmp_path / "other-src", "other")
    for folder in (bot, other):
        added = arena("bot", "add", str(folder), "--isolation", "none", *db, cwd=tmp_path)
        assert added.returncode == 0, added.stdout + added.stderr
    # the author's folder changes (a bot that now raises at import), without 'arena bot add':
    # the checked files play, and the play says which version played
    code = (bot / "bot.py").read_text()
    (bot / "bot.py").write_text('raise RuntimeError("broken at import")\n' + code)
    played = arena("play", "--bot", "steady", "--bot", "other", "--seed", "3", "--isolation", "none",
                   "--replays", str(tmp_path / "replays"), "--logs", str(tmp_path / "logs"), *db, cwd=tmp_path)
    assert played.returncode == 0, played.stdout + played.stderr
    assert "steady@1" in played.stdout and "other@1" in played.stdout and "FORFEIT" not in played.stdout
    (replay,) = (tmp_path / "replays").glob("*.json")
    assert [s["name"] for s in json.loads(replay.read_text())["seats"]] == ["steady@1", "other@1"]
    listed = arena("bot", "list", *db, cwd=tmp_path)
    assert "steady@1" in listed.stdout and "changed since this version was added" in flat(listed.stdout)
    tournament = arena("tournament", "run", "--bot", "steady", "--bot", "other", "--players", "2",
                       "--isolation", "none", "--quiet", "--logs", str(tmp_path / "logs"), *db, cwd=tmp_path)
    assert tournament.returncode == 0, tournament.stdout + tournament.stderr
    out = flat(tournament.stdout)
    assert "tournament 1: 2 bots" in out and "versions: steady@1, other@1" in out and "failed to start" not in out
    assert f"the files at {bot / 'bot.toml'} changed since steady@1 was added; steady@1 plays the files that " \
           "were checked" in out

    # someone edits the frozen copy itself: refused, naming the version and what to do
    listed = json.loads(arena("bot", "list", "--json", *db, cwd=tmp_path).stdout)
    frozen = Path(next(b["files_dir"] for b in listed if b["name"] == "steady"))
    os.chmod(frozen, 0o755)
    os.chmod(frozen / "bot.py", 0o644)
    (frozen / "strategy.py").write_text("print('swapped in after the check')\n")
    refused = arena("play", "--bot", "steady", "--bot", "other", "--isolation", "none", *db, cwd=tmp_path)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    message = flat(refused.stderr)
    assert "the files of steady@1" in message and "changed since it was checked" in message
    assert f"arena bot add {bot / 'bot.toml'}" in message
    tournament = arena("tournament", "run", "--bot", "steady", "--bot", "other", "--players", "2",
                       "--isolation", "none", "--quiet", *db, cwd=tmp_path)
    assert tournament.returncode == 2 and "the files of steady@1" in flat(tournament.stderr)

    unknown = arena("play", "--bot", "nobody", "--bot", "other", *db, cwd=tmp_path)
    assert unknown.returncode == 2 and "no bot named 'nobody'" in unknown.stderr and "arena bot list" in unknown.stderr


@pytest.mark.slow
def test_a_bot_that_fails_to_start_is_said_at_once_and_play_exits_1(tmp_path: Path) -> None:
    """The issue's scenario: a bot that raises at import entered in a tournament (here it passes
    the check and breaks afterwards: a marker file it sees unsandboxed makes it raise)."""
    marker = tmp_path / "break-now"
    db = ["--db", str(tmp_path / "arena.sqlite")]
    flaky = random_bot(tmp_path / "flaky-src", "flaky",
                       extra=f"import os\nif os.path.exists({str(marker)!r}):\n"
                             "    raise RuntimeError('broken at import')\n")
    steady = random_bot(tmp_path / "steady-src", "steady")
    for folder in (flaky, steady):
        added = arena("bot", "add", str(folder), "--isolation", "none", *db, cwd=tmp_path)
        assert added.returncode == 0, added.stdout + added.stderr
    marker.write_text("")
    logs = tmp_path / "logs"
    run = arena("tournament", "run", "--bot", "flaky", "--bot", "steady", "--players", "2", "--rounds", "2",
                "--isolation", "none", "--quiet", "--logs", str(logs), *db, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr  # complete: the seats forfeited, results stored
    out = run.stdout
    said = out.index("bot flaky@1 failed to start")
    assert said < out.index("1/4 matches"), "said when it happened, before the first match ended"
    assert "broken at import" in out[said:] and str(logs / "flaky@1.log") in flat(out[said:])
    assert "flaky@1 never started in 4 of its matches" in flat(out)
    assert out.count("failed to start") == 1, "said once per bot"

    play = arena("play", "--bot", "flaky", "--bot", "steady", "--isolation", "none", "--logs", str(logs),
                 "--replays", str(tmp_path / "replays"), *db, cwd=tmp_path)
    assert play.returncode == 1
    assert "seat 0 (flaky@1) never started, so it forfeited" in flat(play.stdout)
    assert "broken at import" in play.stdout and "Traceback (most recent call last)" in play.stdout  # its stderr


def test_a_tournament_keeps_the_versions_it_was_created_with(tmp_path: Path) -> None:
    with Store.open(str(tmp_path / "a.sqlite")) as store:
        rows = [register_bot(store, str(random_bot(tmp_path / n, n)), log_dir=tmp_path / "logs", check=False,
                             policy=IsolationPolicy.none())[0] for n in ("alpha", "beta")]
        config = TournamentConfig(bots=("alpha", "beta"), versions={r.name: r.number for r in rows},
                                  table_sizes=(2,), isolation={"level": "none"})
        tid = create_tournament(store, config, seed=5)
        # alpha gets a version 2 before the tournament is played (or resumed)
        alpha = tmp_path / "alpha"
        (alpha / "strategy_note.txt").write_text("v2\n")
        with pytest.raises(AlreadyRegistered):
            register_bot(store, str(tmp_path / "beta"), log_dir=tmp_path / "logs", check=False)
        v2, _ = register_bot(store, str(alpha), log_dir=tmp_path / "logs", check=False, policy=IsolationPolicy.none())
        assert v2.participant == "alpha@2"
        summary = run_tournament(store, tid, log_dir=tmp_path / "logs", policy=IsolationPolicy.none())
        assert summary.complete and summary.played == 2
        assert {s.bot for m in store.list_matches(tournament_id=tid) for s in m.seats} == {"alpha@1", "beta@1"}
        assert store.list_matches(bot="alpha@2") == []
        # a new tournament takes the current version
        config2 = TournamentConfig(bots=("alpha", "beta"), versions={"alpha": 2, "beta": 1}, table_sizes=(2,),
                                   isolation={"level": "none"})
        t2 = create_tournament(store, config2, seed=6)
        run_tournament(store, t2, log_dir=tmp_path / "logs", policy=IsolationPolicy.none())
        assert {s.bot for m in store.list_matches(tournament_id=t2) for s in m.seats} == {"alpha@2", "beta@1"}
        bad = create_tournament(store, TournamentConfig(bots=("alpha", "beta"), versions={"alpha": 7},
                                                         table_sizes=(2,)), seed=1)
        with pytest.raises(UnknownBotError, match="bot 'alpha' has no version 7"):
            run_tournament(store, bad, log_dir=tmp_path / "logs")


def test_an_sprt_keeps_the_versions_it_started_with(tmp_path: Path) -> None:
    from arena.records import MatchRecord, MatchTermination, SeatResult
    from arena.sprt import SprtConfig, _check_frozen, create_sprt, places_of, stored_places

    with Store.open(str(tmp_path / "a.sqlite")) as store:
        for name in ("new", "old", "a", "b"):
            store.add_bot(name, "1", "me", "python", address="127.0.0.1:9", files_sha256="0" * 64)
        config = SprtConfig(candidate="new", baseline="old", pool=("a", "b"), table_sizes=(2,), elo0=0, elo1=200,
                            isolation={"level": "none"}, versions={"new": 1, "old": 1, "a": 1, "b": 1})
        assert SprtConfig.from_json(config.to_json()) == config
        tid = create_sprt(store, config, seed=1)
        store.add_bot("new", "2", "me", "python", address="127.0.0.1:10", files_sha256="1" * 64)
        rows = _check_frozen(store, config)  # no refusal: the test goes on with new@1
        assert {name: row.participant for name, row in rows.items()} == {
            "new": "new@1", "old": "old@1", "a": "a@1", "b": "b@1"}
        record = MatchRecord(match_id="m-1", game="union_pacific", seed=1, variant="standard", players=2,
                             seats=(SeatResult(0, "new@1", 9, 1, False, ()), SeatResult(1, "a@1", 3, 2, False, ())),
                             termination=MatchTermination.NORMAL, replay={}, started_at=0.0, duration_s=1.0)
        assert places_of(record) == {"new": 1, "a": 2}, "the test counts by bot: one version of each plays"
        store.record_match(tid, 0, 0, record)
        assert stored_places(store, tid) == {0: {"new": 1, "a": 2}}
        assert [s.bot for s in store.get_match("m-1").seats] == ["new@1", "a@1"]
