"""Where the Python SDK's bot listens: the address forms, their checks, a stale socket.

Part of :mod:`arena.sdk` (which re-exports these names): ``ARENA_BOT_ADDRESS``, else
``--address``, else ``--port``/``ARENA_BOT_PORT`` on 127.0.0.1; a ``unix:/path`` socket or
``HOST:PORT``.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import stat
from collections.abc import Mapping

from arena.host.manifest import is_address

log = logging.getLogger("arena.sdk")

#: The environment variable the host always sets to the gRPC address to listen on (as well as
#: ``{address}`` in the command): ``unix:/path`` or ``HOST:PORT``.  It wins over the command line.
ADDRESS_ENV = "ARENA_BOT_ADDRESS"
#: The environment variable the host sets to the port when the address is a TCP port (as well as
#: ``{port}`` in the command; the protocol's first form).
PORT_ENV = "ARENA_BOT_PORT"
#: The longest path of a Unix domain socket (``sun_path`` holds 108 bytes with the final NUL).
MAX_SOCKET_PATH_BYTES = 107

class ServeError(RuntimeError):
    """The bot cannot be served (bad address, address in use, a Bot class without a name)."""


def socket_path(address: str) -> str | None:
    """The file of a ``unix:PATH`` or ``unix:///ABSOLUTE/PATH`` address; None for any other address."""
    if address.startswith("unix://"):
        return address[len("unix://"):]
    if address.startswith("unix:"):
        return address[len("unix:"):]
    return None


def check_address(address: str) -> str:
    """``address`` if the SDK can listen on it (``unix:PATH``, ``unix:///PATH`` or ``HOST:PORT``), else ServeError."""
    path = socket_path(address)
    if path is not None:
        if address.startswith("unix://") and not path.startswith("/"):
            raise ServeError(f"{address!r}: a unix:// address needs an absolute path (unix:///run/bot.sock), "
                             "or write unix:PATH")
        if not path:
            raise ServeError(f"{address!r}: no socket path after 'unix:'")
        if "\0" in path:
            raise ServeError(f"{address!r}: a socket path cannot contain a NUL character")
        size = len(os.fsencode(path))
        if size > MAX_SOCKET_PATH_BYTES:
            raise ServeError(f"{address!r}: the socket path is {size} bytes long; a Unix domain socket path "
                             f"holds at most {MAX_SOCKET_PATH_BYTES}")
        return address
    if is_address(address):
        return address
    raise ServeError(f"{address!r} is not an address to listen on: give unix:/path/to/bot.sock or HOST:PORT "
                     "(e.g. 127.0.0.1:50051, port 1 to 65535)")


def _clear_stale_socket(address: str, path: str) -> None:
    """Remove the socket file left at ``path`` by a process that is gone; refuse a live one or another file."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        folder = os.path.dirname(path) or "."
        if not os.path.isdir(folder):
            raise ServeError(f"cannot listen on {address}: the folder {folder} does not exist") from None
        return
    except OSError as exc:
        raise ServeError(f"cannot listen on {address}: {exc}") from None
    if not stat.S_ISSOCK(mode):
        raise ServeError(f"cannot listen on {address}: {path} exists and is not a socket; not replacing it")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(path)
    except (ConnectionRefusedError, FileNotFoundError):
        pass  # nobody listens there any more: a stale socket
    except OSError as exc:
        raise ServeError(f"cannot listen on {address}: cannot tell whether {path} is in use ({exc})") from None
    else:
        # gRPC would take the path over silently, cutting the other process off its clients.
        raise ServeError(f"cannot listen on {address}: another process is listening on {path}")
    finally:
        probe.close()
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise ServeError(f"cannot listen on {address}: cannot remove the stale socket {path} ({exc})") from None
    log.info("removed the stale socket %s", path)


def listen_address(args: argparse.Namespace, environ: Mapping[str, str]) -> tuple[str, str]:
    """Where to listen, and where that came from: ``ARENA_BOT_ADDRESS``, else ``--address``,
    else ``--port`` (else ``ARENA_BOT_PORT``) on 127.0.0.1.  ServeError says what is wrong."""
    from_env = environ.get(ADDRESS_ENV, "").strip()
    if from_env:
        try:
            return check_address(from_env), ADDRESS_ENV
        except ServeError as exc:
            raise ServeError(f"{ADDRESS_ENV}: {exc}") from None
    if args.address is not None:
        try:
            return check_address(args.address.strip()), "--address"
        except ServeError as exc:
            raise ServeError(f"--address: {exc}") from None
    source = "--port" if args.port is not None else PORT_ENV
    text = args.port if args.port is not None else environ.get(PORT_ENV)
    if text is None or not str(text).strip():
        raise ServeError(f"no address to listen on: the host sets {ADDRESS_ENV}; by hand, pass --address "
                         f"unix:/path/bot.sock, --address HOST:PORT or --port N (or set {PORT_ENV})")
    try:
        port = int(str(text).strip())
    except ValueError:
        raise ServeError(f"{source}: port must be a whole number, got {text!r}") from None
    if not 1 <= port <= 65535:
        raise ServeError(f"{source}: port must be 1 to 65535, got {port}")
    return f"127.0.0.1:{port}", source
