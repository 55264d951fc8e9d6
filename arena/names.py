"""What a bot's name may be.

A name is shown on terminals and web pages, used in URLs and in file names of logs,
and chosen by a stranger.  So it must not be able to change how the text around it
reads (Unicode bidirectional overrides such as U+202E, zero-width characters), hide
itself (control characters, only spaces), or be a path step (``.``, ``..``).
"""

from __future__ import annotations

import unicodedata

#: The longest name accepted, in characters.
MAX_NAME_LENGTH = 64

# Unicode general categories refused anywhere in a name: controls (C0, C1, DEL),
# format characters (bidi embeddings, overrides and isolates, zero-width joiners,
# the BOM), line and paragraph separators, surrogates, private use, unassigned.
_REFUSED_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a bot's name, or ``None`` when it can."""
    if not isinstance(name, str) or not name.strip():
        return f"a bot name must be a non-empty string, got {name!r}"
    if name != name.strip():
        return f"bot name {name!r} starts or ends with white space"
    if len(name) > MAX_NAME_LENGTH:
        return f"bot name {name[:20]!r}... is {len(name)} characters long; at most {MAX_NAME_LENGTH}"
    if name in {".", ".."}:
        return f"bot name {name!r} is a path step; choose a name with other characters"
    for ch in name:
        if unicodedata.category(ch) in _REFUSED_CATEGORIES:
            return (f"bot name {name!r} contains the invisible or control character "
                    f"U+{ord(ch):04X} ({unicodedata.name(ch, 'unnamed')}); use visible characters only")
    return None
