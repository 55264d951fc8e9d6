"""Union Pacific's kit: what the game brings beside its rules (see
:class:`arena.games.registry.GameKit`).  Its parts are modules imported when asked:
``wire`` (engine data <-> the protocol's ``union_pacific`` oneof members) and ``view``
(board/view data and the replay viewer for the web app).  Unlike the rules engine
beside it, the kit may import the generated protocol messages (``arena.v1``); it never
does I/O of its own."""
