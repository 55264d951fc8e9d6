"""Bot processes: start-up, readiness, stderr logs, the shared pool, shut-down, and no orphans ever."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from arena.host.manifest import BotSpec, load_manifest
from arena.host.process import BotPool, BotStartError, free_port
from tests.fake_bots import FAKE_BOTS, fake_spec, manifest_path



def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting to be reaped counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not running(pid):
            return True
        time.sleep(0.05)
    return not running(pid)


def test_a_bot_starts_answers_and_is_stopped_with_its_log_kept(tmp_path: Path) -> None:
    with BotPool(log_dir=tmp_path / "logs", ready_timeout=10) as pool:
        handle = pool.acquire(fake_spec("random"))
        assert handle.name == "fake-random" and handle.describe.games == ["union_pacific"]
        assert handle.process is not None and handle.alive()
        pid = handle.process.pid
        assert os.getpgid(pid) == pid, "each bot leads its own process group"
        assert handle.connection.describe(timeout=2).name == "fake-random"
    assert handle.process.stopped_how == "terminated"
    assert not running(pid)
    log = (tmp_path / "logs" / "fake-random.log").read_text()
    assert "--- arena: starting" in log and f"fake bot pid {pid} ready" in log


def test_the_same_manifest_is_one_process_for_every_acquire(tmp_path: Path) -> None:
    with BotPool(log_dir=tmp_path) as pool:
        results: list[int] = []
        threads = [threading.Thread(target=lambda: results.append(pool.acquire(fake_spec("random")).process.pid))
                   for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(set(results)) == 1 and len(pool.running()) == 1


@pytest.mark.serial
def test_a_bot_that_exits_at_start_is_reported_with_its_stderr(tmp_path: Path) -> None:
    with BotPool(log_dir=tmp_path, ready_timeout=10) as pool:
        started = time.monotonic()
        with pytest.raises(BotStartError) as info:
            pool.acquire(fake_spec("exit-early"))
        assert time.monotonic() - started < 5, "an early exit is noticed without waiting for the limit"
    message = str(info.value)
    assert "exited with status 2 before it was ready" in message
    assert "cannot load my model, giving up" in message
    assert str(manifest_path("exit-early")) in message


@pytest.mark.serial
def test_a_bot_that_never_becomes_ready_is_stopped_after_the_limit(tmp_path: Path) -> None:
    with BotPool(log_dir=tmp_path, ready_timeout=1.0, max_start_failures=1) as pool:
        started = time.monotonic()
        with pytest.raises(BotStartError, match=r"did not become ready within 1 s") as info:
            pool.acquire(fake_spec("never-ready"))
        assert 0.9 < time.monotonic() - started < 5
        assert "fake bot never-ready starting" in str(info.value)
        with pytest.raises(BotStartError, match="not tried again"):
            pool.acquire(fake_spec("never-ready"))


def test_a_missing_program_is_named(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "x"\nversion = "1"\nlanguage = "c"\n'
                                       'command = ["no-such-program-here", "{port}"]\n')
    with BotPool(log_dir=tmp_path) as pool:
        with pytest.raises(BotStartError, match="program 'no-such-program-here' not found"):
            pool.acquire(BotSpec(manifest=load_manifest(tmp_path)))


@pytest.mark.serial
def test_a_bot_ignoring_sigterm_and_eof_is_killed_with_its_group(tmp_path: Path) -> None:
    pool = BotPool(log_dir=tmp_path, stop_timeout=0.5)
    handle = pool.acquire(fake_spec("ignore-shutdown"))
    assert handle.process is not None
    pid = handle.process.pid
    started = time.monotonic()
    assert pool.close() == {"fake-ignore-shutdown": "killed"}
    assert time.monotonic() - started < 3
    assert not running(pid)


def test_closing_stdin_alone_stops_a_well_behaved_bot(tmp_path: Path) -> None:
    with BotPool(log_dir=tmp_path) as pool:
        process = pool.acquire(fake_spec("random")).process
        assert process is not None
        process.close_stdin()
        assert process.wait(3) == 0


def test_a_dead_bot_is_restarted_on_the_next_acquire(tmp_path: Path) -> None:
    with BotPool(log_dir=tmp_path) as pool:
        first = pool.acquire(fake_spec("random"))
        assert first.process is not None
        os.kill(first.process.pid, signal.SIGKILL)
        first.process.wait(3)
        second = pool.acquire(fake_spec("random"))
        assert second.generation == 1 and second.process is not None
        assert second.process.pid != first.process.pid and second.alive()
        assert pool.current(first) is second
        assert pool.restart(first) is second, "a restart already done elsewhere is not repeated"


def test_a_bot_at_an_address_is_used_as_is(tmp_path: Path) -> None:
    port = free_port()
    bot = subprocess.Popen([sys.executable, str(FAKE_BOTS / "fake_bot.py"), "--mode", "random", "--port", str(port)],
                           stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        with BotPool(log_dir=tmp_path, ready_timeout=10) as pool:
            handle = pool.acquire(BotSpec(address=f"127.0.0.1:{port}"))
            assert handle.process is None and handle.name == "fake-random"
            assert pool.log_path(handle.spec) is None
        assert bot.poll() is None, "the host never stops a bot it did not start"
    finally:
        bot.kill()
        bot.wait()
        assert bot.stdin is not None
        bot.stdin.close()


def test_an_address_nobody_answers_is_a_start_error(tmp_path: Path) -> None:
    with BotPool(log_dir=tmp_path, ready_timeout=0.5) as pool:
        with pytest.raises(BotStartError, match="is not answering"):
            pool.acquire(BotSpec(address=f"127.0.0.1:{free_port()}"))


HOST_SCRIPT = """
import sys, threading, time
from arena.host.manifest import BotSpec, load_manifest
from arena.host.process import BotPool
pool = BotPool(log_dir=sys.argv[1])
pids = []
def acquire(path):
    pids.append(pool.acquire(BotSpec(manifest=load_manifest(path))).process.pid)
# The first bot is started on behalf of a thread that ends at once (as trio's worker threads do).
worker = threading.Thread(target=acquire, args=(sys.argv[2],))
worker.start()
worker.join()
acquire(sys.argv[3])
print(" ".join(map(str, pids)), flush=True)
time.sleep(120)
"""


def test_a_host_killed_with_sigkill_leaves_no_bot_alive(tmp_path: Path) -> None:
    env = dict(os.environ)
    host = subprocess.Popen(
        [sys.executable, "-c", HOST_SCRIPT, str(tmp_path), str(manifest_path("random")),
         str(manifest_path("ignore-shutdown"))],
        stdout=subprocess.PIPE, env=env, text=True)
    try:
        assert host.stdout is not None
        line = host.stdout.readline()
        pids = [int(p) for p in line.split()]
        assert len(pids) == 2, f"the host did not start its bots: {line!r}"
        time.sleep(0.5)
        assert all(running(pid) for pid in pids), "a bot died when the thread that asked for it ended"
        host.send_signal(signal.SIGKILL)
        host.wait(5)
        # random exits on stdin EOF; ignore-shutdown ignores EOF and SIGTERM: only the
        # parent-death signal can stop it.
        assert [wait_gone(pid, 5) for pid in pids] == [True, True]
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
        if host.stdout is not None:
            host.stdout.close()
