"""The generated code in arena/v1/ never drifts from protos/ (the source of truth)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena import protocol
from arena.protocol import codegen


def test_committed_generated_code_matches_a_fresh_generation(tmp_path: Path) -> None:
    written = codegen.generate(tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == sorted(codegen.GENERATED_FILES)
    for name in codegen.GENERATED_FILES:
        committed = protocol.REPO_ROOT / name
        assert committed.is_file(), f"{name} is missing: run python -m arena.protocol.codegen"
        assert (tmp_path / name).read_bytes() == committed.read_bytes(), (
            f"{name} differs from what protos/ generates: run python -m arena.protocol.codegen"
        )


def test_check_names_a_file_that_differs(tmp_path: Path) -> None:
    codegen.generate(tmp_path)
    assert codegen.differing_files(tmp_path) == []
    (tmp_path / "arena/v1/bot_pb2.pyi").write_text("# edited by hand\n")
    (tmp_path / "arena/v1/bot_pb2_grpc.py").unlink()
    assert codegen.differing_files(tmp_path) == ["arena/v1/bot_pb2_grpc.py", "arena/v1/bot_pb2.pyi"]


def test_check_command_exit_status(capsys: pytest.CaptureFixture[str]) -> None:
    assert codegen.main(["--check"]) == 0
    assert "up to date" in capsys.readouterr().out


def test_protocol_version_constant_matches_the_proto() -> None:
    from arena.v1 import bot_pb2

    newest = max(bot_pb2.ProtocolVersion.values())
    assert protocol.PROTOCOL_VERSION == newest == bot_pb2.PROTOCOL_VERSION_1 == 1


def test_go_package_is_a_full_import_path() -> None:
    """protoc-gen-go wants a full import path; its first element is a host name (it has a dot)."""
    from arena.v1 import bot_pb2

    path, _, package = bot_pb2.DESCRIPTOR.GetOptions().go_package.partition(";")
    assert "." in path.split("/")[0] and path.endswith("/arena/v1") and package == "arenav1"
