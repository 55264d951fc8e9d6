"""Linux namespaces, mounts and privileges from Python (ctypes): what the zygote's sandboxes are built with.

Python 3.11 has no ``os.unshare``, ``mount`` or ``capset``; glibc has them all, so
they are called through ctypes, each checked (an ``OSError`` naming the call and its
arguments).  The steps mirror bubblewrap's (``bubblewrap.c``), which builds the other
kind of sandbox from the same plan (:func:`arena.host.sandbox.sandbox_layout`):

- :func:`unshare` new user, mount, PID, network, IPC, UTS and cgroup namespaces, and
  :func:`map_ids` the caller's uid and gid to themselves in the new user namespace;
- :func:`build_root`: a fresh tmpfs becomes the root (``pivot_root``), the plan's
  read-only binds, ``/proc``, a minimal ``/dev`` and size-capped tmpfs are mounted in
  it, the host's root is detached, and a last sweep remounts read-only every mount
  but the writable tmpfs and ``/dev``'s device nodes;
- :func:`disable_user_namespaces` (as ``bwrap --disable-userns``): at most one more
  user namespace, which the caller then enters, so none can be made inside;
- :func:`drop_privileges`: no capability in any set (the bounding set included),
  ``no_new_privs``, the securebits locked, so that not even running a set-uid program
  or being uid 0 gives any back.

Only the zygote's forked children call these, before any bot code runs.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import fcntl
import os
import platform
import socket
import struct
from typing import Any, Sequence

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
#: Every namespace a sandbox gets (bubblewrap's ``--unshare-all --unshare-user``).
SANDBOX_NAMESPACES = (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
                      | CLONE_NEWCGROUP)

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_REMOUNT = 32
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_BIND = 4096
MS_REC = 16384
MS_SILENT = 32768
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21
MNT_DETACH = 2

PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NAME = 15
PR_CAPBSET_DROP = 24
PR_SET_SECUREBITS = 28
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
# SECBIT_NOROOT, _NO_SETUID_FIXUP, _KEEP_CAPS, _NO_CAP_AMBIENT_RAISE, each with its lock.
_SECUREBITS = 0b11111111 & ~0b00010000  # all but KEEP_CAPS itself (its lock stays set)

_CAP_VERSION_3 = 0x20080522
KEYCTL_JOIN_SESSION_KEYRING = 1
#: keyctl has no glibc wrapper; its system call number per architecture.
SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}

#: The device nodes a sandbox's /dev holds (bound from the host's: a new user
#: namespace cannot make device nodes), as bubblewrap's ``--dev``.
DEV_NODES = ("null", "zero", "full", "random", "urandom", "tty")

_libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.pivot_root.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
_libc.unshare.argtypes = [ctypes.c_int]
_libc.setns.argtypes = [ctypes.c_int, ctypes.c_int]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.capset.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
_libc.syscall.restype = ctypes.c_long


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def supported() -> str | None:
    """None when this module can work here, else why not."""
    if not platform.system() == "Linux":
        return f"Linux namespaces are needed; this is {platform.system()}"
    if platform.machine() not in SYS_KEYCTL:
        return f"the zygote knows the keyctl system call on {', '.join(SYS_KEYCTL)}, not {platform.machine()}"
    return None


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def _b(text: str | None) -> bytes | None:
    return None if text is None else os.fsencode(text)


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc.mount(_b(source), _b(target), _b(fstype), flags | MS_SILENT, _b(data)),
           f"mount({source!r}, {target!r}, {fstype!r}, {flags:#x}, {data!r})")


def umount2(target: str, flags: int) -> None:
    _check(_libc.umount2(_b(target), flags), f"umount2({target!r})")


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), f"unshare({flags:#x})")


def setns(fd: int, nstype: int) -> None:
    _check(_libc.setns(fd, nstype), f"setns({fd}, {nstype:#x})")


CAP_SYS_ADMIN = 21


def privileged() -> bool:
    """Whether this process is root with CAP_SYS_ADMIN in the initial user namespace: then it may
    make a PID namespace for its next child itself (no monitor process needed, see
    :mod:`arena.host.zygote_main`)."""
    try:
        with open("/proc/self/status") as f:
            caps = next((int(line.split()[1], 16) for line in f if line.startswith("CapEff:")), 0)
        with open("/proc/self/uid_map") as f:
            initial = f.read().split() == ["0", "0", "4294967295"]
    except (OSError, ValueError):
        return False
    return os.geteuid() == 0 and bool(caps >> CAP_SYS_ADMIN & 1) and initial


def prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> int:
    return _check(_libc.prctl(option, arg2, arg3, arg4, arg5), f"prctl({option}, {arg2})")


def die_with_parent(sig: int) -> None:
    """Ask for ``sig`` when the parent (thread) exits (``PR_SET_PDEATHSIG``)."""
    prctl(PR_SET_PDEATHSIG, sig)


def set_dumpable(dumpable: bool) -> None:
    prctl(PR_SET_DUMPABLE, 1 if dumpable else 0)


def set_name(name: str) -> None:
    """The process's ``comm`` (what ``ps`` shows; 15 bytes)."""
    buffer = ctypes.create_string_buffer(name.encode()[:15])
    _check(_libc.prctl(PR_SET_NAME, ctypes.cast(buffer, ctypes.c_void_p).value or 0, 0, 0, 0), "prctl(PR_SET_NAME)")


def new_session_keyring() -> None:
    """Join a new, empty, anonymous session keyring: a keyring inherited from the host would be
    shared by every sandbox started from it (a channel between matches and between bots)."""
    number = SYS_KEYCTL[platform.machine()]
    _check(_libc.syscall(ctypes.c_long(number), ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING), None),
           "keyctl(KEYCTL_JOIN_SESSION_KEYRING)")


def _write_file(path: str, text: str, dir_fd: int | None = None) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def map_ids(uid: int, gid: int, proc_fd: int | None = None) -> None:
    """Right after ``unshare(CLONE_NEWUSER)``: be ``uid``:``gid`` inside too (the one mapping an
    unprivileged process may write for itself; ``setgroups`` denied, as bubblewrap does).
    ``proc_fd``: a directory fd of a procfs to write through (default: ``/proc``)."""
    prefix = "self" if proc_fd is not None else "/proc/self"
    _write_file(f"{prefix}/setgroups", "deny", proc_fd)
    _write_file(f"{prefix}/uid_map", f"{uid} {uid} 1\n", proc_fd)
    _write_file(f"{prefix}/gid_map", f"{gid} {gid} 1\n", proc_fd)


def disable_user_namespaces(uid: int, gid: int, proc_fd: int) -> None:
    """``bwrap --disable-userns``: allow one more user namespace below the current one and
    enter it, so that none can be made from inside (the limit is set where the sandbox has
    no say, one level up).  Needs CAP_SYS_RESOURCE in the current user namespace;
    ``proc_fd`` is a directory fd of a writable procfs (the sandbox's own is read-only)."""
    _write_file("sys/user/max_user_namespaces", "1", proc_fd)
    unshare(CLONE_NEWUSER)
    map_ids(uid, gid, proc_fd)
    try:
        unshare(CLONE_NEWUSER)
    except OSError:
        return
    raise RuntimeError("a further user namespace could still be made after disabling them")


def last_capability() -> int:
    """The highest capability number this kernel knows."""
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 63


def drop_privileges(last_cap: int) -> None:
    """No capabilities left in any set, for good: securebits locked, bounding set emptied,
    ambient set cleared, effective/permitted/inheritable zeroed, ``no_new_privs``."""
    prctl(PR_SET_SECUREBITS, _SECUREBITS)
    for cap in range(last_cap + 1):
        try:
            prctl(PR_CAPBSET_DROP, cap)
        except OSError as exc:
            if exc.errno != errno.EINVAL:  # a capability this kernel does not know
                raise
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    header = _CapHeader(_CAP_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), ctypes.byref(data)), "capset")
    prctl(PR_SET_NO_NEW_PRIVS, 1)


def check_unprivileged() -> None:
    """RuntimeError unless this process holds no capability at all and has ``no_new_privs``."""
    fields = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    for key in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        if int(fields.get(key, "1"), 16) != 0:
            raise RuntimeError(f"{key} is {fields.get(key)} after dropping every capability")
    if fields.get("NoNewPrivs") != "1":
        raise RuntimeError("no_new_privs is not set")


IN_CREATE = 0x100
IN_MOVED_TO = 0x80
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC
_libc.inotify_init1.argtypes = [ctypes.c_int]
_libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]


def watch_folder(path: str) -> int:
    """An inotify fd that becomes readable when an entry appears in the folder ``path``."""
    fd = _check(_libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC), "inotify_init1")
    try:
        _check(_libc.inotify_add_watch(fd, os.fsencode(path), IN_CREATE | IN_MOVED_TO), f"inotify_add_watch({path!r})")
    except OSError:
        os.close(fd)
        raise
    return fd


def loopback_up() -> None:
    """Bring up ``lo`` in a new network namespace (the bot's own loopback, nothing else)."""
    SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sh", b"lo", 0)
        flags = struct.unpack("16sh", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sh", b"lo", flags | IFF_UP))


# -- the file system ---------------------------------------------------------------------------

#: Where the host's root is while the sandbox's is built (inside the new root, then detached).
_OLD_ROOT = "/.arena-host-root"
_FLAG_OPTIONS = {"ro": MS_RDONLY, "nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC,
                 "noatime": MS_NOATIME, "nodiratime": MS_NODIRATIME, "relatime": MS_RELATIME}


def _unescape(field: str) -> str:
    """A mountinfo path (spaces and the like written as octal escapes)."""
    if "\\" not in field:
        return field
    return field.encode().decode("unicode_escape").encode("latin-1").decode("utf-8", "surrogateescape")


def _mounts() -> list[tuple[str, int]]:
    """(mount point, flags) of every mount this process sees, from /proc/self/mountinfo."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            flags = 0
            for option in fields[5].split(","):
                flags |= _FLAG_OPTIONS.get(option, 0)
            found.append((_unescape(fields[4]), flags))
    return found


def _flags_of(path: str) -> int:
    """The per-mount flags of the mount at ``path`` (statvfs knows them), as MS_* flags."""
    f = os.statvfs(path).f_flag
    flags = f & (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME)
    if f & os.ST_RELATIME:
        flags |= MS_RELATIME
    return flags


def _remount_ro(path: str, flags: int) -> None:
    """A bind remount read-only (and nosuid, nodev), keeping the flags a user namespace may not drop."""
    mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | flags)


def _make_parent(dest: str) -> None:
    os.makedirs(os.path.dirname(dest) or "/", mode=0o755, exist_ok=True)


def _bind(source: str, dest: str, *, read_only: bool, devices: bool = False) -> None:
    if os.path.isdir(source):
        os.makedirs(dest, mode=0o755, exist_ok=True)
    else:
        _make_parent(dest)
        if not os.path.lexists(dest):
            os.close(os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o444))
    mount(source, dest, None, MS_BIND | MS_REC)
    if read_only:
        _remount_ro(dest, _flags_of(dest))
    elif not devices:
        mount(None, dest, None, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV | _flags_of(dest))


def _tmpfs(dest: str, size: int = 0, mode: int = 0o755) -> None:
    os.makedirs(dest, mode=0o755, exist_ok=True)
    options = f"mode={mode:o}" + (f",size={size}" if size else "")
    mount("tmpfs", dest, "tmpfs", MS_NOSUID | MS_NODEV, options)


def _dev(dest: str, old: str) -> list[str]:
    """A minimal /dev, as ``bwrap --dev``; the device nodes' paths (they stay writable)."""
    _tmpfs(dest)
    nodes = []
    for node in DEV_NODES:
        path = f"{dest}/{node}"
        _bind(f"{old}/dev/{node}", path, read_only=False, devices=True)
        nodes.append(path)
    for i, name in enumerate(("stdin", "stdout", "stderr")):
        os.symlink(f"/proc/self/fd/{i}", f"{dest}/{name}")
    os.symlink("/proc/self/fd", f"{dest}/fd")
    os.symlink("/proc/kcore", f"{dest}/core")
    os.mkdir(f"{dest}/shm", 0o755)
    os.mkdir(f"{dest}/pts", 0o755)
    mount("devpts", f"{dest}/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620")
    os.symlink("pts/ptmx", f"{dest}/ptmx")
    return nodes + [f"{dest}/pts"]


def build_root(plan: Sequence[Sequence[Any]]) -> None:
    """Make the root of a new mount namespace the sandbox ``plan`` describes (a list of
    :class:`arena.host.sandbox.MountOp` as JSON: kind, dest, source, size).

    Called in the sandbox's first process, in its new user, mount and PID namespaces (for
    its own /proc).  Afterwards the host's file system is out of reach, and every mount is
    read-only except the plan's tmpfs other than ``/`` and ``/dev``, ``/dev``'s device
    nodes and its pseudo-terminals.
    """
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing propagates out, or in
    # A fresh tmpfs becomes the root; the host's root stays reachable below it until detached.
    _tmpfs("/tmp")
    os.chdir("/tmp")
    os.mkdir(_OLD_ROOT.lstrip("/"), 0o755)
    _check(_libc.pivot_root(b".", _OLD_ROOT.lstrip("/").encode()), "pivot_root")
    os.chdir("/")
    writable: set[str] = set()
    remounts: list[str] = []
    for kind, dest, source, size in plan:
        if kind == "symlink":
            _make_parent(dest)
            os.symlink(source, dest)
        elif kind in ("ro-bind", "ro-bind-try"):
            host = _OLD_ROOT + source
            if kind == "ro-bind-try" and not os.path.exists(host):
                continue  # missing (or a symlink to nothing in the sandbox): skipped, as bubblewrap does
            _bind(host, dest, read_only=True)
        elif kind == "proc":
            os.makedirs(dest, mode=0o755, exist_ok=True)
            mount("proc", dest, "proc", MS_NOSUID | MS_NOEXEC | MS_NODEV)
        elif kind == "dev":
            writable.update(_dev(dest, _OLD_ROOT))
        elif kind == "tmpfs":
            _tmpfs(dest, size)
            writable.add(dest)
        elif kind == "dir":
            os.makedirs(dest, mode=0o755, exist_ok=True)
        elif kind == "remount-ro":
            remounts.append(dest)
        else:
            raise ValueError(f"unknown sandbox step {kind!r}")
    umount2(_OLD_ROOT, MNT_DETACH)
    os.rmdir(_OLD_ROOT)
    for dest in remounts:
        _remount_ro(dest, _flags_of(dest))
    # The sweep: whatever else is mounted (submounts of the binds) is made read-only too.
    writable -= set(remounts)
    for point, flags in _mounts():
        if point not in writable and not flags & MS_RDONLY:
            _remount_ro(point, flags)
