"""Statistics of the formats that decide something: the sequential test of ``arena sprt``
(:mod:`arena.stats.sprt`) and its simulation (:mod:`arena.stats.simulation`).  Pure numpy."""
