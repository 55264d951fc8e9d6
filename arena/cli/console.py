"""The rich console every command prints through.

At a terminal it is rich's own (the terminal's width, colours).  When the output is
not a terminal (a pipe, a file, a CI log) nothing is wrapped: a message stays one line
whatever its length, and a table takes its natural width instead of folding names
and paths mid-word to fit 80 columns; scripts and ``grep`` see whole lines, as from
any Unix tool.  A closed pipe (``arena ... | head``) raises :class:`BrokenPipeError`,
which :func:`arena.cli.main.main` turns into a quiet exit, instead of rich's own exit.
"""

from __future__ import annotations

import errno

from rich.console import Console

#: The width a table may take when the output is not a terminal: wide enough for any
#: table Arena prints, so none is squeezed; text is not wrapped at all (soft wrap).
UNWRAPPED_WIDTH = 1000


class CommandConsole(Console):
    """A console whose closed pipe is an exception for the command's caller to handle."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError(errno.EPIPE, "the output's reader went away")


def make_console(*, highlight: bool = True, stderr: bool = False) -> Console:
    """A console for command output: the terminal's own, or one that never wraps."""
    console = CommandConsole(highlight=highlight, stderr=stderr)
    if console.is_terminal:
        return console
    return CommandConsole(highlight=highlight, stderr=stderr, width=UNWRAPPED_WIDTH, soft_wrap=True)


def is_closed_pipe(exc: BaseException) -> bool:
    """Whether ``exc`` is a closed output pipe, alone or gathered by trio into a group."""
    if isinstance(exc, BaseExceptionGroup):
        return exc.split(BrokenPipeError)[1] is None
    return isinstance(exc, BrokenPipeError)
