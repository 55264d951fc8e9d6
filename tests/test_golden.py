"""Golden transcripts pin the engine's behaviour at every table size."""

import difflib

import pytest

from tests.golden_transcript import CASES, golden_path, transcript


@pytest.mark.parametrize("players,seed,variant", CASES)
def test_transcript_matches_golden(players: int, seed: int, variant: str) -> None:
    expected = golden_path(players, seed, variant).read_text()
    actual = transcript(players, seed, variant)
    if actual != expected:
        diff = "".join(list(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                                 "golden", "now", n=2))[:60])
        pytest.fail(f"transcript changed (regenerate with python -m tests.golden_transcript if intended):\n{diff}")


def test_transcripts_cover_every_table_size_and_end_in_a_result() -> None:
    assert sorted(p for p, _, _ in CASES) == [2, 3, 4, 5, 6]
    for case in CASES:
        text = golden_path(*case).read_text()
        assert text.splitlines()[-1].startswith("result ")
        assert '"type":"dividend"' in text
