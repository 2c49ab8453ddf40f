"""``tools.play``: the person's seat against the bots, and the deal log a session writes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from fivehundred.pipelines.verify import verify_run
from fivehundred.sim import load_rules, play_game
from fivehundred.sim.engine import AUCTION, JOKER, KITTY, PLAY
from fivehundred.sim.notation import BID, PASS
from fivehundred.sim.view import SeatView
from fivehundred.strategies import make
from fivehundred.tools.play import (
    HUMAN_LABEL,
    PlayError,
    PlayEvent,
    StopPlay,
    make_play_config,
    other_seats,
    play_session,
)
from tests.tools.helpers import nt_joker_policy

Ask = Callable[[SeatView, tuple[int, ...]], int]


def first(view: SeatView, legal: tuple[int, ...]) -> int:
    """The first legal action: always a valid choice, so a session of these plays whole games."""
    return legal[0]


class FirstLegal:
    """The same choice as a strategy, to compare a session with ``sim.game.play_game``."""

    name = HUMAN_LABEL
    uses_rng = False

    def _first(self, view: SeatView, legal: tuple[int, ...], rng: object) -> int:
        return legal[0]

    bid = discard = name_joker = play = _first


def _log(run: Path) -> pl.DataFrame:
    return pl.read_parquet(str(run / "deals" / "*.parquet")).sort("deal_id")


def _parts(run: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((run / "deals").glob("*.parquet"))}


@pytest.mark.parametrize(
    ("variant", "seat"), [("pagat-au", 0), ("three-player", 2), ("six-player", 3), ("two-jokers", 1)]
)
def test_a_session_is_the_log_play_game_would_write(tmp_path: Path, variant: str, seat: int) -> None:
    cfg = make_play_config(variant, seat, "heuristic", seed=5, games=2, out=str(tmp_path / "run"))
    result = play_session(cfg, first)
    assert (result.status, result.games, result.stopped_at) == ("complete", 2, None)
    rules = load_rules(variant)
    bots: list[object] = [make("heuristic") for _ in range(rules.players)]
    bots[seat] = FirstLegal()
    labels = ["heuristic.v1"] * rules.players
    labels[seat] = HUMAN_LABEL
    want = [r for g in range(2) for r in play_game(rules, bots, 5, g, labels)]
    log = _log(tmp_path / "run")
    assert log.height == result.deals == len(want)
    for row, rec in zip(log.iter_rows(named=True), want, strict=True):
        assert {k: row[k] for k in rec} == rec
    assert set(log["run_id"]) == {result.run_id}
    check = verify_run(tmp_path / "run")
    assert check.ok, [str(f) for f in check.findings]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert manifest["totals"] == {"deals": len(want), "games": 2, "chunks": 2}
    assert manifest["strategies"][seat]["label"] == HUMAN_LABEL and manifest["master_seed"] == 5


def test_same_seed_and_choices_give_the_same_bytes(tmp_path: Path) -> None:
    runs = []
    for name in ("a", "b"):
        cfg = make_play_config("pagat-au", 1, "heuristic,random,heuristic", 11, 2, str(tmp_path / name))
        play_session(cfg, first)
        runs.append(tmp_path / name)
    assert _parts(runs[0]) == _parts(runs[1]) and len(_parts(runs[0])) == 2
    assert (runs[0] / "manifest.json").read_bytes() == (runs[1] / "manifest.json").read_bytes()
    other = tmp_path / "c"
    play_session(make_play_config("pagat-au", 1, "heuristic,random,heuristic", 12, 2, str(other)), first)
    assert _parts(other) != _parts(runs[0])


def test_events_show_only_what_the_seat_may_know(tmp_path: Path) -> None:
    events: list[PlayEvent] = []
    cfg = make_play_config("pagat-au", 2, None, 3, 2, str(tmp_path / "run"))
    play_session(cfg, first, events.append)
    kinds = {e.kind for e in events}
    assert {"deal", "action", "play_starts", "trick", "deal_done", "game_done"} <= kinds
    assert all(e.view.seat == 2 for e in events)
    for e in events:
        if e.kind == "action":
            hidden = e.seat != 2 and e.phase in (KITTY, JOKER)
            assert (e.action is None) == hidden
    assert any(e.kind == "action" and e.action is None for e in events)  # a bot's discards are withheld
    tricks = [e for e in events if e.kind == "trick"]
    for e in tricks:
        assert len(e.cards) == sum(e.view.active) and e.seat in {s for s, _ in e.cards}
    log = _log(tmp_path / "run")
    assert len(tricks) == sum(len(w) for w in log["trick_winners"])
    assert [e.seat for e in tricks] == [w for ws in log["trick_winners"] for w in ws]
    done = [e.result for e in events if e.kind == "deal_done"]
    assert [d["score_after"] for d in done] == log["score_after"].to_list()


def test_end_of_input_keeps_the_finished_games(tmp_path: Path) -> None:
    cfg = make_play_config("pagat-au", 0, None, 4, 3, str(tmp_path / "run"))
    whole = play_session(make_play_config("pagat-au", 0, None, 4, 3, str(tmp_path / "whole")), first)
    game0 = _log(tmp_path / "whole").filter(pl.col("game_id") == 0)
    seen: set[int] = set()

    def stop_in_game_1(view: SeatView, legal: tuple[int, ...]) -> int:
        if 1 in seen and view.phase == PLAY:  # in the middle of game 1's first deal
            raise StopPlay
        return legal[0]

    result = play_session(cfg, stop_in_game_1, lambda e: seen.add(e.game_id))
    assert result.status == "stopped" and result.stopped_at == (1, 0) and result.games == 1
    assert result.deals == game0.height < whole.deals
    assert _log(tmp_path / "run").equals(game0)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "stopped" and manifest["totals"]["games"] == 1
    assert verify_run(tmp_path / "run").ok


def test_a_failing_input_still_leaves_a_valid_log(tmp_path: Path) -> None:
    seen: set[int] = set()

    def boom(view: SeatView, legal: tuple[int, ...]) -> int:
        if 1 in seen:
            raise RuntimeError("bad input")
        return legal[0]

    with pytest.raises(RuntimeError, match="bad input"):
        cfg = make_play_config("three-player", 0, None, 2, 2, str(tmp_path / "run"))
        play_session(cfg, boom, lambda e: seen.add(e.game_id))
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "stopped" and manifest["totals"]["games"] == 1
    assert verify_run(tmp_path / "run").ok


def _policy_misere(view: SeatView, legal: tuple[int, ...]) -> int:
    """Bid open misère at once; then throw and play the lowest card."""
    if view.phase == AUCTION:
        omis = BID + view.rules.bid_index["OMIS"]
        return omis if omis in legal else PASS
    return legal[0]


def test_an_open_misere_contract_of_the_person(tmp_path: Path) -> None:
    events: list[PlayEvent] = []
    cfg = make_play_config("pagat-au", 0, None, 1, 1, str(tmp_path / "run"))
    play_session(cfg, _policy_misere, events.append)
    log = _log(tmp_path / "run")
    mine = log.filter((pl.col("contract") == "OMIS") & (pl.col("declarer") == 0))
    assert mine.height >= 1
    for row in mine.iter_rows(named=True):
        assert row["score_delta"][0] == (500 if row["declarer_tricks"] == 0 else -500)
        # The partner sits out: no play of seat 2 in the deal.
        per_trick = 3
        assert len(row["plays"]) == per_trick * len(row["trick_winners"])
    starts = [e for e in events if e.kind == "play_starts" and e.view.contract.code == "OMIS"]
    assert starts and all(not e.view.active[2] for e in starts)
    assert verify_run(tmp_path / "run").ok


def test_a_no_trump_contract_with_the_joker_led_suitless(tmp_path: Path) -> None:
    for seed in range(30):
        out = tmp_path / f"run{seed}"
        play_session(make_play_config("pagat-au", 0, None, seed, 1, str(out)), nt_joker_policy)
        log = _log(out)
        nt = log.filter(pl.col("contract").str.ends_with("NT") & (pl.col("declarer") == 0))
        led = [p for row in nt.iter_rows(named=True) for p in row["plays"] if p.startswith("JK=")]
        if led:
            assert verify_run(out).ok
            assert led[0] in ("JK=S", "JK=C", "JK=D", "JK=H")
            return
    pytest.fail("no seed of 0..29 gave the person a no-trump contract with a joker lead")


def test_strategies_name_partners_then_opponents_from_the_left() -> None:
    four, three, six = load_rules("pagat-au"), load_rules("three-player"), load_rules("six-player")
    assert other_seats(four, 0) == (2, 1, 3)  # partner, left, right
    assert other_seats(four, 3) == (1, 0, 2)
    assert other_seats(three, 1) == (2, 0)
    assert other_seats(six, 1) == (3, 5, 2, 4, 0)
    cfg = make_play_config("pagat-au", 0, "random,heuristic,random", 1, 1, "x")
    assert cfg.labels == [HUMAN_LABEL, "heuristic.v1", "random.v1", "random.v1"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seat": 4}, "seat 4: pagat-au has seats 0..3"),
        ({"strategies": "random,random"}, "2 given; give 1 (every bot) or 3 (partner,left,right)"),
        ({"strategies": "nosuchbot"}, "unknown strategy 'nosuchbot'"),
        ({"games": 0}, "games 0: must be at least 1"),
        ({"seed": -1}, "seed -1"),
    ],
)
def test_bad_arguments_are_one_line_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(PlayError) as info:
        make_play_config(**{"out": "x", **kwargs})
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_run_directory_is_not_replaced_without_overwrite(tmp_path: Path) -> None:
    cfg = make_play_config("pagat-au", 0, "random", 1, 1, str(tmp_path / "run"))
    play_session(cfg, first)
    before = _parts(tmp_path / "run")
    with pytest.raises(PlayError, match="already holds a run"):
        play_session(cfg, first)
    assert _parts(tmp_path / "run") == before
    again = play_session(cfg, first, overwrite=True)
    assert again.status == "complete" and _parts(tmp_path / "run") == before


def test_simulate_does_not_mix_its_games_into_a_played_run(tmp_path: Path) -> None:
    from fivehundred.pipelines.runconfig import make_config
    from fivehundred.pipelines.simulate import RunDirConflict, run_simulation

    play_session(make_play_config("pagat-au", 0, "random", 1, 1, str(tmp_path / "run")), first)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert (manifest["kind"], manifest["format_version"], manifest["human_seat"]) == ("play", 2, 0)
    config = make_config(strategies="random", seed=1, games=1, out=str(tmp_path / "run"), workers=0)
    with pytest.raises(RunDirConflict, match=r"manifest\.json is a play run; use --overwrite"):
        run_simulation(config)
