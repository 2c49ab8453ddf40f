"""The rule schema in words (sim.rules): every switch value described, differences from a base."""

from __future__ import annotations

import tomllib

import pytest

from fivehundred.sim.rules import (
    _STRINGS,
    ALL_KEYS,
    SWITCHES,
    VARIANTS_DIR,
    RulesError,
    available_variants,
    describe_change,
    describe_rules,
    describe_switch,
    load_rules,
    rule_differences,
    switch_values,
)


def test_switches_are_every_key_a_variant_may_set() -> None:
    assert set(SWITCHES) == ALL_KEYS - set(_STRINGS)
    assert len(SWITCHES) == len(set(SWITCHES))


@pytest.mark.parametrize("key", SWITCHES)
def test_every_value_of_every_switch_has_its_own_words(key: str) -> None:
    values = switch_values(key)
    assert len(values) >= 2
    words = [describe_switch(key, v) for v in values]
    assert len(set(words)) == len(words), words  # different values never read the same
    for v, w in zip(values, words, strict=True):
        assert "{" not in w and w.strip() == w
        if isinstance(v, int) and not isinstance(v, bool) and v not in (0,):
            assert str(v) in w or key in ("table.players", "table.jokers")


def test_the_change_reads_as_one_sentence() -> None:
    assert (
        describe_change("bidding.misere", "after_seven", "anytime")
        == "misère may be bid at any time instead of only over a 7-level bid"
    )
    assert (
        describe_change("scoring.overtrick_points", 0, 10)
        == "each trick over the contract scores 10 instead of nothing"
    )
    assert describe_change("bidding.declarer_raise", False, True) == (
        "the highest bidder may raise once after the others pass "
        "(instead of: gets no further turn once the others pass)"
    )


@pytest.mark.parametrize("name", available_variants())
def test_differences_name_exactly_the_switches_a_variant_file_changes(name: str) -> None:
    base = load_rules("pagat-au")
    with (VARIANTS_DIR / f"{name}.toml").open("rb") as fh:
        data = tomllib.load(fh)
    flat = {
        f"{section}.{k}": v
        for section, table in data.items()
        if isinstance(table, dict)
        for k, v in table.items()
    }
    changed = {k for k, v in flat.items() if v != dict(base.settings)[k]}
    diffs = rule_differences(load_rules(name), base)
    assert {d[0] for d in diffs} == changed
    for key, old, new, words in diffs:
        assert words == describe_change(key, old, new) and "instead of" in words


def test_a_rule_set_does_not_differ_from_itself_and_describes_every_switch() -> None:
    rules = load_rules("club-004")
    assert rule_differences(rules, rules) == []
    described = describe_rules(rules)
    assert [k for k, _, _ in described] == list(SWITCHES)
    assert ("bidding.misere", "anytime", "misère may be bid at any time") in described


def test_an_unknown_switch_is_a_rules_error() -> None:
    with pytest.raises(RulesError, match=r"unknown switch 'bidding\.nope'"):
        describe_switch("bidding.nope", 1)
    with pytest.raises(RulesError, match="unknown switch"):
        switch_values("name")
