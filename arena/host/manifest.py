"""Bot manifests (``bot.toml``) and bot specs: a manifest to start, or the address of a running bot.

A manifest names the bot and says how to start it::

    name = "random-bot"
    version = "1.0.0"
    author = "Arena"                                          # optional
    language = "python"
    command = ["python", "bot.py", "--address", "{address}"]  # "{address}": where to listen
    working_dir = "."                                         # optional; relative to the manifest's folder

    [env]                                                     # optional: variables the bot needs
    MY_BOT_LEVEL = "3"

``{address}`` becomes a gRPC address (``unix:/run/arena/bot.sock`` in a sandbox,
``127.0.0.1:PORT`` outside one); ``{port}``, the protocol's first form, becomes a
TCP port and is still accepted.  Every problem raises :class:`ManifestError`,
naming the file and the field.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.names import name_problem

#: The file name looked for when a spec names a folder.
MANIFEST_NAME = "bot.toml"

_REQUIRED_STR = ("name", "version", "language")
_OPTIONAL_STR = ("author", "working_dir")
#: How many variables ``[env]`` may declare, and the longest value (bytes of UTF-8).
MAX_ENV_ENTRIES = 64
MAX_ENV_VALUE_BYTES = 4096
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Names ``[env]`` may not set, each with the reason given in the error.  Refusing them is
#: not the security boundary (the sandbox is; a bot's own code can set anything for its
#: own children): it keeps what the host sets up for every bot under the host's control.
_ENV_REFUSED_PREFIXES = {
    "ARENA_": "ARENA_* variables are the host's (ARENA_BOT_ADDRESS, ARENA_BOT_PORT)",
    "LD_": "LD_* variables change which libraries the dynamic loader puts into every program; "
           "the host decides the runtime",
}
_HOST_SET = "the host sets it: PATH, HOME, TMPDIR and the like must match the sandbox the bot runs in"
_PYTHON_PATHS = ("it changes where Python finds its modules or what it runs at start; a Python bot runs on "
                 "the host's interpreter with the Arena SDK: keep your modules in working_dir")
_NODE_PATHS = "it changes which code Node.js loads; put interpreter options in 'command'"
_ENV_REFUSED = {
    **dict.fromkeys(("PATH", "HOME", "TMPDIR", "PWD", "SHELL", "USER", "LOGNAME"), _HOST_SET),
    **dict.fromkeys(("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONPLATLIBDIR",
                     "PYTHONSAFEPATH", "PYTHONEXECUTABLE", "PYTHONNOUSERSITE"), _PYTHON_PATHS),
    **dict.fromkeys(("NODE_OPTIONS", "NODE_PATH"), _NODE_PATHS),
}
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
    #: ``[env]``: the variables the bot declares it needs, in the manifest's order.
    env: tuple[tuple[str, str], ...] = ()

    @property
    def uses_address(self) -> bool:
        """Whether the command takes ``{address}`` (the bot listens wherever it is told)."""
        return any("{address}" in part for part in self.command)

    @property
    def uses_port(self) -> bool:
        """Whether the command takes ``{port}`` (the protocol's first form: a TCP port)."""
        return any("{port}" in part for part in self.command)

    def command_for(self, *, port: int | None = None, address: str) -> list[str]:
        """The command line with ``{address}`` replaced by ``address`` and ``{port}`` by ``port``.

        ValueError if the command takes ``{port}`` and ``port`` is None.
        """
        if port is None and self.uses_port:
            raise ValueError(f"{self.path}: the command of bot {self.name!r} takes {{port}}, but no port was given")
        return [part.replace("{address}", address).replace("{port}", str(port)) for part in self.command]


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
    problem = name_problem(values["name"])
    if problem is not None:
        raise ManifestError(f"{path}: field 'name': {problem}")
    if "command" not in data:
        raise ManifestError(f"{path}: missing field 'command' (a list such as [\"python\", \"bot.py\", "
                            "\"--address\", \"{address}\"])")
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
    env = _env(data.get("env", {}), path)
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
        env=env,
    )


def _env(table: Any, path: Path) -> tuple[tuple[str, str], ...]:
    """The ``[env]`` table checked: names, refused names, string values, sizes."""
    if not isinstance(table, dict):
        raise ManifestError(f"{path}: field 'env' must be a table of strings ([env] then NAME = \"value\" "
                            f"lines), got {_kind(table)}")
    if len(table) > MAX_ENV_ENTRIES:
        raise ManifestError(f"{path}: field 'env' has {len(table)} entries; at most {MAX_ENV_ENTRIES}")
    pairs = []
    for name, value in table.items():
        if not _ENV_NAME.match(name):
            raise ManifestError(f"{path}: field 'env' entry {name!r} is not a valid variable name (letters, "
                                "digits and _, not starting with a digit)")
        reason = _ENV_REFUSED.get(name) or next(
            (why for prefix, why in _ENV_REFUSED_PREFIXES.items() if name.startswith(prefix)), None)
        if reason is not None:
            raise ManifestError(f"{path}: field 'env' entry {name!r} is not allowed: {reason}")
        if not isinstance(value, str):
            raise ManifestError(f"{path}: field 'env' entry {name!r} must be a string, got {_kind(value)}")
        if "\0" in value:
            raise ManifestError(f"{path}: field 'env' entry {name!r} contains a NUL character")
        size = len(value.encode("utf-8"))
        if size > MAX_ENV_VALUE_BYTES:
            raise ManifestError(f"{path}: field 'env' entry {name!r} is {size} bytes long; at most "
                                f"{MAX_ENV_VALUE_BYTES} (4 KiB)")
        pairs.append((name, value))
    return tuple(pairs)


def _kind(value: Any) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


@dataclass(frozen=True)
class BotSpec:
    """Which bot to use: a manifest the host starts, or the ``HOST:PORT`` of a bot running elsewhere."""

    manifest: BotManifest | None = None
    address: str | None = None
    #: For a registered bot: the name it is registered under (a bot at an address must give
    #: it in Describe) and the version that plays, e.g. ``greedy@2`` (for messages and records).
    name: str | None = None
    participant: str | None = None

    def __post_init__(self) -> None:
        if (self.manifest is None) == (self.address is None):
            raise ValueError("a BotSpec has exactly one of a manifest and an address")

    @property
    def key(self) -> str:
        """Identifies the bot process: the manifest file, or the address."""
        return str(self.manifest.path) if self.manifest is not None else f"address:{self.address}"

    @property
    def label(self) -> str:
        """A short name for messages: the registered version, else the manifest's bot name, or the address."""
        if self.participant is not None:
            return self.participant
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
