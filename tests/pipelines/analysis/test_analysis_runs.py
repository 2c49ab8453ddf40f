"""pipelines.analysis on real runs: cross-checks against plain Python over the records, paired
comparisons, the misère what-if, determinism, and the one-line errors."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest

from fivehundred.pipelines.analysis import AnalysisError, analyze
from fivehundred.pipelines.schema import records_to_table
from tests.pipelines.analysis.helpers import play_run, write_run, write_table

SEED = 5
GAMES = 40


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, list[dict]]]:
    base = tmp_path_factory.mktemp("runs")
    return {
        "pagat": (base / "pagat", play_run(base / "pagat", "pagat-au", SEED, GAMES)),
        "na": (base / "na", play_run(base / "na", "north-american", SEED, GAMES)),
        "dup": (
            base / "dup",
            play_run(base / "dup", "pagat-au", SEED, GAMES, spec="random(pass_probability=0.7)"),
        ),
        "other_seed": (base / "other", play_run(base / "other", "pagat-au", SEED + 1, 5)),
    }


def made(r: dict) -> bool:
    if r["contract"] in ("MIS", "OMIS"):
        return r["declarer_tricks"] == 0
    return r["declarer_tricks"] >= int(r["contract"].rstrip("SCDHNT"))


def test_real_run_matches_python(runs: dict, tmp_path: Path) -> None:
    path, recs = runs["pagat"]
    t = analyze([path], tmp_path / "stats")
    played = [r for r in recs if r["contract"] is not None]
    c = t["contracts"]
    counts = Counter(r["contract"] for r in played)
    wins = Counter(r["contract"] for r in played if made(r))
    for code in counts:
        got = c.filter(pl.col("contract") == code).row(0, named=True)
        assert (got["n"], got["made"]) == (counts[code], wins[code]), code
        pts = [r["score_delta"][r["declarer"] % 2] for r in played if r["contract"] == code]
        assert got["points_mean"] == pytest.approx(sum(pts) / len(pts))
        if got["n"] > 1:  # one contract: a mean with no interval
            assert got["points_lo"] <= got["points_mean"] <= got["points_hi"]
        else:
            assert got["points_lo"] is None and got["points_hi"] is None
    called = Counter(b for r in recs for b in r["bids"] if b != "P")
    assert dict(zip(c["contract"], c["called"], strict=True)) == {k: called.get(k, 0) for k in c["contract"]}
    o = t["overview"].row(0, named=True)
    assert (o["deals"], o["games"], o["thrown_in"]) == (len(recs), GAMES, len(recs) - len(played))
    # Trumps held by the declarer of each suit contract, counted from the card names.
    left = {"S": "JC", "C": "JS", "D": "JH", "H": "JD"}
    suit = [r for r in played if r["contract"][-1] in "SCDH" and r["contract"] not in ("MIS", "OMIS")]
    by_trumps: Counter = Counter()
    for r in suit:
        t_suit = r["contract"][-1]
        hand = r["hands"][r["declarer"]]
        n = sum(1 for x in hand if x == "JK" or x == left[t_suit] or (x[-1] == t_suit and x != "JK"))
        by_trumps[n] += 1
    f = t["success_by_feature"].filter((pl.col("group") == "all-suit") & (pl.col("feature") == "trumps"))
    assert dict(zip(f["value"].cast(pl.Int64), f["n"], strict=True)) == dict(by_trumps)
    s = t["strategies"].row(0, named=True)
    assert s["seat_deals"] == 4 * len(recs) and s["games"] == GAMES  # games, not seat-games
    # The partner's highest call, by walking each auction seat by seat.
    partner: Counter = Counter()
    ladder = c["contract"].to_list()
    for r in played:
        if r["contract"] in ("MIS", "OMIS"):
            continue
        seat, active, best = (r["dealer"] + 1) % 4, [True] * 4, "-"
        for call in r["bids"]:
            if seat == (r["declarer"] + 2) % 4:
                if call == "P":
                    best = "P" if best == "-" else best
                elif best in ("-", "P") or ladder.index(call) > ladder.index(best):
                    best = call
            if call == "P":
                active[seat] = False
            seat = next((seat + k) % 4 for k in range(1, 5) if active[(seat + k) % 4])
        partner[best] += 1
    pb = t["success_by_feature"].filter(pl.col("feature") == "partner_bid")
    pb = pb.filter(~pl.col("group").str.starts_with("all-"))
    got = pb.group_by("value").agg(pl.col("n").sum())
    assert dict(zip(got["value"], got["n"], strict=True)) == dict(partner)


def test_compare_variants_paired(runs: dict, tmp_path: Path) -> None:
    (pa_path, pa_recs), (na_path, na_recs) = runs["pagat"], runs["na"]
    t = analyze([pa_path, na_path], tmp_path / "cmp")
    pairing = t["pairing"].row(0, named=True)
    keys_a = {(r["game_id"], r["hand_no"]): r for r in pa_recs}
    keys_b = {(r["game_id"], r["hand_no"]): r for r in na_recs}
    common = sorted(set(keys_a) & set(keys_b))
    assert (pairing["kind"], pairing["paired_deals"], pairing["paired_games"]) == (
        "variant",
        len(common),
        GAMES,
    )
    eff = t["variant_effects"]
    p0 = eff.filter(pl.col("metric") == "points_team0").row(0, named=True)
    diffs = [keys_b[k]["score_delta"][0] - keys_a[k]["score_delta"][0] for k in common]
    assert p0["paired_n"] == len(common)
    assert p0["diff_mean"] == pytest.approx(sum(diffs) / len(diffs))
    assert p0["diff_lo"] <= p0["diff_mean"] <= p0["diff_hi"]
    assert p0["variance_reduction"] == pytest.approx(1 - p0["se_paired"] ** 2 / p0["se_unpaired"] ** 2)
    mis = eff.filter(pl.col("metric") == "misere").row(0, named=True)
    assert mis["paired_mean"] == 0.0  # north-american has no misère
    dpg = eff.filter(pl.col("metric") == "deals_per_game").row(0, named=True)
    assert dpg["paired_base_mean"] == pytest.approx(len(pa_recs) / GAMES) and dpg["unit"] == "game"
    assert t["strategy_duplicate"].height == 0
    assert set(eff["metric"]) >= {
        "end_reached_500",
        "first_dealer_team_won",
        "first_bidder_margin",
        "share_NT",
    }


def test_compare_duplicate_strategies(runs: dict, tmp_path: Path) -> None:
    t = analyze([runs["pagat"][0], runs["dup"][0]], tmp_path / "dup")
    assert t["pairing"]["kind"].to_list() == ["duplicate"] and t["variant_effects"].height == 0
    d = t["strategy_duplicate"]
    assert d["lineup"][0].startswith("random.v1") and d["base_lineup"][0].startswith("heuristic.v1")


def test_whatif_misere(runs: dict, tmp_path: Path) -> None:
    path, recs = runs["pagat"]
    t = analyze([path], tmp_path / "wi", what_if="misere", seat_strategy="random", sample=12)
    w = t["misere_whatif"]
    assert w["contract"].to_list() == ["MIS", "OMIS"] and w["n"].to_list() == [12, 12]
    for r in w.iter_rows(named=True):
        value = 250 if r["contract"] == "MIS" else 500
        assert r["points_mean"] == pytest.approx((r["made"] * value - (r["n"] - r["made"]) * value) / r["n"])
        assert r["diff_mean"] == pytest.approx(r["points_mean"] - r["actual_mean"])
        assert r["strategy"] == "random.v1" and r["seat_rel"] == 1
    f = t["misere_whatif_by_feature"]
    assert f.filter((pl.col("contract") == "MIS") & (pl.col("feature") == "voids"))["n"].sum() == 12
    # The actual points are the log's, for the team of the seat left of the dealer.
    ordered = sorted(recs, key=lambda r: (r["game_id"], r["hand_no"]))
    assert abs(w["actual_mean"][0]) <= max(abs(r["score_delta"][(r["dealer"] + 1) % 2]) for r in ordered)


def test_stale_tables_removed(runs: dict, tmp_path: Path) -> None:
    out = tmp_path / "stats"
    analyze([runs["pagat"][0], runs["na"][0]], out)
    assert (out / "variant_effects.parquet").exists() and (out / "pairing.csv").exists()
    analyze([runs["pagat"][0]], out)
    assert not (out / "variant_effects.parquet").exists() and not (out / "pairing.csv").exists()
    assert (out / "contracts.parquet").exists()


def test_deterministic_outputs(runs: dict, tmp_path: Path) -> None:
    path = runs["pagat"][0]
    analyze([path], tmp_path / "a")
    analyze([path], tmp_path / "b")
    for f in sorted((tmp_path / "a").iterdir()):
        assert f.read_bytes() == (tmp_path / "b" / f.name).read_bytes(), f.name


def test_manifest_fields(runs: dict, tmp_path: Path) -> None:
    recs = runs["pagat"][1]
    run = tmp_path / "withmanifest"
    write_run(run, recs, "ignored-in-log")
    (run / "manifest.json").write_text(json.dumps({"run_id": "from-manifest", "master_seed": SEED}))
    o = analyze([run], tmp_path / "o")["overview"].row(0, named=True)
    assert (o["run_id"], o["master_seed"]) == ("from-manifest", SEED)


def test_errors_are_one_line(runs: dict, tmp_path: Path) -> None:
    def err(dirs: list, **kw: object) -> str:
        with pytest.raises(AnalysisError) as e:
            analyze(dirs, tmp_path / "x", **kw)
        msg = str(e.value)
        assert "\n" not in msg
        return msg

    assert "does not exist" in err([tmp_path / "missing"])
    (tmp_path / "empty").mkdir()
    assert "not a run directory" in err([tmp_path / "empty"])
    foreign = write_table(tmp_path / "foreign", pa.table({"a": [1, 2]}))
    assert "not a fivehundred deal log" in err([foreign])
    recs = runs["pagat"][1][:5]
    table = records_to_table(recs, "v3", 0)
    table = table.set_column(0, "schema_version", pa.array([3] * len(recs), pa.int16()))
    assert "schema_version 3, this analysis reads version 2" in err([write_table(tmp_path / "v3", table)])
    msg = err([runs["pagat"][0], runs["other_seed"][0]])
    assert "cannot be paired" in msg and "dealt differently" in msg
    assert "unknown --what-if" in err([runs["pagat"][0]], what_if="nullo")
    assert "given twice" in err([runs["pagat"][0], runs["pagat"][0]])
    (tmp_path / "badmanifest" / "deals").mkdir(parents=True)
    write_run(tmp_path / "badmanifest", recs)
    (tmp_path / "badmanifest" / "manifest.json").write_text("{not json")
    assert "manifest" in err([tmp_path / "badmanifest"])


def test_cli(runs: dict, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from fivehundred.cli.app import app
    from fivehundred.cli.main import main  # noqa: F401  (registers every command)

    res = CliRunner().invoke(app, ["analyze", str(runs["pagat"][0]), "--out", str(tmp_path / "cli")])
    assert res.exit_code == 0, res.output
    assert "variant_effects" not in res.output and "contracts" in res.output
    assert (tmp_path / "cli" / "success_by_trumps_joker.parquet").exists()


def test_copies_of_one_run_stay_apart(runs: dict, tmp_path: Path) -> None:
    recs = runs["pagat"][1]
    a, b = write_run(tmp_path / "a", recs, "same-id"), write_run(tmp_path / "b", recs, "same-id")
    t = analyze([a, b], tmp_path / "out")
    assert t["overview"]["run_id"].to_list() == ["same-id", "same-id (b)"]
    eff = t["strategy_duplicate"]
    assert eff.filter(pl.col("method") == "paired")["diff_mean"].abs().max() == 0.0
    assert t["pairing"]["paired_deals"].to_list() == [len(recs)]
