"""Hostile test bot: tries to write files outside its private ``/tmp``, and to store more
than it may.  At its first StartMatch:

- ``write <dir>/hostile-$WRITER_TAG`` for its own folder and every folder in
  ``$WRITER_DIRS`` (comma-separated);
- ``bigfile /tmp/big-$WRITER_TAG``: writes ``$WRITER_BIG_MB`` MB in its ``/tmp``, 1 MiB at
  a time, reporting how much it could (``DENIED`` when it hit a limit);
- ``fill /run/arena``: writes ``$WRITER_FILL_FILES`` files of ``$WRITER_FILL_MB`` MB each in
  its socket folder, the one folder it shares with the host, and reports the total;
- ``sysctl <path>`` for every path in ``$WRITER_SYSCTLS`` (comma-separated, under
  ``/proc/sys``): writes back the value it reads, which changes nothing but tells whether
  it could have written another (``kernel.core_pattern`` names a program the kernel runs
  as root on the host).

It plays random legal actions.
"""

from __future__ import annotations

import os
import sys

from arena.sdk import Bot, serve

TAG = os.environ.get("WRITER_TAG", "1")
DIRS = [d for d in os.environ.get("WRITER_DIRS", "/tmp").split(",") if d]
BIG = int(os.environ.get("WRITER_BIG_MB", "16")) << 20
FILL_FILES = int(os.environ.get("WRITER_FILL_FILES", "0"))
FILL = int(os.environ.get("WRITER_FILL_MB", "8")) << 20
SYSCTLS = [p for p in os.environ.get("WRITER_SYSCTLS", "").split(",") if p]
_MIB = b"w" * (1 << 20)


def probe(kind: str, target: object, ok: bool, detail: object = "") -> None:
    text = " ".join(str(detail).split())
    print(f"PROBE {kind} {target} {'OK' if ok else 'DENIED'} {text}".rstrip(), file=sys.stderr, flush=True)


def write_small(path: str) -> None:
    try:
        with open(path, "w") as f:
            f.write("written by hostile-writer\n")
        probe("write", path, True, "written")
    except OSError as exc:
        probe("write", path, False, f"{type(exc).__name__}: {exc}")


def write_big(path: str, size: int) -> tuple[int, str]:
    """Bytes that reached the file, and the error that stopped it ('' if none)."""
    written = 0
    try:
        with open(path, "wb", buffering=0) as f:
            while written < size:
                written += f.write(_MIB[: size - written])
    except OSError as exc:
        return written, f"{type(exc).__name__}: {exc}"
    return written, ""


def rewrite(path: str) -> None:
    """Write a setting's own value back to it: a harmless test of whether it is writable."""
    try:
        with open(path) as f:
            value = f.read()
        with open(path, "w") as f:
            f.write(value)
        probe("sysctl", path, True, f"rewrote {value.strip()!r}")
    except OSError as exc:
        probe("sysctl", path, False, f"{type(exc).__name__}: {exc}")


class Writer(Bot):
    name = "hostile-writer"
    version = "1.0.0"
    author = "tests"

    def __init__(self) -> None:
        self.done = False

    def start_match(self, match) -> None:
        if self.done:
            return
        self.done = True
        for folder in [os.getcwd(), *DIRS]:
            write_small(os.path.join(folder, f"hostile-{TAG}"))
        written, error = write_big(f"/tmp/big-{TAG}", BIG)
        probe("bigfile", f"/tmp/big-{TAG}", not error, f"{written} bytes {error}")
        if FILL_FILES:
            total, errors = 0, []
            for i in range(FILL_FILES):
                written, error = write_big(f"/run/arena/fill-{TAG}-{i}", FILL)
                total += written
                if error:
                    errors.append(error)
            probe("fill", "/run/arena", not errors, f"{total} bytes in {FILL_FILES} files {' '.join(errors[:2])}")
        for path in SYSCTLS:
            rewrite(path)
        probe("done", "-", True)

    def decide(self, observation: dict, legal_actions) -> int:
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    serve(Writer())
