"""The bot protocol: where its source lives and which version this checkout speaks.

``protos/arena/v1/bot.proto`` is the single source of truth; the Python code in
``arena/v1/`` is generated from it by ``python -m arena.protocol.codegen``.
Nothing here imports the generated code, so the generator still runs when that
code is missing or stale.
"""

from __future__ import annotations

from pathlib import Path

#: The protocol version this checkout speaks (``arena.v1.ProtocolVersion.PROTOCOL_VERSION_1``).
PROTOCOL_VERSION = 1

#: The repository root (the folder holding ``protos/`` and ``arena/``).
REPO_ROOT = Path(__file__).resolve().parents[2]

#: The folder passed to protoc as the import root.
PROTO_ROOT = REPO_ROOT / "protos"

#: The proto files, relative to :data:`PROTO_ROOT`.
PROTO_FILES = ("arena/v1/bot.proto",)

__all__ = ["PROTOCOL_VERSION", "PROTO_FILES", "PROTO_ROOT", "REPO_ROOT"]
