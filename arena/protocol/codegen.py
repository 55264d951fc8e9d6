"""Regenerate the Python protocol code in ``arena/v1/`` from ``protos/``.

Usage::

    python -m arena.protocol.codegen           # rewrite arena/v1/bot_pb2*.py(i)
    python -m arena.protocol.codegen --check   # exit 1 and name the files that differ

It runs ``grpc_tools.protoc`` in-process (grpcio-tools, pinned in the test
extras so that the output is byte-for-byte reproducible).
"""

from __future__ import annotations

import argparse
import filecmp
import importlib.resources
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from arena.protocol import PROTO_FILES, PROTO_ROOT, REPO_ROOT

#: The generated files, relative to the repository root.
GENERATED_FILES = (
    "arena/v1/bot_pb2.py",
    "arena/v1/bot_pb2_grpc.py",
    "arena/v1/bot_pb2.pyi",
)


class CodegenError(RuntimeError):
    """protoc could not generate the code; the message says why."""


def generate(out_root: Path) -> list[Path]:
    """Generate the Python code for every proto file under ``out_root``.

    Files land at ``out_root / "arena/v1/..."``, mirroring the repository layout.
    Returns the paths written (those of :data:`GENERATED_FILES`).
    """
    try:
        from grpc_tools import protoc
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise CodegenError(
            "grpcio-tools is not installed; install the test extras: pip install -e '.[test]'"
        ) from exc

    missing = [name for name in PROTO_FILES if not (PROTO_ROOT / name).is_file()]
    if missing:
        raise CodegenError(f"proto source not found under {PROTO_ROOT}: {', '.join(missing)}")

    out_root.mkdir(parents=True, exist_ok=True)
    well_known = importlib.resources.files("grpc_tools") / "_proto"
    args = [
        "grpc_tools.protoc",
        f"--proto_path={PROTO_ROOT}",
        f"--proto_path={well_known}",
        f"--python_out={out_root}",
        f"--pyi_out={out_root}",
        f"--grpc_python_out={out_root}",
        *PROTO_FILES,
    ]
    status = protoc.main(args)
    if status != 0:
        raise CodegenError(f"protoc failed with status {status} (its messages are on stderr)")

    written = [out_root / name for name in GENERATED_FILES]
    absent = [str(p) for p in written if not p.is_file()]
    if absent:
        raise CodegenError(f"protoc did not write the expected files: {', '.join(absent)}")
    return written


def differing_files(repo_root: Path = REPO_ROOT) -> list[str]:
    """The generated files under ``repo_root`` that differ from a fresh generation.

    A missing committed file counts as differing.
    """
    with tempfile.TemporaryDirectory(prefix="arena-codegen-") as tmp:
        fresh_root = Path(tmp)
        generate(fresh_root)
        return [
            name
            for name in GENERATED_FILES
            if not (repo_root / name).is_file()
            or not filecmp.cmp(fresh_root / name, repo_root / name, shallow=False)
        ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m arena.protocol.codegen",
        description="Regenerate arena/v1/ from protos/ (the protocol's source of truth).",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 and list the generated files that are out of date",
    )
    options = parser.parse_args(argv)
    try:
        if options.check:
            stale = differing_files()
            if stale:
                print(
                    "generated code differs from protos/ (run python -m arena.protocol.codegen):",
                    file=sys.stderr,
                )
                for name in stale:
                    print(f"  {name}", file=sys.stderr)
                return 1
            print("generated code is up to date")
            return 0
        for path in generate(REPO_ROOT):
            print(f"wrote {path.relative_to(REPO_ROOT)}")
        return 0
    except CodegenError as exc:
        print(f"codegen: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
