"""benchmarks/oracle.py, the full-information reference: it is not a strategy anyone can name, its
game loop changes nothing for the other bots, and it sees the deal it is asked about."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from fivehundred.strategies.base import StrategyConfigError, make

ROOT = Path(__file__).resolve().parents[2]


def _oracle():  # type: ignore[no-untyped-def]
    for name in ("ladder", "oracle"):
        if name not in sys.modules:
            spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # its dataclasses look their module up
            spec.loader.exec_module(module)
    return sys.modules["oracle"]


def test_the_oracle_is_not_in_the_registry() -> None:
    for spec in ("oracle", "oracle-play"):
        with pytest.raises(StrategyConfigError):
            make(spec)


def test_the_seen_loop_changes_nothing_and_the_oracle_plays_better() -> None:
    """heuristic.v1 through the oracle's loop: play_game's records, 0 in every deal pair; the
    play-only oracle (v2's bidding, every card in view) is well ahead of heuristic.v1."""
    oracle = _oracle()
    assert oracle.same_records("pagat-au", "heuristic.v1", 5, 3) > 0
    zero = oracle.run_match("pagat-au", "heuristic.v1", "heuristic.v1", 40, 5, 1, oracle.SEEN)
    assert zero["mean"] == 0 and all(v == 0 for _, v in zero["swaps"])
    r = oracle.run_match("pagat-au", oracle.ORACLE_PLAY, "heuristic.v1", 60, 5, 1, oracle.SEEN)
    assert r["deal_pairs"] >= 60 and r["lo"] > 0


def test_the_oracle_refuses_a_deal_it_was_not_shown() -> None:
    from fivehundred.sim import load_rules
    from fivehundred.sim.game import new_deal

    oracle = _oracle()
    bot = oracle.Oracle()
    state, _ = new_deal(load_rules("pagat-au"), 3, 0, 0)
    with pytest.raises(RuntimeError, match="not shown"):
        bot.bid(state.view(state.turn), state.legal_actions(), None)
    bot.see(state)
    assert bot.bid(state.view(state.turn), state.legal_actions(), None) in state.legal_actions()


@pytest.mark.parametrize(
    ("script", "argv", "words"),
    [
        ("ladder", ["--v2-only", "--a", "nosuchbot", "--pairs", "5"], ["unknown strategy", "nosuchbot"]),
        ("ladder", ["--variant", "nope", "--speed-only"], ["unknown variant", "nope"]),
        ("ladder", ["--pair-speed", "--pair-baseline", "expert(bid_boost=9)"], ["bid_boost", "between"]),
        ("oracle", ["--variant", "nope"], ["unknown variant"]),
        ("oracle", ["--b", "heuristic(aggression=x)"], ["aggression"]),
    ],
)
def test_a_wrong_variant_or_bot_is_one_error_line(
    script: str, argv: list[str], words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The ladder and the oracle check their rules and bots before playing: exit status 2 and one
    ``error:`` line, no traceback."""
    _oracle()  # loads both scripts
    module = sys.modules[script]
    assert module.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and all(w in err[0] for w in words), err
