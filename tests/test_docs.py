"""Every ``arena`` command in the documentation runs as written.

Each page (README.md, then docs/*.md) is read from top to bottom in a fresh folder
of its own that holds ``sample_bots`` (a link to the repository's), with the
``arena`` of this environment first on ``PATH`` and no ``ARENA_DB``:

- a fenced code block right after a line that names a file and ends with a colon
  (`` `my_bot/bot.py`: ``) is written to that file;
- every line of any other fenced block that starts with ``arena`` (with its ``\\``
  continuation lines) is run by bash, in order, as written: it must exit 0 with no
  traceback. Other lines (``python bot.py``, ``source``, JSON, Python) are not run.

The exceptions, each because a test cannot run it as it stands:

- :data:`PARSE_ONLY`: ``arena serve`` serves until it is stopped, the benchmarks
  and ``arena sprt --simulate`` measure for minutes, and ``postgresql://arena@dbhost/...``
  names a server that is not there: their arguments are parsed by the real parser (a
  renamed option still fails) and nothing is run (tests/test_web_api.py,
  tests/test_bench.py and tests/test_sprt.py run them).
- :data:`SUBSTITUTIONS`: ``127.0.0.1:50051``, the address of "a bot already running
  elsewhere", becomes the address of the investor sample bot that the test starts
  on a free port.
- :data:`SETUP`: README.md's commands come after ``scripts/demo``; its ``arena demo``
  part is run first (smaller: no Node bot, fewer matches).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.cli.main import build_parser
from arena.host.sandbox import sandbox_available

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ARENA_BIN = Path(sys.executable).parent  # the environment that runs the tests holds its `arena`

#: Commands that cannot run in a test: (pattern, why); their arguments are parsed only.
PARSE_ONLY = [
    (re.compile(r"^arena serve\b"), "serves until stopped (tests/test_web_api.py runs it)"),
    (re.compile(r"^arena bench\b"), "benchmarks take minutes (tests/test_bench.py runs them small)"),
    (re.compile(r"^arena sprt --simulate\b"), "simulates thousands of tests (tests/test_sprt.py runs it small)"),
    (re.compile(r"postgresql://arena@dbhost/"), "names a database server that is not there"),
]
#: The address the docs give to "a bot already running elsewhere".
DOC_ADDRESS = "127.0.0.1:50051"
#: What the docs say -> what the test runs.
SUBSTITUTIONS = {DOC_ADDRESS: "the address of an investor sample bot the test starts"}
#: Commands a page takes for granted, run before its own.
SETUP = {"README.md": ["arena demo --no-node --players 2 --rounds 1 --quiet"]}


def end_match_hook_ran(folder: Path) -> None:
    """writing-a-bot.md: its hooks example ran in the last match, with ``cash`` a mapping."""
    log = (folder / "arena-data" / "logs" / "my-bot.log").read_text(encoding="utf-8")
    said = re.findall(r"^(m-[0-9a-f]{20}) seat 0: place [123], cash (\d+) \(best (\d+)\), [1-9]\d* decisions, "
                      r"normal$", log, re.MULTILINE)
    assert said and int(said[-1][1]) <= int(said[-1][2]), log[-2000:]
    assert "end_match() raised" not in log and "Traceback" not in log, log[-2000:]
    [replay] = (folder / "replays").glob(f"play-*-{said[-1][0]}.json")  # the match the hooks example played
    assert json.loads(replay.read_text())["match"]["notes"] == []  # EndMatch was answered without an error


#: Checks of what a page's commands did, beyond their exit status.
AFTER = {"writing-a-bot.md": end_match_hook_ran}

FENCE = re.compile(r"^\s*(```+|~~~+)")
FILE_LINE = re.compile(r"^`(?P<path>[A-Za-z0-9_][\w./-]*)`[^`]*:$")


@dataclass(frozen=True)
class Step:
    page: str
    line: int  # where it starts on the page
    text: str  # the command as written (continuations included), or the file's content
    file: str | None = None  # the file the block defines, for a file

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.text if self.file is None else 'file ' + self.file}"


def read_page(path: Path) -> list[Step]:
    """The page's files and ``arena`` commands, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    steps: list[Step] = []
    previous = ""
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            if lines[i].strip():
                previous = lines[i].strip()
            i += 1
            continue
        fence, start, body = opening.group(1), i + 1, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i])
            i += 1
        i += 1
        named = FILE_LINE.match(previous)
        if named:
            steps.append(Step(path.name, start, "\n".join(body) + "\n", named["path"]))
        else:
            steps.extend(_commands(path.name, start + 1, body))
        previous = ""
    return steps


def _commands(page: str, first: int, body: list[str]) -> Iterator[Step]:
    j = 0
    while j < len(body):
        line = body[j].strip()
        if line == "arena" or line.startswith("arena "):
            start, parts = j, [line]
            while parts[-1].endswith("\\") and j + 1 < len(body):
                j += 1
                parts.append(body[j].strip())
            yield Step(page, first + start, "\n".join(parts))
        j += 1


def parse_only_reason(command: str) -> str | None:
    return next((why for pattern, why in PARSE_ONLY if pattern.search(command)), None)


def check_arguments(step: Step) -> None:
    argv = shlex.split(step.text.replace("\\\n", " "), comments=True)
    assert argv[0] == "arena", step
    try:
        build_parser().parse_args(argv[1:])
    except SystemExit as exc:
        raise AssertionError(f"{step}: the arguments do not parse (exit {exc.code})") from None


def run_step(step: Step, folder: Path, env: dict[str, str], substitutions: dict[str, str]) -> None:
    """Write the file, parse the arguments, or run the command (which must exit 0, no traceback)."""
    if step.file is not None:
        target = folder / step.file
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(step.text, encoding="utf-8")
        return
    if parse_only_reason(step.text):
        check_arguments(step)
        return
    command = step.text
    for old, new in substitutions.items():
        command = command.replace(old, new)
    proc = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, (
        f"{step}\nexit {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}")


def doc_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ARENA_DB", "ARENA_BOT_ADDRESS", "ARENA_BOT_PORT")}
    env["PATH"] = f"{ARENA_BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_address_bot(logs: Path) -> tuple[subprocess.Popen[bytes], str]:
    """The investor sample bot, listening on a free port as "a bot running elsewhere"."""
    address = f"127.0.0.1:{free_port()}"
    folder = ROOT / "sample_bots" / "python" / "investor_bot"
    logs.mkdir(parents=True, exist_ok=True)
    with open(logs / "address-bot.log", "wb") as log:
        proc = subprocess.Popen([sys.executable, "bot.py", "--address", address, "--ignore-stdin"], cwd=folder,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, env=doc_env())
    deadline = time.monotonic() + 30
    host, port = address.split(":")
    while True:
        try:
            with socket.create_connection((host, int(port)), timeout=1):
                return proc, address
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(f"the address bot did not start: {(logs / 'address-bot.log').read_text()}")
            time.sleep(0.1)


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1")


def _require(condition: bool, reason: str) -> None:
    if not condition:
        if _in_ci():
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason)


# -- the collector and the runner, on small pages -------------------------------------------------


def test_the_pages_are_read_into_files_and_commands(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("Intro.\n\n`bot/bot.toml`, the manifest:\n\n```toml\nname = \"x\"\n```\n\n"
                    "```bash\narena tournament run --bot a \\\n    --bot b   # two bots\npython bot.py\n"
                    "  arena leaderboard\n```\n\n```json\n{\"arena\": 1}\n```\n")
    steps = read_page(page)
    assert [(s.line, s.file, s.text) for s in steps] == [
        (5, "bot/bot.toml", 'name = "x"\n'),
        (10, None, "arena tournament run --bot a \\\n--bot b   # two bots"),
        (13, None, "arena leaderboard"),
    ]
    everything = [s for p in PAGES for s in read_page(p)]
    commands = [s.text for s in everything if s.file is None]
    assert len(commands) >= 30 and {s.page for s in everything} >= {"README.md", "tournaments.md",
                                                                       "writing-a-bot.md", "hosting.md"}
    assert any(c.startswith("arena tournament run") for c in commands)
    assert {s.file for s in everything if s.file} >= {"my_bot/bot.py", "my_bot/bot.toml"}
    parse_only = [c for c in commands if parse_only_reason(c)]
    assert parse_only and all(c.startswith(("arena serve", "arena bench", "arena sprt --simulate"))
                                        for c in parse_only), parse_only


def test_a_broken_command_fails_the_test(tmp_path: Path) -> None:
    env = doc_env()
    with pytest.raises(AssertionError, match="exit 2"):  # no database here: a read-only command says so
        run_step(Step("page.md", 3, "arena tournament show 1"), tmp_path, env, {})
    with pytest.raises(AssertionError, match="do not parse"):
        run_step(Step("page.md", 4, "arena serve --no-such-option"), tmp_path, env, {})
    run_step(Step("page.md", 5, "arena serve --port 8080 --db postgresql://arena@dbhost/arena"), tmp_path, env, {})
    run_step(Step("page.md", 6, "arena --version"), tmp_path, env, {})


# -- every page ------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if any(s.file is None for s in read_page(p))],
                         ids=lambda p: p.name)
def test_every_command_of_the_page_runs_as_written(page: Path, tmp_path: Path) -> None:
    steps = read_page(page)
    text = page.read_text(encoding="utf-8")
    _require((ARENA_BIN / "arena").exists(), f"no arena command in {ARENA_BIN}: install Arena (scripts/test)")
    _require(sandbox_available(), "the bot sandbox (bubblewrap) is not available: the docs' commands need it")
    if "sample_bots/node" in text:
        _require(shutil.which("node") is not None and (ROOT / "sample_bots/node/node_modules").is_dir(),
                 "the Node sample bot is not installed (scripts/test runs npm ci)")
    folder = tmp_path / page.stem
    folder.mkdir()
    (folder / "sample_bots").symlink_to(ROOT / "sample_bots", target_is_directory=True)
    env = doc_env()
    substitutions: dict[str, str] = {}
    address_bot = None
    if DOC_ADDRESS in text:
        address_bot, address = start_address_bot(tmp_path / "logs")
        substitutions[DOC_ADDRESS] = address
    try:
        for n, command in enumerate(SETUP.get(page.name, [])):
            run_step(Step(f"{page.name} (set-up)", n, command), folder, env, {})
        for step in steps:
            run_step(step, folder, env, substitutions)
        if page.name in AFTER:
            AFTER[page.name](folder)
    finally:
        if address_bot is not None:
            address_bot.terminate()
            address_bot.wait(timeout=10)
