"""``bench_host``: the figures come out and hang together (a tiny run)."""

from __future__ import annotations

import pytest

from arena.bench.host import RANDOM_SAMPLE, bench_host


@pytest.mark.skipif(not RANDOM_SAMPLE.is_file(), reason="the Python random sample bot is not there yet")
def test_bench_host_measures_decisions_and_matches() -> None:
    figures = bench_host(decisions=40, matches=1, players=3)
    assert figures.decisions == 40 and figures.matches == 1 and figures.match_players == 3
    assert 0 < figures.transport_p50_us <= figures.grpc_p50_us
    assert figures.grpc_p50_us <= figures.grpc_p99_us
    assert 0 < figures.local_p50_us < figures.grpc_p50_us
    assert 0 < figures.match_local_ms < figures.match_grpc_ms


GREEDY = RANDOM_SAMPLE.parents[1] / "greedy_bot" / "bot.toml"


@pytest.mark.skipif(not GREEDY.is_file(), reason="the greedy sample bot is not there")
def test_bench_host_times_any_bot_next_to_an_empty_call(capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli.main import main

    assert main(["bench", "host", "--bot", str(GREEDY), "--decisions", "30", "--matches", "0"]) == 0
    out = capsys.readouterr().out
    assert "30 decisions with greedy-bot" in out
    assert "empty gRPC call, same loop (the floor)" in out and "decision / empty call (p50):" in out
    assert "(p50 of its parts: legal actions" in out and "the request" in out
    assert "CPU per call (all threads): the bot" in out
    assert "whole 4-player match" not in out  # --matches 0


def test_bench_host_figures_include_the_floor() -> None:
    figures = bench_host(decisions=25, matches=0, players=2)
    assert figures.bot == "random-bot" and figures.decisions == 25
    assert 0 < figures.empty_p50_us <= figures.empty_p99_us
    assert 0 < figures.host_p50_us < figures.grpc_p50_us
    assert 0 < figures.legal_p50_us < figures.host_p50_us and 0 < figures.request_p50_us < figures.host_p50_us
    assert figures.floor_ratio == pytest.approx(figures.grpc_p50_us / figures.empty_p50_us)
    # CPU per call of the bot's process and of the empty server (all their threads, from /proc)
    assert figures.bot_cpu_us is not None and figures.bot_cpu_us > 0
    assert figures.empty_cpu_us is not None and figures.empty_cpu_us > 0


def test_bench_host_says_what_is_wrong_with_a_manifest(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli.main import main

    bad = tmp_path / "bot.toml"
    bad.write_text('name = "x"\n')
    assert main(["bench", "host", "--bot", str(bad)]) != 0
    err = capsys.readouterr().err
    assert "missing field 'version'" in err and "Traceback" not in err
