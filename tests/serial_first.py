"""The run order of the suite under pytest-xdist (tests/conftest.py takes its hooks and fixture).

A test marked ``serial`` runs alone: it holds the run's lock file exclusively, every other test
holds it shared (:func:`_serial_tests_run_alone`). While one runs, the other workers are idle:
that is the price of running alone. xdist's own ``load`` scheduler cost more: it handed the serial
tests to every worker in turn, so between two serial tests of one worker the other worker started
a test of its own, and the next serial test waited for it to end, its worker idle (51 s in one CI
run).

:class:`SerialFirstScheduling` is ``load`` (``--maxschedchunk`` and all) with one rule: while a
serial test is not finished, the serial tests all go to one worker, in their order, and the other
workers get nothing. So the serial tests run back to back at the start, then every worker takes
the rest. The lock still keeps a serial test alone under any scheduler (``--dist`` other than
``load`` is xdist's own).

The workers name the serial tests in a file of the run (``serial-tests.json`` beside the lock;
the controller does not collect, so it sees no markers); without it this is plain ``load``.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from typing import Any

import pytest

try:
    from xdist.scheduler import LoadScheduling
    from xdist.workermanage import WorkerController
except ImportError:  # pytest without pytest-xdist: one process runs the tests in order, no scheduler
    LoadScheduling = object  # type: ignore[assignment,misc]
    WorkerController = Any  # type: ignore[assignment,misc]

FILE = "serial-tests.json"


@pytest.fixture(autouse=True)
def _serial_tests_run_alone(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Under xdist, a test marked ``serial`` runs alone: it holds a lock file of the run
    exclusively, every other test holds it shared (from before the test's fixtures are set
    up to after they are torn down)."""
    if not hasattr(request.config, "workerinput"):
        yield
        return
    lock = tmp_path_factory.getbasetemp().parent / "serial-tests.lock"  # the run's folder, above each worker's
    alone = request.node.get_closest_marker("serial") is not None
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        yield


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker, the serial tests first, then the slow ones, then the rest.

    Serial first: the scheduler below runs them as one block while the other workers wait (they
    must not run anything meanwhile); at the start nothing else is under way to wait for. Slow
    next: no long test starts last while the other workers have nothing left to do."""
    if hasattr(config, "workerinput"):
        items.sort(key=lambda item: (item.get_closest_marker("serial") is None,
                                     item.get_closest_marker("slow") is None))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """On an xdist worker: name the serial tests for the controller's scheduler, before the worker
    reports its collection."""
    if hasattr(session.config, "workerinput"):
        write_serial_ids(session.config._tmp_path_factory.getbasetemp().parent,
                         [item.nodeid for item in session.items if item.get_closest_marker("serial")])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):  # noqa: ANN001, ANN201 (xdist's types)
    """``--dist load`` (scripts/test's): :class:`SerialFirstScheduling`; any other mode is xdist's own."""
    if config.getvalue("dist") != "load":
        return None
    return SerialFirstScheduling(config, log)


def write_serial_ids(folder: Path, nodeids: Sequence[str]) -> None:
    """On a worker: name the collected serial tests for the controller (every worker writes the same)."""
    target = folder / FILE
    part = folder / f"{FILE}.{os.getpid()}"
    part.write_text(json.dumps(list(nodeids)), encoding="utf-8")
    part.replace(target)


class SerialFirstScheduling(LoadScheduling):
    def __init__(self, config: pytest.Config, log=None) -> None:  # noqa: ANN001 (xdist's Producer)
        super().__init__(config, log)
        self.serial: set[int] = set()
        self.folder = config._tmp_path_factory.getbasetemp()  # the workers' basetemps are below it

    def _unfinished_serial(self) -> bool:
        return any(i in self.serial for i in self.pending) or any(
            i in self.serial for queue in self.node2pending.values() for i in queue)

    def schedule(self) -> None:
        if self.collection is None and not self.serial and self._check_nodes_have_same_collection():
            ids = next(iter(self.node2collection.values()))
            try:
                named = set(json.loads((self.folder / FILE).read_text(encoding="utf-8")))
            except (OSError, ValueError):
                named = set()
            self.serial = {i for i, nodeid in enumerate(ids) if nodeid in named}
            if self.serial:
                self.collection = ids
                self.pending[:] = range(len(ids))
                if self.maxschedchunk is None:
                    self.maxschedchunk = len(ids)
                for node in self.nodes:
                    self.check_schedule(node)
                return
        super().schedule()

    def check_schedule(self, node: WorkerController, duration: float = 0) -> None:
        if node.shutting_down:
            return
        if not self._unfinished_serial():
            super().check_schedule(node, duration)
            return
        holder = next((n for n, queue in self.node2pending.items() if any(i in self.serial for i in queue)), None)
        if holder is not None and holder is not node:
            return  # idle until the serial block has run (its last test's end wakes every worker)
        send = [i for i in self.pending if i in self.serial]
        queued = len(self.node2pending[node]) + len(send)
        # A worker runs a test only once the next one is queued (or it is told to shut down): one more.
        send += [i for i in self.pending if i not in self.serial][: max(0, 2 - queued)]
        if send:
            chosen = set(send)
            self.pending[:] = [i for i in self.pending if i not in chosen]
            self.node2pending[node].extend(send)
            node.send_runtest_some(send)
        if not self.pending:
            node.shutdown()

    def mark_test_complete(self, node: WorkerController, item_index: int, duration: float = 0) -> None:
        self.node2pending[node].remove(item_index)
        if item_index in self.serial and not self._unfinished_serial():
            for other in self.nodes:  # the block is over: every worker gets tests now
                self.check_schedule(other)
        else:
            self.check_schedule(node, duration=duration)
