"""The Ticket to Ride: Pennsylvania replay viewer in a real headless Chromium, on a desktop and on a
phone 390 pixels wide: its board (cities, routes in their colours with their lengths, double routes,
claimed routes in the seat's colour with its shape and letter), stepping through a stored match,
and the final scores against the stored result; and a replay the engine does not re-play (of
either game), which has no view but still steps through its stored events.

The matches are real games played in-process by random players and stored as the host stores a
match (a two-player one, with the neutral shareholder, and a four-player one).  Screenshots land in
test-artifacts/screenshots/ (``ttr-*``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pytest

from arena.games import game_kit, get_game
from arena.host.match import places_with_forfeits
from arena.policies import RandomPolicy, play_in_process
from arena.records import MatchRecord, MatchTermination, SeatResult
from arena.replay import build_replay
from leaderboard.rows import TournamentStatus
from leaderboard.store import Store
from tests.chromium import (  # noqa: F401
    browser, check_play_speed, chromium, expect_step, expect_turn_groups, open_replay, open_tab, serve, shot, step_of, tab,
    width)
from tests.test_web_api import play_record

pytestmark = pytest.mark.browser

GAME = "ticket_to_ride_pennsylvania"
SHA = "ab" * 32
T0 = 1_760_000_000.0
HOSTILE = "<script>alert(1)</script>"


def ttr_record(match_id: str, bots: list[str], seed: int, started_at: float, forfeited: int | None = None) -> MatchRecord:
    """An in-process random game of Ticket to Ride wrapped as the host wraps a match; ``forfeited``:
    a seat the match section says forfeited (placed last whatever its points)."""
    bots = [f"{name}@1" for name in bots]
    game = get_game(GAME)
    state = game.new_state(len(bots), seed, game.spec.default_variant)
    play_in_process(state, [RandomPolicy(seed * 17 + s) for s in range(len(bots))])
    outcome = state.outcome()
    gone = set() if forfeited is None else {str(forfeited)}
    places = places_with_forfeits(outcome.cash, gone)
    termination = MatchTermination.FORFEIT if gone else MatchTermination(outcome.termination.value)
    seats = tuple(SeatResult(seat=s, bot=name, score=outcome.cash[str(s)], place=places[str(s)], forfeited=s == forfeited)
                  for s, name in enumerate(bots))
    match = {"match_id": match_id, "termination": termination.value, "cash": dict(outcome.cash),
             "places": places, "forfeited_seats": sorted(int(s) for s in gone), "faults": [],
             "forfeits": [{"seat": int(s), "decision": 9, "reason": "3 faults (the limit is 3)"} for s in gone], "restarts": [],
             "seats": [{"seat": s, "bot": name, "kind": "bot", "version": "1.0.0"} for s, name in enumerate(bots)],
             "debug": [], "notes": [], "started_at": started_at, "duration_s": 0.5}
    replay = build_replay(game, state, seed=seed, variant=game.spec.default_variant, seats=bots, match=match)
    return MatchRecord(match_id=match_id, game=GAME, seed=seed, variant=game.spec.default_variant,
                       players=len(bots), seats=seats, termination=termination,
                       replay=replay, started_at=started_at, duration_s=0.5, extra={"decisions": len(state.history)})


@dataclass
class Stored:
    url: str
    records: dict[str, MatchRecord]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Stored:
    url = f"sqlite:///{(tmp_path_factory.mktemp('ttr') / 'arena.sqlite').as_posix()}"
    records: dict[str, MatchRecord] = {}
    with Store.open(url) as store:
        for name in ("alpha", "beta", "gamma", HOSTILE):
            store.add_bot(name, "1.0.0", "tests", "python", manifest_path=f"/bots/{len(name)}/bot.toml",
                          files_sha256=SHA)
        tid = store.create_tournament(GAME, {"bots": ["alpha", "beta", "gamma", HOSTILE], "table_sizes": [2, 3, 4],
                                             "rounds": 1}, 7)
        for index, bots in enumerate([["alpha", HOSTILE], ["beta", "gamma", HOSTILE, "alpha"]]):
            record = ttr_record(f"ttr-m{index}", bots, 300 + index, T0 + 60 * index)
            store.record_match(tid, index, 1, record)
            records[record.match_id] = record
        # A replay whose stored events the engine does not reproduce: a result, but no view.
        bad = ttr_record("ttr-bad", ["alpha", "beta"], 310, T0 + 300)
        bad.replay["events"][4] = {**bad.replay["events"][4], "row": ["red"] * 5}
        store.record_match(tid, 2, 1, bad)
        records[bad.match_id] = bad
        # Seat 0, first by points, forfeits (as after three faults): it is placed last.
        forfeit = ttr_record("ttr-forfeit", ["gamma", HOSTILE, "beta"], 336, T0 + 350, forfeited=0)
        store.record_match(tid, 3, 1, forfeit)
        records[forfeit.match_id] = forfeit
        store.set_tournament_status(tid, TournamentStatus.FINISHED)
        # A Union Pacific match whose replay does not re-play either (as one recorded under older rules).
        up = store.create_tournament("union_pacific", {"bots": ["alpha", "beta"], "table_sizes": [2], "rounds": 1}, 9)
        old = play_record("up-old", ["alpha", "beta"], 77, started_at=T0 + 500)
        old.replay["events"][2] = {**old.replay["events"][2], "display": ["EPRG"] * 4}
        store.record_match(up, 0, 1, old)
        records[old.match_id] = old
        store.set_tournament_status(up, TournamentStatus.FINISHED)
        running = store.create_tournament(GAME, {"bots": ["alpha", "beta"], "table_sizes": [2], "rounds": 1}, 8)
        store.record_match(running, 0, 1, ttr_record("ttr-secret", ["alpha", "beta"], 320, T0 + 400))
    return Stored(url, records)


@pytest.fixture(scope="module")
def base_url(stored: Stored) -> Iterator[str]:
    with serve(stored.url) as url:
        yield url


def owners(tab: Any) -> dict[str, int]:
    return dict(tab.locator("#board g.route[data-owner]").evaluate_all(
        "gs => gs.map(g => [g.dataset.route, Number(g.dataset.owner)])"))


@pytest.mark.parametrize("match_id", ["ttr-m0", "ttr-m1"])
def test_the_ttr_viewer_draws_the_board_steps_through_and_ends_with_the_result(
        tab: Any, width: str, base_url: str, stored: Stored, match_id: str) -> None:
    record = stored.records[match_id]
    replay = record.replay
    events = replay["events"]
    board = game_kit(GAME).view.board()
    routes = {r["id"]: r for r in board["routes"]}
    open_replay(tab, f"{base_url}/matches/{quote(match_id, safe='')}")
    assert tab.locator("script[src$='/static/games/ticket_to_ride_pennsylvania/replay.js']").count() == 1

    # -- the board: every route, in its colour, with its length; double routes side by side
    drawn = tab.locator("#board g.route").evaluate_all(
        "gs => gs.map(g => [g.dataset.route, g.dataset.colour, g.querySelectorAll('rect.car').length, "
        "g.querySelector('text.length').textContent, getComputedStyle(g.querySelector('rect.car')).fill])")
    assert len(drawn) == len(routes) == 95
    for rid, colour, cars, length, fill in drawn:
        assert colour == routes[rid]["colour"] and cars == routes[rid]["length"] == int(length), rid
        hex_colour = board["colours"][colour]
        assert fill == "rgb({}, {}, {})".format(*(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))), rid
    assert tab.locator("#board g.city").count() == len(board["cities"])
    assert owners(tab) == {}
    layout = tab.evaluate("() => ({page: document.documentElement.scrollWidth, view: window.innerWidth})")
    assert layout["page"] <= layout["view"], f"the match page scrolls sideways at {width}"
    box = tab.get_by_test_id("board").bounding_box()
    assert box is not None and box["width"] >= min(layout["view"], 1440) * 0.5

    # -- step through: the first claims, one by one, by the "Next claim" button
    claims = [(i, e) for i, e in enumerate(events) if e["type"] == "claim"]
    names = {str(s["seat"]): s["name"] for s in replay["seats"]}
    seen: dict[str, int] = {}
    for index, claim in claims[:4]:
        tab.locator("#btn-claim").click()
        expect_step(tab, index)
        seen[claim["route"]] = claim["seat"]
        assert owners(tab) == seen
        route = tab.locator(f"#board g.route[data-route='{claim['route']}']")
        assert "last-claim" in (route.get_attribute("class") or "")
        mark = tab.locator(f"#board g.owner-mark[data-route='{claim['route']}']")
        style = board["seats"][claim["seat"]]
        assert mark.get_attribute("data-shape") == style["shape"] and mark.locator("text").text_content() == style["letter"]
        text = tab.get_by_test_id("event-text").text_content() or ""
        assert text.startswith(f"{names[str(claim['seat'])]} claims ") and f"{claim['trains_left']} trains left" in text
        trains = tab.locator(f"[data-testid='seats'] tr[data-participant='{claim['seat']}'] [data-field='trains']")
        assert trains.text_content() == str(claim["trains_left"])
    shot(tab, f"ttr-{width}-{match_id}-claims", full_page=True)
    tab.locator("#btn-prev").click()  # a step back: the last claim is not yet made
    expect_step(tab, claims[3][0] - 1)
    assert claims[3][1]["route"] not in owners(tab)

    # -- the end: every claim on the board, the final scores as the engine scored and the result says
    tab.keyboard.press("End")
    expect_step(tab, len(events) - 1)
    assert owners(tab) == {e["route"]: e["seat"] for _, e in claims}
    final = tab.get_by_test_id("final")
    assert final.is_visible()
    rows = final.locator("tbody tr").evaluate_all(
        "rs => rs.map(r => [r.dataset.participant, r.querySelector('.place').textContent, r.querySelector('.total').textContent])")
    result = replay["result"]
    assert [(int(p), int(place), int(total)) for p, place, total in rows] == sorted(
        ((s.seat, s.place, s.score) for s in record.seats), key=lambda t: (t[1], t[0]))
    assert {p: int(total) for p, _, total in rows} == {k: v for k, v in result["cash"].items()}
    scoring = next(e for e in events if e["type"] == "scoring")
    done = dict(final.locator("tbody tr").evaluate_all(
        "rs => rs.map(r => [r.dataset.participant, r.querySelector('[data-field=completed]').textContent])"))
    assert done == {str(s["seat"]): f"{sum(t['completed'] for t in s['ticket_results'])} / {len(s['ticket_results'])}"
                    for s in scoring["seats"]}
    assert {p: sum(t["completed"] for t in s["ticket_results"]) for p, s in zip(result["cash"], scoring["seats"])} \
        == result["extra"]["completed_tickets"]
    top = tab.get_by_test_id("result").locator("tbody tr").evaluate_all("rows => rows.map(r => r.dataset.seat)")
    assert top == [p for p, _, _ in rows]  # the same order as the result at the top of the page
    shot(tab, f"ttr-{width}-{match_id}-final", full_page=True)
    tab.get_by_test_id("board-scroll").screenshot(path=str(tab_screenshot(f"ttr-{width}-{match_id}-board")))


def tab_screenshot(name: str) -> Any:
    from tests.chromium import SCREENSHOTS

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}.png"


def test_the_ttr_view_and_board_endpoints(browser: Any, base_url: str, stored: Stored) -> None:
    with open_tab(browser, "desktop") as tab:
        board = tab.request.get(f"{base_url}/api/board?game={GAME}").json()
        assert board["game"] == GAME and len(board["routes"]) == 95
        view = tab.request.get(f"{base_url}/api/replay-view/ttr-m0").json()
        assert view["game"] == GAME and len(view["frames"]) == len(stored.records["ttr-m0"].replay["events"])
        unknown = tab.request.get(f"{base_url}/api/board?game=chess")
        assert unknown.status == 400 and "chess" in unknown.json()["error"]
        assert tab.request.get(f"{base_url}/api/board").status == 400
        assert tab.request.get(f"{base_url}/static/games/{GAME}/replay.js").ok
        assert tab.request.get(f"{base_url}/static/games/union_pacific/replay.js").ok
        assert tab.request.get(f"{base_url}/static/games/{GAME}/view.py").status == 404  # only the viewer folder


def test_a_replay_without_a_view_or_not_yet_public(browser: Any, base_url: str, stored: Stored) -> None:
    with open_tab(browser, "phone") as tab:
        bad = tab.request.get(f"{base_url}/api/replay-view/ttr-bad")
        assert bad.status == 200 and bad.json()["frames"] is None  # a state of the match, as decision_events is
        assert "does not reproduce its stored events" in bad.json()["error"]
        # The page still steps through the stored events, and says why the board stays empty.
        open_replay(tab, f"{base_url}/matches/ttr-bad")
        assert "does not reproduce its stored events" in (tab.get_by_test_id("viewer-warning").text_content() or "")
        assert tab.get_by_test_id("result").locator("tbody tr").count() == 2  # the result stands
        events = stored.records["ttr-bad"].replay["events"]
        tab.keyboard.press("End")
        last = tab.locator(".turn-events li").count() - 1
        expect_step(tab, last)
        assert tab.get_by_test_id("event-text").text_content().startswith("Game over (normal)")
        assert tab.get_by_test_id("final").is_visible() and owners(tab) == {}
        assert (tab.locator("#step-label").text_content() or "").endswith("the stored events only")
        assert last == len(events) - 1
        secret = tab.request.get(f"{base_url}/api/replay-view/ttr-secret")
        assert secret.status == 403  # a running tournament's replays stay hidden, their views too
        tab.goto(f"{base_url}/matches/ttr-secret")
        assert tab.get_by_test_id("replay-hidden").is_visible() and tab.locator("#replay").count() == 0


def test_a_union_pacific_replay_without_a_view_still_shows_its_events_and_payouts(
        browser: Any, base_url: str, stored: Stored) -> None:
    replay = stored.records["up-old"].replay
    events = replay["events"]
    with open_tab(browser, "phone") as tab:
        open_replay(tab, f"{base_url}/matches/up-old")
        assert "does not reproduce its stored events" in (tab.get_by_test_id("viewer-warning").text_content() or "")
        first = next(i for i, e in enumerate(events) if e["type"] == "dividend")
        tab.locator("#btn-dividend").click()
        expect_step(tab, first)
        panel = tab.get_by_test_id("dividend")
        for company in events[first]["companies"]:
            for who, paid in company["payouts"].items():
                cell = panel.locator(f"tbody tr[data-company='{company['company']}'] [data-participant='{who}'][data-field='payout']")
                assert cell.text_content() == str(paid)
        assert tab.locator("#step-label").text_content().endswith("the stored events only")
        shot(tab, "ttr-phone-up-without-view", full_page=True)


# -- the controls replay-core.js and replay-svg.js share with Union Pacific's viewer ---------------


def test_the_shared_controls_drive_the_ttr_viewer(tab: Any, width: str, base_url: str, stored: Stored) -> None:
    """The address, the event list by turn, the marks, the keys and the zoom, as for Union Pacific
    (tests/test_web_viewer.py): the same shared code, with this game's events and board."""
    replay = stored.records["ttr-m1"].replay
    events = replay["events"]
    last = len(events) - 1
    open_replay(tab, f"{base_url}/matches/ttr-m1#step=30")
    assert step_of(tab) == 29
    assert (tab.locator("#step-label").text_content() or "").startswith(f"Step 30 / {len(events)} · turn ")

    # -- the event list: a group a turn, headed by the turn and its seat
    expect_turn_groups(tab, replay)

    # -- the marks under the slider: the final round and the scoring
    milestones = [(i, {"final_round": "final round", "scoring": "final scoring"}[e["type"]])
                  for i, e in enumerate(events) if e["type"] in ("final_round", "scoring")]
    assert [what for _, what in milestones] == ["final round", "final scoring"]
    marks = tab.get_by_test_id("slider-marks").locator(".mark-milestone")
    assert marks.evaluate_all("ms => ms.map(m => [Number(m.dataset.step), m.title])") == [
        [i, f"{what} (step {i + 1})"] for i, what in milestones]
    marks.nth(0).click()
    expect_step(tab, milestones[0][0])
    tab.wait_for_function("h => location.hash === h", arg=f"#step={milestones[0][0] + 1}")

    # -- the keys: Home, →, C (the next claim), End, ←; the address follows, a reload keeps it
    tab.locator("body").click(position={"x": 5, "y": 5})
    tab.keyboard.press("Home")
    expect_step(tab, 0)
    tab.keyboard.press("ArrowRight")
    expect_step(tab, 1)
    tab.keyboard.press("c")
    expect_step(tab, next(i for i, e in enumerate(events) if e["type"] == "claim"))
    tab.keyboard.press("End")
    expect_step(tab, last)
    assert (tab.get_by_test_id("event-text").text_content() or "").startswith(f"Game over ({events[-1]['termination']}): 1. ")
    tab.keyboard.press("ArrowLeft")
    expect_step(tab, last - 1)
    tab.wait_for_function("h => location.hash === h", arg=f"#step={last}")
    tab.reload()
    tab.locator("#replay[data-ready='true']").wait_for()
    assert step_of(tab) == last - 1

    # -- the zoom, by its keys and its buttons: the board scrolls in its box, never the page
    scroll = tab.get_by_test_id("board-scroll")
    for key, zoom in [("+", "1.5"), ("=", "2"), ("+", "3"), ("+", "3"), ("-", "2")]:
        tab.keyboard.press(key)
        assert scroll.get_attribute("data-zoom") == zoom, key
        assert tab.locator("#zoom-label").text_content() == f"{zoom}×"
    assert step_of(tab) == last - 1  # the zoom keys do not step
    layout = tab.evaluate("""() => { const box = document.getElementById('board-scroll');
      return {scroll: box.scrollWidth > box.clientWidth, page: document.documentElement.scrollWidth, view: window.innerWidth,
              labels: Number(document.getElementById('board').dataset.labelsShown)}; }""")
    assert layout["scroll"] and layout["page"] <= layout["view"], layout
    shot(tab, f"ttr-{width}-zoom2", full_page=True)
    tab.locator("#zoom-fit").click()
    assert scroll.get_attribute("data-zoom") == "1" and tab.locator("#zoom-out").is_disabled()
    assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_ttr_play_follows_the_chosen_speed(browser: Any, base_url: str) -> None:
    with open_tab(browser, "desktop") as tab:
        check_play_speed(tab, f"{base_url}/matches/ttr-m1")


def test_a_ttr_forfeit_ends_as_the_match_result_says(tab: Any, width: str, base_url: str, stored: Stored) -> None:
    record = stored.records["ttr-forfeit"]
    replay = record.replay
    names = {str(s["seat"]): s["name"] for s in replay["seats"]}
    open_replay(tab, f"{base_url}/matches/ttr-forfeit")
    tab.keyboard.press("End")
    expect_step(tab, len(replay["events"]) - 1)
    game_end = replay["events"][-1]
    assert game_end["type"] == "game_end" and game_end["places"]["0"] == 1  # first by points in the game itself
    text = tab.get_by_test_id("event-text").text_content() or ""
    assert text == f"Game over ({game_end['termination']}): " + ", ".join(
        f"{game_end['places'][p]}. {names[p]} {game_end['cash'][p]} points"
        for p in sorted(game_end["places"], key=lambda p: game_end["places"][p])) + \
        f". {names['0']} forfeited and is placed last in the match result."
    final = tab.get_by_test_id("final")
    rows = final.locator("tbody tr").evaluate_all(
        "rs => rs.map(r => [r.dataset.participant, r.querySelector('.place').textContent, !!r.querySelector('.status-forfeit')])")
    assert rows == [[str(s.seat), str(s.place), s.forfeited] for s in sorted(record.seats, key=lambda s: s.place)]
    assert rows[-1] == ["0", "3", True]
    assert (final.locator("h3").text_content() or "") == "Final scores · forfeit"
    top = tab.get_by_test_id("result").locator("tbody tr").evaluate_all("rows => rows.map(r => r.dataset.seat)")
    assert top == [p for p, _, _ in rows]
    # The panels read who is who and the shares through the shared parts (replay-parts.js).
    companies = tab.get_by_test_id("companies").locator("tbody tr").evaluate_all(
        "rs => rs.map(r => [r.dataset.company, r.querySelector('.co-chip .co-code').textContent, "
        "r.querySelector('.co-chip').style.getPropertyValue('--co')])")
    board = game_kit(GAME).view.board()
    assert companies == [[c["code"], c["code"], c["colour"]] for c in board["companies"]]
    shot(tab, f"ttr-{width}-forfeit-final", full_page=True)
