"""``arena replay export``: stored replays as files, one per match named by its id, that
``arena replay verify`` reproduces; only published replays unless the operator asks
(issue 8's secrecy rules), never an address, never an overwritten file.

Real tournaments with real bot processes (the fake bots, unsandboxed for speed) on real
SQLite files, and the real command in-process.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Sequence

import pytest

from arena.cli.main import main
from arena.matchids import new_match_id
from arena.tournaments import TournamentConfig, create_tournament, run_tournament, schedule_of
from leaderboard.rows import TournamentStatus
from leaderboard.store import Store
from tests.test_secrets import register_fakes
from tests.test_web_api import SHA, T0, play_record

NONE = {"level": "none"}  # trusted fake bots: processes reused, a quick tournament


def sqlite_url(folder: Path) -> str:
    return f"sqlite:///{(folder / 'arena.sqlite').as_posix()}"


def finished_tournament_of_games(url: str, bots: Sequence[str] = ("ann", "bob", "cyd"),
                                 sizes: Sequence[int] = (2, 3)) -> int:
    """A finished tournament whose matches are in-process random games (no bot process)."""
    with Store.open(url) as store:
        for bot in bots:
            store.add_bot(bot, "1.0.0", "tests", "python", manifest_path=f"/bots/{bot}/bot.toml", files_sha256=SHA)
        config = TournamentConfig(bots=tuple(bots), table_sizes=tuple(sizes))
        tid = create_tournament(store, config, 5)
        for p in schedule_of(config, 5):
            store.record_match(tid, p.index, p.round,
                               play_record(new_match_id(), p.seats, p.seed, started_at=T0 + p.index))
        store.set_tournament_status(tid, TournamentStatus.FINISHED)
    return tid


def play_real(url: str, tmp_path: Path, *, rounds: int, stop_after: int | None = None,
              publish_deals: bool = False) -> tuple[int, list[str]]:
    """A tournament of the two fake bots at table size 2 (two seatings per deal), stopped
    after ``stop_after`` matches (None: played to the end); its id and stored match ids."""
    cancel = threading.Event()
    done = []

    def on_done(outcome: Any) -> None:
        done.append(outcome)
        if stop_after is not None and len(done) >= stop_after:
            cancel.set()

    with Store.open(url) as store:
        bots = [b.name for b in store.list_bots()] or register_fakes(store)
        config = TournamentConfig(bots=tuple(bots), table_sizes=(2,), rounds=rounds, concurrency=1,
                                  publish_deals=publish_deals, isolation=NONE)
        tid = create_tournament(store, config)
        run_tournament(store, tid, log_dir=tmp_path / "logs", cancel=cancel, on_done=on_done)
        stored = sorted(store.list_matches(tournament_id=tid), key=lambda m: m.schedule_index)
    return tid, [m.id for m in stored]


def exported(folder: Path) -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


def test_a_finished_tournament_is_exported_and_every_file_verifies(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    url = sqlite_url(tmp_path)
    tid, ids = play_real(url, tmp_path, rounds=2)
    assert len(ids) == 4
    out = tmp_path / "out" / "deeper"  # created
    assert main(["replay", "export", "--tournament", str(tid), str(out), "--db", url]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out == f"4 replay(s) in {out}; check them with: arena replay verify {out}/*.json\n"
    files = exported(out)
    assert sorted(files) == sorted(ids)  # one file per match, named by its id
    with Store.open(url) as store:
        for match_id, replay in files.items():
            stored = store.get_match(match_id).replay
            assert stored is not None
            seats = stored["match"]["seats"]
            assert all("address" in s for s in seats)  # the host records each seat's process address ...
            assert all("address" not in s for s in replay["match"]["seats"])  # ... which is not exported
            assert {k: v for k, v in replay.items() if k != "match"} == {k: v for k, v in stored.items()
                                                                         if k != "match"}
            assert replay["match"]["match_id"] == match_id
    assert main(["replay", "verify", *sorted(map(str, out.glob("*.json")))]) == 0
    assert capsys.readouterr().out.count("OK ") == 4

    # Again: identical files are left as they are; one changed by hand is never overwritten.
    first = out / f"{ids[0]}.json"
    first.write_text(first.read_text().replace('"seed":', '"seed": ', 1))
    assert main(["replay", "export", "--tournament", str(tid), str(out), "--db", url]) == 2
    captured = capsys.readouterr()
    assert captured.out == (f"3 replay(s) in {out} (3 already there); check them with: arena replay verify "
                            f"{out}/*.json\n")
    assert captured.err == (f"arena: error: {first} exists and holds something else: not overwritten (move it "
                            "away, or export into another folder)\n")
    assert '"seed": ' in first.read_text()


def test_single_matches_and_unknown_ids(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = sqlite_url(tmp_path)
    finished_tournament_of_games(url)
    with Store.open(url) as store:
        ids = sorted(m.id for m in store.list_matches())
    out = tmp_path / "out"
    assert main(["replay", "export", ids[0], "m-0000000000000000beef", ids[1], ids[0], str(out), "--db", url]) == 2
    captured = capsys.readouterr()
    assert captured.err == "arena: error: no match with id 'm-0000000000000000beef'; not exported\n"
    assert sorted(exported(out)) == ids[:2]  # the others are written all the same, each once
    assert main(["replay", "verify", *map(str, out.glob("*.json"))]) == 0
    for argv, message in ((["replay", "export", str(out)], "give the matches and the folder"),
                          (["replay", "export", ids[0], str(out), "--tournament", "1"], "not both"),
                          (["replay", "export", ids[0], str(out / f"{ids[0]}.json")], "is not a folder"),
                          (["replay", "export", "--tournament", "9", str(out)], "no tournament with id 9")):
        assert main([*argv, "--db", url]) == 2
        assert message in capsys.readouterr().err


def test_an_unfinished_tournament_keeps_its_replays_unless_the_operator_asks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = sqlite_url(tmp_path)
    tid, ids = play_real(url, tmp_path, rounds=2, stop_after=1)
    assert len(ids) == 1
    out = tmp_path / "out"
    for argv in (["--tournament", str(tid)], ids):
        assert main(["replay", "export", *argv, str(out), "--db", url]) == 1
        captured = capsys.readouterr()
        assert captured.out == f"no replay written to {out}\n"
        assert captured.err == (f"arena: left out 1 replay(s) of tournament {tid} (interrupted): its replays are "
                                "published when it is finished, since until then they show hidden hands and the "
                                "deck seeds of deals still in play; --unpublished writes them anyway, for the "
                                "operator's own use\n")
        assert not out.exists()
    assert main(["replay", "export", "--tournament", str(tid), str(out), "--unpublished", "--db", url]) == 0
    captured = capsys.readouterr()
    assert captured.err == ("arena: 1 of these replay(s) are not published yet: keep them to yourself until their "
                            "tournament is finished\n")
    assert sorted(exported(out)) == ids
    assert main(["replay", "verify", str(out / f"{ids[0]}.json")]) == 0


def test_with_publish_deals_the_complete_deals_are_exported(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    url = sqlite_url(tmp_path)
    # Two bots at table size 2: a deal is two seatings; stopped after three matches, the
    # first deal is complete (published), the second has one seating (not published).
    tid, ids = play_real(url, tmp_path, rounds=3, stop_after=3, publish_deals=True)
    assert len(ids) == 3
    out = tmp_path / "out"
    assert main(["replay", "export", "--tournament", str(tid), str(out), "--db", url]) == 1
    captured = capsys.readouterr()
    assert sorted(exported(out)) == sorted(ids[:2])
    assert (f"left out 1 replay(s) of tournament {tid} (interrupted): its replays are published when it is "
            "finished (or, with its --publish-deals, once every seating of a deal is played)") in captured.err
    assert main(["replay", "verify", *map(str, out.glob("*.json"))]) == 0
