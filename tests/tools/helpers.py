"""Helpers for the tools tests: a scripted player for ``play``."""

from __future__ import annotations

from fivehundred.sim.engine import AUCTION, JOKER, KITTY
from fivehundred.sim.notation import BID, JOKER_LEAD, NAME_NONE, PASS
from fivehundred.sim.view import SeatView


def nt_joker_policy(view: SeatView, legal: tuple[int, ...]) -> int:
    """Holding the joker, bid the lowest no-trump; keep the joker, leave it suitless and lead it."""
    rules = view.rules
    joker = rules.deck.jokers[0]
    if view.phase == AUCTION:
        if view.hand >> joker & 1 and view.declarer < 0:
            nts = [a for a in legal if a >= BID and rules.ladder[a - BID].code.endswith("NT")]
            if nts and view.high_bidder != view.seat:
                return nts[0]
        return PASS
    if view.phase == KITTY:
        return next(a for a in legal if a != joker)
    if view.phase == JOKER:
        return NAME_NONE
    leads = [a for a in legal if a >= JOKER_LEAD]
    return leads[-1] if leads else legal[0]
