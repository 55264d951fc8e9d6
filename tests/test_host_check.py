"""``check_bot`` and ``arena bot check``: PASS for a compliant bot, the failing step otherwise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.host.check import check_bot
from arena.host.clock import Clocks
from arena.host.process import free_port
from arena.protocol import REPO_ROOT
from tests.fake_bots import FAKE_BOTS, manifest_path

RANDOM_SAMPLE = REPO_ROOT / "sample_bots" / "python" / "random_bot" / "bot.toml"
CLOCKS = Clocks(decision_ms=500, bank_ms=2000)


def test_a_compliant_bot_passes_every_step(tmp_path: Path) -> None:
    seen = []
    report = check_bot(str(manifest_path("random")), log_dir=tmp_path, clocks=CLOCKS, progress=seen.append)
    assert report.passed and report.failed is None
    assert [s.name for s in report.steps] == [
        "manifest", "start", "describe", "match 1 (2 players, seat 0)", "match 2 (4 players, seat 1)",
        "match 3 (6 players, seat 2)", "exit on stdin EOF", "exit on SIGTERM"]
    assert all(s.ok for s in report.steps)
    assert seen == list(report.steps)
    assert report.describe is not None and report.describe["games"] == ["union_pacific"]
    assert report.log_path == tmp_path / "fake-random.log"


@pytest.mark.skipif(not RANDOM_SAMPLE.is_file(), reason="the Python random sample bot is not there yet")
def test_the_python_random_sample_bot_passes(tmp_path: Path) -> None:
    report = check_bot(str(RANDOM_SAMPLE), log_dir=tmp_path, clocks=CLOCKS)
    assert report.passed, report.failed


@pytest.mark.parametrize(
    ("mode", "step", "detail"),
    [
        ("exit-early", "start", "cannot load my model"),
        ("describe-bad", "describe", "protocol_version is 99; this host speaks 1; games [] does not include"),
        ("out-of-range", "match 1 (2 players, seat 0)", "3 fault(s), forfeited: decision"),
    ],
)
def test_a_non_compliant_bot_fails_at_the_right_step(tmp_path: Path, mode: str, step: str, detail: str) -> None:
    report = check_bot(str(manifest_path(mode)), log_dir=tmp_path, clocks=CLOCKS, shutdown_timeout=0.5)
    assert not report.passed
    assert report.failed is not None and report.failed.name == step
    assert detail in report.failed.detail


def test_a_bot_ignoring_eof_and_sigterm_fails_both_shutdown_steps(tmp_path: Path) -> None:
    report = check_bot(str(manifest_path("ignore-shutdown")), log_dir=tmp_path, clocks=CLOCKS,
                       table_sizes=(2,), shutdown_timeout=0.5)
    assert report.failed is not None and report.failed.name == "exit on stdin EOF"
    assert "still running 0.5 s after its stdin was closed" in report.failed.detail
    sigterm = report.steps[-1]
    assert sigterm.name == "exit on SIGTERM" and sigterm.ok is False
    assert "still running 0.5 s after SIGTERM" in sigterm.detail


def test_a_bad_manifest_fails_the_first_step(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "x"\nversion = "1"\nlanguage = "python"\ncommand = "bot.py"\n')
    report = check_bot(str(tmp_path), log_dir=tmp_path)
    assert [s.name for s in report.steps] == ["manifest"]
    assert "field 'command' must be a list" in report.steps[0].detail


def test_a_bot_at_an_address_skips_start_and_shutdown(tmp_path: Path) -> None:
    port = free_port()
    bot = subprocess.Popen([sys.executable, str(FAKE_BOTS / "fake_bot.py"), "--mode", "random", "--port", str(port)],
                           stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        report = check_bot(f"127.0.0.1:{port}", log_dir=tmp_path, clocks=CLOCKS, table_sizes=(2, 3))
    finally:
        bot.kill()
        bot.wait()
        assert bot.stdin is not None
        bot.stdin.close()
    assert report.passed
    assert [(s.name, s.ok) for s in report.steps] == [
        ("manifest", None), ("start", True), ("describe", True), ("match 1 (2 players, seat 0)", True),
        ("match 2 (3 players, seat 1)", True), ("shutdown", None)]


def test_the_cli_exit_code_says_pass_or_fail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bot", "check", str(manifest_path("random")), "--logs", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "PASS: fake-random is ready to submit" in out
    assert main(["bot", "check", str(manifest_path("describe-bad")), "--logs", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL: fake-describe-bad failed step 'describe'" in out
    assert main(["bot", "check", str(manifest_path("random")), "--decision-ms", "0"]) == 2
    assert "decision limit must be positive" in capsys.readouterr().err


def test_the_checks_matches_look_like_tournament_matches_from_the_bots_side(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that behaves only while checked has nothing to go on: ids, seeds, clocks and
    opponents are what a tournament gives it."""
    from arena.host.sandbox import IsolationPolicy
    from arena.tournaments import TournamentConfig
    from tests.test_host_match import read_records

    recording = tmp_path / "requests.bin"
    monkeypatch.setenv("FAKE_BOT_RECORD", str(recording))  # reaches the bot: unsandboxed on purpose
    runs = []
    for _ in range(2):
        recording.unlink(missing_ok=True)
        report = check_bot(str(manifest_path("record")), log_dir=tmp_path, policy=IsolationPolicy.none())
        assert report.passed, report.failed
        runs.append(read_records(recording))
    ids = [{r.match_id for r in requests} for requests in runs]
    assert all(len(run) == 3 for run in ids), "one id per match"
    assert not ids[0] & ids[1], "a second check reused an id"
    for match_id in ids[0] | ids[1]:
        assert "check" not in match_id and len(match_id) >= 14 and match_id.startswith("m-")
    defaults = TournamentConfig(bots=("a", "b"), table_sizes=(2,))
    first = runs[0][0]
    assert (first.decision_time_ms, first.time_bank_ms) == (defaults.decision_ms, defaults.bank_ms)
    # Different deals each time (random deck seeds): the first observation differs.
    assert runs[0][0].observation != runs[1][0].observation
