"""Driving Debian's Chromium (through Playwright, headless; nothing is downloaded) against
the web app served by uvicorn in a thread: the fixtures and helpers the browser tests share.

A test module imports the fixtures it uses (``from tests.chromium import browser, chromium``).
Screenshots land in test-artifacts/screenshots/; with ARENA_UPDATE_SCREENSHOTS=1 the
README's images in docs/images/ are rewritten too.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from leaderboard.web import create_app

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"
README_IMAGES = REPO / "docs" / "images"

#: The two widths every page must work at: a desktop, and a phone 390 CSS pixels wide.
VIEWPORTS: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1440, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
              "device_scale_factor": 2},
}


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1")


@pytest.fixture(scope="module")
def chromium() -> Path:
    if not CHROMIUM.exists():
        reason = f"Debian's Chromium is not installed at {CHROMIUM} (apt-get install chromium)"
        if _in_ci():
            pytest.fail(f"CI=true but {reason}: the browser tests must run in CI", pytrace=False)
        pytest.skip(f"{reason}; the browser tests need it")
    return CHROMIUM


@pytest.fixture(scope="module")
def browser(chromium: Path) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(chromium), headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@contextlib.contextmanager
def serve(db_url: str) -> Iterator[str]:
    """``arena serve``'s app over ``db_url`` under uvicorn in a background thread; yields its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(db_url), host="127.0.0.1", port=port, log_level="warning",
                                           ws="none", http="h11", lifespan="on"))
    thread = threading.Thread(target=server.run, name="arena-serve", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise AssertionError("the web server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextlib.contextmanager
def open_tab(browser: Any, width: str = "desktop") -> Iterator[Any]:
    """A fresh tab at one of :data:`VIEWPORTS`; fails if a dialog opened (an injected script
    ran) or a script failed or logged an error."""
    context = browser.new_context(**VIEWPORTS[width])
    tab = context.new_page()
    dialogs: list[str] = []
    errors: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    tab.on("dialog", on_dialog)
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    try:
        yield tab
    finally:
        context.close()
    assert dialogs == [], f"a dialog opened: {dialogs}"
    assert errors == [], f"script errors: {errors}"


@pytest.fixture(params=list(VIEWPORTS))
def width(request: pytest.FixtureRequest) -> str:
    """Each of :data:`VIEWPORTS` in turn."""
    return str(request.param)


@pytest.fixture
def tab(browser: Any, width: str) -> Iterator[Any]:
    """A fresh tab at ``width`` (:func:`open_tab`)."""
    with open_tab(browser, width) as t:
        yield t


def shot(tab: Any, name: str, **kwargs: Any) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SCREENSHOTS / f"{name}.png"), **kwargs)


def readme_image(tab: Any, name: str, top: Any, bottom: Any) -> None:
    """With ARENA_UPDATE_SCREENSHOTS=1: docs/images/NAME, from the top of ``top`` to the bottom of ``bottom``."""
    if os.environ.get("ARENA_UPDATE_SCREENSHOTS") != "1":
        return
    tab.evaluate("window.scrollTo(0, 0)")  # so that bounding boxes are page coordinates
    first, last = top.bounding_box(), bottom.bounding_box()
    assert first is not None and last is not None
    README_IMAGES.mkdir(parents=True, exist_ok=True)
    clip = {"x": first["x"], "y": first["y"], "width": first["width"],
            "height": last["y"] + last["height"] - first["y"] + 12}
    tab.screenshot(path=str(README_IMAGES / name), clip=clip, full_page=True)


def open_replay(tab: Any, url: str) -> Any:
    """Open a match page (``url`` may carry #step= or #decision=) and wait for its viewer."""
    tab.goto(url)
    viewer = tab.locator("#replay[data-ready='true']")
    viewer.wait_for()
    return viewer


def expect_step(tab: Any, step: int) -> None:
    """Wait until the viewer shows ``step`` (0-based: the state after events 0..step)."""
    tab.wait_for_function("s => document.getElementById('replay').dataset.step === s", arg=str(step))


def step_of(tab: Any) -> int:
    """The step the viewer shows (0-based)."""
    return int(tab.locator("#replay").get_attribute("data-step") or "-1")


def check_play_speed(tab: Any, url: str) -> None:
    """Open the replay at ``url`` (56 steps or more) under a fake clock and play it: at 4x (a step
    every 75 ms: replay-core.js steps every 300 ms at 1x), paused by the button, at half speed,
    at 8x chosen while it plays, then paused by the space key."""
    tab.clock.install()
    open_replay(tab, url)
    tab.clock.pause_at(time.time() + 3600)
    tab.locator("#speed").select_option("4")  # 4x: a step every 75 ms
    tab.locator("#btn-play").click()
    tab.clock.run_for(3000)
    assert step_of(tab) == 40
    tab.locator("#btn-play").click()  # pause
    tab.clock.run_for(3000)
    assert step_of(tab) == 40
    tab.locator("#speed").select_option("0.5")  # half speed: a step every 600 ms
    tab.locator("#btn-play").click()
    tab.clock.run_for(3000)
    assert step_of(tab) == 45
    tab.locator("#speed").select_option("8")  # a change while playing takes effect at once
    tab.clock.run_for(375)
    assert step_of(tab) == 55
    tab.locator("#step-label").click()  # away from the buttons: the space key is the viewer's
    tab.keyboard.press(" ")
    assert tab.locator("#btn-play").get_attribute("aria-pressed") == "false"
    tab.clock.run_for(3000)
    assert step_of(tab) == 55


def turn_groups(tab: Any) -> list[list[Any]]:
    """The viewer's event list: [heading, [its steps]] for each group (the set-up, then a turn each)."""
    return list(tab.locator(".turn-group").evaluate_all(
        "gs => gs.map(g => [g.querySelector('.turn-head').textContent, "
        "Array.from(g.querySelectorAll('li[data-step]')).map(li => Number(li.dataset.step))])"))


def expect_turn_groups(tab: Any, replay: dict[str, Any]) -> list[list[Any]]:
    """The event list is grouped by turn: "Set-up", then "Turn N · bot" for each turn event, which
    starts its group; every step in order."""
    events = replay["events"]
    names = {str(s["seat"]): s["name"] for s in replay["seats"]}
    groups = turn_groups(tab)
    turns = [e for e in events if e["type"] == "turn"]
    assert [g[0] for g in groups] == ["Set-up"] + [f"Turn {t['turn']} · {names[str(t['seat'])]}" for t in turns]
    assert [step for g in groups for step in g[1]] == list(range(len(events)))
    for _, steps in groups[1:]:
        assert events[steps[0]]["type"] == "turn" and all(events[s]["type"] != "turn" for s in steps[1:])
    return groups
