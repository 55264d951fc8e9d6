"""The suite's xdist scheduling (tests/serial_first.py, the hooks of tests/conftest.py), on a small suite of its own
run by a real pytest-xdist with two workers: the serial tests run first, back to back on one worker,
and no other test runs meanwhile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CONFTEST = """\
from tests.serial_first import (_serial_tests_run_alone, pytest_collection_finish, pytest_collection_modifyitems,
                                pytest_xdist_make_scheduler)
"""
TESTS = """\
import json, os, time
import pytest

def record(name):
    start = time.monotonic()
    time.sleep(0.1)
    with open(os.environ["LOG"], "a") as log:
        log.write(json.dumps([name, os.environ["PYTEST_XDIST_WORKER"], start, time.monotonic()]) + "\\n")

@pytest.mark.parametrize("n", range(6))
def test_plain(n):
    record(f"plain{n}")

@pytest.mark.serial
@pytest.mark.parametrize("n", range(4))
def test_alone(n):
    record(f"serial{n}")

@pytest.mark.slow
def test_long():
    record("slow")
"""


def run(tmp_path: Path, *args: str) -> list[list]:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_small.py").write_text(TESTS)
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    serial: alone\n    slow: slow\n")
    log = tmp_path / "log.jsonl"
    env = {**os.environ, "LOG": str(log), "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "xdist", "-n", "2",
                           "--maxschedchunk", "1", *args, "test_small.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_the_serial_tests_run_first_back_to_back_on_one_worker_alone(tmp_path: Path) -> None:
    ran = run(tmp_path)
    assert sorted(r[0] for r in ran) == sorted([*(f"plain{n}" for n in range(6)), *(f"serial{n}" for n in range(4)),
                                                "slow"])
    serial = [r for r in ran if r[0].startswith("serial")]
    others = [r for r in ran if not r[0].startswith("serial")]
    assert len({r[1] for r in serial}) == 1, serial  # one worker
    assert [r[0] for r in sorted(serial, key=lambda r: r[2])] == [f"serial{n}" for n in range(4)]  # in order
    last_serial_end = max(r[3] for r in serial)
    assert all(r[2] >= last_serial_end for r in others), ran  # none started before the block ended
    assert {r[1] for r in ran} == {"gw0", "gw1"}  # and then both workers took the rest

