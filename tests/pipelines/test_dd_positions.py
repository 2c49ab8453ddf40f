"""``fivehundred dd``: positions as JSON lines (pipelines/dd.py, Position.from_fields); docs/dd.md.

Its bad lines (one ``error:`` line naming the line, exit 2, no output file) are cases of
tests/cli/test_bad_input.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fivehundred.cli.main import main
from fivehundred.pipelines.dd import PositionsError, read_positions, solve_positions
from fivehundred.sim import PLAY, load_rules
from fivehundred.sim.dd import Position, dd_tricks, move_values
from fivehundred.sim.notation import SUITS, joker_suit_text
from tests.pipelines.dd_golden import GOLDEN
from tests.sim.dd_reference import ending

VARIANTS = ("pagat-au", "club-004", "north-american", "nullo", "two-jokers", "three-player", "six-player")


def _write(path: Path, objects: list[dict]) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objects))
    return path


def test_golden_file(tmp_path: Path) -> None:
    src = _write(tmp_path / "p.jsonl", [o for o, _ in GOLDEN])
    seen: list[tuple[int, int]] = []
    out = solve_positions(src, tmp_path / "o.jsonl", progress=lambda d, t: seen.append((d, t)))
    lines = (tmp_path / "o.jsonl").read_text().splitlines()
    assert [json.loads(x) for x in lines] == out == [{**o, "dd_tricks": v} for o, v in GOLDEN]
    assert all(list(json.loads(x))[-1] == "dd_tricks" for x in lines)  # the input's order, then dd_tricks
    assert seen == [(i, len(GOLDEN)) for i in range(1, len(GOLDEN) + 1)]


def test_cli_golden_and_blank_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "p.jsonl"
    src.write_text(
        "\n" + json.dumps(GOLDEN[0][0]) + "\n\n" + json.dumps({**GOLDEN[1][0], "dd_tricks": 7}) + "\n"
    )
    with pytest.raises(SystemExit) as exc:
        main_args(["dd", str(src), "--out", str(tmp_path / "o.jsonl")])
    assert exc.value.code == 0
    got = [json.loads(x) for x in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert [g["dd_tricks"] for g in got] == [8, 0]  # an input dd_tricks is replaced
    assert "2 positions solved" in capsys.readouterr().out


def main_args(args: list[str]) -> None:
    import sys

    old = sys.argv
    sys.argv = ["fivehundred", *args]
    try:
        main()
    finally:
        sys.argv = old


def test_bad_line_writes_nothing_and_keeps_an_old_output(tmp_path: Path) -> None:
    bad = {**GOLDEN[0][0], "hands": [["AH", "KH"], ["AS", "KS"], ["QH", "AH"], ["5S", "6S"]]}
    src = _write(tmp_path / "p.jsonl", [GOLDEN[1][0], GOLDEN[2][0], bad])
    (tmp_path / "o.jsonl").write_text("old\n")
    with pytest.raises(PositionsError, match=r"line 3: card AH appears twice"):
        solve_positions(src, tmp_path / "o.jsonl")
    assert (tmp_path / "o.jsonl").read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.jsonl", "p.jsonl"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"contract": "BMIS"}, "contract BMIS is not a bid of variant pagat-au"),
        ({"contract": "8NT", "joker_suit": "H"}, r"names more jokers than the declarer holds \(0\)"),
        ({"contract": "MIS"}, "seat 2 sits out in MIS"),
        ({"hands": [["AH", "KH"], ["AS"], ["QH", "QS"], ["5S", "6S"]]}, r"unequal sizes \(2, 1, 2, 2\)"),
        ({"hands": [["AH", "XX"], ["AS", "KS"], ["QH", "QS"], ["5S", "6S"]]}, "holds 'XX', not a card"),
        ({"tricks_played": 7}, "must add up to 10 tricks"),
        ({"suits_led": ["H", "S", "C", "D", "H"]}, "listed once"),
    ],
)
def test_messages_name_line_and_problem(tmp_path: Path, changes: dict, message: str) -> None:
    src = _write(tmp_path / "p.jsonl", [GOLDEN[0][0], {**GOLDEN[0][0], **changes}])
    with pytest.raises(PositionsError, match=rf"p.jsonl line 2: .*{message}"):
        read_positions(src)


def _fields(state) -> dict:
    """A state's position at a trick boundary as the command's fields (names through the deck)."""
    rules = state.rules
    deck = rules.deck
    hand = state.hands[state.declarer]
    kept = [state.jokers_named[j] for j, c in enumerate(deck.jokers) if hand >> c & 1]
    return {
        "contract": state.contract.code,
        "declarer": state.declarer,
        "leader": state.turn,
        "hands": [deck.names_of(state.hands[s]) if state.active[s] else [] for s in range(rules.players)],
        "joker_suit": joker_suit_text(kept),
        "suits_led": [SUITS[s] for s in range(4) if state.led_suits >> s & 1],
        "tricks_played": state.tricks_played,
        "declarer_tricks": state.declarer_tricks() or 0,
    }


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(VARIANTS),
    contract=st.sampled_from(["7S", "8NT", "MIS", "7H"]),
    seed=st.integers(0, 2**32),
    left=st.integers(1, 3),
)
@example(variant="pagat-au", contract="8NT", seed=3, left=3)  # a named joker may still be in hand
@example(variant="two-jokers", contract="MIS", seed=11, left=2)
@example(variant="six-player", contract="7H", seed=5, left=2)
def test_from_fields_agrees_with_from_state(variant: str, contract: str, seed: int, left: int) -> None:
    rules = load_rules(variant)
    if contract not in rules.bid_index:
        return
    state = ending(variant, contract, seed, left, naming=seed % 4)
    if state.phase != PLAY or state.trick:
        return
    a, b = Position.from_state(state), Position.from_fields(rules, **_fields(state))
    assert (a.hands, a.leader, a.led_suits, a.tricks_played, a.declarer_tricks) == (
        b.hands,
        b.leader,
        b.led_suits,
        b.tricks_played,
        b.declarer_tricks,
    )
    assert dd_tricks(a) == dd_tricks(b)
    assert move_values(a) == move_values(b)
