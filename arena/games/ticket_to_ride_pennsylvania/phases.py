"""The decisions a Ticket to Ride: Pennsylvania state can wait for (its ``phase``)."""

INITIAL, TURN, SECOND, KEEP, SHARE, NEUTRAL, OVER = range(7)
#: decision_kind() of each phase
PHASE_NAMES = ("initial_tickets", "turn", "second_card", "keep_tickets", "share", "neutral_share", "none")
