"""The web pages in a real headless Chromium (Debian's, driven by Playwright; nothing downloaded;
the fixtures are in tests/chromium.py).

The data come from a real tournament: ``arena tournament run`` with the Python
random and investor sample bots and a copy of the random bot registered under the
name ``<script>alert(1)</script>``, over gRPC, at table sizes 2 and 3.  The test
follows the leaderboard to a bot, to a match, steps the replay to a dividend and
checks what is shown against the stored replay.

Screenshots land in test-artifacts/screenshots/; with ARENA_UPDATE_SCREENSHOTS=1
the README's docs/images/leaderboard.png and docs/images/replay.png are rewritten.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest

from arena.records import reference_participant
from leaderboard.rows import MatchRow
from leaderboard.store import Store
from tests.chromium import REPO, browser, chromium, expect_step, open_tab, readme_image, serve, shot  # noqa: F401
from tests.chromium import open_replay as _open_replay

pytestmark = pytest.mark.browser

HOSTILE = "<script>alert(1)</script>"
HOSTILE_V1 = f"{HOSTILE}@1"  # version 1 of the hostile bot: what plays and is rated
IMAGINARY = reference_participant("imaginary")  # the two-player game's imaginary shareholder, as ratings name it
SAMPLE_BOTS = REPO / "sample_bots" / "python"


@pytest.fixture(scope="module")
def db_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A database holding one small real tournament, played by bot processes over gRPC."""
    work = tmp_path_factory.mktemp("tournament")
    hostile = work / "hostile_bot"
    shutil.copytree(SAMPLE_BOTS / "random_bot", hostile, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = hostile / "bot.toml"
    lines = manifest.read_text().splitlines()
    manifest.write_text("\n".join('name = "<script>alert(1)</script>"' if line.startswith("name =") else line
                                  for line in lines) + "\n")
    code = hostile / "bot.py"  # Describe must give the manifest's name
    code.write_text(code.read_text().replace('name = "random-bot"', 'name = "<script>alert(1)</script>"'))
    url = f"sqlite:///{(work / 'arena.sqlite').as_posix()}"
    command = [sys.executable, "-m", "arena.cli.main", "tournament", "run",
               "--bot", str(SAMPLE_BOTS / "random_bot"), "--bot", str(SAMPLE_BOTS / "investor_bot"),
               "--bot", str(hostile), "--players", "2,3", "--seed", "7", "--db", url,
               "--logs", str(work / "logs"), "--quiet"]
    # The manifests run "python": make it this interpreter, the one that has arena installed.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"the tournament failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    with Store.open(url) as store:
        assert len(store.list_matches()) == 9  # C(3,2)*2 two-player + C(3,3)*3 three-player matches
    return url


@pytest.fixture(scope="module")
def base_url(db_url: str) -> Iterator[str]:
    with serve(db_url) as url:
        yield url


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh desktop tab; fails the test if a dialog opened (an injected script ran) or a script failed."""
    with open_tab(browser, "desktop") as tab:
        yield tab


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    with Store.open(db_url) as s:
        yield s


def open_replay(tab: Any, base_url: str, match_id: str) -> Any:
    return _open_replay(tab, f"{base_url}/matches/{quote(match_id, safe='')}")


def check_dividend(tab: Any, event: dict[str, Any], names: dict[str, str]) -> None:
    """The seats' cash and every cell of the dividend table equal the replay's dividend event."""
    panel = tab.get_by_test_id("dividend")
    assert panel.is_visible()
    assert panel.locator("h3").text_content() == f"Dividend {event['number']} · payouts"
    for who, cash in event["cash"].items():
        assert tab.locator(f"[data-seat-cash='{who}']").text_content() == str(cash), who
        assert panel.locator(f"tfoot [data-participant='{who}'][data-field='cash']").text_content() == str(cash)
    rows = [(c["company"], c["holdings"], c["payouts"]) for c in event["companies"]]
    rows.append(("UP", event["union_pacific"]["holdings"], event["union_pacific"]["payouts"]))
    for company, holdings, payouts in rows:
        row = panel.locator(f"tbody tr[data-company='{company}']")
        for who in event["cash"]:
            held = row.locator(f"[data-participant='{who}'][data-field='holding']").text_content()
            paid = row.locator(f"[data-participant='{who}'][data-field='payout']").text_content()
            assert held == (str(holdings[who]) if who in holdings else ""), (company, who)
            assert paid == (str(payouts[who]) if who in holdings else ""), (company, who)
    for c in event["companies"]:
        value = panel.locator(f"tbody tr[data-company='{c['company']}'] td").nth(1).text_content()
        assert value == str(c["value"])
    header = [h.text_content() for h in panel.locator("thead th.group").all()]
    assert header == [names[who] for who in event["cash"]]


def test_leaderboard_bot_match_and_replay_to_a_dividend(page: Any, base_url: str, store: Store) -> None:
    tab = page
    # -- the leaderboard: every participant, sortable
    tab.goto(base_url + "/")
    standings = tab.get_by_test_id("standings")
    names = standings.locator("tbody tr").evaluate_all("rows => rows.map(r => r.dataset.bot)")
    assert sorted(names) == sorted([b.participant for b in store.list_bots()] + [IMAGINARY])
    shot(tab, "01-leaderboard", full_page=True)
    readme_image(tab, "leaderboard.png", tab.locator("header.topbar"), tab.locator("main section").last)
    tab.get_by_role("columnheader", name="Mean cash").click()
    cash = standings.locator("tbody tr td:nth-child(9)").evaluate_all("cells => cells.map(c => c.dataset.value)")
    numbers = [float(v) for v in cash if v != ""]
    assert numbers == sorted(numbers) and len(numbers) == 3 and cash[-1] == ""  # no cash for the reference row
    tab.get_by_role("columnheader", name="Mean cash").click()
    cash = standings.locator("tbody tr td:nth-child(9)").evaluate_all("cells => cells.map(c => c.dataset.value)")
    assert [float(v) for v in cash if v != ""] == sorted(numbers, reverse=True)
    shot(tab, "02-leaderboard-sorted-by-mean-cash", full_page=True)

    # -- follow a bot
    tab.get_by_role("link", name="investor-bot@1", exact=True).first.click()
    tab.wait_for_url(f"{base_url}/bots/investor-bot%401")
    assert tab.get_by_test_id("bot-title").text_content() == "investor-bot@1"
    stats = next(s for s in store.bot_stats() if s.bot == "investor-bot@1")
    assert tab.locator("svg.chart circle.point").count() == stats.matches
    opponents = tab.get_by_test_id("head-to-head").locator("tbody tr").evaluate_all(
        "rows => rows.map(r => r.dataset.opponent)")
    assert sorted(opponents) == sorted(["random-bot@1", HOSTILE_V1, IMAGINARY])
    assert tab.get_by_test_id("versions").locator("tbody tr").count() == 1
    shot(tab, "03-bot-page", full_page=True)

    # -- open a match (the newest three-player one) from the recent matches
    match = next(m for m in store.list_matches(bot="investor-bot") if m.table_size == 3)
    tab.get_by_test_id("matches").get_by_role("link", name=match.id).click()
    tab.wait_for_url(f"{base_url}/matches/{match.id}")
    tab.locator("#replay[data-ready='true']").wait_for()
    stored = store.get_match(match.id)
    assert stored.replay is not None
    events = stored.replay["events"]
    names = {str(s["seat"]): s["name"] for s in stored.replay["seats"]}
    assert tab.get_by_test_id("seats").locator(".bot-name").all_text_contents() == [names[str(i)] for i in range(3)]
    first = next(i for i, e in enumerate(events) if e["type"] == "dividend")

    # -- step forward to the first dividend: buttons, then the keyboard
    for _ in range(3):
        tab.locator("#btn-next").click()
    expect_step(tab, 3)
    tab.locator("#btn-prev").click()
    expect_step(tab, 2)
    tab.locator("body").click(position={"x": 5, "y": 5})  # focus away from the buttons
    for _ in range(first - 2):
        tab.keyboard.press("ArrowRight")
    expect_step(tab, first)
    assert tab.get_by_test_id("event-text").text_content().startswith(f"Dividend {events[first]['number']} paid")
    check_dividend(tab, events[first], names)
    seat_cash = {who: int(tab.locator(f"[data-seat-cash='{who}']").text_content()) for who in names}
    assert seat_cash == events[first]["cash"]
    shot(tab, "04-replay-first-dividend", full_page=True)
    tab.keyboard.press("ArrowLeft")
    expect_step(tab, first - 1)
    assert tab.get_by_test_id("dividend").is_hidden()
    assert all(tab.locator(f"[data-seat-cash='{who}']").text_content() == "0" for who in names)

    # -- the next dividends through the "Next dividend" button
    dividends = [i for i, e in enumerate(events) if e["type"] == "dividend"]
    for index in dividends:
        tab.locator("#btn-dividend").click()
        expect_step(tab, index)
        check_dividend(tab, events[index], names)
    shot(tab, "05-replay-last-dividend", full_page=True)

    # -- the slider: End on the keyboard, then a click half-way along it
    slider = tab.locator("#step-slider")
    slider.focus()
    tab.keyboard.press("Home")
    expect_step(tab, 0)
    tab.keyboard.press("End")
    expect_step(tab, len(events) - 1)
    final = tab.get_by_test_id("final")
    for seat in stored.seats:
        item = final.locator(f"li[data-participant='{seat.seat}']")
        assert item.locator(".place").text_content() == str(stored.replay["result"]["places"][str(seat.seat)])
        assert item.locator(".cash").text_content() == f"${seat.score}"
        assert tab.locator(f"[data-seat-cash='{seat.seat}']").text_content() == str(seat.score)
    box = slider.bounding_box()
    assert box is not None
    slider.click(position={"x": box["width"] / 2, "y": box["height"] / 2})
    middle = int(tab.locator("#replay").get_attribute("data-step") or "-1")
    assert abs(middle - (len(events) - 1) / 2) <= len(events) * 0.05
    assert slider.input_value() == str(middle)
    assert tab.locator("#step-label").text_content().startswith(f"Step {middle + 1} / {len(events)}")
    shot(tab, "06-replay-slider-middle", full_page=True)


def _percent(p: float) -> str:
    return ">99%" if p >= 0.995 else "<1%" if p <= 0.005 else f"{100 * p:.0f}%"


def test_leaderboard_shows_intervals_superiority_cross_table_and_table_sizes(
        page: Any, base_url: str, store: Store) -> None:
    tab = page
    tab.goto(base_url + "/")
    api = tab.request.get(base_url + "/api/leaderboard").json()
    rows = api["rows"]
    # -- the interval bars: one per row, all on one linear scale (pixels = a + b * Elo)
    boxes = []
    for row in rows:
        bar = tab.locator(f"#standings tbody tr[data-bot='{row['name']}'] svg.ci-bar")
        assert bar.is_visible()
        rect, point = bar.locator("rect.range").bounding_box(), bar.locator("line.point").bounding_box()
        assert rect is not None and point is not None
        boxes.append((row, rect["x"], rect["x"] + rect["width"], point["x"] + point["width"] / 2))
    (first, left0, _, _), (last, left1, _, _) = boxes[0], boxes[-1]
    scale = (left1 - left0) / (last["ci_low"] - first["ci_low"])
    assert scale > 0
    for row, left, right, tick in boxes:
        assert left == pytest.approx(left0 + scale * (row["ci_low"] - first["ci_low"]), abs=1.5)
        assert right == pytest.approx(left0 + scale * (row["ci_high"] - first["ci_low"]), abs=1.5)
        assert tick == pytest.approx(left0 + scale * (row["elo"] - first["ci_low"]), abs=1.5)
        assert left - 1 <= tick <= right + 1
    line = tab.get_by_test_id("columns-line").text_content()
    assert "rank by this" in line and "updated match by match" in line
    # -- the likelihood of superiority: neighbours, from both sides, as the API says
    matrix = tab.get_by_test_id("superiority-matrix")
    assert matrix.is_visible()
    for e in api["superiority"]:
        above = matrix.locator(f"tr[data-bot='{e['above']}'] td[data-column='{e['below']}']")
        below = matrix.locator(f"tr[data-bot='{e['below']}'] td[data-column='{e['above']}']")
        assert above.text_content() == _percent(e["p"]) and below.text_content() == _percent(1 - e["p"])
    # -- the cross-table: each pair that met, the score and how many matches
    cross = tab.get_by_test_id("cross-matrix")
    for p in api["cross_table"]["pairs"]:
        cell = cross.locator(f"tr[data-bot='{p['a']}'] td[data-column='{p['b']}']")
        assert cell.locator("small").text_content() == str(p["meetings"])
        assert cell.text_content() == f"{100 * p['score']:.0f}%{p['meetings']}"
        other = cross.locator(f"tr[data-bot='{p['b']}'] td[data-column='{p['a']}']")
        assert other.text_content() == f"{100 * (1 - p['score']):.0f}%{p['meetings']}"
    shot(tab, "07-leaderboard-ratings", full_page=True)
    # -- one table size: follow the link
    tab.get_by_test_id("table-sizes").get_by_role("link", name="3 players").click()
    tab.wait_for_url(base_url + "/?players=3")
    three = tab.request.get(base_url + "/api/leaderboard?players=3").json()
    shown = tab.locator("#standings tbody tr").evaluate_all("rows => rows.map(r => r.dataset.bot)")
    assert shown == [r["name"] for r in three["rows"]] and IMAGINARY not in shown
    assert all(r["matches"] == 3 for r in three["rows"])  # the one subset of three, in its three rotations
    assert "3-player tables" in tab.locator("h1").text_content()
    shot(tab, "08-leaderboard-three-players", full_page=True)
    # -- on a phone the matrices scroll inside their own box
    tab.set_viewport_size({"width": 390, "height": 844})
    tab.goto(base_url + "/")
    for test_id in ("superiority", "cross-table"):
        section = tab.get_by_test_id(test_id)
        box, inner = section.bounding_box(), section.locator(".table-box").bounding_box()
        assert box is not None and inner is not None and inner["x"] + inner["width"] <= box["x"] + box["width"] + 1
    shot(tab, "09-leaderboard-ratings-390px", full_page=True)


def test_two_player_replay_shows_the_imaginary_shareholder(page: Any, base_url: str, store: Store) -> None:
    match = next(m for m in store.list_matches()
                 if m.table_size == 2 and m.references and HOSTILE_V1 not in m.places)
    stored = store.get_match(match.id)
    assert stored.replay is not None
    events = stored.replay["events"]
    names = {str(s["seat"]): s["name"] for s in stored.replay["seats"]} | {"imaginary": "imaginary shareholder"}
    open_replay(page, base_url, match.id)
    dividends = [i for i, e in enumerate(events) if e["type"] == "dividend"]
    assert len(dividends) == 3
    for index in dividends:
        page.keyboard.press("d")
        expect_step(page, index)
        check_dividend(page, events[index], names)
    assert page.locator("[data-seat-cash='imaginary']").text_content() == str(next(r.score for r in stored.references if r.name == "imaginary"))
    created = next(e for e in events if e["type"] == "imaginary_shareholder")
    invested = page.locator("[data-seat-invested='imaginary'] .co-chip").evaluate_all(
        "chips => Object.fromEntries(chips.map(c => [c.dataset.company, Number(c.querySelector('.co-count').textContent)]))")
    assert invested == created["invested"]
    shot(page, "07-two-player-third-dividend", full_page=True)
    readme_image(page, "replay.png", page.locator("section:has(#replay)"), page.locator("#replay .viewer-grid"))


def test_the_board_shows_the_trains_of_the_replay(page: Any, base_url: str, store: Store) -> None:
    match: MatchRow = store.list_matches()[0]
    stored = store.get_match(match.id)
    assert stored.replay is not None
    events = stored.replay["events"]
    open_replay(page, base_url, match.id)
    board = page.get_by_test_id("board")
    assert board.locator("g.cities g.city").count() == 40
    assert board.locator(".slot").count() == 174
    start = page.locator(".slot.train").evaluate_all("s => s.map(x => x.dataset.company)")
    assert sorted(start) == sorted(["EPRG", "EPRG", "BNL", "MS", "DM", "SFRB", "UMR", "ESL", "KCC", "MRR", "WW"])
    page.keyboard.press("End")
    expect_step(page, len(events) - 1)
    builds: dict[int, list[str]] = {}
    for e in events:
        if e["type"] == "build":
            builds.setdefault(e["section"], []).append(e["company"])
    for section, companies in builds.items():
        shown = page.locator(f".slot.train[data-section='{section}']:not(.start)").evaluate_all(
            "s => s.map(x => x.dataset.company)")
        assert shown == companies, section
    colours = page.locator(".slot.train[data-company='DM']").evaluate_all(
        "s => s.map(x => getComputedStyle(x).fill)")
    assert set(colours) == {"rgb(27, 27, 27)"}  # DM trains are black
    shot(page, "08-board-at-the-end", full_page=True)


def test_hostile_bot_name_is_text_everywhere(page: Any, base_url: str, store: Store) -> None:
    match = next(m for m in store.list_matches(bot=HOSTILE) if m.table_size == 3)
    pages = ["/", "/tournaments", "/tournaments/1", "/bots", f"/bots/{quote(HOSTILE, safe='')}",
             f"/matches/{quote(match.id, safe='')}"]
    for path in pages:
        page.goto(base_url + path)
        if path.startswith("/matches/"):
            page.locator("#replay[data-ready='true']").wait_for()
            assert HOSTILE_V1 in page.get_by_test_id("seats").locator(".bot-name").all_text_contents()
        shown = page.get_by_text(HOSTILE_V1, exact=True)
        assert shown.count() >= 1, path
        injected = page.evaluate(
            "() => Array.from(document.querySelectorAll('script')).filter(s => s.textContent.includes('alert(1)')).length")
        assert injected == 0, path
    page.goto(base_url + "/")
    page.get_by_role("link", name=HOSTILE_V1, exact=True).first.click()
    page.wait_for_url(f"{base_url}/bots/{quote(HOSTILE_V1, safe='')}")
    assert unquote(page.url.rsplit("/", 1)[1]) == HOSTILE_V1
    assert page.get_by_test_id("bot-title").text_content() == HOSTILE_V1
    assert page.title() == f"{HOSTILE_V1} · Arena"
    shot(page, "09-hostile-bot-page", full_page=True)


def viewer_state(tab: Any) -> dict[str, Any]:
    """What the viewer shows now: every participant, the supply and the companies."""
    return tab.evaluate("""() => {
      const chips = node => Object.fromEntries(Array.from(node.querySelectorAll('.co-chip')).map(
        c => [c.dataset.company, Number(c.querySelector('.co-count').textContent)]));
      const rows = Array.from(document.querySelectorAll('#seats-table tbody tr'));
      const count = name => document.querySelector(`[data-count='${name}'] .fact-value`).textContent;
      return {
        players: rows.map(r => ({
          who: r.dataset.participant,
          cash: Number(r.querySelector('[data-seat-cash]').textContent),
          invested: chips(r.querySelector('[data-seat-invested]')),
          hand: r.querySelector('.hand') ? r.querySelector('.hand').textContent : null,
        })),
        display: Array.from(document.querySelectorAll("[data-testid='display'] .co-chip")).map(c => c.dataset.company),
        share_deck: count('share-deck'), track_deck: count('track-deck'), up_stack: count('up-stack'),
        companies: Array.from(document.querySelectorAll('#companies-table tbody tr')).map(
          r => [r.dataset.company, Number(r.cells[1].textContent), Number(r.cells[2].textContent)]),
      };
    }""")


def engine_views(replay: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The public state after each action, keyed by the index of the last event it produced."""
    from arena.games import get_game

    game = get_game(replay["game"])
    state = game.new_state(replay["players"], replay["seed"], replay["variant"])
    views: dict[int, dict[str, Any]] = {}
    for entry in replay["actions"]:
        state.apply_action(entry["seat"], state.string_to_action(entry["action"]))
        views[len(state.events) - 1] = state.observation(0)
    assert list(state.events) == replay["events"]
    return views


def test_viewer_state_matches_the_engine(page: Any, base_url: str, store: Store) -> None:
    """At sampled steps, what the viewer folded equals the engine's own state re-played from the actions."""
    for match in [m for m in store.list_matches() if m.table_size == 3][:1] + [
            m for m in store.list_matches() if m.table_size == 2][:1]:
        stored = store.get_match(match.id)
        assert stored.replay is not None
        views = engine_views(stored.replay)
        open_replay(page, base_url, match.id)
        steps = sorted(views)
        sample = sorted(set(steps[:: max(1, len(steps) // 12)] + [steps[-1]]))
        slider = page.locator("#step-slider")
        for step in sample:
            slider.fill(str(step))
            expect_step(page, step)
            obs, shown = views[step], viewer_state(page)
            expected = [{"who": str(p["seat"]), "cash": p["cash"], "invested": p["invested"],
                         "hand": f"hand: {p['hand_shares']} shares, {p['hand_track']} track"} for p in obs["players"]]
            if obs["imaginary"] is not None:
                expected.append({"who": "imaginary", "cash": obs["imaginary"]["cash"],
                                 "invested": obs["imaginary"]["invested"], "hand": None})
            assert shown["players"] == expected, (match.id, step)
            assert shown["display"] == obs["display"], (match.id, step)
            assert shown["share_deck"].split(" ")[0] == str(obs["share_deck"]), (match.id, step)
            assert shown["track_deck"].split(" ")[0] == str(obs["track_deck"]), (match.id, step)
            assert shown["up_stack"] == str(obs["up_stack"]), (match.id, step)
            assert shown["companies"] == [[c["code"], c["trains_on_board"], c["value"]] for c in obs["companies"]]
