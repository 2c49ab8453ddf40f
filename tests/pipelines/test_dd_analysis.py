"""``analyze --dd``: the per-deal DD sidecar (RUN/dd/) and the dd_ tables (pipelines/analysis/dd.py).

The positions are checked against an independent route to the opening lead: the deal re-dealt from its
seed and its logged calls, discards and namings applied through the engine, then ``Position.from_state``.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from fivehundred.pipelines.analysis import analyze, dd_sample, dd_sidecar
from fivehundred.pipelines.analysis.batches import deal_frame
from fivehundred.pipelines.analysis.io import AnalysisError, open_run
from fivehundred.pipelines.analysis.whatif import rules_of
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.simulate import run_simulation
from fivehundred.sim import PLAY, State, load_rules
from fivehundred.sim.dd import Position, dd_tricks
from fivehundred.sim.notation import action_codes, parse_joker_suit
from tests.pipelines.dd_helpers import count_solves

STRATS = "heuristic,random,heuristic,random"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ddrun") / "r"
    run_simulation(make_config(None, strategies=STRATS, seed=21, deals=14, workers=0, out=str(out)))
    return out


def _copy(run: Path, dest: Path) -> Path:
    import shutil

    shutil.copytree(run, dest, ignore=shutil.ignore_patterns("dd", "stats"))
    return dest


def _direct(run: Path) -> dict[int, int]:
    """Each contract deal's DD tricks via the engine: re-dealt from its seed, logged actions applied."""
    rules = load_rules("pagat-au")
    codes = action_codes(rules)
    out = {}
    for row in pl.read_parquet(f"{run}/deals/*.parquet").filter(pl.col("contract").is_not_null()).to_dicts():
        st = State.deal(rules, row["seed"], row["dealer"])
        for call in row["bids"]:
            st.apply_checked(codes.calls[call])
        for card in row["discards"]:
            st.apply_checked(codes.plays[card])
        for s in parse_joker_suit(row["joker_suit"]) + [-1] * 2:
            if st.phase == PLAY:
                break
            st.apply_checked(codes.namings["-" if s < 0 else "SCDH"[s]])
        assert st.phase == PLAY and st.tricks_played == 0
        out[row["deal_id"]] = dd_tricks(Position.from_state(st))
    return out


def _sidecar(run: Path, workers: int | None = 0) -> pl.DataFrame:
    frame = deal_frame(open_run(run))
    return dd_sidecar.dd_sidecar(frame, rules_of(frame), workers=workers)


def _parts(run: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((run / "dd").glob("*.parquet"))}


def test_sidecar_matches_the_engine_replay_and_its_parts(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dd_sidecar, "CHUNK_DEALS", 4)
    r = _copy(run, tmp_path / "r")
    side = _sidecar(r)
    direct = _direct(r)
    assert dict(zip(side["deal_id"], side["dd_tricks"], strict=True)) == direct
    assert side["deal_id"].to_list() == sorted(direct)
    assert set(side["dd_version"]) == {dd_sidecar.DD_VERSION}
    parts = _parts(r)
    assert list(parts) == [f"part-{i:05d}.parquet" for i in range((len(direct) + 3) // 4)]
    # each part is its chunk's bytes, whatever order (or worker) solved it
    frame = deal_frame(open_run(r))
    log = frame.run.scan.filter(pl.col("contract").is_not_null()).select(dd_sidecar.LOG_COLUMNS).collect()
    rows = (
        dd_sample.sample_order(log).drop("sample_key").to_dicts()
    )  # the parts hold the deals in sample order
    for i in reversed(range(len(parts))):
        chunk = dd_sidecar.DDChunk(i, rules_of(frame), tuple(rows[4 * i : 4 * i + 4]))
        assert dd_sidecar.solve_chunk(chunk) == parts[f"part-{i:05d}.parquet"]


def test_resume_reuses_good_parts_and_redoes_missing_stale_and_extra(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dd_sidecar, "CHUNK_DEALS", 4)
    r = _copy(run, tmp_path / "r")
    _sidecar(r)
    good = _parts(r)
    assert len(good) >= 3
    (r / "dd" / "part-00000.parquet").unlink()  # an interrupted analysis
    (r / "dd" / "part-00001.parquet").write_bytes(b"torn")  # not Parquet
    (r / "dd" / "part-00099.parquet").write_bytes(good["part-00002.parquet"])  # from a longer log
    solved = count_solves(monkeypatch)
    _sidecar(r)
    assert solved == [0, 1]
    assert _parts(r) == good
    solved.clear()
    _sidecar(r)  # complete: nothing solved
    assert solved == []
    # parts of other deals (another seed's log simulated into a copy of the folder) are solved again
    other = tmp_path / "o"
    run_simulation(make_config(None, strategies=STRATS, seed=22, deals=14, workers=0, out=str(other)))
    (r / "dd").rename(other / "dd")
    _sidecar(other)
    assert sorted(solved) == list(range(len(_parts(other))))


def test_tables_against_direct_dd(run: Path, tmp_path: Path) -> None:
    r = _copy(run, tmp_path / "r")
    tables = analyze([r], tmp_path / "stats", dd="contract")
    direct = _direct(r)
    deals = pl.read_parquet(f"{r}/deals/*.parquet").filter(pl.col("contract").is_not_null()).to_dicts()
    assert {"dd_success", "dd_by_level", "dd_misere", "dd_trick_gain"} <= set(tables)
    for name in ("dd_success", "dd_by_level", "dd_misere", "dd_trick_gain"):
        assert tables[name].columns[:3] == ["run_id", "variant", "strategies"]
        assert (tmp_path / "stats" / f"{name}.parquet").exists()

    def need(d: dict) -> int:
        return (
            0
            if d["contract"].endswith("MIS")
            else int(d["contract"][:-2] if "NT" in d["contract"] else d["contract"][:-1])
        )

    def dd_ok(d: dict) -> bool:
        v = direct[d["deal_id"]]
        return v == 0 if d["contract"].endswith("MIS") else v >= need(d)

    succ = {row["contract"]: row for row in tables["dd_success"].to_dicts()}
    mis = {row["contract"]: row for row in tables["dd_misere"].to_dicts()}
    for code in {d["contract"] for d in deals}:
        row = (mis if code.endswith("MIS") else succ)[code]
        these = [d for d in deals if d["contract"] == code]
        assert row["n"] == len(these)
        assert row["made"] == sum(d["made"] for d in these)
        assert row["dd_made"] == sum(dd_ok(d) for d in these)
        assert row["dd_not_made"] == sum(dd_ok(d) and not d["made"] for d in these)
        assert row["made_not_dd"] == sum(d["made"] and not dd_ok(d) for d in these)
        assert row["dd_rate"] == pytest.approx(row["dd_made"] / row["n"])
    assert sum(r["n"] for r in tables["dd_by_level"].to_dicts()) == sum(
        not d["contract"].endswith("MIS") for d in deals
    )
    gain = {(g["role"], g["strategy"]): g for g in tables["dd_trick_gain"].to_dicts()}
    suits = [d for d in deals if not d["contract"].endswith("MIS")]
    for strat in {"heuristic.v1", "random.v1"}:
        mine = [d for d in suits if d["strategies"][d["declarer"]] == strat]
        if not mine:
            continue
        diffs = [d["declarer_tricks"] - direct[d["deal_id"]] for d in mine]
        g = gain[("declarer", strat)]
        assert (g["n"], g["below_dd"], g["above_dd"]) == (
            len(mine),
            sum(x < 0 for x in diffs),
            sum(x > 0 for x in diffs),
        )
        assert g["gain_mean"] == pytest.approx(sum(diffs) / len(diffs))
    # declarer 0/2 plays heuristic, its defenders 1/3 random (and the other way round)
    assert {s for role, s in gain if role == "defence"} <= {"heuristic.v1", "random.v1"}
    # a second analysis reuses the sidecar and gives the same bytes
    before = _parts(r)
    again = analyze([r], tmp_path / "stats2", dd="contract")
    assert _parts(r) == before
    for name in ("dd_success", "dd_trick_gain"):
        assert again[name].equals(tables[name])
        assert (tmp_path / "stats2" / f"{name}.parquet").read_bytes() == (
            tmp_path / "stats" / f"{name}.parquet"
        ).read_bytes()


def test_unknown_dd_analysis_fails_before_any_work(run: Path, tmp_path: Path) -> None:
    r = _copy(run, tmp_path / "r")
    with pytest.raises(AnalysisError, match="unknown --dd analysis 'nope'"):
        analyze([r], tmp_path / "s", dd="nope")
    for bad in (0, -1, True, 2.5):
        with pytest.raises(AnalysisError, match="--dd-sample must be at least 1"):
            analyze([r], tmp_path / "s", dd="contract", dd_sample=bad)  # type: ignore[arg-type]
    with pytest.raises(AnalysisError, match="--dd-sample needs --dd"):
        analyze([r], tmp_path / "s", dd_sample=5)
    with pytest.raises(AnalysisError, match="--workers -2: must be at least 0"):
        analyze([r], tmp_path / "s", dd="contract", workers=-2)
    assert not (r / "dd").exists() and not (tmp_path / "s").exists()


@pytest.mark.slow
def test_ray_workers_write_the_same_bytes(run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dd_sidecar, "CHUNK_DEALS", 3)
    a, b = _copy(run, tmp_path / "a"), _copy(run, tmp_path / "b")
    _sidecar(a, workers=0)
    _sidecar(b, workers=2)
    assert _parts(a) == _parts(b) and len(_parts(a)) >= 3


@pytest.mark.slow  # two whole reports (the fresh run's report tests read its DD section quickly)
def test_report_has_the_dd_section(run: Path, tmp_path: Path) -> None:
    from fivehundred.reports.build import build_report

    r = _copy(run, tmp_path / "r")
    tables = analyze([r], tmp_path / "stats", dd="contract")
    result = build_report([r], tmp_path / "report.html", tables=tables)
    assert result.figures["dd"] == "ok"
    assert result.tables["dd_success"] == "ok"
    page = (tmp_path / "report.html").read_text()
    assert '<section id="dd">' in page
    assert 'data-table="dd_success"' in page and 'data-table="dd_trick_gain"' in page
    assert "do not depend on the bots&#x27; card play" in page
    plain = {k: v for k, v in tables.items() if not k.startswith("dd_")}
    without = build_report([r], tmp_path / "plain.html", tables=plain)
    assert without.sections["dd"] == "left out: no double-dummy analysis (analyze --dd, or run --dd-sample N)"


def _keys(df: pl.DataFrame) -> list[int]:
    return [dd_sample.sample_key(s) for s in df["seed"].to_list()]


def test_sample_is_the_first_deals_of_the_hash_order(run: Path, tmp_path: Path) -> None:
    r = _copy(run, tmp_path / "r")
    log = pl.read_parquet(f"{r}/deals/*.parquet")
    ranked = sorted(zip(_keys(log), log["deal_id"].to_list(), strict=True))
    frame = deal_frame(open_run(r))
    for n in (1, 5, log.height, log.height + 10):
        cut = dd_sample.sample_cut(frame, n)
        assert cut == ranked[min(n, log.height) - 1][0]
        ids = dd_sample.sampled_ids(frame, cut)["deal_id"].to_list()
        assert ids == [d for _, d in ranked[:n]]
    # the key is the deal seed's: the master seed and (game, hand) fix it, whatever the deal's id
    assert dd_sample.sample_key(log["seed"][3]) == dd_sample.sample_key(int(log["seed"][3]))
    assert dd_sample.sample_key(1) != dd_sample.sample_key(2)


def test_dd_sample_solves_only_the_sampled_contracts_and_says_its_n(run: Path, tmp_path: Path) -> None:
    r = _copy(run, tmp_path / "r")
    log = pl.read_parquet(f"{r}/deals/*.parquet")
    tables = analyze([r], tmp_path / "stats", dd="contract", dd_sample=6)
    frame = deal_frame(open_run(r))
    sampled = dd_sample.sampled_ids(frame, dd_sample.sample_cut(frame, 6))
    want = sorted(sampled.filter(pl.col("contract").is_not_null())["deal_id"].to_list())
    side = pl.read_parquet(f"{r}/dd/*.parquet")
    assert sorted(side["deal_id"].to_list()) == want and 0 < len(want) <= 6
    direct = _direct(r)
    assert dict(zip(side["deal_id"], side["dd_tricks"], strict=True)) == {d: direct[d] for d in want}
    info = tables["dd_sample"].row(0, named=True)
    assert (info["deals"], info["sample"], info["sampled"], info["solved"]) == (log.height, 6, 6, len(want))
    assert info["strategies"] == "heuristic.v1,random.v1,heuristic.v1,random.v1"
    n = tables["dd_success"]["n"].sum() + tables["dd_misere"]["n"].sum()
    assert n == len(want)
    # all deals: the sample says null and every contract is solved
    full = analyze([r], tmp_path / "stats2", dd="contract")
    info = full["dd_sample"].row(0, named=True)
    assert info["sample"] is None and info["sampled"] == log.height
    assert info["solved"] == log.filter(pl.col("contract").is_not_null()).height


def test_a_larger_sample_reuses_the_smaller_ones_parts(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dd_sidecar, "CHUNK_DEALS", 2)
    r = _copy(run, tmp_path / "r")
    frame = deal_frame(open_run(r))
    rules = rules_of(frame)
    cut = dd_sample.sample_cut(frame, 7)
    small = dd_sidecar.dd_sidecar(frame, rules, cut=cut)
    k = small.height // 2  # whole parts of the small sample
    solved = count_solves(monkeypatch)
    big = dd_sidecar.dd_sidecar(frame, rules)  # every deal: the sample's whole parts are a prefix
    assert min(solved) == k and len(solved) == len(_parts(r)) - k
    assert set(small["deal_id"]) <= set(big["deal_id"])
    assert big.filter(pl.col("deal_id").is_in(small["deal_id"].implode())).equals(small)
    solved.clear()
    again = dd_sidecar.dd_sidecar(frame, rules, cut=cut)  # back to the sample: nothing to solve but its tail
    assert again.equals(small) and solved == ([k] if small.height % 2 else [])


def test_every_run_of_one_seed_samples_the_same_hands(tmp_path: Path) -> None:
    """The second run samples up to the first run's key: every sampled hand of the first that the
    second also played is sampled in the second, and nothing else is."""
    a, b = tmp_path / "a", tmp_path / "b"
    run_simulation(make_config(None, strategies="heuristic", seed=5, games=3, workers=0, out=str(a)))
    run_simulation(
        make_config(None, variant="club-004", strategies="heuristic", seed=5, games=3, workers=0, out=str(b))
    )
    tables = analyze([a, b], tmp_path / "stats", dd="contract", dd_sample=12)
    la, lb = (pl.read_parquet(f"{x}/deals/*.parquet") for x in (a, b))
    fa, fb = deal_frame(open_run(a)), deal_frame(open_run(b))
    cut = dd_sample.sample_cut(fa, 12)
    hand_a = {r["deal_id"]: (r["game_id"], r["hand_no"]) for r in la.iter_rows(named=True)}
    hand_b = {r["deal_id"]: (r["game_id"], r["hand_no"]) for r in lb.iter_rows(named=True)}
    pick_a = {hand_a[d] for d in dd_sample.sampled_ids(fa, cut)["deal_id"]}
    pick_b = {hand_b[d] for d in dd_sample.sampled_ids(fb, cut)["deal_id"]}
    assert len(pick_a) == 12
    assert pick_b == pick_a & set(hand_b.values())
    assert len(pick_b) >= 6
    info = tables["dd_sample"]
    assert info["sampled"].to_list() == [12, len(pick_b)] and info["sample"].to_list() == [12, 12]
    # the paired DD effects are over exactly those common hands
    eff = tables["dd_variant_effects"].filter(pl.col("metric") == "dd_makeable")
    assert eff["paired_n"].to_list() == [len(pick_b)]
    assert set(eff.columns) >= {"base_lineup", "lineup", "p_holm", "diff_lo", "diff_hi"}
