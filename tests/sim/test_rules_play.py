"""RULES.md sections 5 (kitty), 6 (trumps), 7 (play) and 8 (the joker in NT/MIS/OMIS), hand-made deals.

Each deal is written out card by card; tricks are played with ``apply_checked`` so every card is
also a legality check.  Seats: 0 and 2 are team 0, 1 and 3 team 1.
"""

from __future__ import annotations

import pytest

from fivehundred.sim import (
    DONE,
    JOKER,
    KITTY,
    PLAY,
    IllegalAction,
    Rules,
    State,
    first_legal,
    load_rules,
    play_out,
    settle,
)
from tests.sim.helpers import DEF_JOKER, PAGAT, TOPS, act, build, cards, fill, legal, play_tricks, start

# The worked example of RULES.md section 10: hearts trumps, seat 0 (A) declares 8H and leads.
WORKED = (
    [
        "AH JH QH TH 9H 8H AC AD KC KD",
        "JD 4H 5S 6S 7S 5C 6C 7C 4D 5D",
        "KH 7H 6H 5H KS JS 9S JC 6D QD",
        "JK AS QS TS 8S QC TC 9C 8C 7D",
    ],
    "8D 9D TD",
)
WORKED_TRICKS = [
    "AH JD KH JK",  # A leads AH, B the left bower, C KH, D the joker: all trumps, D wins
    "AS KD 5S 9S",  # D leads; A is void and discards (no duty to trump)
    "8C AC 5C JC",
    "JH 4H 5H 7D",
    "QH 6S 6H 8S",
    "TH 7S 7H TS",
    "9H 6C KS QS",
    "AD 4D 6D 9C",
    "KC 7C JS QC",
    "8H 5D QD TC",
]

# Spades trumps: seat 1 holds the left bower JC and one plain club.
SPADES = (
    [
        "JS AS KS QS TS AC KC AD AH KH",
        "JC 5C 4D 5D 6D 7D 4H 5H 6H 7H",
        "JK 8S 7S 6S 5S QC JD TD 9D 8D",
        "6C 7C 8C 9C TC KD QD QH JH TH",
    ],
    "9S 9H 8H",
)


# Misère by seat 1 holding the joker, void in hearts once the kitty (three hearts) is discarded.
MIS_JOKER = (
    [
        "AH KH QH JH TH AS KS QS AC KC",
        "JK 5S 6S 7S 5C 6C 7C 4D 5D 6D",
        "8S 9S TS 8C 9C TC 7D 8D 9H 8H",
        "JS JC QC AD KD QD JD TD 9D 7H",
    ],
    "6H 5H 4H",
)


# ---------------------------------------------------------------- 5. Kitty and discards


def test_s5_declarer_takes_kitty_and_discards_any_three() -> None:
    s = build(PAGAT, *WORKED)
    s.force_contract("8H", 0)
    assert s.phase == KITTY and s.turn == 0
    hand = cards(PAGAT, s.hands[0])
    assert len(hand) == 13 and {"8D", "9D", "TD"} <= hand
    assert legal(s) == hand  # any card, kitty cards included
    act(s, "9D AC 8D")  # two kitty cards and one of the dealt hand
    assert s.phase == PLAY and s.hands[0].bit_count() == 10
    assert cards(PAGAT, s.discards) == {"9D", "AC", "8D"}
    assert s.view(0).discards == s.discards
    assert all(s.view(seat).discards is None for seat in (1, 2, 3))
    assert "AC" not in legal(s) and "TD" in legal(s)


def test_s5_discards_are_out_of_play() -> None:
    s = start(PAGAT, *WORKED, "8H", 0, "8D 9D TD")
    play_tricks(s, WORKED_TRICKS)
    assert s.phase == DONE
    assert s.played & s.discards == 0
    assert s.played | s.discards == PAGAT.deck.full_mask
    # score from tricks only: the discarded cards change nothing
    assert s.score_delta == [300, 20]


def test_s5_misere_partner_sits_out() -> None:
    s = start(PAGAT, *MIS_JOKER, "MIS", 1, "6H 5H 4H", "C")
    partner_hand = s.hands[3]
    assert s.view(0).active == (True, True, True, False)
    turns = []
    while s.phase != DONE:
        turns.append(s.turn)
        s.apply(s.legal_actions()[0])
    assert 3 not in turns
    assert s.hands[3] == partner_hand  # never played a card
    assert len(s.plays) == 3 * len(s.trick_winners)
    assert 3 not in s.trick_winners


def test_s5_open_misere_partner_sits_out_too() -> None:
    s = start(PAGAT, *MIS_JOKER, "OMIS", 1, "6H 5H 4H", "C")
    act(s, "5S")
    assert s.turn == 2
    act(s, "8S")
    assert s.turn == 0
    act(s, "AS")
    assert s.trick_winners == [0] and s.turn == 0


# ---------------------------------------------------------------- 6. Trumps and card order


def _order(rules: Rules, contract: str, names: str) -> list[str]:
    """Cards sorted strongest first by the contract's tables (trumps by power, others by rank)."""
    s = start(rules, *TOPS, contract, 0, "4D 5H 4H", "-" if rules.bid(contract).no_trump else "")
    t = s.tables
    cs = rules.deck.cards(names)
    return [rules.deck.names[c] for c in sorted(cs, key=lambda c: (t.power[c], t.rank[c]), reverse=True)]


def _suit(s: State, suit: int) -> list[str]:
    """The cards of an effective suit, strongest first, by the contract's tables."""
    t = s.view(0).tables
    d = s.rules.deck
    members = [c for c in range(d.size) if t.eff_suit[c] == suit]
    return [d.names[c] for c in sorted(members, key=lambda c: -t.rank[c])]


def test_s6_trump_order_in_a_red_suit() -> None:
    trumps = "JK JH JD AH KH QH TH 9H 8H 7H 6H 5H 4H"
    assert _order(PAGAT, "8H", trumps) == trumps.split()


def test_s6_trump_order_in_a_black_suit() -> None:
    trumps = "JK JS JC AS KS QS TS 9S 8S 7S 6S 5S"
    assert _order(PAGAT, "7S", trumps) == trumps.split()


def test_s6_non_trump_suit_order_without_the_left_bower() -> None:
    s = start(PAGAT, *TOPS, "7H", 0, "4D 5H 4H")
    t = s.tables
    d = PAGAT.deck
    diamonds = [c for c in range(d.size) if t.eff_suit[c] == 2]
    assert [
        d.names[c] for c in sorted(diamonds, key=lambda c: -t.rank[c])
    ] == "AD KD QD TD 9D 8D 7D 6D 5D 4D".split()
    assert t.eff_suit[d.card("JD")] == 3  # the left bower is a heart
    clubs = [c for c in range(d.size) if t.eff_suit[c] == 1]
    assert [
        d.names[c] for c in sorted(clubs, key=lambda c: -t.rank[c])
    ] == "AC KC QC JC TC 9C 8C 7C 6C 5C".split()


@pytest.mark.parametrize("contract", ["7NT", "MIS", "OMIS"])
def test_s6_no_trumps_jacks_ordinary(contract: str) -> None:
    s = start(PAGAT, *TOPS, contract, 0, "4D 5H 4H", "-")
    t = s.tables
    d = PAGAT.deck
    for jack in ("JS", "JC", "JD", "JH"):
        assert t.power[d.card(jack)] == 0 and t.eff_suit[d.card(jack)] == d.suit[d.card(jack)]
    assert _suit(s, 2) == "AD KD QD JD TD 9D 8D 7D 6D 5D 4D".split()


def test_s6_left_bower_follows_trumps_not_its_printed_suit() -> None:
    s = start(PAGAT, *SPADES, "7S", 0, "KH 9H 8H")
    alt = s.clone()
    act(s, "AS")
    assert legal(s) == {"JC"}  # seat 1's only trump is the left bower: it must follow spades
    act(alt, "AC")
    assert legal(alt) == {"5C"}  # clubs led: JC is not a club, 5C must be played


def test_s6_left_bower_beats_the_ace_of_trumps() -> None:
    s = start(PAGAT, *SPADES, "7S", 0, "KH 9H 8H")
    assert play_tricks(s, ["AS JC 5S 6C"]) == [1]


def test_s6_left_bower_is_plain_in_no_trumps() -> None:
    s = start(PAGAT, *SPADES, "7NT", 0, "KH 9H 8H")
    act(s, "AS")
    assert "JC" in legal(s) and "4D" in legal(s)  # seat 1 has no spade: any card
    alt = start(PAGAT, *SPADES, "7NT", 0, "KH 9H 8H")
    act(alt, "AC")
    assert legal(alt) == {"JC", "5C"}


# ---------------------------------------------------------------- 7. Play


@pytest.mark.parametrize("declarer", [0, 1, 2, 3])
def test_s7_declarer_leads_first_trick(declarer: int) -> None:
    s = build(PAGAT, *WORKED)  # dealer 3: seat 0 would speak first, but the declarer leads
    s.force_contract("7NT", declarer)
    act(s, " ".join(PAGAT.deck.names_of(s.kitty)))
    if s.phase == JOKER:
        act(s, "-")
    assert s.phase == PLAY and s.turn == declarer
    assert legal(s) >= cards(PAGAT, s.hands[declarer]) - {"JK"}


def test_s7_follow_suit_no_duty_to_win_or_trump() -> None:
    s = start(PAGAT, *WORKED, "8H", 0, "8D 9D TD")
    play_tricks(s, WORKED_TRICKS[:1])
    act(s, "AS")
    assert legal(s) == cards(PAGAT, s.hands[0])  # void in spades: any card, trump not required
    act(s, "KD 5S")
    assert legal(s) == {"KS", "JS", "9S"}  # seat 2 must follow, need not win


def test_s7_highest_trump_wins_else_highest_of_suit_led() -> None:
    s = start(PAGAT, *WORKED, "8H", 0, "8D 9D TD")
    play_tricks(s, WORKED_TRICKS[:1])
    trumped = s.clone()
    assert play_tricks(trumped, ["AS 8H 5S 9S"]) == [0]  # a low trump beats the ace led
    assert play_tricks(s, ["AS KD 5S KS"]) == [3]  # off-suit KD loses; AS beats KS
    assert s.turn == 3  # the winner leads next


def test_s7_ten_tricks_and_worked_example_score() -> None:
    s = start(PAGAT, *WORKED, "8H", 0, "8D 9D TD")
    winners = play_tricks(s, WORKED_TRICKS)
    assert winners == [3, 3, 0, 0, 0, 0, 0, 0, 0, 0]
    assert s.phase == DONE and len(s.plays) == 40 and s.declarer_tricks() == 8


def test_s10_worked_example_game_end() -> None:
    s = start(PAGAT, *WORKED, "8H", 0, "8D 9D TD")
    play_tricks(s, WORKED_TRICKS)
    delta, new, over, winner, reason = settle(PAGAT, [210, 490], s)
    assert delta == [300, 20] and new == [510, 510]
    assert over and winner == 0 and reason == "reached_500"


def test_s7_misere_stops_when_declarer_wins_a_trick() -> None:
    s = start(PAGAT, *MIS_JOKER, "MIS", 1, "6H 5H 4H", "C")
    # the joker named clubs is a club above the ace: led, it wins, and the misère fails at once
    assert play_tricks(s, ["JK 8C AC"]) == [1]
    assert s.phase == DONE and len(s.trick_winners) == 1
    assert s.score_delta == [0, -250]
    assert not s.legal_actions()


def test_s7_open_misere_hand_exposed_after_first_trick() -> None:
    s = start(PAGAT, *MIS_JOKER, "OMIS", 1, "6H 5H 4H", "C")
    act(s, "5S 8S")
    assert all(s.view(seat).exposed is None for seat in range(4))
    act(s, "AS")
    for seat in range(4):
        assert s.view(seat).exposed == s.hands[1]
    assert cards(PAGAT, s.view(2).exposed) == set("JK 6S 7S 5C 6C 7C 4D 5D 6D".split())
    act(s, "AH")
    assert s.turn == 1  # the declarer still chooses the card to play
    act(s, "JK")
    assert s.view(0).exposed == s.hands[1]


def test_s7_plain_misere_hand_never_exposed() -> None:
    s = start(PAGAT, *MIS_JOKER, "MIS", 1, "6H 5H 4H", "C")
    act(s, "5S 8S AS")
    assert all(s.view(seat).exposed is None for seat in range(4))


# ---------------------------------------------------------------- 8. The joker in NT, MIS and OMIS


@pytest.mark.parametrize("contract", ["7NT", "MIS", "OMIS"])
def test_s8_declarer_may_name_the_joker(contract: str) -> None:
    s = build(PAGAT, *TOPS)
    s.force_contract(contract, 0)
    act(s, "4D 5H 4H")
    assert s.phase == JOKER and s.turn == 0
    assert legal(s) == {"S", "C", "D", "H", "-"}
    assert all(s.view(seat).jokers_named == (-1,) for seat in range(4))  # the naming is not yet public
    act(s, "H")
    assert s.phase == PLAY and s.turn == 0
    assert all(s.view(seat).jokers_named == (3,) for seat in range(4))


def test_s8_no_naming_in_a_suit_contract_or_without_the_joker() -> None:
    s = build(PAGAT, *TOPS)
    s.force_contract("7H", 0)
    act(s, "4D 5H 4H")
    assert s.phase == PLAY
    s = build(PAGAT, *TOPS)
    s.force_contract("7NT", 0)
    act(s, "JK 5H 4H")  # the joker discarded
    assert s.phase == PLAY
    s = build(PAGAT, *TOPS)
    s.force_contract("7NT", 1)  # a defender holds it
    act(s, "4D 5H 4H")
    assert s.phase == PLAY


def test_s8_named_joker_is_a_card_of_that_suit_above_its_ace() -> None:
    s = start(PAGAT, *TOPS, "7NT", 0, "4D 5H 4H", "H")
    lead = legal(s)
    assert "JK" in lead and not any(a.startswith("JK=") for a in lead)
    act(s, "JK")
    assert s.view(1).led_suit == 3
    assert legal(s) == {"QH", "JH"}  # the others follow hearts
    t = s.tables
    d = PAGAT.deck
    assert t.eff_suit[d.card("JK")] == 3 and t.rank[d.card("JK")] > t.rank[d.card("AH")]
    assert play_tricks(s, ["QH TH 8H"]) == [0]


def test_s8_named_joker_loses_when_discarded_on_another_suit() -> None:
    s = start(PAGAT, *MIS_JOKER, "MIS", 1, "6H 5H 4H", "C")
    assert play_tricks(s, ["5S 8S AS"]) == [0]
    act(s, "AH")
    assert "JK" in legal(s) and "6S" in legal(s)  # void in hearts: any card, joker not forced
    act(s, "JK 9H")
    assert s.trick_winners == [0, 0] and s.phase == PLAY  # shed safely; the misère goes on


def test_s8_named_joker_follows_its_suit() -> None:
    s = start(PAGAT, *MIS_JOKER, "MIS", 1, "6H 5H 4H", "S")
    assert play_tricks(s, ["5C 8C AC"]) == [0]
    act(s, "AS")
    assert legal(s) == {"JK", "5S", "6S", "7S"}  # a spade now: it may follow spades...
    alt = start(PAGAT, *MIS_JOKER, "MIS", 1, "6H 5H 4H", "S")
    play_tricks(alt, ["5C 8C AC"])
    act(alt, "KC")
    assert legal(alt) == {"6C", "7C"}  # ...and may not be played on clubs while holding clubs


def test_s8_unnamed_joker_in_misere_declarers_hand_fails_the_misere() -> None:
    s = start(PAGAT, *MIS_JOKER, "MIS", 1, "6H 5H 4H", "-")
    play_tricks(s, ["5S 8S AS"])
    act(s, "AH")
    assert legal(s) == {"JK"}  # void in hearts with the suitless joker: must play it
    act(s, "JK 9H")
    assert s.trick_winners == [0, 1] and s.phase == DONE
    assert s.score_delta == [0, -250]


def test_s8_suitless_joker_wins_any_trick() -> None:
    s = start(PAGAT, *DEF_JOKER, "7NT", 1, "7D 9H 8H")
    assert s.phase == PLAY  # the declarer has no joker: nothing to name
    act(s, "4D")
    assert "JK" in legal(s) and "5H" in legal(s)  # NT: optional when void
    assert play_tricks(s, ["JK 8D AC"]) == [2]


@pytest.mark.parametrize("contract", ["MIS", "OMIS"])
def test_s8_misere_void_player_must_play_the_joker(contract: str) -> None:
    s = start(PAGAT, *DEF_JOKER, contract, 1, "7D 9H 8H")
    act(s, "4D")
    assert s.turn == 2 and legal(s) == {"JK"}
    act(s, "JK")
    assert s.turn == 0  # the partner (seat 3) is skipped
    act(s, "AC")
    assert s.trick_winners == [2]


def test_s8_joker_only_when_void_on_a_trick_led_by_another() -> None:
    s = start(PAGAT, *DEF_JOKER, "7NT", 1, "7D 9H 8H")
    act(s, "5S")
    assert legal(s) == {"8S", "9S", "TS"}
    s = start(PAGAT, *DEF_JOKER, "MIS", 1, "7D 9H 8H")
    act(s, "5S")
    assert legal(s) == {"8S", "9S", "TS"}


def test_s8_suitless_joker_led_names_an_unled_suit_and_others_follow() -> None:
    s = start(PAGAT, *TOPS, "7NT", 0, "4D 5H 4H", "-")
    assert {"JK=S", "JK=C", "JK=D", "JK=H"} <= legal(s)
    act(s, "JK=H")
    assert s.view(1).led_suit == 3 and s.led_suits == 8
    assert legal(s) == {"QH", "JH"}
    assert play_tricks(s, ["QH TH 8H"]) == [0]


def test_s8_joker_lead_refused_for_an_already_led_suit() -> None:
    s = start(PAGAT, *TOPS, "7NT", 0, "4D 5H 4H", "-")
    play_tricks(s, ["AS JS 8S 5S"])
    lead = legal(s)
    assert "JK=S" not in lead and {"JK=C", "JK=D", "JK=H"} <= lead
    with pytest.raises(IllegalAction):
        act(s, "JK=S")
    act(s, "JK=C")
    assert legal(s) == {"QC", "JC", "TC"}


def test_s8_joker_lead_after_all_four_suits_only_at_the_last_trick() -> None:
    s = start(PAGAT, *TOPS, "10NT", 0, "4D 5H 4H", "-")
    for lead in ("AS", "AC", "AD", "AH"):
        act(s, lead)
        while s.trick:
            s.apply(s.legal_actions()[0])
    assert s.led_suits == 15 and s.trick_winners == [0, 0, 0, 0]
    for lead in ("KS", "KC", "KD", "KH", "QS"):
        assert not any(a.startswith("JK") for a in legal(s))
        act(s, lead)
        while s.trick:
            s.apply(s.legal_actions()[0])
    assert len(s.trick_winners) == 9 and s.hands[0] == PAGAT.deck.mask("JK")
    assert legal(s) == {"JK=S", "JK=C", "JK=D", "JK=H"}
    act(s, "JK=D")
    play_out(s, first_legal)
    assert s.trick_winners == [0] * 10 and s.score_delta == [520, 0]


def test_s8_defender_joker_is_suitless_and_led_with_a_suit() -> None:
    s = start(PAGAT, *TOPS, "7NT", 1, "4D 5H 4H")  # seat 1 declares; seat 0 holds the joker
    assert s.tables.suitless_jokers == PAGAT.deck.mask("JK")
    # seat 1 leads a spade; seat 2 follows, seat 3 follows, seat 0 holds spades and cannot play JK
    act(s, "JS 8S 5S")
    assert "JK" not in legal(s) and legal(s) == {"AS", "KS", "QS"}


def test_north_american_rules_differ() -> None:
    na = load_rules("pagat-au", overrides={"joker.no_trump": "north_american"})
    s = build(na, *TOPS)
    s.force_contract("7NT", 0)
    act(s, "4D 5H 4H")
    assert s.phase == PLAY  # no naming
    play_tricks(s, ["AS JS 8S 5S"])
    assert {"JK=S", "JK=C", "JK=D", "JK=H"} <= legal(s)  # any suit, led before or not


def test_s8_last_trick_with_a_suit_never_led_names_that_suit() -> None:
    # Reading (RULES.md section 8, seed 000 §05): "any suit" holds only once all four suits were
    # led; at the last trick with hearts never led, the joker must still name an unled suit.
    s = fill(PAGAT, ["JK AS KS QS JS AC KC QC AD KD", "", "", ""], "QH KH AH")
    s.force_contract("10NT", 0)
    act(s, "QH KH AH -")
    for lead in ("AS", "KS", "QS", "JS", "AC", "KC", "QC", "AD", "KD"):
        assert "JK=H" in legal(s)
        act(s, lead)
        while s.trick:
            s.apply(s.legal_actions()[0])
    assert s.trick_winners == [0] * 9 and s.led_suits == 0b0111
    assert legal(s) == {"JK=H"}
