"""The other tables of RULES.md section 11: the 3-player game, the 6-player game, the two-joker deck.

Rule tests like the 4-player game's (deck, card order, deal pattern, kitty, teams, misère seats,
scoring, game end, the two jokers in NT and misère), then hypothesis properties and whole games for
each table.  The expected facts are written out here from RULES.md and the issue, not read back
from the engine's own tables.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fivehundred.sim import (
    AUCTION,
    DONE,
    JOKER,
    KITTY,
    PLAY,
    Rules,
    RulesError,
    State,
    load_rules,
    settle,
)
from fivehundred.sim.game import FELL_TO_LOSS, REACHED_WIN, deal_record, first_legal, play_game, play_out
from fivehundred.sim.notation import played_card
from fivehundred.sim.seeding import shuffled
from fivehundred.strategies.base import make
from tests.helpers import random_legal
from tests.sim.helpers import act, fill, legal

THREE = load_rules("three-player")
SIX = load_rules("six-player")
TWO = load_rules("two-jokers")
TABLES = {"three-player": THREE, "six-player": SIX, "two-jokers": TWO}

# ---------------------------------------------------------------- helpers


def build(rules: Rules, hands: list[str], kitty: str, dealer: int = 0) -> State:
    """A dealt state where each seat holds the named cards and the kitty is exactly ``kitty``.

    The cards nobody was given go, in deck order, to fill the hands up to 10.
    """
    assert rules.deck.mask(kitty).bit_count() == rules.kitty_size
    state = fill(rules, hands, kitty, dealer)
    assert all(m.bit_count() == 10 for m in state.hands)
    return state


def start(
    rules: Rules, hands: list[str], kitty: str, contract: str, declarer: int = 0, dealer: int = 0
) -> State:
    """A built deal with a forced contract and the kitty discarded back unchanged."""
    s = build(rules, hands, kitty, dealer)
    s.force_contract(contract, declarer)
    assert s.phase == KITTY and s.turn == declarer
    assert s.hands[declarer].bit_count() == 10 + rules.kitty_size
    act(s, kitty)
    return s


def trick_winner(rules: Rules, contract: str, cards: list[str], kitty: str) -> int:
    """Seat ``i`` holds ``cards[i]``; the declarer (seat 0) leads and every seat plays its card."""
    s = start(rules, [c for c in cards], kitty, contract)
    if s.phase == JOKER:  # the declarer holds a joker in NT: name nothing for each
        act(s, " ".join("-" for j in rules.deck.jokers if s.hands[0] >> j & 1))
    assert s.phase == PLAY
    act(s, " ".join(cards))
    assert len(s.trick_winners) == 1
    return s.trick_winners[0]


# ---------------------------------------------------------------- decks


def _names(ranks: str, suits: str = "SCDH") -> set[str]:
    return {f"{r}{s}" for s in suits for r in ranks.split()}


def test_three_player_deck_is_33_cards_seven_to_ace_and_the_joker() -> None:
    deck = THREE.deck
    assert deck.size == 33
    assert set(deck.names) == _names("A K Q J T 9 8 7") | {"JK"}
    assert [deck.names[c] for c in deck.jokers] == ["JK"]


def test_six_player_deck_is_63_cards_with_11_12_and_red_13() -> None:
    deck = SIX.deck
    assert deck.size == 63
    full = _names("A K Q J T 9 8 7 6 5 4 3 2")
    assert set(deck.names) == full | _names("11 12") | _names("13", "DH") | {"JK"}
    assert "13S" not in deck.index and "13C" not in deck.index
    assert [deck.names[c] for c in deck.jokers] == ["JK"]


def test_two_joker_deck_is_46_cards_four_to_ace_and_two_jokers() -> None:
    deck = TWO.deck
    assert deck.size == 46
    assert set(deck.names) == _names("A K Q J T 9 8 7 6 5 4") | {"JK1", "JK2"}
    assert [deck.names[c] for c in deck.jokers] == ["JK1", "JK2"]  # highest first


# ---------------------------------------------------------------- card order


SIX_ORDER = "2 3 4 5 6 7 8 9 T 11 12 13 J Q K A".split()  # diamonds, lowest first


@pytest.mark.parametrize("top", range(5, len(SIX_ORDER)))
def test_six_player_nt_order_11_12_13_between_ten_and_jack(top: int) -> None:
    # Six consecutive diamonds ending at SIX_ORDER[top], dealt so the highest sits at seat top % 6.
    window = [f"{r}D" for r in SIX_ORDER[top - 5 : top + 1]]
    seat_of_top = top % 6
    cards = window[:-1]
    cards.insert(seat_of_top, window[-1])
    assert trick_winner(SIX, "6NT", cards, "2S 3S 4S") == seat_of_top


def test_six_player_trump_order() -> None:
    # Hearts trumps: joker > JH (right bower) > JD (left bower) > A > ... > 13 > 12 > 11 > T.
    assert trick_winner(SIX, "6H", ["TH", "11H", "12H", "13H", "9H", "8H"], "2S 3S 4S") == 3
    assert trick_winner(SIX, "6H", ["13H", "AH", "JD", "12H", "11H", "TH"], "2S 3S 4S") == 2
    assert trick_winner(SIX, "6H", ["JD", "AH", "13H", "JH", "11H", "TH"], "2S 3S 4S") == 3
    assert trick_winner(SIX, "6H", ["JH", "AH", "13H", "12H", "JK", "JD"], "2S 3S 4S") == 4
    # 13 of diamonds is a plain diamond: it loses to the lowest trump.
    assert trick_winner(SIX, "6H", ["13D", "2H", "AD", "12D", "11D", "TD"], "2S 3S 4S") == 1


def test_three_player_trump_order() -> None:
    assert trick_winner(THREE, "6S", ["AS", "JC", "KS"], "7H 8H 9H") == 1  # left bower over the ace
    assert trick_winner(THREE, "6S", ["JC", "JS", "AS"], "7H 8H 9H") == 1  # right over left
    assert trick_winner(THREE, "6S", ["JS", "7S", "JK"], "7H 8H 9H") == 2  # joker over all
    assert trick_winner(THREE, "6NT", ["7D", "8D", "AD"], "7H 8H 9H") == 2


def test_two_jokers_trump_order_joker1_joker2_right_bower() -> None:
    kitty = "4C 5C 6C 7C 8C 9C"
    assert trick_winner(TWO, "6H", ["JH", "JK2", "JD", "AH"], kitty) == 1
    assert trick_winner(TWO, "6H", ["JK2", "JK1", "JH", "JD"], kitty) == 1
    assert trick_winner(TWO, "6H", ["JK1", "JK2", "JH", "4H"], kitty) == 0
    assert trick_winner(TWO, "6H", ["JD", "AH", "KH", "JH"], kitty) == 3


# ---------------------------------------------------------------- the deal


PATTERN_ONE_JOKER = (("each", 3), ("kitty", 1), ("each", 4), ("kitty", 1), ("each", 3), ("kitty", 1))
PATTERN_TWO_JOKERS = (
    ("each", 3), ("kitty", 2), ("each", 2), ("kitty", 2), ("each", 3), ("kitty", 2), ("each", 2),
)  # fmt: skip


def _reference_deal(order: list[int], players: int, dealer: int, pattern: tuple) -> tuple[list[int], int]:
    hands = [0] * players
    kitty = 0
    pos = 0
    for who, count in pattern:
        receivers = [None] if who == "kitty" else [(dealer + off) % players for off in range(1, players + 1)]
        for seat in receivers:
            for c in order[pos : pos + count]:
                if seat is None:
                    kitty |= 1 << c
                else:
                    hands[seat] |= 1 << c
            pos += count
    assert pos == len(order)
    return hands, kitty


@pytest.mark.parametrize(
    ("name", "pattern", "kitty_size"),
    [
        ("three-player", PATTERN_ONE_JOKER, 3),
        ("six-player", PATTERN_ONE_JOKER, 3),
        ("two-jokers", PATTERN_TWO_JOKERS, 6),
    ],
)
def test_deal_pattern_from_the_dealers_left(name: str, pattern: tuple, kitty_size: int) -> None:
    rules = TABLES[name]
    assert (rules.hand_size, rules.kitty_size) == (10, kitty_size)
    for seed in (1, 2, 99):
        order = shuffled(seed, rules.deck.size)
        for dealer in range(rules.players):
            s = State.deal(rules, seed, dealer)
            hands, kitty = _reference_deal(order, rules.players, dealer, pattern)
            assert list(s.hands) == hands and s.kitty == kitty
            assert s.turn == (dealer + 1) % rules.players  # left of the dealer speaks first


def test_two_jokers_declarer_takes_six_and_discards_six() -> None:
    s = State.deal(TWO, 5, 0)
    kitty = s.kitty
    s.force_contract("7S", 2)
    assert s.hands[2] & kitty == kitty and s.hands[2].bit_count() == 16
    assert len(s.legal_actions()) == 16
    for i in range(6):
        assert s.phase == KITTY
        s.apply_checked(s.legal_actions()[i])  # kitty cards or own cards, any six
    assert s.phase == PLAY and s.hands[2].bit_count() == 10 and s.discards.bit_count() == 6


# ---------------------------------------------------------------- teams, seats, auction


def test_teams_and_seats() -> None:
    assert (THREE.players, THREE.teams) == (3, 3)
    assert [THREE.team_of(s) for s in range(3)] == [0, 1, 2]  # each for themselves
    assert (SIX.players, SIX.teams) == (6, 2)
    assert [SIX.team_of(s) for s in range(6)] == [0, 1, 0, 1, 0, 1]  # alternating teams of three
    assert (TWO.players, TWO.teams) == (4, 2)
    assert [TWO.team_of(s) for s in range(4)] == [0, 1, 0, 1]


@pytest.mark.parametrize("name", list(TABLES))
def test_auction_ends_when_all_but_one_pass_and_all_passing_throws_in(name: str) -> None:
    rules = TABLES[name]
    n = rules.players
    s = act(State.deal(rules, 3, n - 1), " ".join(["P"] * n))
    assert s.phase == DONE and s.contract is None and s.score_delta == [0] * rules.teams
    s = act(State.deal(rules, 3, n - 1), " ".join(["6S"] + ["P"] * (n - 2)))
    assert s.phase == AUCTION and s.turn == n - 1
    act(s, "P")
    assert s.phase == KITTY and s.declarer == 0 and s.contract.code == "6S"


# ---------------------------------------------------------------- misère seats


def _first_legal_to_end(s: State) -> list[list[int]]:
    """Finish a deal by always playing the first legal action; return the seats of each trick."""
    return _trick_seats(s, first_legal)


def _trick_seats(s: State, choose: Callable[[State], int]) -> list[list[int]]:
    """Play ``s`` to its end with ``choose``; return the seats that played to each trick, in order."""
    seats: list[tuple[int, int]] = []

    def step(st: State) -> int:
        assert st.legal_actions(), "no legal action in a live deal"
        if st.phase == PLAY:
            seats.append((st.tricks_played, st.turn))
        return choose(st)

    play_out(s, step)
    assert all(t < len(s.trick_winners) for t, _ in seats)  # the last trick is complete
    return [[seat for t, seat in seats if t == i] for i in range(len(s.trick_winners))]


def test_six_player_misere_both_partners_sit_out() -> None:
    s = build(SIX, ["", "", "", "", "", ""], "JK 2S 3S", dealer=0)
    s.force_contract("MIS", 1)
    act(s, "JK 2S 3S")
    assert s.phase == PLAY and s.turn == 1
    assert s.view(0).active == (True, True, True, False, True, False)
    sat_out = (s.hands[3], s.hands[5])
    tricks = _first_legal_to_end(s)
    assert tricks[0] == [1, 2, 4, 0]  # clockwise from the declarer, skipping seats 3 and 5
    assert all(len(t) == 4 and 3 not in t and 5 not in t for t in tricks)
    assert (s.hands[3], s.hands[5]) == sat_out
    won = s.tricks_won[1] > 0
    assert s.score_delta == ([0, -250] if won else [0, 250])
    if won:  # play stops at the declarer's first trick
        assert s.trick_winners.index(1) == len(tricks) - 1
    else:
        assert len(tricks) == 10


def test_three_player_misere_nobody_sits_out() -> None:
    s = build(THREE, ["", "", ""], "JK 7S 8S", dealer=2)
    s.force_contract("MIS", 2)
    act(s, "JK 7S 8S")
    assert s.view(0).active == (True, True, True)
    tricks = _first_legal_to_end(s)
    assert tricks[0] == [2, 0, 1]
    assert all(len(t) == 3 for t in tricks)
    won = s.tricks_won[2] > 0
    assert s.score_delta == ([0, 0, -250] if won else [0, 0, 250])  # defenders score nothing


def test_two_jokers_misere_partner_sits_out_as_in_seed_000() -> None:
    s = build(TWO, ["", "", "", ""], "JK1 JK2 4S 5S 6S 7S", dealer=0)
    s.force_contract("MIS", 1)
    act(s, "JK1 JK2 4S 5S 6S 7S")
    assert s.view(1).active == (True, True, True, False)
    tricks = _first_legal_to_end(s)
    assert tricks[0] == [1, 2, 0]
    assert all(len(t) == 3 and 3 not in t for t in tricks)


# ---------------------------------------------------------------- 3-player scoring and game end

# Seat 0 runs six spades, seat 1 takes three clubs, seat 2 the last diamond (hand-made, NT).
THREE_HANDS = [
    "AS KS QS JS TS 9S 7C 7D 7H 8H",
    "8S 7S AC KC QC 9D KD QD JD TD",
    "JC TC 9C 8C AD 8D AH KH QH JH",
]
THREE_KITTY = "JK TH 9H"
THREE_PLAY = [
    "AS 8S JC", "KS 7S 8D", "QS KD AH", "JS QD KH", "TS JD QH", "9S TD JH",
    "7C AC 8C", "KC 9C 7D", "QC TC 7H", "9D AD 8H",
]  # fmt: skip


def _three_player_deal(contract: str, dealer: int = 2) -> State:
    s = start(THREE, THREE_HANDS, THREE_KITTY, contract, dealer=dealer)
    assert s.phase == PLAY  # the joker went back out with the discards: no naming
    for t in THREE_PLAY:
        act(s, t)
    assert s.phase == DONE
    assert s.trick_winners == [0] * 6 + [1, 1, 1, 2]
    return s


def test_three_player_each_defender_scores_own_tricks() -> None:
    made = _three_player_deal("6NT")
    assert made.score_delta == [120, 30, 10]
    failed = _three_player_deal("7NT")
    assert failed.score_delta == [-220, 30, 10]
    assert failed.declarer_tricks() == 6


def test_three_player_misere_stops_when_the_declarer_wins_a_trick() -> None:
    s = start(THREE, THREE_HANDS, THREE_KITTY, "MIS")
    act(s, "AS 8S JC")
    assert s.phase == DONE and s.score_delta == [-250, 0, 0] and len(s.plays) == 3


def test_three_player_win_at_500_through_a_made_contract() -> None:
    s = _three_player_deal("6NT")
    _, new, over, winner, reason = settle(THREE, [400, 0, 0], s)
    assert (new, over, winner, reason) == ([520, 30, 10], True, 0, REACHED_WIN)
    # A defender passing 500 on defence does not win; the game goes on.
    _, new, over, winner, reason = settle(THREE, [0, 480, 495], s)
    assert (new, over, winner, reason) == ([120, 510, 505], False, None, None)


def test_three_player_fall_to_minus_500_highest_other_wins() -> None:
    s = _three_player_deal("7NT")
    _, new, over, winner, reason = settle(THREE, [-300, 100, 250], s)
    assert (new, over, winner, reason) == ([-520, 130, 260], True, 2, FELL_TO_LOSS)
    _, new, over, winner, _ = settle(THREE, [-300, 400, 250], s)
    assert (new, over, winner) == ([-520, 430, 260], True, 1)


@pytest.mark.parametrize(("dealer", "expected"), [(0, 1), (1, 2), (2, 1)])
def test_three_player_tie_goes_to_the_tied_player_first_to_speak(dealer: int, expected: int) -> None:
    # Seats 1 and 2 tie at 130 when seat 0 falls: the one nearer the dealer's left wins, not seat 1
    # always (dealer 1: the order of speaking is 2, 0, 1).
    s = _three_player_deal("7NT", dealer=dealer)
    _, new, over, winner, reason = settle(THREE, [-300, 100, 120], s)
    assert (new, over, reason) == ([-520, 130, 130], True, FELL_TO_LOSS)
    assert winner == expected


def test_six_player_team_scores_and_game_end() -> None:
    rng = random.Random(4)
    for seed in range(40):
        s = State.deal(SIX, seed, seed % 6)
        s.force_contract("6D", seed % 6)
        play_out(s, random_legal(rng))
        team = (seed % 6) % 2
        got = sum(1 for w in s.trick_winners if w % 2 == team)
        other = 10 - got
        assert s.score_delta[team] == (80 if got >= 6 else -80) or (got == 10 and s.score_delta[team] == 250)
        assert s.score_delta[1 - team] == 10 * other
        _, new, over, winner, reason = settle(SIX, [-450, -450], s)
        if got < 6:
            assert over and winner == 1 - team and reason == FELL_TO_LOSS
        _, new, over, winner, reason = settle(SIX, [450, 450], s)
        assert new == [450 + d for d in s.score_delta]
        assert over == (got >= 6) and winner == (team if got >= 6 else None)


# ---------------------------------------------------------------- two jokers in NT and misère

# Seat 0 holds every spade but the king; seats 1 and 2 hold the jokers and no spade.
_SPADES0 = "AS QS JS TS 9S 8S 7S 6S 5S 4S"
_KITTY_CLUBS = "AC KC QC JC TC 9C"


@pytest.mark.parametrize(("j_seat1", "j_seat2", "winner"), [("JK2", "JK1", 2), ("JK1", "JK2", 1)])
def test_nt_joker1_beats_joker2_in_one_trick(j_seat1: str, j_seat2: str, winner: int) -> None:
    s = start(TWO, [_SPADES0, j_seat1, j_seat2, "KS"], _KITTY_CLUBS, "6NT")
    act(s, "AS")
    assert j_seat1 in legal(s) and len(legal(s)) == 10  # void in spades: the joker is optional in NT
    act(s, f"{j_seat1} {j_seat2} KS")
    assert s.trick_winners == [winner]


def test_misere_void_defenders_must_play_the_jokers_and_joker1_wins() -> None:
    s = start(TWO, [_SPADES0, "JK2", "KS", "JK1"], _KITTY_CLUBS, "MIS")
    act(s, "4S")
    assert legal(s) == {"JK2"}  # void in spades: must play the suitless joker (RULES.md §8)
    act(s, "JK2")
    assert s.turn == 3  # seat 2, the declarer's partner, sits out with the king of spades
    assert legal(s) == {"JK1"}
    act(s, "JK1")
    assert s.trick_winners == [3] and s.phase == PLAY


def test_misere_defender_holding_both_jokers_plays_either() -> None:
    s = start(TWO, [_SPADES0, "JK1 JK2", "", "KS"], _KITTY_CLUBS, "MIS")
    act(s, "4S")
    assert legal(s) == {"JK1", "JK2"}
    act(s, "JK2 KS")
    assert s.trick_winners == [1] and s.phase == PLAY


def test_nt_declarer_names_a_suit_for_each_joker() -> None:
    s = start(TWO, ["JK1 JK2 AS KS QS JS TS 9S 8S 7S", "AH", "KH", "QH"], _KITTY_CLUBS, "6NT")
    assert s.phase == JOKER and legal(s) == {"S", "C", "D", "H", "-"}
    act(s, "H")  # joker 1: a heart above the ace
    assert s.phase == JOKER and legal(s) == {"S", "C", "D", "H", "-"}
    act(s, "-")  # joker 2: left suitless
    assert s.phase == PLAY and s.view(2).jokers_named == (3, -1)
    spades = {f"{r}S" for r in "AKQJT987"}
    assert legal(s) == spades | {"JK1", "JK2=S", "JK2=C", "JK2=D", "JK2=H"}
    act(s, "JK1 AH KH QH")  # joker 1 leads as a heart and beats the ace
    assert s.trick_winners == [0]
    assert legal(s) == spades | {"JK2=S", "JK2=C", "JK2=D"}  # hearts have been led
    act(s, "JK2=D")
    assert s.trick == [TWO.deck.card("JK2")] and s.led == 2
    rec = deal_record(s, TWO, 0, 0)
    assert rec["joker_suit"] == "H"


def test_log_tells_which_joker_was_named() -> None:
    s = start(TWO, ["JK1 JK2 AS KS QS JS TS 9S 8S 7S", "AH", "KH", "QH"], _KITTY_CLUBS, "6NT")
    act(s, "- H")  # joker 1 suitless, joker 2 a heart
    assert s.view(0).jokers_named == (-1, 3)
    assert deal_record(s, TWO, 0, 0)["joker_suit"] == "-,H"
    s = start(TWO, ["JK1 JK2 AS KS QS JS TS 9S 8S 7S", "AH", "KH", "QH"], _KITTY_CLUBS, "6NT")
    act(s, "C D")
    assert deal_record(s, TWO, 0, 0)["joker_suit"] == "C,D"


def test_misere_declarer_sheds_a_named_joker_safely() -> None:
    hands = ["JK1 JK2 4H 4S 5S 6S 7S 8S 9S 4D", "AH AC", "", "5H KC"]
    s = start(TWO, hands, "TS JS QS KS AS 5D", "MIS")
    act(s, "S S")  # both jokers named spades: plain spades above the ace
    act(s, "4H AH 5H")  # seat 1 wins; seat 2 sits out
    assert s.trick_winners == [1]
    act(s, "AC KC")
    assert "JK1" in legal(s)  # void in clubs: any card, and a named joker is no trump
    act(s, "JK1")
    assert s.trick_winners == [1, 1] and s.phase == PLAY and s.tricks_won[0] == 0


def test_only_jokers_left_may_be_led_naming_any_suit() -> None:
    # RULES.md §8 lets a suitless joker be led, once all four suits have been led, only at the last
    # trick; a hand of two suitless jokers at the ninth trick would then have no move.  The engine's
    # reading (docs/tables.md): with only jokers left, either may be led naming any suit.
    s = start(TWO, ["JK1 JK2 AS KS QS JS TS 9S 8S 7S", "", "", ""], _KITTY_CLUBS, "6NT")
    act(s, "- -")
    jk = TWO.deck.joker_mask
    s.hands[0] = jk
    s.led_suits = 15
    s.tricks_played = 8
    assert legal(s) == {f"JK{j}={x}" for j in (1, 2) for x in "SCDH"}
    s.hands[0] = jk | TWO.deck.mask("7S")
    assert legal(s) == {"7S"}  # with another card left the jokers wait for the last trick


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("variant", "overrides", "key"),
    [
        ("three-player", {"table.jokers": 2}, "table.jokers"),
        ("six-player", {"table.jokers": 2}, "table.jokers"),
        ("two-jokers", {"table.players": 3}, "table.players"),
        ("two-jokers", {"table.players": 6}, "table.players"),
        ("pagat-au", {"table.players": 5}, "table.players"),
        ("pagat-au", {"table.players": 2}, "table.players"),
    ],
)
def test_impossible_tables_refused_with_one_line(variant: str, overrides: dict, key: str) -> None:
    with pytest.raises(RulesError) as err:
        load_rules(variant, overrides=overrides)
    msg = str(err.value)
    assert "\n" not in msg and f"{variant}.toml" in msg and f"'{key}'" in msg


def test_two_jokers_with_three_players_in_one_file_refused(tmp_path) -> None:
    p = tmp_path / "bad.toml"
    p.write_text('base = "pagat-au"\n[table]\nplayers = 3\njokers = 2\n')
    with pytest.raises(RulesError, match=r"bad\.toml.*'table\.jokers' = 2"):
        load_rules(p)


@pytest.mark.parametrize("name", list(TABLES))
def test_switches_combine_with_every_table(name: str) -> None:
    sw = {
        "bidding.misere": "anytime",
        "bidding.blind_misere": True,
        "bidding.declarer_raise": True,
        "joker.lead_only_last_trick": True,
        "scoring.defensive_cap": 490,
    }
    for extra in (
        {},
        {"joker.no_trump": "north_american"},
        {"bidding.misere_values": "nullo", "bidding.open_misere": False},
    ):
        rules = load_rules(name, overrides={**sw, **extra})
        assert rules.players == TABLES[name].players and rules.deck == TABLES[name].deck
        bots = [make("random.v1")] * rules.players
        for g in range(3):
            assert play_game(rules, bots, 5, g)[-1]["game_over"]


# ---------------------------------------------------------------- properties


SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TABLE_NAMES = st.sampled_from(sorted(TABLES))
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
#: Team of a seat per table, written out (not ``rules.teams``).
TEAM = {"three-player": lambda s: s, "six-player": lambda s: s % 2, "two-jokers": lambda s: s % 2}


def _expected_delta(name: str, s: State) -> list[int]:
    rules = TABLES[name]
    n_teams = 3 if name == "three-player" else 2
    delta = [0] * n_teams
    if s.contract is None:
        return delta
    c, team = s.contract, TEAM[name](s.declarer)
    if c.misere:
        delta[team] = c.points if s.declarer not in s.trick_winners else -c.points
        return delta
    got = [0] * n_teams
    for w in s.trick_winners:
        got[TEAM[name](w)] += 1
    delta = [10 * g for g in got]
    delta[team] = (
        (250 if c.points < 250 and got[team] == 10 else c.points) if got[team] >= c.tricks else -c.points
    )
    assert rules.slam_floor == 250
    return delta


@SETTINGS
@given(name=TABLE_NAMES, seed=SEEDS, dealer=st.integers(0, 5))
def test_every_card_dealt_once(name: str, seed: int, dealer: int) -> None:
    rules = TABLES[name]
    s = State.deal(rules, seed, dealer % rules.players)
    seen = 0
    for h in [*s.hands, s.kitty]:
        assert seen & h == 0
        seen |= h
    assert seen == rules.deck.full_mask
    assert [h.bit_count() for h in s.hands] == [10] * rules.players
    assert s.kitty.bit_count() == (6 if name == "two-jokers" else 3)


#: Switches that change the auction and the play (scoring switches keep their defaults here).
PLAY_SWITCHES = st.fixed_dictionaries(
    {
        "bidding.misere": st.sampled_from(["after_seven", "anytime"]),
        "bidding.blind_misere": st.booleans(),
        "bidding.declarer_raise": st.booleans(),
        "joker.no_trump": st.sampled_from(["pagat", "north_american"]),
        "joker.lead_only_last_trick": st.booleans(),
    }
)


@cache
def _with_switches(name: str, items: tuple) -> Rules:
    return load_rules(name, overrides=dict(items))


@SETTINGS
@given(name=TABLE_NAMES, seed=SEEDS, switches=PLAY_SWITCHES)
def test_random_deal_is_whole_and_legal(name: str, seed: int, switches: dict) -> None:
    rules = _with_switches(name, tuple(sorted(switches.items())))
    n = rules.players
    rng = random.Random(seed)
    s = State.deal(rules, seed, seed % n)
    tricks = _trick_seats(s, random_legal(rng))
    assert s.score_delta == _expected_delta(name, s)
    if s.contract is None:
        assert len(s.bids) == n and not tricks
        return
    partners = {p for p in range(n) if p != s.declarer and TEAM[name](p) == TEAM[name](s.declarer)}
    size = n - len(partners) if s.contract.misere else n
    assert all(len(t) == size and len(set(t)) == size for t in tricks)
    played = [played_card(rules.deck, p) for p in s.plays]
    assert len(set(played)) == len(played) == size * len(tricks)
    assert s.discards.bit_count() == rules.kitty_size and s.played & s.discards == 0
    if s.contract.misere:
        assert not partners & {seat for t in tricks for seat in t}
        wins = [w == s.declarer for w in s.trick_winners]
        assert (len(wins) == 10 and not any(wins)) or (wins[-1] and not any(wins[:-1]))
    else:
        assert len(tricks) == 10 and s.played | s.discards == rules.deck.full_mask


# ---------------------------------------------------------------- whole games


def _check_game(name: str, records: list[dict]) -> None:
    rules = TABLES[name]
    n_teams = 3 if name == "three-player" else 2
    scores = [0] * n_teams
    for r in records:
        assert len(r["hands"]) == rules.players and all(len(h) == 10 for h in r["hands"])
        assert len(r["kitty"]) == rules.kitty_size and len(r["strategies"]) == rules.players
        scores = [a + b for a, b in zip(scores, r["score_delta"], strict=True)]
        assert r["score_after"] == scores
    assert [r["game_over"] for r in records] == [False] * (len(records) - 1) + [True]
    last = records[-1]
    if last["end_reason"] == REACHED_WIN:
        assert last["winner"] == TEAM[name](last["declarer"]) and scores[last["winner"]] >= 500
        assert last["score_delta"][last["winner"]] > 0
    elif last["end_reason"] == FELL_TO_LOSS:
        losers = [t for t in range(n_teams) if scores[t] <= -500]
        assert losers and last["winner"] not in losers
        assert scores[last["winner"]] == max(scores[t] for t in range(n_teams) if t not in losers)
    else:
        assert last["winner"] is None and len(records) == rules.deal_limit


@pytest.mark.parametrize("name", list(TABLES))
@pytest.mark.parametrize("bot", ["random.v1", "heuristic.v1"])
def test_whole_games_run_to_the_end(name: str, bot: str) -> None:
    rules = TABLES[name]
    bots = [make(bot) for _ in range(rules.players)]
    reasons = set()
    for g in range(12):
        records = play_game(rules, bots, 2024, g)
        _check_game(name, records)
        reasons.add(records[-1]["end_reason"])
    assert reasons <= {REACHED_WIN, FELL_TO_LOSS}
