"""Submitting bots: `arena bot add` runs the compliance check and refuses a failing
bot with the reason; list, remove, and the registered files' hash."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.botfiles import tree_sha256

ROOT = Path(__file__).resolve().parents[1]


def arena(*args: str, db: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli.main", *args, "--db", str(db)], capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.mark.slow
def test_add_list_remove_and_versions(tmp_path: Path) -> None:
    db = tmp_path / "a.sqlite"
    bot = tmp_path / "mybot"
    shutil.copytree(ROOT / "sample_bots" / "python" / "random_bot", bot, ignore=shutil.ignore_patterns("__pycache__"))
    added = arena("bot", "add", str(bot), "--logs", str(tmp_path / "logs"), db=db)
    assert added.returncode == 0, added.stderr
    assert "PASS exit on SIGTERM" in added.stdout and "added random-bot as random-bot@1" in " ".join(added.stdout.split())

    listed = json.loads(arena("bot", "list", "--json", db=db).stdout)
    assert [(b["name"], b["participant"], b["language"], b["removed_at"]) for b in listed] == [
        ("random-bot", "random-bot@1", "python", None)]
    assert listed[0]["files_sha256"] == tree_sha256(bot)
    assert listed[0]["source"] == str((bot / "bot.toml").resolve())
    frozen = Path(listed[0]["files_dir"])
    assert frozen.parent == tmp_path / "bots" / "random-bot" and (frozen / "bot.py").read_text() == (
        bot / "bot.py").read_text()
    assert listed[0]["manifest"] == str(frozen / "bot.toml")
    assert "*" not in arena("bot", "list", db=db).stdout

    same = arena("bot", "add", str(bot), db=db, timeout=20)  # the very same files: nothing to check or add
    assert same.returncode == 0 and "already registered with these files as version 1" in " ".join(same.stdout.split())

    (bot / "bot.py").write_text((bot / "bot.py").read_text() + "\n# changed\n")
    assert "files there changed since this version was added" in " ".join(arena("bot", "list", db=db).stdout.split())
    second = arena("bot", "add", str(bot), "--logs", str(tmp_path / "logs"), db=db)
    assert second.returncode == 0 and "added version 2 of random-bot as random-bot@2" in " ".join(second.stdout.split())
    versions = json.loads(arena("bot", "list", "--versions", "--json", db=db).stdout)
    assert [(b["participant"], b["current"]) for b in versions] == [("random-bot@1", False), ("random-bot@2", True)]
    assert "# changed" not in (frozen / "bot.py").read_text(), "version 1's files stay as they were checked"
    assert "# changed" in (Path(versions[1]["files_dir"]) / "bot.py").read_text()

    removed = arena("bot", "remove", "random-bot", db=db)
    assert removed.returncode == 0 and "matches and ratings stay" in removed.stdout
    assert json.loads(arena("bot", "list", "--json", db=db).stdout) == []
    assert json.loads(arena("bot", "list", "--all", "--json", db=db).stdout)[0]["removed_at"]
    assert arena("bot", "remove", "nobody", db=db).returncode == 2
    back = arena("bot", "add", str(bot), "--logs", str(tmp_path / "logs"), db=db)  # same files, but removed
    assert back.returncode == 0 and "random-bot@3" in back.stdout
    assert [b["participant"] for b in json.loads(arena("bot", "list", "--json", db=db).stdout)] == ["random-bot@3"]


@pytest.mark.parametrize("fake,reason", [("never-ready", "start"), ("out-of-range", "match")])
def test_a_bot_that_fails_the_check_is_refused_saying_why(tmp_path: Path, fake: str, reason: str) -> None:
    db = tmp_path / "a.sqlite"
    proc = arena("bot", "add", str(ROOT / "tests" / "fake_bots" / f"{fake}.toml"), "--logs", str(tmp_path / "l"),
                 db=db)
    assert proc.returncode == 2
    assert "failed the compliance check, so it was not added" in proc.stderr and reason in proc.stderr
    assert "Traceback" not in proc.stderr
    assert json.loads(arena("bot", "list", "--json", db=db).stdout) == []


def test_bad_manifest_and_missing_arguments_are_clear(tmp_path: Path) -> None:
    db = tmp_path / "a.sqlite"
    bad = tmp_path / "bot.toml"
    bad.write_text('name = "x"\ncommand = "not a list"\n')
    proc = arena("bot", "add", str(bad), db=db)
    assert proc.returncode == 2 and "bot.toml" in proc.stderr and "Traceback" not in proc.stderr
    none = arena("bot", "add", db=db)
    assert none.returncode == 2 and "--address" in none.stderr
