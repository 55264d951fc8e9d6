"""One conformance suite that every sample bot, in any language, must pass (in the
manner of PettingZoo's api_test): the compliance check, an honest Describe, and a
whole match in which the bot holds every seat, over real gRPC, with zero faults --
for every game the bot's Describe lists."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from arena.games import game_spec, get_game, registered_games
from arena.host.check import check_bot
from arena.host.clock import Clocks
from arena.host.manifest import BotSpec, load_manifest
from arena.host.match import MatchConfig, run_match
from arena.host.process import BotPool
from arena.records import MatchTermination

ROOT = Path(__file__).resolve().parents[1]
MANIFESTS = sorted((ROOT / "sample_bots").rglob("bot.toml"))
IDS = [m.parent.relative_to(ROOT / "sample_bots").as_posix() for m in MANIFESTS]


def _runnable(manifest: Path) -> None:
    """Skip a bot whose toolchain is missing here (never in CI, where it must be there)."""
    m = load_manifest(manifest)
    missing = None
    if m.language == "javascript":
        if shutil.which("node") is None:
            missing = "Node.js is not installed"
        elif not (m.working_dir / "node_modules").is_dir():
            missing = f"run `npm ci` in {m.working_dir}"
    if missing:
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(f"{manifest}: {missing}, and CI must run every sample bot")
        pytest.skip(missing)


#: Bots that think for a set time per decision, and the shorter time they are given here: the suite
#: checks that a bot speaks the protocol, not how well it plays (the search bot's 0.2 s a decision
#: would make its five-seat match last a minute).
QUICK_ENV = {"search-bot": 'SEARCH_BUDGET_S = "0.02"'}


def _quick(manifest: Path, tmp_path: Path) -> Path:
    """``manifest``, or for a bot of :data:`QUICK_ENV` a copy of its folder told to think briefly."""
    line = QUICK_ENV.get(load_manifest(manifest).name)
    if line is None:
        return manifest
    folder = shutil.copytree(manifest.parent, tmp_path / manifest.parent.name)
    copy = folder / manifest.name
    assert "[env]" not in copy.read_text(encoding="utf-8")
    copy.write_text(copy.read_text(encoding="utf-8") + f"\n[env]\n{line}\n", encoding="utf-8")
    return copy


def test_every_language_is_covered() -> None:
    languages = {load_manifest(m).language for m in MANIFESTS}
    assert {"python", "javascript"} <= languages
    assert len(MANIFESTS) >= 4


def _games(manifest: Path, tmp_path: Path) -> list[str]:
    """The games the bot lists in Describe (asked of a real process of it)."""
    with BotPool(log_dir=tmp_path / "describe-logs", verify_describe=False) as pool:
        games = list(pool.acquire(BotSpec(manifest=load_manifest(manifest))).describe.games)
    known = {spec.name for spec in registered_games()}
    assert games and set(games) <= known, f"{manifest}: Describe lists {games}; Arena knows {sorted(known)}"
    return games


@pytest.mark.parametrize("manifest", MANIFESTS, ids=IDS)
def test_sample_bot_passes_the_compliance_check(manifest: Path, tmp_path: Path) -> None:
    _runnable(manifest)
    m = load_manifest(manifest)
    for game in _games(manifest, tmp_path):
        report = check_bot(str(_quick(manifest, tmp_path / game)), log_dir=tmp_path / "logs" / game, game=game)
        assert report.passed, f"{game}: {report.failed}"
        described = report.describe or {}
        assert described.get("name") == m.name and described.get("version") == m.version
        assert game in described.get("games", [])


@pytest.mark.parametrize("manifest", MANIFESTS, ids=IDS)
@pytest.mark.parametrize("players", [2, 5])
def test_sample_bot_plays_every_seat_of_a_match_without_a_fault(manifest: Path, players: int,
                                                                 tmp_path: Path) -> None:
    _runnable(manifest)
    spec = BotSpec(manifest=load_manifest(_quick(manifest, tmp_path)))
    for game in _games(manifest, tmp_path):
        if players not in game_spec(game).seat_counts:
            continue
        with BotPool(log_dir=tmp_path / "logs" / game) as pool:
            record = run_match(pool, [spec] * players, seed=41 + players, match_id=f"conformance-{game}-{players}",
                               names=[f"seat-{s}" for s in range(players)], game=get_game(game),
                               config=MatchConfig(clocks=Clocks(decision_ms=2000, bank_ms=10_000)))
        assert record.termination in (MatchTermination.NORMAL, MatchTermination.STALEMATE), game
        assert [s.faults for s in record.seats] == [()] * players, game
        assert not any(s.forfeited for s in record.seats)
        assert record.replay["result"]["cash"] == {**{str(s.seat): s.score for s in record.seats},
                                                   **{r.name: r.score for r in record.references}}
        assert [r.name for r in record.references] == list(game_spec(game).reference(players))
