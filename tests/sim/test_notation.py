"""sim.notation: every card, call, naming and play reads back as what was written, on every variant."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fivehundred.sim import available_variants, load_rules
from fivehundred.sim import notation as N
from fivehundred.sim.engine import AUCTION, JOKER, PLAY, parse_action
from fivehundred.sim.game import action_names as game_action_names
from fivehundred.sim.rules import ALL_BIDS, Rules

RULES = {v: load_rules(v) for v in available_variants()}
VARIANTS = sorted(RULES)


def _actions(rules: Rules) -> list[tuple[int, int]]:
    """Every (action, phase) of a rule set: cards, joker leads, namings, pass, every bid."""
    deck = rules.deck
    out = [(c, PLAY) for c in range(deck.size)]
    out += [(N.JOKER_LEAD + 4 * j + s, PLAY) for j in range(len(deck.jokers)) for s in range(4)]
    out += [(N.NAME_SUIT + s, JOKER) for s in range(4)] + [(N.NAME_NONE, JOKER)]
    out += [(N.PASS, AUCTION)] + [(N.BID + i, AUCTION) for i in range(len(rules.ladder))]
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_action_of_every_variant_round_trips(variant: str) -> None:
    rules = RULES[variant]
    table = N.action_names(rules)
    codes = N.action_codes(rules)
    seen = set()
    for action, phase in _actions(rules):
        text = N.action_name(rules, action)
        assert table[action] == text
        assert parse_action(rules, text, phase) == action
        kind = {AUCTION: codes.calls, JOKER: codes.namings, PLAY: codes.plays}[phase]
        assert kind[text] == action
        seen.add((phase == AUCTION, phase == JOKER, text))
    assert len(seen) == len(_actions(rules))  # no two actions of one phase kind share a text


@given(st.sampled_from(VARIANTS), st.data())
@example("two-jokers", None)  # the only deck with JK1/JK2: both jokers' leads and names
@example("six-player", None)  # the 11, 12, 13 ranks
def test_cards_split_and_join(variant: str, data: st.DataObject | None) -> None:
    deck = RULES[variant].deck
    cards = range(deck.size) if data is None else [data.draw(st.integers(0, deck.size - 1))]
    for c in cards:
        name = deck.names[c]
        if deck.suit[c] < 0:
            assert N.is_joker(name)
            j = N.joker_number(name)
            assert deck.jokers[j] == c and N.joker_text(j, len(deck.jokers)) == name
            with pytest.raises(ValueError):
                N.split_card(name)
        else:
            rank, suit = N.split_card(name)
            assert suit == deck.suit[c] and N.card_text(rank, suit) == name
            assert not N.is_joker(name)
    if data is None and variant == "two-jokers":
        assert [deck.names[c] for c in deck.jokers] == ["JK1", "JK2"]
    if data is None and variant == "six-player":
        assert {"11S", "12C", "13D", "13H"} <= set(deck.names) and "13S" not in deck.names


@given(st.sampled_from(VARIANTS), st.data())
@example("nullo", None)
@example("pagat-au", None)
def test_ladder_codes_round_trip(variant: str, data: st.DataObject | None) -> None:
    ladder = RULES[variant].ladder
    bids = ladder if data is None else [data.draw(st.sampled_from(ladder))]
    for b in bids:
        assert N.parse_bid(b.code) == (b.tricks, b.trump)
        assert N.is_misere(b.code) == b.misere
        if not b.misere:
            assert N.bid_text(b.tricks, b.trump) == b.code
            assert N.bid_level(b.code) == str(b.tricks)
            assert N.bid_trump(b.code) == N.suit_text(b.trump)
        else:
            assert N.bid_level(b.code) == N.bid_trump(b.code) == b.code


def test_all_bids_hold_every_code_of_every_ladder_in_rank_order() -> None:
    codes = [b.code for b in ALL_BIDS]
    assert codes.index("BMIS") + 1 == codes.index("OMIS")  # blind misère shares open misère's rank
    for rules in RULES.values():
        own = [b.code for b in rules.ladder]
        assert own == [c for c in codes if c in own]
    assert [b.rank for b in ALL_BIDS] == sorted(b.rank for b in ALL_BIDS)


@given(st.lists(st.integers(-1, 3), min_size=1, max_size=2))
@example([3])
@example([-1, 3])
@example([3, -1])
@example([-1, -1])
def test_joker_suit_round_trip(named: list[int]) -> None:
    text = N.joker_suit_text(named)
    if max(named) < 0:
        assert text is None
        return
    assert text is not None
    back = N.parse_joker_suit(text)
    # Trailing unnamed jokers are dropped on writing; what is written reads back exactly.
    assert back == named[: len(back)] and all(s < 0 for s in named[len(back) :])
    assert back[-1] >= 0
    assert {"H": [3], "-,H": [-1, 3]}.get(text, back) == back


def test_plays_and_namings_split() -> None:
    assert N.split_play("JK=H") == ("JK", 3)
    assert N.split_play("JK2=S") == ("JK2", 0)
    assert N.split_play("TH") == ("TH", -1)
    assert N.naming_suit("-") == -1 and N.naming_text(-1) == "-"
    assert N.parse_naming("D") == N.NAME_SUIT + 2
    for bad in ("TH=S", "JK=X", "JK=", "JK=NT"):
        with pytest.raises(ValueError):
            N.split_play(bad)


@pytest.mark.parametrize(
    ("bad", "parser"),
    [
        ("11D", N.parse_bid),
        ("5S", N.parse_bid),
        ("8", N.parse_bid),
        ("8X", N.parse_bid),
        ("NT", N.parse_bid),
        ("1S", N.split_card),
        ("T", N.split_card),
        ("TX", N.split_card),
        ("X", N.suit_index),
        ("SC", N.suit_index),
        ("", N.suit_index),
    ],
)
def test_bad_text_is_refused(bad: str, parser: object) -> None:
    with pytest.raises(ValueError):
        parser(bad)  # type: ignore[operator]


def test_unknown_texts_of_a_rule_set_raise() -> None:
    rules = RULES["pagat-au"]
    with pytest.raises(KeyError):
        N.parse_call(rules, "BMIS")  # not on pagat-au's ladder
    with pytest.raises(KeyError):
        N.parse_play(rules, "4S")  # black fours are out of the 43-card deck
    with pytest.raises(ValueError):
        N.action_name(rules, 200)  # between the namings and the pass: no action
    assert N.action_names(rules)[200] == "?"


def test_the_log_writer_uses_the_notation_table() -> None:
    rules = RULES["pagat-au"]
    assert game_action_names(rules) is N.action_names(rules)


def test_universal_layout_is_one_bit_per_name_and_joker_numbers_agree() -> None:
    bits = [b for n, b in N.UNIVERSAL_BIT.items() if n != "JK1"]
    assert len(bits) == len(set(bits)) and max(bits) < 64
    assert N.UNIVERSAL_BIT["JK"] == N.UNIVERSAL_BIT["JK1"]
    for rules in RULES.values():
        deck = rules.deck
        full = N.universal_mask(deck, deck.full_mask)
        assert full.bit_count() == deck.size
        assert N.universal_mask(deck, 1 << deck.card("AS")) == 1 << (16 * 0 + N.RANKS.index("A"))


def test_parse_cards_reads_a_hand_and_names_the_bad_card() -> None:
    parse_cards = N.parse_cards
    deck = load_rules("pagat-au").deck
    assert parse_cards(deck, "JK  TH 5S") == [deck.card("JK"), deck.card("TH"), deck.card("5S")]
    assert parse_cards(deck, "") == []
    with pytest.raises(ValueError, match="'4C' is not a card of this deck"):
        parse_cards(deck, "TH 4C")
    with pytest.raises(ValueError, match="TH is given twice"):
        parse_cards(deck, "TH 5S TH")
    two = load_rules("two-jokers").deck
    assert parse_cards(two, "JK1 JK2") == list(two.jokers)
    with pytest.raises(ValueError, match="'JK' is not a card"):
        parse_cards(two, "JK")


def test_card_name_reads_what_a_person_types() -> None:
    """One reading of typed cards: ``10`` for the ten, suit symbols, any case; nothing else changes."""
    assert [N.card_name(t) for t in ("10H", "10♥", "th", "T♥️", "jk", "jk2", "11s", "a♠", "Q♣", "9♢")] == [
        "TH", "TH", "TH", "TH", "JK", "JK2", "11S", "AS", "QC", "9D",
    ]  # fmt: skip
    assert N.typed_text("8♥") == "8H" and N.typed_text("jk=♠") == "JK=S" and N.typed_text("10h") == "10H"
    deck = load_rules("six-player").deck
    assert N.parse_cards(deck, "10♥ 11s 13D") == [deck.card("TH"), deck.card("11S"), deck.card("13D")]
    with pytest.raises(ValueError, match="'10X' is not a card"):
        N.parse_cards(deck, "10X")
