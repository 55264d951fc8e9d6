"""What a person sees, in a real headless Chromium, on a desktop and on a phone 390 pixels wide.

The data are real games (in-process random players, stored as the host stores a match:
tests/test_web_api.py's ``fill_store``), with a seat that faults twice and forfeits, and
a running tournament whose matches are stored while its page is open.  The viewer's
words, marks, chart and board are checked against the stored replay and the engine.
Screenshots land in test-artifacts/screenshots/ (``viewer-*``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from arena.games.union_pacific.kit.view import COMPANY_SHAPES
from arena.games.union_pacific.payouts import company_payout, union_pacific_payout
from arena.replay import action_event_spans
from leaderboard.rows import TournamentStatus
from leaderboard.store import Store
from tests.chromium import (  # noqa: F401
    SCREENSHOTS, browser, check_play_speed, chromium, expect_step, expect_turn_groups, open_replay, open_tab,
    readme_image, serve, shot, step_of, tab, width)
from tests.test_web_api import HOSTILE, Data, fill_store, running_tournament, store_next_match

pytestmark = pytest.mark.browser

FORFEIT_MATCH = "t1-m004"  # three players; the hostile-named seat 2 faults at decisions 7 and 12, then forfeits
TWO_PLAYER_MATCH = "t1-m000"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Data:
    return fill_store(f"sqlite:///{(tmp_path_factory.mktemp('viewer') / 'arena.sqlite').as_posix()}")


@pytest.fixture(scope="module")
def base_url(data: Data) -> Iterator[str]:
    with serve(data.url) as url:
        yield url


def replay_of(data: Data, match_id: str) -> dict[str, Any]:
    replay = data.records[match_id].replay
    assert replay is not None
    return replay


def match_url(base_url: str, match_id: str, fragment: str = "") -> str:
    return f"{base_url}/matches/{quote(match_id, safe='')}{fragment}"


# -- every page at both widths --------------------------------------------------------------------


def test_every_page_fits_the_width_and_tables_scroll_in_their_own_box(tab: Any, width: str, base_url: str) -> None:
    pages = {"leaderboard": "/", "tournaments": "/tournaments", "tournament": "/tournaments/1", "bots": "/bots",
             "bot": f"/bots/{quote(HOSTILE, safe='')}", "match": f"/matches/{FORFEIT_MATCH}",
             "matches": f"/matches?bot={quote(HOSTILE, safe='')}&limit=5"}
    for name, path in pages.items():
        tab.goto(base_url + path)
        if name == "match":
            tab.locator("#replay[data-ready='true']").wait_for()
        layout = tab.evaluate("""() => ({
          page: document.documentElement.scrollWidth, view: window.innerWidth,
          loose: Array.from(document.querySelectorAll('table.data')).filter(t => !t.closest('.table-box')).length,
          boxes: Array.from(document.querySelectorAll('.table-box')).map(b => b.getBoundingClientRect().right),
          names: Array.from(document.querySelectorAll('td .bot-name, th .bot-name, td.seat-bot .bot-name')).map(n => {
            const range = document.createRange();
            range.selectNodeContents(n);
            const lines = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
            return [n.textContent, lines.size];
          }),
        })""")
        assert layout["page"] <= layout["view"], f"{path} scrolls sideways at {width}: {layout['page']} > {layout['view']}"
        assert layout["loose"] == 0, f"{path}: a table outside a box of its own"
        assert all(right <= layout["view"] + 0.5 for right in layout["boxes"]), path
        for text, lines in layout["names"]:  # wrapped between words at most, never letter by letter
            assert lines <= 1 + len(text) // 6, (path, text, lines)
        shot(tab, f"viewer-{width}-{name}", full_page=True)


# -- the words: payouts, the dividend line, a forfeit ----------------------------------------------


def expected_rule(holdings: dict[str, int]) -> str:
    counts = sorted(holdings.values(), reverse=True)
    if not counts:
        return "none"
    if len(counts) > 1 and counts[0] == counts[1]:
        return "tie"
    return "only" if len(counts) == 1 else "leader"


@pytest.mark.parametrize("match_id", [FORFEIT_MATCH, TWO_PLAYER_MATCH])
def test_each_payout_says_which_rule_applied_and_what_each_was_paid(
        tab: Any, width: str, base_url: str, data: Data, match_id: str) -> None:
    replay = replay_of(data, match_id)
    names = {str(s["seat"]): s["name"] for s in replay["seats"]} | {"imaginary": "imaginary shareholder"}
    dividends = [(i, e) for i, e in enumerate(replay["events"]) if e["type"] == "dividend"]
    open_replay(tab, match_url(base_url, match_id))
    for index, event in dividends:
        tab.locator("#btn-dividend").click()
        expect_step(tab, index)
        panel = tab.get_by_test_id("dividend")
        paid = {who: sum(c["payouts"].get(who, 0) for c in event["companies"]) + event["union_pacific"]["payouts"].get(who, 0)
                for who in event["cash"]}
        assert tab.get_by_test_id("event-text").text_content() == f"Dividend {event['number']} paid: " + ", ".join(
            f"{names[who]} +${paid[who]} (cash ${cash})" for who, cash in event["cash"].items()) + "."
        for company in event["companies"]:
            rule = expected_rule(company["holdings"])
            row = panel.locator(f"tbody tr[data-company='{company['company']}']")
            assert row.get_attribute("data-rule") == rule, (event["number"], company)
            # The rule named is the rule the engine applied: its amounts are what the event paid.
            value, holders = company["value"], list(company["holdings"])
            engine = dict(zip(holders, company_payout(value, [company["holdings"][h] for h in holders])))
            assert engine == company["payouts"]
            if rule == "only":
                assert company["payouts"][holders[0]] == value + value // 2
            note = panel.locator(f".payout-notes li[data-company='{company['company']}']")
            if rule == "none":
                assert note.count() == 0
                continue
            text = note.text_content() or ""
            assert text.startswith(f"{company['company']} (value {value}): ")
            for who, amount in company["payouts"].items():
                assert names[who] in text and (f"${amount}" in text or amount == 0), (text, who)
            assert {"only": "only shareholder and gets V + ⌊V/2⌋", "tie": "tie for most shares",
                    "leader": "has most shares"}[rule] in text
        up = event["union_pacific"]
        holders = list(up["holdings"])
        assert dict(zip(holders, union_pacific_payout(event["number"], [up["holdings"][h] for h in holders]))) == up["payouts"]
        if holders:
            text = panel.locator(".payout-notes li[data-company='UP']").text_content() or ""
            position = 1
            for count in sorted(set(up["holdings"].values()), reverse=True):
                group = [h for h in holders if up["holdings"][h] == count]
                where = f"position {position}" if len(group) == 1 else f"positions {position}–{position + len(group) - 1}"
                assert f"{where} (" in text and f"${up['payouts'][group[0]]}" in text, (text, where)
                position += len(group)
        caption = panel.locator("p.caption").text_content() or ""
        assert "one shareholder gets V + ⌊V/2⌋" in caption and "its value V to the only shareholder" not in caption
    shot(tab, f"viewer-{width}-payouts-{match_id}", full_page=True)


def test_a_forfeit_ends_as_the_match_result_says(tab: Any, width: str, base_url: str, data: Data) -> None:
    record = data.records[FORFEIT_MATCH]
    replay = replay_of(data, FORFEIT_MATCH)
    open_replay(tab, match_url(base_url, FORFEIT_MATCH))
    tab.keyboard.press("End")
    expect_step(tab, len(replay["events"]) - 1)
    final = tab.get_by_test_id("final")
    shown = final.locator("li").evaluate_all(
        "items => items.map(li => [li.dataset.participant, li.querySelector('.place').textContent])")
    by_place = sorted(record.seats, key=lambda s: (s.place, s.forfeited))
    assert shown == [[str(s.seat), str(s.place)] for s in by_place]
    forfeiter = next(s for s in record.seats if s.forfeited)
    assert shown[-1][0] == str(forfeiter.seat)  # last, though its cash was the highest
    assert forfeiter.score == max(s.score for s in record.seats)
    assert final.locator(f"li[data-participant='{forfeiter.seat}'] .status-forfeit").count() == 1
    result_rows = tab.get_by_test_id("result").locator("tbody tr").evaluate_all("rows => rows.map(r => r.dataset.seat)")
    assert result_rows == [seat for seat, _ in shown]  # the same order as the result at the top of the page
    assert "placed last in the match result" in (tab.get_by_test_id("event-text").text_content() or "")
    shot(tab, f"viewer-{width}-forfeit-final", full_page=True)


# -- moving around: the address, the event list, speed, marks, decisions -----------------------------


def test_the_step_is_in_the_address(browser: Any, base_url: str, data: Data) -> None:
    events = replay_of(data, FORFEIT_MATCH)["events"]
    with open_tab(browser, "desktop") as tab:
        open_replay(tab, match_url(base_url, FORFEIT_MATCH, "#step=40"))
        assert step_of(tab) == 39
        assert tab.locator("#step-label").text_content().startswith(f"Step 40 / {len(events)}")
        tab.locator("body").click(position={"x": 5, "y": 5})
        tab.keyboard.press("ArrowRight")
        tab.keyboard.press("ArrowRight")
        tab.wait_for_function("() => location.hash === '#step=42'")
        tab.reload()
        tab.locator("#replay[data-ready='true']").wait_for()
        assert step_of(tab) == 41
        dividend = next(i for i, e in enumerate(events) if e["type"] == "dividend" and i > 41)
        tab.locator("#btn-dividend").click()
        tab.wait_for_function("h => location.hash === h", arg=f"#step={dividend + 1}")
        tab.go_back()
        expect_step(tab, 41)
        tab.go_forward()
        expect_step(tab, dividend)
        tab.goto(match_url(base_url, FORFEIT_MATCH, "#step=99999"))  # out of range: the last step
        tab.locator("#replay[data-ready='true']").wait_for()
        assert step_of(tab) == len(events) - 1


def test_the_event_list_is_grouped_by_turn_and_clickable(tab: Any, width: str, base_url: str, data: Data) -> None:
    replay = replay_of(data, FORFEIT_MATCH)
    events = replay["events"]
    open_replay(tab, match_url(base_url, FORFEIT_MATCH))
    expect_turn_groups(tab, replay)
    target = len(events) * 2 // 3
    item = tab.locator(f".turn-events li[data-step='{target}'] a")
    item.scroll_into_view_if_needed()
    item.click()
    expect_step(tab, target)
    tab.wait_for_function("h => location.hash === h", arg=f"#step={target + 1}")
    assert tab.locator(".turn-events li.current").get_attribute("data-step") == str(target)
    # The list keeps the current event inside its own box.
    tab.keyboard.press("End")
    expect_step(tab, len(events) - 1)
    inside = tab.evaluate("""() => {
      const box = document.getElementById('event-box').getBoundingClientRect();
      const item = document.querySelector('.turn-events li.current').getBoundingClientRect();
      return item.top >= box.top - 1 && item.bottom <= box.bottom + 1;
    }""")
    assert inside


def test_play_follows_the_chosen_speed(browser: Any, base_url: str) -> None:
    with open_tab(browser, "desktop") as tab:
        check_play_speed(tab, match_url(base_url, FORFEIT_MATCH))


def test_marks_and_decisions_lead_into_the_replay(tab: Any, width: str, base_url: str, data: Data) -> None:
    replay = replay_of(data, FORFEIT_MATCH)
    events = replay["events"]
    spans = action_event_spans(replay)
    open_replay(tab, match_url(base_url, FORFEIT_MATCH))
    marks = tab.get_by_test_id("slider-marks")
    dividends = [i for i, e in enumerate(events) if e["type"] == "dividend"]
    assert marks.locator(".mark-dividend").evaluate_all("ms => ms.map(m => Number(m.dataset.step))") == dividends
    faults = {f.decision: f for s in data.records[FORFEIT_MATCH].seats for f in s.faults}
    fault_steps = marks.locator(".mark-fault").evaluate_all("ms => ms.map(m => Number(m.dataset.step))")
    assert sorted(fault_steps) == sorted(spans[d][0] - 1 for d in faults)
    tagged = tab.locator(".turn-events li:has(.status-fault)").evaluate_all("ls => ls.map(l => Number(l.dataset.step))")
    assert tagged == sorted(spans[d][0] for d in faults if spans[d][1] > spans[d][0])  # the decision's first event
    # A mark sits under its step of the slider.
    slider = tab.locator("#step-slider").bounding_box()
    for i, step in enumerate(dividends):
        box = marks.locator(".mark-dividend").nth(i).bounding_box()
        centre = box["x"] + box["width"] / 2
        assert abs(centre - (slider["x"] + 8 + (slider["width"] - 16) * step / (len(events) - 1))) <= 3
    marks.locator(".mark-dividend").nth(1).click()
    expect_step(tab, dividends[1])

    # A fault's decision number, from the faults table above the viewer.
    tab.evaluate("window.scrollTo(0, 0)")
    tab.get_by_test_id("match-faults").get_by_role("link", name="12", exact=True).click()
    expect_step(tab, spans[12][0] - 1)
    tab.wait_for_function("() => location.hash === '#decision=12'")
    note = tab.get_by_test_id("decision-note")
    assert note.is_visible()
    text = note.text_content() or ""
    action = replay["actions"][12]
    assert text.startswith(f"Decision 12 · {HOSTILE}@1 (seat 2) played {action['action']}.") and action["seat"] == 2
    assert faults[12].reason.value in text and faults[12].detail in text
    assert tab.evaluate("document.getElementById('replay').getBoundingClientRect().top") >= -1  # brought into sight
    shot(tab, f"viewer-{width}-decision-12")
    tab.reload()
    tab.locator("#replay[data-ready='true']").wait_for()
    assert step_of(tab) == spans[12][0] - 1 and tab.get_by_test_id("decision-note").is_visible()
    tab.keyboard.press("ArrowRight")  # stepping on leaves the decision
    expect_step(tab, spans[12][0])
    assert tab.get_by_test_id("decision-note").is_hidden()

    # A debug line's decision, and a fault mark on the slider.
    tab.evaluate("window.scrollTo(0, 0)")
    tab.locator("details.debug summary").click()
    tab.locator(".debug-lines").get_by_role("link", name="2", exact=True).click()
    expect_step(tab, max(0, spans[2][0] - 1))
    assert "debug: " in (tab.get_by_test_id("decision-note").text_content() or "")
    marks.locator(".mark-fault").first.click()
    expect_step(tab, min(fault_steps))


def test_the_bot_page_links_a_fault_to_its_decision(browser: Any, base_url: str, data: Data) -> None:
    spans = action_event_spans(replay_of(data, FORFEIT_MATCH))
    with open_tab(browser, "phone") as tab:
        tab.goto(f"{base_url}/bots/{quote(HOSTILE, safe='')}")
        tab.get_by_test_id("faults").get_by_role("link", name="7", exact=True).click()
        tab.locator("#replay[data-ready='true']").wait_for()
        expect_step(tab, spans[7][0] - 1)
        assert (tab.get_by_test_id("decision-note").text_content() or "").startswith("Decision 7 ")


# -- the chart and the board -------------------------------------------------------------------------


@pytest.mark.parametrize("match_id", [FORFEIT_MATCH, TWO_PLAYER_MATCH])
def test_the_cash_chart_follows_the_replay(tab: Any, width: str, base_url: str, data: Data, match_id: str) -> None:
    replay = replay_of(data, match_id)
    events = replay["events"]
    cash = replay["result"]["cash"]
    open_replay(tab, match_url(base_url, match_id))
    chart = tab.get_by_test_id("cash-chart")
    lines = chart.locator("polyline.series").evaluate_all("ls => ls.map(l => l.dataset.participant)")
    assert lines == list(cash)  # every seat, and the imaginary shareholder of the two-player game
    ends = chart.locator("polyline.series").evaluate_all(
        "ls => Object.fromEntries(ls.map(l => [l.dataset.participant, Number(l.getAttribute('points').split(' ').pop().split(',')[1])]))")
    order = sorted(cash, key=lambda who: cash[who])
    assert [ends[who] for who in order] == sorted((ends[who] for who in order), reverse=True)  # more cash, higher
    first = next(i for i, e in enumerate(events) if e["type"] == "dividend")
    tab.locator("#btn-dividend").click()
    expect_step(tab, first)
    for who, amount in events[first]["cash"].items():
        assert tab.locator(f"[data-chart-cash='{who}']").text_content() == f" ${amount}"
    box = chart.bounding_box()
    chart.click(position={"x": box["width"] * 0.75, "y": box["height"] / 2})
    step = step_of(tab)
    w = chart.evaluate("c => c.viewBox.baseVal.width")  # the plot runs from x = 40 to w - 14
    assert abs(step - round((len(events) - 1) * (0.75 * w - 40) / (w - 40 - 14))) <= len(events) * 0.02
    shot(tab, f"viewer-{width}-chart-{match_id}")


LAYOUT = """() => {
  const rect = n => n.getBBox();
  const hit = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  const svg = document.getElementById('board');
  const labels = Array.from(svg.querySelectorAll('text.city-label')).filter(t => !t.classList.contains('unplaced'));
  const boxes = labels.map(rect);
  const slots = Array.from(svg.querySelectorAll('.slot')).map(rect);
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const size = Number(svg.querySelector('.city-labels').getAttribute('font-size'));
  const bad = [];
  boxes.forEach((b, i) => {
    slots.forEach(s => { if (hit(b, s)) bad.push(labels[i].textContent + ' covers a space'); });
    boxes.forEach((c, j) => { if (j > i && hit(b, c)) bad.push(labels[i].textContent + ' overlaps ' + labels[j].textContent); });
  });
  const box = document.getElementById('board-scroll');
  return {shown: labels.length, bad: bad, px: size * scale, scroll: box.scrollWidth > box.clientWidth,
          page: document.documentElement.scrollWidth, view: window.innerWidth};
}"""


def test_trains_carry_shapes_and_labels_hide_no_space(tab: Any, width: str, base_url: str, data: Data) -> None:
    events = replay_of(data, FORFEIT_MATCH)["events"]
    open_replay(tab, match_url(base_url, FORFEIT_MATCH))
    tab.keyboard.press("End")
    expect_step(tab, len(events) - 1)
    trains = tab.locator(".slot.train").evaluate_all("ts => ts.map(t => [t.dataset.company, t.dataset.shape])")
    assert len(trains) == 11 + sum(e["type"] == "build" for e in events)
    assert all(shape == COMPANY_SHAPES[company] for company, shape in trains)
    legend = tab.locator(".legend-train").evaluate_all(
        "items => items.map(i => [i.dataset.company, i.textContent.trim(), i.querySelector('path').getAttribute('d').length > 0])")
    assert [(c, t, drawn) for c, t, drawn in legend] == [(c, c, True) for c in COMPANY_SHAPES]
    fit = tab.evaluate(LAYOUT)
    assert fit["bad"] == [] and abs(fit["px"] - 11) < 0.5 and not fit["scroll"]
    assert fit["shown"] >= (30 if width == "desktop" else 10)
    tab.locator(".board-wrap").screenshot(path=str(SCREENSHOTS / f"viewer-{width}-board-fit.png"))
    if width == "phone":
        readme_image(tab, "replay-phone.png", tab.locator("#replay"), tab.locator("#legend"))
    tab.locator("#zoom-in").click()
    tab.locator("#zoom-in").click()
    zoomed = tab.evaluate(LAYOUT)
    assert tab.get_by_test_id("board-scroll").get_attribute("data-zoom") == "2"
    assert zoomed["bad"] == [] and abs(zoomed["px"] - 11) < 0.5 and zoomed["scroll"]
    assert zoomed["shown"] >= fit["shown"] and zoomed["page"] <= zoomed["view"]
    if width == "phone":
        assert zoomed["shown"] > fit["shown"]  # zooming in names more cities
    tab.get_by_test_id("board-scroll").screenshot(path=str(SCREENSHOTS / f"viewer-{width}-board-zoom2.png"))
    tab.locator("#zoom-fit").click()
    assert tab.evaluate(LAYOUT)["shown"] == fit["shown"]
    # The zoom keys (replay-svg.js's zoomBoard, as for Ticket to Ride): + or = in, - out; no step.
    for key, zoom in [("+", "1.5"), ("=", "2"), ("-", "1.5"), ("-", "1"), ("-", "1")]:
        tab.keyboard.press(key)
        assert tab.get_by_test_id("board-scroll").get_attribute("data-zoom") == zoom, key
        assert tab.locator("#zoom-label").text_content() == f"{zoom}×"
    assert step_of(tab) == len(events) - 1


# -- a running tournament ---------------------------------------------------------------------------


def test_a_running_tournament_shows_its_progress_and_refreshes(browser: Any, tmp_path: Path, width: str) -> None:
    url = f"sqlite:///{(tmp_path / 'arena.sqlite').as_posix()}"
    now = time.time()
    tid = running_tournament(url, 3, start=now - 25, gap=10)  # ends at now-24.5, -14.5, -4.5: 6 a minute
    with serve(url) as base, open_tab(browser, width) as tab:
        tab.add_init_script("window.arenaProgressTiming = {poll: 150, reload: 0}")
        tab.goto(f"{base}/tournaments/{tid}")
        progress = tab.get_by_test_id("progress")
        assert progress.locator("#progress-count").text_content() == "3 of 12 matches (25 %)"
        facts = progress.locator("#progress-facts").text_content() or ""
        assert facts.startswith("6.0 matches/min · about ") and "to go (done near " in facts
        minutes = 9 / 6  # nine matches to go at six a minute
        assert f"about {math.floor(minutes)} min" in facts, facts
        assert tab.get_by_test_id("matches").locator("tbody tr").count() == 3
        assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        shot(tab, f"viewer-{width}-tournament-running", full_page=True)
        store_next_match(url, tid, time.time() - 0.5)
        tab.wait_for_function("() => document.querySelectorAll(\"[data-testid='matches'] tbody tr\").length === 4")
        assert progress.locator("#progress-count").text_content() == "4 of 12 matches (33 %)"
        with Store.open(url) as store:
            store.set_tournament_status(tid, TournamentStatus.FINISHED)
        tab.wait_for_function("() => document.querySelector('.status').textContent === 'finished'")
        assert "finished" in (tab.locator("#progress-facts").text_content() or "")
