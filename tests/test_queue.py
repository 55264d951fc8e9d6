"""The match queue (leaderboard/queue.py) on a real SQLite file and a real PostgreSQL server:
claims with leases, takeover after expiry, a late result refused and logged, exactly once."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from starlette.testclient import TestClient

from arena.records import MatchRecord, MatchTermination, SeatResult
from leaderboard import tallies
from leaderboard.queue import MatchQueue, RecordOutcome, WorkerId
from leaderboard.rows import TournamentStatus
from leaderboard.result_reader import read_results
from leaderboard.store import Store
from leaderboard.web.app import create_app

T0 = 1_700_000_000.0


def rec(match_id: str) -> MatchRecord:
    seats = (SeatResult(0, "alpha", 50, 1), SeatResult(1, "beta", 30, 2), SeatResult(2, "gamma", 10, 3))
    return MatchRecord(match_id=match_id, game="union_pacific", seed=7, variant="standard", players=3, seats=seats,
                       termination=MatchTermination.NORMAL, replay={"match": match_id}, started_at=T0,
                       duration_s=1.0)


def setup(store: Store, n: int) -> int:
    for name in ("alpha", "beta", "gamma"):
        store.add_bot(name, "1", "me", "python", address=f"127.0.0.1:{len(name)}", files_sha256="a" * 64)
    tid = store.create_tournament("union_pacific", {"bots": ["alpha", "beta", "gamma"], "table_sizes": [3],
                                                    "rounds": n, "variant": "standard"}, 1)
    assert MatchQueue(store).plan(tid, [(i, 1, 3) for i in range(n)]) == n
    assert MatchQueue(store).plan(tid, [(i, 1, 3) for i in range(n)]) == 0  # idempotent
    return tid


@pytest.mark.serial
def test_a_late_result_after_takeover_is_refused_and_logged(db_url: str) -> None:
    with Store.open(db_url) as store:
        tid = setup(store, 2)
        slow = MatchQueue(store, WorkerId("machine-a", "w1"), lease_s=0.3)
        fast = MatchQueue(store, WorkerId("machine-b", "w1"), lease_s=30)
        first = slow.claim(tid)
        assert first is not None and first.schedule_index == 0
        other = fast.claim(tid)
        assert other is not None and other.schedule_index == 1  # 0 is leased
        assert fast.claim(tid) is None  # nothing claimable while the lease holds
        assert str(store.get_tournament(tid).status) == "running"
        time.sleep(0.5)  # slow's lease expires
        taken = fast.claim(tid)
        assert taken is not None and taken.schedule_index == 0 and taken.taken_over_from == "machine-a/w1"
        assert slow.renew(first) is None  # not its lease any more
        assert slow.record(first, rec("m-late"), isolation="none") is RecordOutcome.LATE
        assert fast.record(taken, rec("m-0"), isolation="none") is RecordOutcome.RECORDED
        assert fast.record(taken, rec("m-0"), isolation="none") is RecordOutcome.RECORDED  # a retry: same answer
        assert fast.record(other, rec("m-1"), isolation="none") is RecordOutcome.RECORDED
        assert sorted(m.id for m in store.list_matches(tournament_id=tid)) == ["m-0", "m-1"]
        assert store.get_tournament(tid).status is TournamentStatus.FINISHED
        kinds = [(e["kind"], e["worker"]) for e in slow.events(tid)]
        assert ("late_result", "machine-a/w1") in kinds and ("taken_over", "machine-a/w1") in kinds
        progress = MatchQueue(store).progress(tid)
        by = {w.worker: w for w in progress.workers}
        assert by["machine-b/w1"].done == 2 and by["machine-a/w1"].late == 1 and by["machine-a/w1"].done == 0
        assert progress.done == 2 and progress.eta_seconds == 0
        assert MatchQueue(store).match_workers(tid)[0] == ("machine-b/w1", "none", "done")
    with TestClient(create_app(db_url)) as client:  # the tournament's page and its progress JSON
        page = client.get(f"/tournaments/{tid}").text
        assert 'data-testid="workers"' in page and "machine-b/w1" in page and "machine-a/w1" in page
        workers = client.get(f"/api/tournaments/{tid}/progress").json()["workers"]
        assert {w["worker"]: (w["done"], w["late"]) for w in workers} == {"machine-a/w1": (0, 1),
                                                                         "machine-b/w1": (2, 0)}


@pytest.mark.serial
def test_an_expired_lease_nobody_took_is_still_its_own_and_release_requeues(db_url: str) -> None:
    with Store.open(db_url) as store:
        tid = setup(store, 2)
        q = MatchQueue(store, WorkerId("h", "a"), lease_s=0.2)
        lease = q.claim(tid)
        assert lease is not None
        time.sleep(0.3)
        assert q.record(lease, rec("m-a"), isolation="sandbox") is RecordOutcome.RECORDED
        second = q.claim(tid)
        assert second is not None and q.release(second)
        assert not q.release(second)  # released already
        assert q.work_left(tid).planned == 1
        assert q.settle(tid) is TournamentStatus.INTERRUPTED
        failing = q.claim(tid)
        assert failing is not None and q.fail(failing, "RuntimeError: boom")
        assert q.work_left(tid).failed == 1 and q.claim(tid) is None
        assert q.retry_failed(tid) == 1 and q.claim(tid) is not None


def test_concurrent_claims_never_hand_out_one_match_twice(db_url: str) -> None:
    n = 40
    with Store.open(db_url) as store:
        tid = setup(store, n)
        got: list[int] = []
        lock = threading.Lock()

        def work(name: str) -> None:
            q = MatchQueue(store, WorkerId("h", name), lease_s=60)
            while (lease := q.claim(tid)) is not None:
                assert q.record(lease, rec(f"m-{lease.schedule_index}"), isolation="none") is RecordOutcome.RECORDED
                with lock:
                    got.append(lease.schedule_index)

        threads = [threading.Thread(target=work, args=(f"w{i}",)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert Counter(got) == Counter(range(n))
        assert len(store.list_matches(tournament_id=tid)) == n


def test_an_excluded_worker_leaves_the_fits_and_claims_no_more(db_url: str) -> None:
    with Store.open(db_url) as store:
        tid = setup(store, 3)
        bad = MatchQueue(store, WorkerId("h", "bad"))
        good = MatchQueue(store, WorkerId("h", "good"))
        lease = bad.claim(tid)
        assert lease is not None and bad.record(lease, rec("m-bad"), isolation="none") is RecordOutcome.RECORDED
        lease = good.claim(tid)
        assert lease is not None and good.record(lease, rec("m-good"), isolation="none") is RecordOutcome.RECORDED
        assert len(store.rated_matches(tid)) == 2
        keys = {scope: tallies.results_key(store, scope) for scope in (tid, None)}
        assert good.exclude_worker(tid, "h/bad", "faults") == 1
        for scope, key in keys.items():  # the web's cached fits of both scopes are made again
            assert tallies.results_key(store, scope) != key
        assert [m.key for m in store.rated_matches(tid)] == ["m-good"]
        assert [m.key for m in store.rated_matches()] == ["m-good"]
        with store.read_session() as session:  # the rating fit's own reading path leaves it out too
            assert read_results(session, tid).keys.tolist() == read_results(session).keys.tolist() == ["m-good"]
        assert sum(s.matches for s in store.bot_stats(tid)) == 3
        assert len(store.list_matches(tournament_id=tid)) == 2  # still stored, still shown
        assert bad.claim(tid) is None and good.claim(tid) is not None
        with pytest.raises(Exception, match="no worker 'h/nobody'"):
            good.exclude_worker(tid, "h/nobody")
        excluded = tallies.results_key(store, tid)
        assert good.include_worker(tid, "h/bad") == 1
        assert len(store.rated_matches(tid)) == 2
        assert tallies.results_key(store, tid) == keys[tid] != excluded  # the undo: the same results as before
