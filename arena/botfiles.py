"""A bot's files: the hash that tells its versions apart, and the frozen copy the host plays.

When a bot version is added, the host copies the bot's folder (the manifest's folder
or its ``working_dir``, whichever holds the other) into a folder of its own, hashes
exactly the bytes it wrote, runs the compliance check on the copy, and from then on
plays that copy only: what was checked is what plays.  Before a version is played,
its copy is hashed again; a copy that changed is refused (:class:`FrozenFilesChanged`).

What is copied and hashed: every regular file and folder below the root, and
symbolic links as links (their target text), except the folders in
:data:`EXCLUDED_DIRS` (caches, version control, virtual environments, logs).
Refused, with the reason: a link that points outside the bot's folder (it would
show the bot a file of the host's), special files (FIFOs, sockets, devices), and
trees past :data:`MAX_FILES` entries or :data:`MAX_BYTES`.  Files are opened
without following links (``O_NOFOLLOW``, relative to an open folder), so a file
swapped for a link while it is copied is refused, not followed.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.errors import UserError
from arena.host.manifest import BotManifest, ManifestError, load_manifest

#: Folders neither copied nor hashed: caches, version control, virtual environments, logs.
#: (``node_modules`` is copied and hashed: a Node bot needs it to run.)
EXCLUDED_DIRS = frozenset({"__pycache__", ".git", ".venv", "venv", "logs", ".pytest_cache", ".mypy_cache"})
#: The most entries (files, folders, links) and bytes a bot's folder may hold.
MAX_FILES = 50_000
MAX_BYTES = 1 << 30

#: The environment variable naming the folder of frozen copies (default: beside the SQLite
#: database, else ./arena-data/bots).
FILES_ENV_VAR = "ARENA_BOT_FILES"

_CHUNK = 1 << 20
_NOFOLLOW = os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class BotFilesError(UserError):
    """A bot folder that cannot be copied or hashed (the message says which file and why)."""


class FrozenFilesChanged(UserError):
    """A version's frozen copy no longer has the hash it was registered with."""


def bot_root(manifest: BotManifest) -> Path:
    """The folder that is copied: the manifest's folder, or its ``working_dir`` if that holds the manifest."""
    folder, work = manifest.path.parent, manifest.working_dir
    if folder == work or folder.is_relative_to(work):
        return work
    if work.is_relative_to(folder):
        return folder
    raise BotFilesError(f"bot {manifest.name!r}: its working_dir {work} and its manifest's folder {folder} are "
                        "not one inside the other, so the host cannot tell which files are the bot's: keep the "
                        "manifest in the bot's folder (or working_dir below it)")


@dataclass
class _Walk:
    """Hashes (and, with ``dest``, copies) a tree, entry by entry in name order."""

    root: Path
    dest: Path | None = None
    files: int = 0
    size: int = 0

    def __post_init__(self) -> None:
        self.digest = hashlib.sha256()

    def run(self) -> str:
        try:
            fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW)
        except OSError as exc:
            raise BotFilesError(f"cannot read the bot folder {self.root}: {exc.strerror}") from None
        try:
            self._dir(fd, Path())
        finally:
            os.close(fd)
        return self.digest.hexdigest()

    def _count(self, rel: Path, size: int = 0) -> None:
        self.files += 1
        self.size += size
        if self.files > MAX_FILES or self.size > MAX_BYTES:
            raise BotFilesError(f"the bot folder {self.root} holds more than {MAX_FILES} entries or "
                                f"{MAX_BYTES >> 20} MB (at {rel.as_posix()}): leave out what the bot does not "
                                f"need to run ({', '.join(sorted(EXCLUDED_DIRS))} are left out already)")

    def _entries(self, fd: int) -> list[str]:
        with os.scandir(fd) as found:
            return sorted(entry.name for entry in found)

    def _dir(self, fd: int, rel: Path) -> None:
        for name in self._entries(fd):
            path = rel / name
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue  # gone since it was listed
            mode = info.st_mode
            if stat.S_ISLNK(mode):
                self._link(fd, name, path)
            elif stat.S_ISDIR(mode):
                if name in EXCLUDED_DIRS:
                    continue
                self._count(path)
                self.digest.update(b"D" + path.as_posix().encode() + b"\0")
                if self.dest is not None:
                    (self.dest / path).mkdir()
                child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW, dir_fd=fd)
                try:
                    self._dir(child, path)
                finally:
                    os.close(child)
            elif stat.S_ISREG(mode):
                self._file(fd, name, path)
            else:
                raise BotFilesError(f"{self.root / path} is not a regular file, folder or link (a FIFO, socket "
                                    "or device): a bot's folder may hold none")

    def _link(self, fd: int, name: str, path: Path) -> None:
        target = os.readlink(name, dir_fd=fd)
        if os.path.isabs(target) or not _inside(path.parent, target):
            raise BotFilesError(f"{self.root / path} is a link to {target}, outside the bot's folder: the host "
                                "copies the bot's own files only (copy the file in instead of linking it)")
        self._count(path)
        self.digest.update(b"L" + path.as_posix().encode() + b"\0" + target.encode() + b"\0")
        if self.dest is not None:
            os.symlink(target, self.dest / path)

    def _file(self, fd: int, name: str, path: Path) -> None:
        try:
            src = os.open(name, os.O_RDONLY | _NOFOLLOW, dir_fd=fd)
        except OSError as exc:
            raise BotFilesError(f"cannot read {self.root / path}: {exc.strerror}") from None
        try:
            info = os.fstat(src)
            if not stat.S_ISREG(info.st_mode):
                raise BotFilesError(f"{self.root / path} changed while it was read")
            executable = bool(info.st_mode & 0o111)
            content = hashlib.sha256()
            out = None if self.dest is None else open(self.dest / path, "xb")
            size = 0
            try:
                while chunk := os.read(src, _CHUNK):
                    size += len(chunk)
                    if self.size + size > MAX_BYTES:
                        self._count(path, size)  # refuses
                    content.update(chunk)
                    if out is not None:
                        out.write(chunk)
            finally:
                if out is not None:
                    out.close()
            self._count(path, size)
        finally:
            os.close(src)
        if self.dest is not None:
            os.chmod(self.dest / path, 0o755 if executable else 0o644)
        self.digest.update(b"F" + path.as_posix().encode() + b"\0" + (b"x" if executable else b"-")
                           + content.digest())


def _inside(folder: Path, target: str) -> bool:
    """Whether a relative link in ``folder`` (relative to the root) stays inside the root, read as written."""
    parts: list[str] = list(folder.parts)
    for part in Path(target).parts:
        if part == "..":
            if not parts:
                return False
            parts.pop()
        elif part != ".":
            parts.append(part)
    return True


def tree_sha256(root: Path) -> str:
    """The hash of a bot folder's files as :func:`freeze` would copy them."""
    return _Walk(Path(root)).run()


def legacy_files_sha256(root: Path) -> str:
    """The hash versions added before Arena kept copies were registered with (its working_dir,
    ``node_modules`` and the like left out, links followed)."""
    ignored = {"node_modules", "__pycache__", ".git", ".venv", "venv", "logs", ".pytest_cache"}
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(root).rglob("*") if p.is_file()):
        rel = path.relative_to(root)
        if any(part in ignored for part in rel.parts):
            continue
        digest.update(rel.as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def default_files_dir(sqlite_path: Path | None) -> Path:
    """Where frozen copies go: ``$ARENA_BOT_FILES``, else ``bots/`` beside the SQLite database,
    else ``arena-data/bots`` in the current folder (absolute)."""
    configured = os.environ.get(FILES_ENV_VAR, "").strip()
    if configured:
        return Path(configured).expanduser().resolve()
    if sqlite_path is not None:
        return (sqlite_path.expanduser().resolve().parent / "bots")
    return Path("arena-data/bots").resolve()


@dataclass
class FrozenCopy:
    """A copy of a bot's folder, being checked (in a staging folder) or kept (in its place)."""

    dir: Path
    manifest: BotManifest
    sha256: str
    existed: bool = False  # kept already, by an earlier version with the same files

    def verify(self) -> None:
        """FrozenFilesChanged if the copy's files no longer hash to :attr:`sha256`."""
        verify_frozen(self.dir, self.sha256, what=f"the copy of bot {self.manifest.name!r}")

    def discard(self) -> None:
        if not self.existed:
            _remove_tree(self.dir)


def freeze(manifest: BotManifest, files_dir: Path) -> FrozenCopy:
    """Copy the bot's folder into a staging folder under ``files_dir``; hash what was written.

    The staging copy is read-only (to the host's user) and its links all lead inside it.

    The copy's manifest is loaded from the copy.  :meth:`keep` moves it into place once checked.
    """
    root = bot_root(manifest)
    parent = files_dir / _slug(manifest.name)
    parent.mkdir(parents=True, exist_ok=True)
    staging = parent / f".staging-{uuid.uuid4().hex}"  # beside its final place: a rename moves it
    staging.mkdir()
    try:
        sha = _Walk(root, dest=staging).run()
        _check_links(staging)
        copied = load_manifest(staging / manifest.path.relative_to(root))
    except ManifestError as exc:
        _remove_tree(staging)
        raise BotFilesError(f"the copy of bot {manifest.name!r} has an unusable manifest: {exc}") from None
    except BaseException:
        _remove_tree(staging)
        raise
    _read_only(staging)
    return FrozenCopy(staging, copied, sha)


def keep(copy: FrozenCopy, files_dir: Path) -> FrozenCopy:
    """Move a checked staging copy to ``files_dir/<name>/<hash>`` (or reuse an identical one there)."""
    final = files_dir / _slug(copy.manifest.name) / copy.sha256[:24]
    rel_manifest = copy.manifest.path.relative_to(copy.dir)
    final.parent.mkdir(parents=True, exist_ok=True)
    existed = False
    try:
        os.rename(copy.dir, final)
    except OSError:
        if not final.is_dir():
            raise
        verify_frozen(final, copy.sha256, what=f"the kept copy {final}")
        _remove_tree(copy.dir)
        existed = True
    try:
        manifest = load_manifest(final / rel_manifest)
    except ManifestError as exc:  # pragma: no cover - it loaded from the staging copy
        raise BotFilesError(str(exc)) from None
    return FrozenCopy(final, manifest, copy.sha256, existed=existed)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.") or "bot"


def verify_frozen(folder: Path, sha256: str, *, what: str) -> None:
    try:
        found = tree_sha256(folder)
    except BotFilesError as exc:
        raise FrozenFilesChanged(f"{what} cannot be read: {exc}") from None
    if found != sha256:
        raise FrozenFilesChanged(f"{what} in {folder} changed since it was checked")


def _check_links(root: Path) -> None:
    """Every link of the copy resolves inside it (read as the kernel does, links in links included)."""
    real_root = root.resolve()
    for path in _links(root):
        if not path.resolve().is_relative_to(real_root):
            raise BotFilesError(f"{path.relative_to(root)} is a link that leads outside the bot's folder (through "
                                "other links): the host copies the bot's own files only")


def _links(root: Path) -> Iterator[Path]:
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            if path.is_symlink():
                yield path


def _read_only(root: Path) -> None:
    for folder, dirs, files in os.walk(root, topdown=False):
        for name in files:
            path = Path(folder) / name
            if not path.is_symlink():
                path.chmod(path.stat().st_mode & 0o555)
        Path(folder).chmod(0o555)


def _remove_tree(root: Path) -> None:
    if not root.exists():
        return
    for folder, _dirs, _files in os.walk(root):
        try:
            os.chmod(folder, 0o755)
        except OSError:
            pass
    shutil.rmtree(root, ignore_errors=True)
