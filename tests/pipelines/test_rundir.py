"""``pipelines.rundir``: the typed manifest, atomic writes, and runs read back from a pyarrow filesystem."""

from __future__ import annotations

import dataclasses
import datetime
import json
from pathlib import Path

import polars as pl
import pyarrow.fs as pafs
import pytest

from fivehundred.pipelines import rundir
from fivehundred.pipelines.analysis import AnalysisError, analyze
from fivehundred.pipelines.rule_paths import rule_paths
from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.rundir import SIMULATION, TOURNAMENT, Manifest, RunDir, RunDirError, open_log
from fivehundred.pipelines.simulate import run_simulation
from fivehundred.pipelines.tournament import run_tournament
from fivehundred.pipelines.tournament.config import parse_config
from fivehundred.pipelines.verify import replay_deal, verify_run


def sim_config(out: str, **kw: object):
    values: dict[str, object] = {
        "strategies": "random",
        "seed": 3,
        "games": 30,
        "chunk_size": 8,
        "workers": 0,
    }
    values.update(kw)
    return make_config(None, out=out, **values)


TOURNAMENT_CONFIG = {
    "name": "rundir-boards",
    "seed": 9,
    "entries": [{"name": "a", "strategy": "random"}, {"name": "b", "strategy": "random"}],
    "stop": {"rule": "fixed", "pairs": 5},
    "run": {"chunk_pairs": 2},
}


def mock_fs() -> pafs.FileSystem:
    return pafs._MockFileSystem(datetime.datetime(2020, 1, 1))


def test_manifest_round_trips_and_is_deterministic() -> None:
    m = Manifest(
        kind=TOURNAMENT,
        run_id="r",
        identity={"config_digest": "x"},
        board_seed=4,
        totals={"deals": 3, "games": 2, "chunks": 1, "pairs": 1},
        chunks=[{"key": "k", "file": "deals/k.parquet", "deals": 3}],
        extra={"matches": [{"match": 0, "a": "a", "b": "b"}]},
    )
    text = m.to_json()
    assert text == m.to_json() and text.endswith("\n ]\n}\n")
    data = json.loads(text)
    assert (
        data["format"] == rundir.MANIFEST_FORMAT
        and data["format_version"] == 2
        and data["kind"] == TOURNAMENT
    )
    assert data["master_seed"] is None and data["deals_glob"] == "deals/*.parquet"
    again = Manifest.from_json(data)
    assert again == m and again.native
    empty = Manifest(kind=SIMULATION)
    assert Manifest.from_json(json.loads(empty.to_json())) == empty
    assert empty.to_json().endswith(',\n "chunks": []\n}\n')


def test_format_1_and_foreign_manifests_are_read_leniently() -> None:
    v1 = {"format": rundir.MANIFEST_FORMAT, "format_version": 1, "run_id": "old", "master_seed": 5}
    old = Manifest.from_json(v1)
    assert (old.kind, old.run_id, old.master_seed, old.native) == (SIMULATION, "old", 5, True)
    foreign = Manifest.from_json({"config": {"seed": 7, "strategies": ["x", "y"]}, "variant": "pagat-au"})
    assert (foreign.master_seed, foreign.variant, foreign.seat_labels(), foreign.native) == (
        7,
        "pagat-au",
        ["x", "y"],
        False,
    )
    assert foreign.totals == {} and foreign.chunks == []
    # An old tournament manifest: counts, chunk keys, complete flag, top-level versions.
    tour = Manifest.from_json(
        {
            "kind": "tournament",
            "run_id": "t",
            "board_seed": 2,
            "counts": {"deals": 9, "games": 4, "pairs": 2},
            "chunks": ["m000-p0000000-0000001"],
            "complete": True,
            "package_version": "0.1.0",
            "engine_version": "engine.v2",
            "config": {"board_seed": 2},
        }
    )
    assert (tour.kind, tour.complete, tour.master_seed, tour.board_seed) == (TOURNAMENT, True, None, 2)
    assert tour.totals["deals"] == 9 and tour.chunks == [
        {"key": "m000-p0000000-0000001", "file": "deals/m000-p0000000-0000001.parquet"}
    ]
    assert tour.versions == {"fivehundred": "0.1.0", "engine": "engine.v2"}
    # A boolean never passes for a seed.
    assert Manifest.from_json({"seed": True}).master_seed is None


def test_writes_are_atomic_and_leave_no_temp_files(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "r")
    run.write("deals/part-00000.parquet", b"abc")
    assert (tmp_path / "r" / "deals" / "part-00000.parquet").read_bytes() == b"abc"
    assert list((tmp_path / "r" / ".tmp").iterdir()) == []
    run.clean_tmp()
    assert not (tmp_path / "r" / ".tmp").exists()
    assert run.part_files() == ["deals/part-00000.parquet"] and run.read("nope") is None
    (tmp_path / "r" / "manifest.json").write_text("[1]")
    with pytest.raises(rundir.StorageError, match="expected a JSON object"):
        run.read_manifest()


def test_open_log_errors_are_one_line_of_the_callers_class(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match="does not exist"):
        open_log(tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(AnalysisError, match="is not a run directory"):
        open_log(tmp_path / "file", error=AnalysisError)
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunDirError, match="no deal log"):
        open_log(tmp_path / "empty")
    with pytest.raises(RunDirError, match="pyarrow cannot open"):
        open_log("nosuchscheme://x/y")


def test_a_simulation_on_an_object_store_reads_back_like_a_local_one(tmp_path: Path, monkeypatch) -> None:
    """Written by direct puts (as on S3), then analysed, verified, replayed and counted from there."""
    monkeypatch.setattr(rundir, "OBJECT_STORES", (*rundir.OBJECT_STORES, "mock"))
    fs = mock_fs()
    run_simulation(sim_config(str(tmp_path / "local")))
    run_simulation(sim_config("bucket/run"), filesystem=fs)
    local, remote = open_log(tmp_path / "local"), open_log("bucket/run", filesystem=fs)
    assert not remote.dir.local and remote.files == local.files
    assert remote.manifest.totals == local.manifest.totals and remote.manifest.complete
    assert remote.scan().collect().equals(local.scan().collect())
    with pytest.raises(AnalysisError, match="needs an output folder"):
        analyze([remote])
    a = analyze([local], tmp_path / "stats-local")
    b = analyze([remote], tmp_path / "stats-remote")
    assert a.keys() == b.keys() and all(a[k].equals(b[k]) for k in a)
    va, vb = verify_run(local), verify_run(remote)
    assert vb.ok and (vb.deals, vb.games, vb.master_seed) == (va.deals, va.games, 3)
    ra, rb = replay_deal(local, 5), replay_deal(remote, 5)
    assert dataclasses.replace(rb, run=ra.run) == ra and rb.run == "bucket/run"
    assert rule_paths(remote).equals(rule_paths(local))


def test_a_tournament_on_a_pyarrow_filesystem(tmp_path: Path) -> None:
    fs = mock_fs()
    cfg = parse_config(TOURNAMENT_CONFIG, "t.toml")
    here = run_tournament(cfg, tmp_path / "t")
    there = run_tournament(cfg, "bucket/t", filesystem=fs)
    assert there.matches.equals(here.matches) and there.markdown == here.markdown
    for rel in [
        "deals/m000-p0000000-0000001.parquet",
        "pairs/m000-p0000004-0000004.parquet",
        "manifest.json",
    ]:
        with fs.open_input_stream(f"bucket/t/{rel}") as fh:
            assert fh.read() == (tmp_path / "t" / rel).read_bytes()
    run = open_log("bucket/t", filesystem=fs)
    assert (
        run.manifest.kind == TOURNAMENT and run.manifest.board_seed == 9 and run.manifest.master_seed is None
    )
    assert [c["key"] for c in run.manifest.chunks] == [
        "m000-p0000000-0000001",
        "m000-p0000002-0000003",
        "m000-p0000004-0000004",
    ]
    assert verify_run(run).ok
    stats = analyze([run], tmp_path / "stats")
    assert stats["overview"]["deals"].to_list() == [run.manifest.totals["deals"]]
    again = run_tournament(cfg, "bucket/t", filesystem=fs)  # complete: resumes to the same tables
    assert again.entries.equals(there.entries)


def test_simulation_and_tournament_refuse_each_others_run_directory(tmp_path: Path) -> None:
    from fivehundred.pipelines.simulate import RunDirConflict
    from fivehundred.pipelines.tournament.files import TournamentDirError

    run_simulation(sim_config(str(tmp_path / "sim")))
    with pytest.raises(TournamentDirError, match="another run"):
        run_tournament(parse_config(TOURNAMENT_CONFIG, "t.toml"), tmp_path / "sim")
    run_tournament(parse_config(TOURNAMENT_CONFIG, "t.toml"), tmp_path / "tour")
    with pytest.raises(RunDirConflict, match="is a tournament"):
        run_simulation(sim_config(str(tmp_path / "tour")))
    log = pl.scan_parquet(str(tmp_path / "sim" / "deals" / "*.parquet")).collect()
    assert log.height == open_log(tmp_path / "sim").manifest.totals["deals"]


def test_a_uri_pyarrow_cannot_open_is_named_as_the_run_location() -> None:
    """The same words whether the run is written (``--out``) or read (``verify RUN``)."""
    with pytest.raises(rundir.StorageError) as caught:
        RunDir("nosuchscheme://bucket/run")
    message = str(caught.value)
    assert message.startswith("run location 'nosuchscheme://bucket/run': pyarrow cannot open this URI (")
    assert "\n" not in message
