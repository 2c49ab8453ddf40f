"""RULES.md section 11: every switch of the 4-player game, and the refusal of bad variant files.

Scoring switches (slam floor, overtricks, defensive cap, losing at -500, Nullo, blind misère's
value) are in ``test_rules_scoring.py``; here are the auction and joker switches and validation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fivehundred.sim import DONE, PLAY, RulesError, first_legal, load_rules, play_out
from fivehundred.sim.errors import UserError
from tests.sim.helpers import DEF_JOKER, TOPS, act, auction, build, legal, start

ANYTIME = load_rules("pagat-au", overrides={"bidding.misere": "anytime"})
OFF = load_rules("pagat-au", overrides={"bidding.misere": "off"})
NO_OPEN = load_rules("pagat-au", overrides={"bidding.open_misere": False})
BLIND = load_rules("pagat-au", overrides={"bidding.blind_misere": True})
NA = load_rules("pagat-au", overrides={"joker.no_trump": "north_american"})
LAST = load_rules("pagat-au", overrides={"joker.lead_only_last_trick": True})
RAISE = load_rules("pagat-au", overrides={"bidding.declarer_raise": True})


# ---------------------------------------------------------------- misère after_seven | anytime | off


def test_misere_anytime_opening_and_over_any_lower_bid() -> None:
    assert "MIS" in legal(auction(ANYTIME, ""))
    assert "MIS" in legal(auction(ANYTIME, "6S"))
    assert "MIS" in legal(auction(ANYTIME, "6NT"))
    assert "MIS" in legal(auction(ANYTIME, "7NT"))
    assert "MIS" not in legal(auction(ANYTIME, "8S"))  # still ranked between 7NT and 8S
    s = auction(ANYTIME, "MIS")
    assert "7NT" not in legal(s) and "8S" in legal(s)
    assert [b.code for b in ANYTIME.ladder] == [b.code for b in load_rules("pagat-au").ladder]


def test_misere_off_removes_mis_and_omis() -> None:
    codes = [b.code for b in OFF.ladder]
    assert "MIS" not in codes and "OMIS" not in codes and len(codes) == 25
    assert "MIS" not in legal(auction(OFF, "7H")) and "OMIS" not in legal(auction(OFF, "10D"))
    with pytest.raises(RulesError, match="'MIS'"):
        OFF.bid("MIS")
    assert load_rules("north-american").misere == "off"


def test_open_misere_off_keeps_mis() -> None:
    codes = [b.code for b in NO_OPEN.ladder]
    assert "OMIS" not in codes and "MIS" in codes
    assert legal(auction(NO_OPEN, "10D")) == {"P", "10H", "10NT"}
    assert "MIS" in legal(auction(NO_OPEN, "7D"))


def test_nullo_has_no_open_form() -> None:
    r = load_rules("nullo")
    assert "OMIS" not in r.bid_index and r.bid("MIS").points == 500
    assert r.bid("MIS").rank == load_rules("pagat-au").bid("MIS").rank
    assert "MIS" in legal(auction(r, "7S")) and "MIS" not in legal(auction(r, "6S"))


# ---------------------------------------------------------------- blind misère


def test_blind_misere_only_at_ones_first_turn() -> None:
    s = auction(BLIND, "")
    assert "BMIS" in legal(s)
    act(s, "6S")  # seat 0 has spoken
    assert "BMIS" in legal(s)  # seat 1's first turn
    act(s, "6C 6D 6H")  # seats 1, 2, 3
    assert s.turn == 0 and "BMIS" not in legal(s) and "OMIS" in legal(s)
    # after MIS rules: blind misère is legal at a first turn whatever the high bid (it outranks them)
    assert "BMIS" in legal(auction(BLIND, "P P 10D"))


def test_blind_misere_ranked_with_open_misere() -> None:
    assert BLIND.bid("BMIS").rank == BLIND.bid("OMIS").rank and BLIND.bid("BMIS").points == 500
    s = auction(BLIND, "BMIS")
    assert "OMIS" not in legal(s) and "BMIS" not in legal(s) and {"10H", "10NT"} <= legal(s)
    s = auction(BLIND, "OMIS")
    assert "BMIS" not in legal(s) and "10H" in legal(s)
    s = auction(BLIND, "10H")
    assert "BMIS" not in legal(s) and "OMIS" not in legal(s)
    s = auction(BLIND, "BMIS P P P")
    assert s.contract.code == "BMIS" and s.declarer == 0


def test_blind_misere_with_open_misere_off() -> None:
    r = load_rules("pagat-au", overrides={"bidding.blind_misere": True, "bidding.open_misere": False})
    assert "BMIS" in r.bid_index and "OMIS" not in r.bid_index
    s = auction(r, "BMIS")
    assert {"10H", "10NT"} <= legal(s) and "10D" not in legal(s)


# ---------------------------------------------------------------- joker in NT: north_american


def test_north_american_joker_no_naming_in_nt_or_misere() -> None:
    for contract in ("7NT", "MIS", "OMIS"):
        s = build(NA, *TOPS)
        s.force_contract(contract, 0)
        act(s, "4D 5H 4H")
        assert s.phase == PLAY and s.view(0).jokers_named == (-1,)


def test_north_american_joker_led_naming_any_suit() -> None:
    s = start(NA, *TOPS, "10NT", 0, "4D 5H 4H")
    for lead in ("AS", "AC", "AD", "AH"):
        act(s, lead)
        while s.trick:
            s.apply(s.legal_actions()[0])
    assert {"JK=S", "JK=C", "JK=D", "JK=H"} <= legal(s)  # all four led, not the last trick
    act(s, "JK=S")
    assert legal(s) == {"JS", "TS"}  # seat 1 follows spades (9S went on AS)
    while s.trick:
        s.apply(s.legal_actions()[0])
    assert s.trick_winners[-1] == 0


@pytest.mark.parametrize("contract", ["7NT", "MIS"])
def test_north_american_joker_playable_when_void_never_forced(contract: str) -> None:
    r = load_rules("pagat-au", overrides={"joker.no_trump": "north_american", "bidding.misere": "anytime"})
    s = start(r, *DEF_JOKER, contract, 1, "7D 9H 8H")
    act(s, "4D")
    assert "JK" in legal(s) and "5H" in legal(s)
    act(s, "JK")
    while s.trick:
        s.apply(s.legal_actions()[0])
    assert s.trick_winners == [2]  # the joker is the only trump
    s = start(r, *DEF_JOKER, contract, 1, "7D 9H 8H")
    act(s, "5S")
    assert legal(s) == {"8S", "9S", "TS"}  # not playable while able to follow


# ---------------------------------------------------------------- joker lead only at the last trick


def test_joker_lead_only_at_last_trick() -> None:
    s = start(LAST, *TOPS, "10NT", 0, "4D 5H 4H", "-")
    assert not any(a.startswith("JK=") for a in legal(s))  # no suit led yet, still refused
    for lead in ("AS", "AC", "AD", "AH", "KS", "KC", "KD", "KH", "QS"):
        assert not any(a.startswith("JK") for a in legal(s))
        act(s, lead)
        while s.trick:
            s.apply(s.legal_actions()[0])
    assert legal(s) == {"JK=S", "JK=C", "JK=D", "JK=H"}
    act(s, "JK=S")
    play_out(s, first_legal)
    assert s.trick_winners == [0] * 10


def test_joker_lead_only_at_last_trick_named_joker_is_a_plain_card() -> None:
    s = start(LAST, *TOPS, "10NT", 0, "4D 5H 4H", "D")
    assert "JK" in legal(s)  # named: a diamond, led like any card


# ---------------------------------------------------------------- declarer raise


def test_declarer_raise_after_the_others_pass() -> None:
    s = auction(RAISE, "6S P P P")
    assert s.phase != DONE and s.turn == 0 and s.contract is None
    assert "P" in legal(s) and "6S" not in legal(s) and "7S" in legal(s)
    act(s, "8H")
    assert s.contract.code == "8H" and s.declarer == 0 and s.turn == 0
    assert s.bids[-1] != s.bids[0]
    s = auction(RAISE, "6S P P P P")
    assert s.contract.code == "6S" and s.declarer == 0


def test_declarer_raise_off_by_default() -> None:
    s = auction(load_rules("pagat-au"), "6S P P P")
    assert s.contract.code == "6S" and len(s.bids) == 4


def test_declarer_raise_club_004_raise_to_misere_over_seven() -> None:
    s = auction(RAISE, "7D P P P")
    assert "MIS" in legal(s)  # after_seven: a raise over a 7 bid may be misère


# ---------------------------------------------------------------- shipped variants


def test_club_004_switches() -> None:
    r = load_rules("club-004")
    assert r.misere == "anytime" and r.blind_misere and r.declarer_raise
    assert r.joker_lead_only_last_trick and r.defensive_cap == 490 and r.open_misere


def test_north_american_switches() -> None:
    r = load_rules("north-american")
    assert r.joker_no_trump == "north_american" and r.slam_floor == 0 and r.overtrick_points == 10
    assert not r.lose_at_minus_500 and r.misere == "off"


# ---------------------------------------------------------------- validation: one line, file and key


def _write(tmp_path: Path, text: str, name: str = "v.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def _refused(where: str | Path, overrides: dict | None = None) -> str:
    with pytest.raises(RulesError) as info:
        load_rules(where, overrides=overrides)
    msg = str(info.value)
    assert "\n" not in msg and isinstance(info.value, UserError)
    return msg


def test_wrong_key_in_file(tmp_path: Path) -> None:
    p = _write(tmp_path, 'base = "pagat-au"\n[bidding]\nmisery = "off"\n')
    msg = _refused(p)
    assert str(p) in msg and "'bidding.misery'" in msg and "unknown key" in msg


def test_wrong_key_in_override() -> None:
    msg = _refused("pagat-au", {"scoring.slam": True})
    assert "pagat-au.toml" in msg and "'scoring.slam'" in msg


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ('[bidding]\nmisere = "sometimes"\n', "bidding.misere"),
        ('[bidding]\nopen_misere = "yes"\n', "bidding.open_misere"),
        ('[joker]\nno_trump = "american"\n', "joker.no_trump"),
        ("[scoring]\noverprick_points = 10\n", "scoring.overprick_points"),
        ("[scoring]\novertrick_points = -10\n", "scoring.overtrick_points"),
        ("[scoring]\ndefensive_cap = true\n", "scoring.defensive_cap"),
        ("[table]\nplayers = 5\n", "table.players"),
        ("[game]\ndeal_limit = 0\n", "game.deal_limit"),
        ("base = 4\n", "base"),
    ],
)
def test_bad_value_names_file_and_key(tmp_path: Path, body: str, key: str) -> None:
    p = _write(tmp_path, 'base = "pagat-au"\n' + body if not body.startswith("base") else body)
    msg = _refused(p)
    assert str(p) in msg and f"'{key}'" in msg


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ('[bidding]\nmisere = "off"\nopen_misere = true\n', "bidding.open_misere"),
        ('[bidding]\nmisere = "off"\nblind_misere = true\n', "bidding.blind_misere"),
        ('[bidding]\nmisere = "off"\nmisere_values = "nullo"\n', "bidding.misere_values"),
        ('[bidding]\nmisere_values = "nullo"\nopen_misere = true\n', "bidding.open_misere"),
        ("[table]\nplayers = 3\njokers = 2\n", "table.jokers"),
    ],
)
def test_impossible_combination_refused(tmp_path: Path, body: str, key: str) -> None:
    p = _write(tmp_path, 'base = "pagat-au"\n' + body)
    msg = _refused(p)
    assert str(p) in msg and f"'{key}'" in msg


def test_impossible_combination_in_overrides() -> None:
    msg = _refused("pagat-au", {"bidding.misere": "off", "bidding.open_misere": True})
    assert "pagat-au.toml (override)" in msg and "'bidding.open_misere'" in msg
    msg = _refused("north-american", {"bidding.open_misere": True})
    assert "north-american.toml (override)" in msg and "'bidding.open_misere'" in msg


def test_override_layer_over_a_file_turns_dependent_switches_off() -> None:
    assert not OFF.open_misere and "OMIS" not in OFF.bid_index
    r = load_rules("pagat-au", overrides={"bidding.misere_values": "nullo"})
    assert not r.open_misere and r.bid("MIS").points == 500


def test_missing_file_and_unknown_name(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    msg = _refused(missing)
    assert str(missing) in msg and "no such variant file" in msg
    msg = _refused("no-such-variant")
    assert "no-such-variant" in msg and "pagat-au" in msg


def test_missing_base_and_missing_key(tmp_path: Path) -> None:
    p = _write(tmp_path, 'base = "nowhere"\n')
    msg = _refused(p)
    assert str(p) in msg and "'base'" in msg
    p = _write(tmp_path, 'name = "bare"\n[table]\nplayers = 4\n', "bare.toml")
    msg = _refused(p)
    assert str(p) in msg and "missing key" in msg


def test_bad_toml_and_base_cycle(tmp_path: Path) -> None:
    p = _write(tmp_path, "[bidding\nmisere = 1\n")
    msg = _refused(p)
    assert str(p) in msg and "TOML" in msg
    _write(tmp_path, 'base = "b"\n', "a.toml")
    _write(tmp_path, 'base = "a"\n', "b.toml")
    msg = _refused(tmp_path / "a.toml")
    assert "a.toml" in msg and "'base'" in msg and "cycle" in msg


def test_every_shipped_variant_loads() -> None:
    for name in ("pagat-au", "north-american", "nullo", "club-004"):
        r = load_rules(name)
        assert r.name == name and r.players == 4 and r.deck.size == 43 and r.kitty_size == 3
