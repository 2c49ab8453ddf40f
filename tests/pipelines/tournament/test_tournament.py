"""Tournament runs (in-process executor): duplicate seating, SPRT stopping, files, determinism, resume."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest

from fivehundred.pipelines.rundir import RunDir
from fivehundred.pipelines.schema import CORE_COLUMNS
from fivehundred.pipelines.tournament import InProcessExecutor, load_config, run_tournament
from fivehundred.pipelines.tournament.config import TournamentConfig, parse_config
from fivehundred.pipelines.tournament.files import TournamentDirError
from fivehundred.pipelines.tournament.schedule import Chunk
from fivehundred.pipelines.tournament.stats import gsprt_llr, penta_counts
from tests.cli.helpers import in_process
from tests.pipelines.runs import LOCK_TOURNAMENT


def config(entries: list[tuple[str, str]], stop: dict, seed: int = 1, **extra: object) -> TournamentConfig:
    data = {
        "name": "test",
        "seed": seed,
        "entries": [{"name": n, "strategy": s} for n, s in entries],
        "stop": stop,
        **extra,
    }
    return parse_config(data, "test.toml")


def files(out: Path) -> dict[str, bytes]:
    """Every output file's bytes, by relative path."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def log(out: Path) -> pl.DataFrame:
    return pl.read_parquet(str(out / "deals" / "*.parquet")).sort("deal_id")


def test_identical_entries_show_no_significant_difference(tmp_path: Path) -> None:
    stop = {"rule": "sprt", "elo0": 0, "elo1": 60, "max_pairs": 400}
    cfg = config([("r1", "random"), ("r2", "random")], stop)
    res = run_tournament(cfg, tmp_path / "o")
    s = res.statuses[0]
    assert s.decision == "H0" or s.elo_low <= 0 <= s.elo_high
    assert s.decision != "H1"
    assert s.wins + s.losses + s.draws == s.games == 2 * s.pairs


def test_identical_deterministic_entries_mirror_each_other(tmp_path: Path) -> None:
    # heuristic.v1 uses no randomness: on the same cards both games of a pair are the same game with
    # the seats' names swapped, so every pair splits 1-1 and the SPRT accepts H0 quickly.
    stop = {"rule": "sprt", "elo0": 0, "elo1": 60, "max_pairs": 100}
    res = run_tournament(config([("h1", "heuristic"), ("h2", "heuristic")], stop), tmp_path / "o")
    s = res.statuses[0]
    assert s.decision == "H0" and s.penta == (0, 0, s.pairs, 0, 0) and s.ppd == 0.0
    df = log(tmp_path / "o")
    side0 = df.filter(pl.col("game_id") % 2 == 0).sort("board", "hand_no")
    side1 = df.filter(pl.col("game_id") % 2 == 1).sort("board", "hand_no")
    assert side0["plays"].to_list() == side1["plays"].to_list()
    assert side0["score_delta"].to_list() == side1["score_delta"].to_list()  # by team: same cards, same play


def test_heuristic_beats_random_in_few_pairs(tmp_path: Path) -> None:
    cfg = config(
        [("heuristic", "heuristic"), ("random", "random")],
        {"rule": "sprt", "elo0": 0, "elo1": 100, "max_pairs": 200},
    )
    res = run_tournament(cfg, tmp_path / "o")
    s = res.statuses[0]
    assert s.decision == "H1" and s.pairs <= 30, s.line()
    assert s.ppd > 0 and s.los > 0.99
    entries = res.entries
    assert entries["entry"].to_list()[0] == "heuristic"  # rank 1


def test_duplicate_games_swap_seats_on_the_same_cards(tmp_path: Path) -> None:
    cfg = config([("a", "random"), ("b", "heuristic")], {"rule": "fixed", "pairs": 6}, run={"chunk_pairs": 4})
    out = tmp_path / "o"
    run_tournament(cfg, out)
    df = log(out)
    assert df.columns[: len(CORE_COLUMNS)] == list(CORE_COLUMNS)
    assert df["deal_id"].to_list() == list(range(df.height))
    assert df.select(pl.col("game_id").n_unique()).item() == 12  # 6 pairs x 2 games
    assert df["run_id"].n_unique() == 1
    for board in range(6):
        g0 = df.filter((pl.col("board") == board) & (pl.col("game_id") % 2 == 0))
        g1 = df.filter((pl.col("board") == board) & (pl.col("game_id") % 2 == 1))
        assert g0["entries"][0].to_list() == ["a", "b", "a", "b"]
        assert g1["entries"][0].to_list() == ["b", "a", "b", "a"]
        assert g0["strategies"][0].to_list() == ["random.v1", "heuristic.v1"] * 2
        n = min(g0.height, g1.height)  # the same cards and dealer, hand by hand
        for col in ("hands", "kitty", "dealer", "seed"):
            assert g0[col][:n].to_list() == g1[col][:n].to_list()
    # The pairs table agrees with the log: a's score from the winners, points from score_delta.
    pairs = pl.read_parquet(str(out / "pairs" / "*.parquet")).sort("pair")
    for row in pairs.iter_rows(named=True):
        for side in (0, 1):
            game = df.filter(pl.col("game_id") == 2 * row["pair"] + side)
            winner = game["winner"][-1]
            want = 0.5 if winner is None else float(winner == side)
            assert row[f"score_a_{side}"] == want
            assert row[f"deals_{side}"] == game.height


def test_entries_get_their_own_random_streams(tmp_path: Path) -> None:
    # Were the streams tied to the seat, two random entries would replay every board mirrored and
    # every pair would split 1-1.
    cfg = config([("x", "random"), ("y", "random")], {"rule": "fixed", "pairs": 30})
    res = run_tournament(cfg, tmp_path / "o")
    penta = res.statuses[0].penta
    assert penta[0] + penta[4] > 0
    df = log(tmp_path / "o").filter(pl.col("hand_no") == 0)
    first = df.filter(pl.col("game_id") % 2 == 0)["bids"].to_list()
    second = df.filter(pl.col("game_id") % 2 == 1)["bids"].to_list()
    assert first != second


def test_sprt_stops_at_the_first_decisive_pair_inside_a_chunk(tmp_path: Path) -> None:
    cfg = config(
        [("heuristic", "heuristic"), ("random", "random")],
        {"rule": "sprt", "elo0": 0, "elo1": 100, "max_pairs": 200},
        run={"chunk_pairs": 7},
    )
    res = run_tournament(cfg, tmp_path / "o")
    pairs = pl.read_parquet(str(tmp_path / "o" / "pairs" / "*.parquet")).sort("pair")
    points = (pairs["score_a_0"] + pairs["score_a_1"]).to_list()
    sprt = cfg.stop.sprt
    assert sprt is not None
    llrs = [gsprt_llr(penta_counts(points[: k + 1]), sprt.s0, sprt.s1) for k in range(len(points))]
    assert sprt.decide(llrs[-1]) == "H1"
    assert all(sprt.decide(v) is None for v in llrs[:-1])
    assert res.statuses[0].pairs == len(points)
    assert len(points) % 7 != 0  # the decision fell inside a chunk, whose later pairs were dropped
    assert log(tmp_path / "o")["board"].max() == len(points) - 1


def test_round_robin_and_gauntlet_tables(tmp_path: Path) -> None:
    entries = [("h", "heuristic"), ("r1", "random"), ("r2", "random")]
    rr = run_tournament(config(entries, {"rule": "fixed", "pairs": 8}), tmp_path / "rr")
    assert rr.matches.height == 3 and rr.entries.height == 3
    assert rr.entries["entry"][0] == "h" and rr.entries["rank"].to_list() == [1, 2, 3]
    assert rr.entries["rating"].sum() == pytest.approx(0.0, abs=1e-6)
    assert (rr.entries["rating_low"] <= rr.entries["rating"]).all()
    assert (rr.entries["rating"] <= rr.entries["rating_high"]).all()
    assert rr.entries["games"].to_list() == [32, 32, 32]
    for name in ("matches.parquet", "entries.parquet", "tournament.md"):
        assert (tmp_path / "rr" / "tables" / name).exists()
    md = (tmp_path / "rr" / "tables" / "tournament.md").read_text()
    assert "| 1 | h | heuristic.v1 |" in md
    g = run_tournament(
        config(entries, {"rule": "fixed", "pairs": 4}, format="gauntlet", gauntlet="r2"), tmp_path / "g"
    )
    assert g.matches["entry_a"].to_list() == ["r2", "r2"]
    assert sorted(g.matches["entry_b"].to_list()) == ["h", "r1"]


def test_same_config_gives_identical_files(tmp_path: Path) -> None:
    cfg = config([("h", "heuristic"), ("r", "random")], {"rule": "fixed", "pairs": 6}, run={"chunk_pairs": 2})
    run_tournament(cfg, tmp_path / "a")
    run_tournament(cfg, tmp_path / "b")
    assert files(tmp_path / "a") == files(tmp_path / "b")
    other = config([("h", "heuristic"), ("r", "random")], {"rule": "fixed", "pairs": 6}, seed=2)
    run_tournament(other, tmp_path / "c")
    assert files(tmp_path / "a")["manifest.json"] != files(tmp_path / "c")["manifest.json"]


class _Crash(Exception):
    pass


class _CrashingExecutor(InProcessExecutor):
    """Plays ``limit`` chunks, then fails like a killed run."""

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def run(self, config: TournamentConfig, chunks: Iterator[Chunk]) -> Iterator:
        for i, out in enumerate(super().run(config, chunks)):
            if i == self.limit:
                raise _Crash
            yield out


def test_interrupted_run_resumes_to_identical_files(tmp_path: Path) -> None:
    entries = [("h", "heuristic"), ("r1", "random"), ("r2", "random")]
    cfg = config(entries, {"rule": "sprt", "elo0": 0, "elo1": 100, "max_pairs": 60}, run={"chunk_pairs": 3})
    run_tournament(cfg, tmp_path / "full")
    with pytest.raises(_Crash):
        run_tournament(cfg, tmp_path / "resumed", executor=_CrashingExecutor(4))
    manifest = json.loads((tmp_path / "resumed" / "manifest.json").read_text())
    assert len(manifest["chunks"]) == 4 and manifest["status"] == "running"
    run_tournament(cfg, tmp_path / "resumed")
    assert files(tmp_path / "full") == files(tmp_path / "resumed")
    # Running a finished tournament again changes nothing.
    run_tournament(cfg, tmp_path / "resumed")
    assert files(tmp_path / "full") == files(tmp_path / "resumed")


def test_output_dir_of_another_run_is_refused(tmp_path: Path) -> None:
    cfg = config([("a", "random"), ("b", "random")], {"rule": "fixed", "pairs": 2})
    run_tournament(cfg, tmp_path / "o")
    other = config([("a", "random"), ("b", "random")], {"rule": "fixed", "pairs": 3})
    with pytest.raises(TournamentDirError, match="another run"):
        run_tournament(other, tmp_path / "o")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "x.txt").write_text("x")
    with pytest.raises(TournamentDirError, match="not empty"):
        run_tournament(cfg, tmp_path / "junk")


def test_log_is_a_valid_deal_log(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[3]
    cfg = load_config(root / "configs" / "tournaments" / "random-selfplay.toml")
    out = tmp_path / "o"
    res = run_tournament(cfg, out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["totals"]["deals"] == log(out).height
    assert manifest["run_id"] == res.run_id == log(out)["run_id"][0]
    schema = pq.read_schema(next((out / "deals").glob("*.parquet")))
    assert list(schema.names[: len(CORE_COLUMNS)]) == list(CORE_COLUMNS)
    from fivehundred.pipelines.analysis import analyze
    from fivehundred.pipelines.verify import verify_run

    assert verify_run(out).ok
    tables = analyze([out], tmp_path / "stats")
    assert tables["overview"]["deals"].to_list() == [manifest["totals"]["deals"]]
    assert tables["overview"]["games"].to_list() == [manifest["totals"]["games"]]
    assert tables["strategies"]["strategy"].to_list() == ["random.v1"]


def test_a_second_driver_on_the_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    cfg = tmp_path / "lock.toml"
    cfg.write_text(LOCK_TOURNAMENT)
    out = tmp_path / "o"
    args = ["tournament", str(cfg), f"--out={out}", "--workers=0"]
    holder = RunDir(str(out))
    holder.lock()  # the first driver, still writing
    try:
        status, _, err = in_process(args)
        assert status == 2 and err.count("\n") == 1, err
        assert err.startswith(f"error: {out}: another process is using this run directory")
        assert [p.name for p in out.iterdir()] == [".lock"], "nothing written"
    finally:
        holder.unlock()
    status, _, err = in_process(args)
    assert status == 0, err
    assert (out / "manifest.json").exists() and not (out / ".lock").exists()
