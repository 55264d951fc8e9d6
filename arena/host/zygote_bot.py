"""The bot's own process in a zygote's sandbox (:mod:`arena.host.zygote_main`): the signal
handling and environment of a freshly started Python, then the bot's script run as
``python SCRIPT ARGS...`` would run it, in the interpreter the zygote already started."""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

from arena.host import namespaces


def python_signals() -> None:
    """The signal handling of a freshly started Python (SIGINT raises, SIGPIPE and SIGXFSZ ignored)."""
    for sig in signal.valid_signals():
        if sig in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):
            pass
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


def bot_process(config: dict[str, Any]) -> dict[str, Any]:
    """The bot, pid 2, just forked by the init: dies with it, a session of its own, only
    stdin/stdout/stderr open, a fresh Python's signals, the manifest's environment."""
    namespaces.die_with_parent(signal.SIGKILL)
    namespaces.set_name("python")
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # only stdin, stdout and stderr
    os.setsid()
    namespaces.set_dumpable(True)  # as any process: its own children may trace it
    python_signals()
    os.environ.clear()
    os.environ.update(config["env"])
    os.environ["PWD"] = config["working_dir"]
    return config


def run_script(config: dict[str, Any]) -> None:
    """Run ``python SCRIPT ARGS...`` in this (already started) interpreter, as Python itself would:
    ``sys.argv``, ``sys.path[0]`` the script's folder, the script as ``__main__``, an
    uncaught exception's traceback on stderr and exit status 1, SystemExit honoured; the
    interpreter then ends as usual (non-daemon threads joined, atexit handlers run)."""
    argv = list(config["argv"])
    path = os.path.abspath(argv[0])
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(path))
    sys.dont_write_bytecode = bool(config["env"].get("PYTHONDONTWRITEBYTECODE"))
    main_module = sys.modules["__main__"]
    scope = main_module.__dict__
    builtins = scope["__builtins__"]
    scope.clear()
    scope.update(__name__="__main__", __doc__=None, __package__=None, __spec__=None, __builtins__=builtins,
                 __file__=path, __cached__=None)
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError as exc:
        sys.stderr.write(f"{sys.executable}: can't open file {path!r}: [Errno {exc.errno}] {exc.strerror}\n")
        raise SystemExit(2) from None
    try:
        from importlib.machinery import SourceFileLoader

        scope["__loader__"] = SourceFileLoader("__main__", path)
        exec(compile(source, path, "exec"), scope)
    except SystemExit:
        raise
    except BaseException as exc:
        tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
        sys.excepthook(type(exc), exc.with_traceback(tb), tb)  # from the script's own frame on
        raise SystemExit(130 if isinstance(exc, KeyboardInterrupt) else 1) from None
