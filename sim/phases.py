"""The phases of a deal, in order: the auction, the declarer's kitty exchange, the joker naming,
the play, and done (scored or thrown in).  :attr:`State.phase <sim.engine.State.phase>` and
:attr:`SeatView.phase <sim.view.SeatView.phase>` hold one of them."""

from __future__ import annotations

from typing import Final

AUCTION: Final = 0
KITTY: Final = 1
JOKER: Final = 2
PLAY: Final = 3
DONE: Final = 4

__all__ = ["AUCTION", "DONE", "JOKER", "KITTY", "PLAY"]
