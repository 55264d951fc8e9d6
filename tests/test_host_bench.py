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
