"""SeatView.bid_seats: who made each auction call, with passed players skipped and the declarer raise."""

from fivehundred.sim import BID, PASS, load_rules
from fivehundred.sim.engine import State


def _bid(rules, code: str) -> int:
    return BID + rules.bid_index[code]


def test_bid_seats_skip_players_who_passed() -> None:
    rules = load_rules("pagat-au")
    state = State.deal(rules, 12345, dealer=3)  # seat 0 speaks first
    for action in (_bid(rules, "6S"), PASS, _bid(rules, "7H"), _bid(rules, "8S"), _bid(rules, "8H"), PASS):
        state.apply_checked(action)
    # 0:6S 1:P 2:7H 3:8S 0:8H 2:P (seat 1 passed, so it is skipped); then seat 3 still to speak.
    view = state.view(1)
    assert view.bid_seats == (0, 1, 2, 3, 0, 2)
    assert len(view.bid_seats) == len(view.bids)
    assert state.turn == 3


def test_bid_seats_record_the_declarer_raise() -> None:
    rules = load_rules("pagat-au", overrides={"bidding.declarer_raise": True})
    state = State.deal(rules, 777, dealer=0)  # seat 1 speaks first
    for action in (_bid(rules, "7S"), PASS, PASS, PASS, _bid(rules, "8S")):
        state.apply_checked(action)
    assert state.view(2).bid_seats == (1, 2, 3, 0, 1)
    assert state.contract.code == "8S" and state.declarer == 1
