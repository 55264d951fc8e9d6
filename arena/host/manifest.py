"""Bot manifests (``bot.toml``) and bot specs: a manifest to start, or the address of a running bot.

A manifest names the bot and says how to start it::

    name = "random-bot"
    version = "1.0.0"
    author = "Arena"
    language = "python"
    command = ["python", "bot.py", "--port", "{port}"]   # "{port}" is replaced by the port
    working_dir = "."                                     # relative to the manifest's folder

Every problem raises :class:`ManifestError`, naming the file and the field.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The file name looked for when a spec names a folder.
MANIFEST_NAME = "bot.toml"

_REQUIRED_STR = ("name", "version", "language")
_OPTIONAL_STR = ("author", "working_dir")
_ADDRESS = re.compile(r"^(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.\-]+):(?P<port>\d{1,5})$")


class ManifestError(ValueError):
    """A manifest that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class BotManifest:
    """A validated manifest; ``working_dir`` is absolute, ``path`` is the manifest file."""

    path: Path
    name: str
    version: str
    language: str
    command: tuple[str, ...]
    working_dir: Path
    author: str = ""

    def command_for(self, port: int) -> list[str]:
        """The command line with every ``{port}`` replaced by ``port``."""
        return [part.replace("{port}", str(port)) for part in self.command]


def load_manifest(path: str | Path) -> BotManifest:
    """Read and check a manifest file (or the ``bot.toml`` inside a folder)."""
    p = Path(path).expanduser()
    if p.is_dir():
        p = p / MANIFEST_NAME
    p = p.resolve()
    try:
        text = p.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise ManifestError(f"{p}: no such manifest file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{p}: cannot read it: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{p}: not valid TOML: {exc}") from None
    return manifest_from_data(data, p)


def manifest_from_data(data: dict[str, Any], path: Path) -> BotManifest:
    """Check parsed manifest data; ``path`` is the manifest file (relative paths start at its folder)."""
    values: dict[str, str] = {}
    for key in _REQUIRED_STR + _OPTIONAL_STR:
        if key not in data:
            if key in _REQUIRED_STR:
                raise ManifestError(f"{path}: missing field {key!r}")
            continue
        value = data[key]
        if not isinstance(value, str):
            raise ManifestError(f"{path}: field {key!r} must be a string, got {_kind(value)}")
        values[key] = value
    for key in _REQUIRED_STR:
        if not values[key].strip():
            raise ManifestError(f"{path}: field {key!r} must not be empty")
    if "command" not in data:
        raise ManifestError(f"{path}: missing field 'command' (a list such as [\"python\", \"bot.py\", \"--port\", "
                            "\"{port}\"])")
    command = data["command"]
    if not isinstance(command, list):
        raise ManifestError(f"{path}: field 'command' must be a list of strings, got {_kind(command)}")
    if not command:
        raise ManifestError(f"{path}: field 'command' must not be empty")
    for i, part in enumerate(command):
        if not isinstance(part, str):
            raise ManifestError(f"{path}: field 'command' item {i} must be a string, got {_kind(part)}")
    if not command[0].strip():
        raise ManifestError(f"{path}: field 'command' starts with an empty program name")
    working_dir = (path.parent / values.get("working_dir", ".")).resolve()
    if not working_dir.is_dir():
        raise ManifestError(f"{path}: field 'working_dir': {working_dir} is not a folder")
    return BotManifest(
        path=path,
        name=values["name"],
        version=values["version"],
        language=values["language"],
        command=tuple(command),
        working_dir=working_dir,
        author=values.get("author", ""),
    )


def _kind(value: Any) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


@dataclass(frozen=True)
class BotSpec:
    """Which bot to use: a manifest the host starts, or the ``HOST:PORT`` of a bot running elsewhere."""

    manifest: BotManifest | None = None
    address: str | None = None

    def __post_init__(self) -> None:
        if (self.manifest is None) == (self.address is None):
            raise ValueError("a BotSpec has exactly one of a manifest and an address")

    @property
    def key(self) -> str:
        """Identifies the bot process: the manifest file, or the address."""
        return str(self.manifest.path) if self.manifest is not None else f"address:{self.address}"

    @property
    def label(self) -> str:
        """A short name for messages: the manifest's bot name, or the address."""
        return self.manifest.name if self.manifest is not None else str(self.address)


def is_address(text: str) -> bool:
    """Whether ``text`` reads as ``HOST:PORT`` (port 1-65535)."""
    match = _ADDRESS.match(text)
    return bool(match) and 0 < int(match.group("port")) < 65536


def parse_bot_spec(text: str) -> BotSpec:
    """A spec from the command line: an existing file or folder is a manifest; ``HOST:PORT`` an address."""
    if not Path(text).expanduser().exists() and is_address(text):
        return BotSpec(address=text)
    return BotSpec(manifest=load_manifest(text))
