"""Which bot process serves which seat: the pool of running bots.

Two ways, set by the pool's :class:`~arena.host.sandbox.IsolationPolicy`:

- **reuse** (``--isolation none``, trusted local runs): one process per manifest
  (or address) for all the matches it plays; the same manifest twice is the same
  process; a crashed bot is restarted.
- **fresh** (``--isolation sandbox``, competitions): every seat of every match gets
  a new process, stopped when the match ends, so a bot carries nothing from one
  match to the next (duplicate deals replay the same cards).  To keep start-up off
  the critical path, the pool keeps ``spares`` ready processes per bot, started in
  the background while matches play; a spare has never seen a match, so it is as
  fresh as a new one.

A bot at an address runs elsewhere: it is always shared, never started or stopped.
"""

from __future__ import annotations

import os
import re
import threading
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from arena.host.client import MAX_MESSAGE_BYTES, BotConnection, BotNotReadyError
from arena.host.manifest import BotSpec
from arena.host.process import BotProcess, BotStartError, describe_problems, start_bot, stop_processes
from arena.host.sandbox import IsolationPolicy
from arena.v1 import bot_pb2


@dataclass(frozen=True)
class BotHandle:
    """A bot ready to play: its connection and, for a manifest bot, its process.

    ``generation`` grows by one at every restart; ``name`` is the manifest's name,
    or the name a bot at an address gives in Describe; ``lease`` names the seat a
    fresh process was started for.
    """

    spec: BotSpec
    name: str
    connection: BotConnection
    describe: bot_pb2.DescribeReply
    process: BotProcess | None
    generation: int
    lease: str | None = None

    @property
    def key(self) -> str:
        return self.spec.key if self.lease is None else f"{self.spec.key}#{self.lease}"

    def alive(self) -> bool:
        """False once the bot's process has exited (a bot at an address is assumed alive)."""
        return self.process is None or self.process.alive()


class BotPool:
    """Bot processes for all matches (see the module docstring), thread-safe.

    A bot that failed to start ``max_start_failures`` times in a row is not tried
    again.  Use as a context manager (or call :meth:`close`): every process is stopped.
    """

    def __init__(self, *, log_dir: str | Path = "arena-data/logs", ready_timeout: float = 10.0,
                 stop_timeout: float = 3.0, max_message_bytes: int = MAX_MESSAGE_BYTES, max_start_failures: int = 2,
                 policy: IsolationPolicy | None = None, game: str | None = None, spares: int = 0,
                 verify_describe: bool = True,
                 on_start_failure: Callable[[BotSpec, BotStartError], None] | None = None) -> None:
        self.log_dir = Path(log_dir)
        self.ready_timeout = ready_timeout
        self.stop_timeout = stop_timeout
        self.max_message_bytes = max_message_bytes
        self.max_start_failures = max_start_failures
        self.policy = policy if policy is not None else IsolationPolicy.none()
        self.game = game
        #: Refuse a bot whose Describe does not match its manifest (name, protocol, ``game``).
        self.verify_describe = verify_describe
        self.spares = spares if self.policy.fresh_processes else 0
        #: Called (from the thread that tried) each time a bot fails to start, spares included,
        #: so that a failure can be said at once rather than when its match ends.
        self.on_start_failure = on_start_failure
        self._lock = threading.Lock()
        self._key_locks: dict[str, threading.Lock] = {}
        self._handles: dict[str, BotHandle] = {}
        self._failures: dict[str, tuple[int, str]] = {}
        self._log_paths: dict[str, Path] = {}
        self._retired: list[BotConnection] = []
        self._ready: dict[str, list[BotHandle]] = {}  # spec key -> spare processes, ready and frozen
        self._warming: dict[str, int] = {}
        #: spec key -> seats still to be played (see :meth:`prepare`); no spare beyond them is started.
        self._to_play: dict[str, int] = {}
        self._background: ThreadPoolExecutor | None = None
        self._reaper: ThreadPoolExecutor | None = None
        self._pending: list[Future[None]] = []
        self._closed = False

    @property
    def fresh(self) -> bool:
        return self.policy.fresh_processes

    def __enter__(self) -> "BotPool":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _key_lock(self, key: str) -> threading.Lock:
        with self._lock:
            if self._closed:
                raise RuntimeError("the bot pool is closed")
            return self._key_locks.setdefault(key, threading.Lock())

    def log_path(self, spec: BotSpec) -> Path | None:
        """Where a manifest bot's output goes (None for a bot at an address)."""
        return None if spec.manifest is None else self._manifest_log_path(spec.key, spec.participant or spec.manifest.name)

    def _manifest_log_path(self, key: str, name: str) -> Path:
        with self._lock:
            path = self._log_paths.get(key)
            if path is None:
                slug = re.sub(r"[^A-Za-z0-9_.@-]+", "-", name).strip("-.") or "bot"
                taken = set(self._log_paths.values())
                path = self.log_dir / f"{slug}.log"
                n = 2
                while path in taken:
                    path, n = self.log_dir / f"{slug}-{n}.log", n + 1
                self._log_paths[key] = path
            return path

    # -- getting a bot ---------------------------------------------------------------

    def acquire(self, spec: BotSpec, *, lease: str | None = None) -> BotHandle:
        """A ready bot for ``spec``.  Reused: the running one, or a fresh start (also after a
        crash).  Fresh (manifest bots of a sandboxed pool): a new process for this lease
        (a seat of a match), which :meth:`release` stops."""
        if self.fresh and spec.manifest is not None:
            lease = lease or uuid.uuid4().hex
            key = f"{spec.key}#{lease}"
            with self._lock:
                if spec.key in self._to_play:
                    self._to_play[spec.key] = max(0, self._to_play[spec.key] - 1)
            with self._key_lock(key):
                handle = self._take_spare(spec, lease)
                if handle is None:
                    handle = self._start(spec, 0, None, lease=lease)
                else:
                    with self._lock:
                        self._handles[key] = handle
            self._replenish(spec)
            return handle
        with self._key_lock(spec.key):
            handle = self._handles.get(spec.key)
            if handle is not None and handle.alive():
                return handle
            return self._start(spec, 0 if handle is None else handle.generation + 1, handle)

    def current(self, handle: BotHandle) -> BotHandle:
        """The newest handle of ``handle``'s bot (another match may have restarted it)."""
        return self._handles.get(handle.key, handle)

    def restart(self, handle: BotHandle) -> BotHandle:
        """Restart a crashed bot, unless another match already did (then return the new handle).

        A bot at an address cannot be restarted by the host: it is polled until it
        answers again (its owner may restart it).  BotStartError if it does not come back.
        """
        with self._key_lock(handle.key):
            current = self._handles.get(handle.key)
            if current is not None and current.generation != handle.generation:
                return current
            return self._start(handle.spec, handle.generation + 1, current, lease=handle.lease)

    def release(self, handles: list[BotHandle]) -> None:
        """The match these fresh processes served is over: stop them (in the background)."""
        if not self.fresh:
            return
        done: list[BotHandle] = []
        with self._lock:
            for handle in handles:
                if handle.lease is None:
                    continue
                current = self._handles.pop(handle.key, handle)
                self._key_locks.pop(handle.key, None)  # one per seat of every match: do not keep them
                done.append(current)
                if current is not handle:
                    done.append(handle)
        processes = list({id(h.process): h.process for h in done if h.process is not None}.values())
        for h in done:
            h.connection.close()
        if processes:
            # Their match is over (EndMatch was sent): nothing is lost by killing them at once.
            self._submit(lambda: stop_processes(processes, 0.0) and None, reaper=True)

    def prepare(self, specs: list[BotSpec], seats: dict[str, int] | None = None) -> None:
        """Start the spares of these bots now (fresh pools with spares only).

        ``seats``: how many seats each bot (by spec key) has left to play, when known: the
        pool then never keeps more spares than the seats still to come, so that the last
        matches do not start processes that nothing will use (each costs a bot start)."""
        if seats is not None:
            with self._lock:
                self._to_play.update(seats)
        for spec in specs:
            self._replenish(spec)

    # -- starting ----------------------------------------------------------------------

    def _launch(self, spec: BotSpec) -> tuple[BotProcess, BotConnection, bot_pb2.DescribeReply]:
        assert spec.manifest is not None
        return start_bot(spec.manifest, log_path=self._manifest_log_path(spec.key, spec.participant or spec.manifest.name),
                         ready_timeout=self.ready_timeout, stop_timeout=self.stop_timeout,
                         max_message_bytes=self.max_message_bytes, policy=self.policy, game=self.game,
                         check_describe=self.verify_describe)

    def _start(self, spec: BotSpec, generation: int, previous: BotHandle | None, *,
               lease: str | None = None) -> BotHandle:
        failures, message = self._failures.get(spec.key, (0, ""))
        if failures >= self.max_start_failures:
            raise BotStartError(f"{message} (not tried again: it failed to start {failures} times)")
        if previous is not None and previous.process is not None:
            previous.process.stop(self.stop_timeout)
            with self._lock:
                self._retired.append(previous.connection)
        key = spec.key if lease is None else f"{spec.key}#{lease}"
        try:
            if spec.manifest is not None:
                process, connection, describe = self._launch(spec)
                handle = BotHandle(spec, spec.manifest.name, connection, describe, process, generation, lease)
            else:
                handle = self._connect_address(spec, generation, previous)
        except BotStartError as exc:
            with self._lock:
                self._failures[spec.key] = (failures + 1, str(exc))
                self._handles.pop(key, None)
            self._report(spec, exc)
            raise
        with self._lock:
            closed = self._closed
            if not closed:
                self._failures.pop(spec.key, None)
                self._handles[key] = handle
        if closed:  # closed while this bot was starting: it must not outlive the pool
            if handle.process is not None:
                handle.process.stop(self.stop_timeout)
            handle.connection.close()
            raise RuntimeError("the bot pool is closed")
        return handle

    def _connect_address(self, spec: BotSpec, generation: int, previous: BotHandle | None) -> BotHandle:
        connection = previous.connection if previous is not None else BotConnection(
            str(spec.address), max_message_bytes=self.max_message_bytes)
        try:
            describe = connection.wait_ready(self.ready_timeout)
        except BotNotReadyError as exc:
            with self._lock:
                self._retired.append(connection)
            raise BotStartError(f"bot at {spec.address} is not answering: {exc}") from None
        problems = describe_problems(describe, name=None, game=self.game) if self.verify_describe else []
        if problems:
            with self._lock:
                self._retired.append(connection)
            raise BotStartError(f"bot at {spec.address} is refused: {'; '.join(problems)}")
        return BotHandle(spec, describe.name or str(spec.address), connection, describe, None, generation)

    # -- spares --------------------------------------------------------------------------

    def _take_spare(self, spec: BotSpec, lease: str) -> BotHandle | None:
        while True:
            with self._lock:
                ready = self._ready.get(spec.key)
                spare = ready.pop(0) if ready else None
            if spare is None:
                return None
            if spare.alive():
                return BotHandle(spare.spec, spare.name, spare.connection, spare.describe, spare.process, 0, lease)
            if spare.process is not None:
                spare.process.stop(0.1)
            spare.connection.close()

    def _replenish(self, spec: BotSpec) -> None:
        if self.spares <= 0 or spec.manifest is None:
            return
        with self._lock:
            if self._closed:
                return
            failures, _ = self._failures.get(spec.key, (0, ""))
            if failures >= self.max_start_failures:
                return
            wanted = min(self.spares, self._to_play.get(spec.key, self.spares))
            missing = wanted - len(self._ready.get(spec.key, ())) - self._warming.get(spec.key, 0)
            if missing <= 0:
                return
            self._warming[spec.key] = self._warming.get(spec.key, 0) + missing
        for _ in range(missing):
            self._submit(lambda: self._warm(spec))

    def _warm(self, spec: BotSpec) -> None:
        try:
            process, connection, describe = self._launch(spec)
        except BotStartError as exc:
            with self._lock:
                failures, _ = self._failures.get(spec.key, (0, ""))
                self._failures[spec.key] = (failures + 1, str(exc))
                self._warming[spec.key] -= 1
            self._report(spec, exc)
            return
        except RuntimeError:  # the sandbox went away under us, or the pool closed
            with self._lock:
                self._warming[spec.key] -= 1
            return
        assert spec.manifest is not None
        handle = BotHandle(spec, spec.manifest.name, connection, describe, process, 0)
        with self._lock:
            self._warming[spec.key] -= 1
            closed = self._closed
            if not closed:
                self._ready.setdefault(spec.key, []).append(handle)
        if closed:
            process.stop(0.1)
            connection.close()

    def _report(self, spec: BotSpec, exc: BotStartError) -> None:
        if self.on_start_failure is not None:
            try:
                self.on_start_failure(spec, exc)
            except Exception:  # noqa: BLE001 - a reporting problem must not change the match
                pass

    def _submit(self, fn: Callable[[], object], *, reaper: bool = False) -> None:
        """Run ``fn`` in the background: warm-ups on a few threads, stops on one of their own
        (so that stopping never delays the next match's processes)."""
        with self._lock:
            inline = self._closed and self._background is None
        if inline:
            fn()
            return
        with self._lock:
            if self._background is None:
                self._background = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2),
                                                      thread_name_prefix="arena-pool-warm")
                self._reaper = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-pool-stop")
            executor = self._reaper if reaper else self._background
            self._pending = [f for f in self._pending if not f.done()]
            self._pending.append(executor.submit(fn))

    # -- the end ---------------------------------------------------------------------------

    def running(self) -> list[BotHandle]:
        """The handles of the bots in use (alive or not)."""
        with self._lock:
            return list(self._handles.values())

    def close(self) -> dict[str, str]:
        """Stop every bot process (their whole trees) and close every channel.

        Returns how each manifest bot in use stopped, by name (see :meth:`BotProcess.stop`).
        """
        with self._lock:
            if self._closed:
                return {}
            self._closed = True
            handles = list(self._handles.values())
            spares = [h for ready in self._ready.values() for h in ready]
            self._ready.clear()
            retired = list(self._retired)
            background, pending = self._background, list(self._pending)
        for future in pending:  # warm-ups and releases under way finish first
            future.result()
        if background is not None:
            background.shutdown(wait=True)
        if self._reaper is not None:
            self._reaper.shutdown(wait=True)
        # Channels first: a bot stopping gracefully then finds no connection to say goodbye to.
        for connection in retired + [h.connection for h in handles + spares]:
            connection.close()
        with_process = [h for h in handles if h.process is not None]
        hows = stop_processes([h.process for h in with_process + spares if h.process is not None], self.stop_timeout)
        return {h.name: how for h, how in zip(with_process, hows)}
