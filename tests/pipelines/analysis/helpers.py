"""Helpers for the analysis tests: write deal logs (hand-built records or real games) as run dirs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
from polars.testing import assert_frame_equal

from fivehundred import sim
from fivehundred.pipelines.schema import records_to_table
from fivehundred.sim.game import play_game
from fivehundred.strategies import make
from tests.pipelines.analysis.golden.make_golden import TABLES
from tests.sim.helpers import auction_seats, hand_facts


def record(
    game_id: int,
    hand_no: int,
    dealer: int,
    hands: list[list[str]],
    kitty: list[str],
    bids: list[str],
    contract: str | None = None,
    declarer: int | None = None,
    discards: list[str] | None = None,
    trick_winners: list[int] | None = None,
    score_delta: list[int] | None = None,
    score_after: list[int] | None = None,
    game_over: bool = False,
    winner: int | None = None,
    end_reason: str | None = None,
    joker_suit: str | None = None,
    strategies: list[str] | None = None,
    variant: str = "pagat-au",
) -> dict[str, Any]:
    """One deal-log record (every column but the run-level ones), with defaults for a hand-built log."""
    tw = trick_winners or []
    dt = None
    if contract is not None:
        if contract in ("MIS", "OMIS"):
            dt = sum(1 for w in tw if w == declarer)
        else:
            dt = sum(1 for w in tw if w % 2 == declarer % 2)
    players = len(hands)
    teams = len(score_delta or [0, 0])
    facts: dict[str, Any] = {
        "bid_seats": auction_seats(bids, dealer, players),
        "play_seats": [],
        "declarer_team": None if contract is None else declarer % teams,
        "made": None,
        "team_tricks": [sum(1 for w in tw if w % teams == t) for t in range(teams)],
        "sitting_out": [],
        "slam": None,
        **hand_facts([], [], [], None),
        "suit_lengths": None,
    }
    if contract is not None:
        misere = contract in ("MIS", "OMIS", "BMIS")
        facts["made"] = dt == 0 if misere else dt >= int(contract.rstrip("SCDHNT"))
        if misere:
            facts["sitting_out"] = [
                s for s in range(players) if s != declarer and s % teams == declarer % teams
            ]
        else:
            facts["slam"] = dt == len(hands[declarer])
        trump = None if misere or contract.endswith("NT") else contract[-1]
        facts.update(hand_facts(hands[declarer], kitty, discards or [], trump))
    return {
        **facts,
        "game_id": game_id,
        "hand_no": hand_no,
        "seed": 1000 * game_id + hand_no,
        "variant": variant,
        "dealer": dealer,
        "strategies": strategies or ["alpha.v1", "beta.v1", "alpha.v1", "beta.v1"],
        "hands": hands,
        "kitty": kitty,
        "bids": bids,
        "contract": contract,
        "declarer": declarer,
        "discards": discards,
        "joker_suit": joker_suit,
        "plays": [],
        "trick_winners": tw,
        "declarer_tricks": dt,
        "score_delta": score_delta or [0, 0],
        "score_after": score_after or [0, 0],
        "game_over": game_over,
        "winner": winner,
        "end_reason": end_reason,
        "engine_version": "engine.v1",
    }


def write_run(run_dir: Path, records: list[dict[str, Any]], run_id: str = "run-test") -> Path:
    """Write ``records`` as ``run_dir/deals/part-00000.parquet`` (no manifest) and return ``run_dir``."""
    (run_dir / "deals").mkdir(parents=True, exist_ok=True)
    pq.write_table(records_to_table(records, run_id, 0), run_dir / "deals" / "part-00000.parquet")
    return run_dir


def write_table(run_dir: Path, table: pa.Table) -> Path:
    """Write an arbitrary Arrow table as the run's only part file."""
    (run_dir / "deals").mkdir(parents=True, exist_ok=True)
    pq.write_table(table, run_dir / "deals" / "part-00000.parquet")
    return run_dir


def play_run(
    run_dir: Path, variant: str, seed: int, games: int, spec: str = "heuristic", run_id: str | None = None
) -> list[dict[str, Any]]:
    """Play ``games`` real games and write them as a run; returns the records."""
    rules = sim.load_rules(variant)
    bots = [make(spec) for _ in range(rules.players)]
    records: list[dict[str, Any]] = []
    for g in range(games):
        records += play_game(rules, bots, seed, g)
    write_run(run_dir, records, run_id or f"{variant}-{seed}")
    return records


DECK = (
    [f"{r}{s}" for s in "SC" for r in "56789TJQKA"]
    + [f"{r}{s}" for s in "DH" for r in "456789TJQKA"]
    + ["JK"]
)


def deal_hands(fixed: dict[int, list[str]], kitty: list[str]) -> list[list[str]]:
    """Hands with the given seats fixed and the rest of the deck shared out in deck order."""
    rest = [c for c in DECK if c not in kitty and all(c not in h for h in fixed.values())]
    hands = []
    for seat in range(4):
        if seat in fixed:
            hands.append(fixed[seat])
        else:
            hands.append(rest[:10])
            rest = rest[10:]
    assert not rest and len({c for h in hands for c in h} | set(kitty)) == 43
    return hands


def row(df: pl.DataFrame, **keys: object) -> dict:
    hit = df.filter(pl.all_horizontal(pl.col(k) == v for k, v in keys.items()))
    assert hit.height == 1, (keys, hit)
    return hit.row(0, named=True)


def check_golden(tables: dict[str, pl.DataFrame]) -> None:
    want = {p.stem: pl.read_parquet(p) for p in sorted(TABLES.glob("*.parquet"))}
    assert sorted(tables) == sorted(want)
    for name, df in want.items():
        try:
            assert_frame_equal(tables[name], df, check_exact=True)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None
