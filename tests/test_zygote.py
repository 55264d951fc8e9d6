"""The zygote (arena.host.zygote, arena.host.zygote_main): which bots it starts, what it reads,
that it dies with the host and takes every sandbox with it, that the host starts a new one
when it is gone.  What a bot in one of its sandboxes can and cannot do is in
test_sandbox_attacks.py (every attack there runs in the zygote's sandboxes, and the ones
about the start itself on both paths)."""

from __future__ import annotations

import array
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.host import zygote as zygotes
from arena.host.manifest import BotManifest, load_manifest
from arena.host.process import _in_spawner_thread, start_bot
from arena.host.sandbox import IsolationPolicy, sandbox_available

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = ROOT / "sample_bots" / "python" / "random_bot"
NODE_BOT = ROOT / "sample_bots" / "node"

needs_sandbox = pytest.mark.skipif(not sandbox_available() and os.environ.get("CI") != "true",
                                   reason="bubblewrap cannot create namespaces here")


def _manifest(tmp_path: Path, command: list[str], env: dict[str, str] | None = None) -> BotManifest:
    import json

    if not (tmp_path / "bot.py").exists():
        (tmp_path / "bot.py").write_text("")
    lines = ['name = "z"', 'version = "1"', 'language = "python"', f"command = {json.dumps(command)}"]
    if env:
        lines += ["[env]", *(f"{k} = {json.dumps(v)}" for k, v in env.items())]
    (tmp_path / "bot.toml").write_text("\n".join(lines) + "\n")
    return load_manifest(tmp_path)


def test_only_python_scripts_without_python_settings_are_started_by_the_zygote(tmp_path: Path) -> None:
    assert zygotes.eligible(load_manifest(RANDOM_BOT))
    assert zygotes.eligible(_manifest(tmp_path, ["python3", "bot.py", "--address", "{address}"], {"LEVEL": "3"}))
    if (NODE_BOT / "bot.toml").exists():
        assert not zygotes.eligible(load_manifest(NODE_BOT))
    for command in (["python", "-u", "bot.py"], ["python", "-m", "bot"], ["python"], ["./bot.py"]):
        assert not zygotes.eligible(_manifest(tmp_path, command)), command
    # A forked interpreter cannot honour what changes how an interpreter starts.
    assert not zygotes.eligible(_manifest(tmp_path, ["python", "bot.py"], {"PYTHONHASHSEED": "0"}))


def _zygote_pids(host_pid: int) -> list[int]:
    """Zygote processes started by ``host_pid`` (it is the last word of their command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(b"arena.host.zygote_main" in w for w in words) and words[-2:-1] == [str(host_pid).encode()]:
            found.append(int(entry.name))
    return found


@needs_sandbox
def test_the_zygote_drops_anything_but_a_request_and_keeps_serving(tmp_path: Path) -> None:
    zygote = zygotes.get_zygote(_in_spawner_thread)
    r, w = os.pipe()
    try:
        # Wrong word, wrong number of descriptors, no descriptors: each dropped, and closed.
        for data, fds in ((b"G", [r, r, r, r]), (b"F", [r, r, r]), (b"F", []), (b"FF", [r, r, r, r])):
            zygote._control.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
                                   if fds else [])
        os.close(r)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and zygote.error_text().count("dropped a malformed request") < 4:
            time.sleep(0.02)  # four requests, each dropped in turn (the first may be told before the rest)
        assert zygote.error_text().count("dropped a malformed request") >= 4, zygote.error_text()
        # The zygote holds no copy of the pipe's read end: the write end sees it closed (soon: a
        # process the host forks meanwhile holds one until it execs).
        deadline = time.monotonic() + 5
        while True:
            try:
                os.write(w, b"x")
            except BrokenPipeError:
                break
            assert time.monotonic() < deadline, "the zygote kept a descriptor of a dropped request"
            time.sleep(0.05)
        assert zygote.alive(), zygote.error_text()
        process, connection, _ = start_bot(load_manifest(RANDOM_BOT), log_path=tmp_path / "bot.log",
                                           policy=IsolationPolicy.sandbox())
        connection.close()
        process.stop(0.0)
        assert "sandbox, zygote" in (tmp_path / "bot.log").read_text()
    finally:
        os.close(w)


@needs_sandbox
def test_a_dead_zygote_takes_its_sandboxes_along_and_the_host_starts_another(tmp_path: Path) -> None:
    manifest = load_manifest(RANDOM_BOT)
    process, connection, _ = start_bot(manifest, log_path=tmp_path / "bot.log", policy=IsolationPolicy.sandbox())
    try:
        zygote = zygotes.get_zygote(_in_spawner_thread)
        bot_pids = process.bot_pids()
        assert bot_pids and type(process.popen).__name__ == "SandboxProcess"
        os.kill(zygote._popen.pid, signal.SIGKILL)
        process.thaw()  # a frozen process cannot die (cgroup v1)
        assert process.wait(5) is not None, "the sandbox outlived its zygote"
        deadline = time.monotonic() + 5
        while any(Path(f"/proc/{pid}").exists() for pid in bot_pids) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not any(Path(f"/proc/{pid}").exists() for pid in bot_pids)
    finally:
        connection.close()
        process.stop(0.0)
    again, connection, _ = start_bot(manifest, log_path=tmp_path / "bot.log", policy=IsolationPolicy.sandbox())
    connection.close()
    again.stop(0.0)
    assert zygotes.get_zygote(_in_spawner_thread) is not zygote
    assert (tmp_path / "bot.log").read_text().count("sandbox, zygote") == 2


@needs_sandbox
def test_the_zygote_and_its_sandboxes_die_with_a_sigkilled_host(tmp_path: Path) -> None:
    """The host is killed outright while its bot is frozen: no zygote, no bot process stays."""
    script = (f"import sys, time\nfrom pathlib import Path\nfrom arena.host.manifest import load_manifest\n"
              f"from arena.host.process import start_bot\nfrom arena.host.sandbox import IsolationPolicy\n"
              f"p, c, _ = start_bot(load_manifest({str(RANDOM_BOT)!r}), log_path=Path({str(tmp_path / 'b.log')!r}),"
              f" policy=IsolationPolicy.sandbox())\n"
              f"print(' '.join(map(str, p.bot_pids())), flush=True)\ntime.sleep(60)\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    host = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, env=env, cwd=ROOT,
                            start_new_session=True)
    try:
        assert host.stdout is not None
        bot_pids = [int(pid) for pid in host.stdout.readline().split()]
        assert bot_pids, "the host did not start its bot"
        assert _zygote_pids(host.pid), "no zygote found for the host"
        os.kill(host.pid, signal.SIGKILL)
        host.wait(5)
        deadline = time.monotonic() + 10
        while (_zygote_pids(host.pid) or any(Path(f"/proc/{pid}").exists() for pid in bot_pids)) \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _zygote_pids(host.pid), "the zygote outlived its SIGKILLed host"
        left = [pid for pid in bot_pids if Path(f"/proc/{pid}").exists()]
        assert not left, f"bot processes outlived their SIGKILLed host: {left}"
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
        if host.stdout is not None:
            host.stdout.close()


_FACTS = '''
import json, os, random, sys
print("FACTS " + json.dumps({"argv": sys.argv, "path0": sys.path[0], "file": __file__, "name": __name__,
      "cwd": os.getcwd(), "random": random.random(), "env": sorted(os.environ), "main": sys.modules["__main__"].__dict__ is globals(),
      "pid": os.getpid(), "ppid": os.getppid()}), file=sys.stderr, flush=True)
if len(sys.argv) > 2 and sys.argv[2] == "fail":
    raise ValueError("a bug in the bot")
sys.exit(int(sys.argv[1]))
'''


@needs_sandbox
def test_the_zygote_runs_a_script_as_python_would(tmp_path: Path) -> None:
    import json

    from arena.host.process import BotProcess

    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.py").write_text(_FACTS)
    facts, statuses = [], []
    for args in (["3"], ["0"], ["0", "fail"]):
        manifest = _manifest(bot, ["python", "bot.py", *args, "--address", "{address}"], {"LEVEL": "3"})
        log = tmp_path / f"bot-{len(facts)}.log"
        process = BotProcess.spawn(manifest, log_path=log, policy=IsolationPolicy.sandbox())
        statuses.append(process.wait(10))
        process.stop(0.0)
        text = log.read_text()
        assert "sandbox, zygote" in text
        facts.append(json.loads(next(line for line in text.splitlines() if line.startswith("FACTS "))[6:]))
        if "fail" in args:
            assert "ValueError: a bug in the bot" in text and 'bot.py", line' in text
            assert "zygote_main" not in text, "the traceback shows the zygote's own frames"
    assert statuses == [3, 0, 1], statuses
    first = facts[0]
    assert first["argv"] == ["bot.py", "3", "--address", "unix:/run/arena/bot.sock"]
    assert first["path0"] == str(bot) and first["file"] == str(bot / "bot.py") and first["cwd"] == str(bot)
    assert first["name"] == "__main__" and first["main"] and first["pid"] == 2 and first["ppid"] == 1
    assert set(first["env"]) == {"ARENA_BOT_ADDRESS", "HOME", "LANG", "LEVEL", "PATH", "PWD",
                                 "PYTHONDONTWRITEBYTECODE", "TMPDIR"}
    assert len({f["random"] for f in facts}) == 3, "forked processes share the random module's state"


def _status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return {key: value.strip() for key, _, value in (line.partition(":") for line in lines)}


@needs_sandbox
def test_as_root_the_zygote_needs_no_monitor_and_both_ways_build_the_same_sandbox(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As root the zygote's child is the sandbox's init itself; with ARENA_ZYGOTE_MONITOR=1 (and
    whenever the host is not root) a monitor stands between: the bot's sandbox is the same."""
    from arena.host import namespaces

    shapes = {}
    try:
        for monitor in (False, True):
            if monitor:
                monkeypatch.setenv("ARENA_ZYGOTE_MONITOR", "1")
            zygotes.close_zygote()
            process, connection, _ = start_bot(load_manifest(RANDOM_BOT), log_path=tmp_path / "bot.log",
                                               policy=IsolationPolicy.sandbox())
            try:
                init, (bot,) = process.sandbox_init, process.bot_pids()
                assert init is not None
                for pid, inside in ((init, "1"), (bot, "2")):
                    status = _status(pid)
                    assert status["NSpid"].split()[-1] == inside
                    assert int(status["CapEff"], 16) == int(status["CapBnd"], 16) == 0
                    assert status["NoNewPrivs"] == "1"
                    for ns in ("user", "mnt", "pid", "net", "ipc", "uts", "cgroup"):
                        assert os.readlink(f"/proc/{pid}/ns/{ns}") != os.readlink(f"/proc/self/ns/{ns}"), (pid, ns)
                for ns in ("mnt", "pid", "net", "ipc", "uts", "cgroup"):
                    assert os.readlink(f"/proc/{bot}/ns/{ns}") == os.readlink(f"/proc/{init}/ns/{ns}"), ns
                shapes[monitor] = (Path(f"/proc/{process.pid}/comm").read_text().strip(), process.pid == init)
            finally:
                connection.close()
                process.stop(0.0)
    finally:
        zygotes.close_zygote()  # the next test's zygote starts as usual
    assert shapes[True] == ("arena-monitor", False)
    if namespaces.privileged():
        assert shapes[False] == ("arena-init", True)


_ORPHAN_BOT = """
import os, signal, sys, time

r, w = os.pipe()
child = os.fork()
if child == 0:  # leaves a grandchild to the sandbox's init, pid 1
    grandchild = os.fork()
    if grandchild == 0:
        time.sleep(3600)
        os._exit(0)
    os.write(w, str(grandchild).encode())
    os._exit(0)
os.waitpid(child, 0)
orphan = int(os.read(r, 32))
assert open(f"/proc/{orphan}/stat").read().split()[3] == "1", "the orphan is not the init's"
os.kill(orphan, signal.SIGKILL)
print("KILLED", orphan, flush=True)
time.sleep(3600)  # never listens: the init is still waiting for the bot's socket
"""


@needs_sandbox
@pytest.mark.parametrize("monitor", [False, True], ids=["root-init", "monitor"])
def test_an_orphan_killed_before_the_bot_listens_does_not_stay_a_zombie(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, monitor: bool) -> None:
    """The sandbox's init reaps the bot's orphans while it waits for the bot's socket, not only
    once the bot listens (a bot that never listens left them as zombies until its ready timeout)."""
    from arena.host.process import BotProcess

    if monitor:
        monkeypatch.setenv("ARENA_ZYGOTE_MONITOR", "1")
    zygotes.close_zygote()
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.py").write_text(_ORPHAN_BOT)
    manifest = _manifest(bot, ["python", "bot.py", "--address", "{address}"])
    log = tmp_path / "bot.log"
    process = BotProcess.spawn(manifest, log_path=log, policy=IsolationPolicy.sandbox())
    try:
        assert type(process.popen).__name__ == "SandboxProcess" and process.sandbox_init is not None
        init = process.sandbox_init
        deadline = time.monotonic() + 20
        while "KILLED" not in log.read_text():
            assert process.alive() and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)

        def zombie(pid: int) -> bool:
            try:
                return _status(pid)["State"].startswith("Z")
            except FileNotFoundError:  # reaped between listing the children and reading it
                return False

        def zombies() -> list[int]:
            children = Path(f"/proc/{init}/task/{init}/children").read_text().split()
            return [int(pid) for pid in children if zombie(int(pid))]

        # the orphan died as a child of the init; it must be reaped, however long we look
        deadline = time.monotonic() + 10
        while zombies() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert zombies() == [], f"the init left its dead orphans as zombies: {zombies()}"
        assert process.bot_pids() and process.alive()  # the bot itself is untouched, still waiting
    finally:
        process.stop(0.0)
        zygotes.close_zygote()
