"""``pipelines.simulate`` in-process: rows, deal ids, ``deals`` semantics, resume, refusals, configs."""

from __future__ import annotations

import datetime
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

from fivehundred.pipelines import rundir, simulate
from fivehundred.pipelines.raypool import ClusterError
from fivehundred.pipelines.runconfig import RunConfigError, load_config, make_config, read_run_file
from fivehundred.pipelines.schema import DEAL_LOG_SCHEMA, records_to_table
from fivehundred.pipelines.simulate import Progress, RunDirConflict, run_simulation
from fivehundred.sim import load_rules, play_game
from fivehundred.sim.errors import UserError
from fivehundred.strategies import make
from tests.pipelines.runs import parts, wait_for_chunks

REPO = Path(__file__).resolve().parents[2]
#: Random bots that pass often make games of several deals (plain random games last about one).
LONG = "random(pass_probability=0.6, max_raise=2)"


def config(tmp_path: Path, name: str = "run", **kw: object):
    values: dict[str, object] = {
        "strategies": "random",
        "seed": 11,
        "games": 60,
        "chunk_size": 16,
        "out": str(tmp_path / name),
        "workers": 0,
    }
    values.update(kw)
    return make_config(None, **values)


def log(run_dir: Path) -> pa.Table:
    """The whole deal log, in deal-id order."""
    tables = [pq.read_table(run_dir / "deals" / name) for name in parts(run_dir)]
    return pa.concat_tables(tables).sort_by("deal_id")


def test_rows_are_the_engines_records_numbered_in_game_order(tmp_path: Path) -> None:
    cfg = config(tmp_path, games=40, chunk_size=7)
    summary = run_simulation(cfg)
    rules = load_rules("pagat-au")
    bots = [make("random") for _ in range(4)]
    records = [r for g in range(40) for r in play_game(rules, bots, 11, g, ["random.v1"] * 4)]
    expected = records_to_table(records, cfg.run_id, 0)
    got = log(tmp_path / "run")
    assert got.schema.equals(DEAL_LOG_SCHEMA)
    assert got.equals(expected)
    assert summary.deals == len(records) and summary.games == 40 and summary.chunks == 6
    assert sorted(parts(tmp_path / "run")) == [rundir.part_name(k) for k in range(6)]
    # Each file is one chunk of 7 games: its game ids are exactly that range.
    for k, name in enumerate(parts(tmp_path / "run")):
        games = pq.read_table(tmp_path / "run" / "deals" / name, columns=["game_id"]).column(0).to_pylist()
        assert set(games) == set(range(7 * k, min(7 * k + 7, 40)))
    assert (
        pq.ParquetFile(tmp_path / "run" / "deals" / "part-00000.parquet")
        .metadata.row_group(0)
        .column(0)
        .compression
        == "ZSTD"
    )


def test_polars_reads_the_glob_with_contiguous_ids(tmp_path: Path) -> None:
    summary = run_simulation(config(tmp_path, strategies=LONG, games=50, chunk_size=8))
    df = pl.scan_parquet(summary.deals_glob).sort("deal_id").collect()
    assert df["deal_id"].to_list() == list(range(summary.deals))
    assert df["game_id"].is_sorted()
    assert df.filter(pl.col("game_over")).height == 50
    assert df["run_id"].unique().to_list() == [summary.run_id]


@pytest.mark.parametrize("deals", [1, 37, 64, 150])
def test_deals_plays_the_fewest_whole_games_reaching_n(tmp_path: Path, deals: int) -> None:
    summary = run_simulation(config(tmp_path, "d", strategies=LONG, games=None, deals=deals, chunk_size=5))
    got = log(tmp_path / "d")
    game_ids = got.column("game_id").to_pylist()
    assert summary.deals == got.num_rows >= deals
    assert game_ids == sorted(game_ids) and set(game_ids) == set(range(summary.games))
    last_game_deals = game_ids.count(summary.games - 1)
    assert got.num_rows - last_game_deals < deals  # one game fewer would not reach N
    assert got.column("game_over").to_pylist()[-1] is True
    # The same rows as a --games run of that many games (apart from the run id).
    run_simulation(config(tmp_path, "g", strategies=LONG, games=summary.games, chunk_size=5))
    ref = log(tmp_path / "g")
    assert got.drop_columns(["run_id"]).equals(ref.drop_columns(["run_id"]))


@pytest.mark.parametrize("deals", [1, 30, 200])
def test_deals_in_process_stops_a_large_chunk_at_n(tmp_path: Path, monkeypatch, deals: int) -> None:
    """A chunk of 5,000 games holding the N-th deal is played in pieces, stopped once N is reached
    (not played whole and cut), with the rows of a --games run of the games kept."""
    from fivehundred.pipelines import chunks

    played: list[int] = []
    real = chunks.play_game

    def counting(rules, bots, seed, game_id, labels):
        played.append(game_id)
        return real(rules, bots, seed, game_id, labels)

    monkeypatch.setattr(chunks, "play_game", counting)
    summary = run_simulation(config(tmp_path, "d", strategies=LONG, games=None, deals=deals, chunk_size=5000))
    assert summary.games <= len(played) < summary.games + chunks.LOCAL_PIECE_GAMES + deals
    assert played == list(range(len(played)))
    monkeypatch.setattr(chunks, "play_game", real)
    run_simulation(config(tmp_path, "g", strategies=LONG, games=summary.games, chunk_size=5000))
    assert log(tmp_path / "d").drop_columns(["run_id"]).equals(log(tmp_path / "g").drop_columns(["run_id"]))


def test_chunk_size_changes_the_files_not_the_rows(tmp_path: Path) -> None:
    run_simulation(config(tmp_path, "a", strategies=LONG, games=30, chunk_size=4))
    run_simulation(config(tmp_path, "b", strategies=LONG, games=30, chunk_size=30))
    assert len(parts(tmp_path / "a")) == 8 and len(parts(tmp_path / "b")) == 1
    assert log(tmp_path / "a").drop_columns(["run_id"]).equals(log(tmp_path / "b").drop_columns(["run_id"]))


@pytest.mark.parametrize("size", [{"games": 60}, {"games": None, "deals": 1500}])
def test_resume_after_a_crash_between_part_and_manifest(tmp_path: Path, monkeypatch, size) -> None:
    run_simulation(config(tmp_path, "ref", strategies=LONG, **size))
    real = rundir.RunDir.write_manifest
    calls = {"n": 0}

    class Crash(Exception):
        pass

    def crashing(self, manifest):  # from the 4th on, manifest writes fail: the 3rd part is on disk
        calls["n"] += 1
        if calls["n"] >= 4:
            raise Crash
        real(self, manifest)

    monkeypatch.setattr(simulate, "MANIFEST_INTERVAL", 0.0)  # a manifest write after every chunk
    monkeypatch.setattr(rundir.RunDir, "write_manifest", crashing)
    with pytest.raises(Crash):
        run_simulation(config(tmp_path, "run", strategies=LONG, **size))
    monkeypatch.setattr(rundir.RunDir, "write_manifest", real)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "running" and len(manifest["chunks"]) == 2
    assert len(parts(tmp_path / "run")) == 3  # one part beyond the committed chunks
    summary = run_simulation(config(tmp_path, "run", strategies=LONG, **size))
    assert summary.resumed_chunks == 2 and summary.chunks > 3
    assert parts(tmp_path / "run") == parts(tmp_path / "ref")
    ids = log(tmp_path / "run").column("deal_id").to_pylist()
    assert ids == list(range(len(ids)))


@pytest.mark.slow
def test_resume_after_the_driver_is_killed(tmp_path: Path) -> None:
    """SIGKILL the real command mid-run, run it again: the files equal an undisturbed run's."""
    # 250 chunks: enough that the compiled engine cannot finish them all before the kill lands.
    args = ["--games", "2500", "--seed", "5", "--strategies", LONG, "--chunk-size", "10", "--workers", "0"]
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "fivehundred.cli.main", "simulate", *args, "--out", str(out)]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    manifest_path = out / "manifest.json"
    wait_for_chunks(proc, manifest_path, 3)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    manifest = json.loads(manifest_path.read_text())
    assert proc.returncode == -signal.SIGKILL
    assert manifest["status"] == "running" and 3 <= len(manifest["chunks"]) < 250
    again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert "chunks were already done" in again.stdout
    cfg = load_config(
        None, games=2500, seed=5, strategies=LONG, chunk_size=10, workers=0, out=str(tmp_path / "r")
    )
    run_simulation(cfg)
    assert parts(out) == parts(tmp_path / "r")
    ids = log(out).column("deal_id").to_pylist()
    assert ids == list(range(len(ids)))
    assert not (out / ".tmp").exists()


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_stops_cleanly_and_the_same_command_resumes(tmp_path: Path, signum: int) -> None:
    """Ctrl-C (or SIGTERM) of the command: status 130 and one line with what was kept (the whole
    chunks and the games of the chunk playing); the same command resumes to the files of an
    undisturbed run."""
    out = tmp_path / "interrupted"
    args = ["--games", "6000", "--seed", "6", "--strategies", LONG, "--chunk-size", "400", "--workers", "0"]
    cmd = [sys.executable, "-m", "fivehundred.cli.main", "simulate", *args, "--out", str(out)]

    def default_sigint() -> None:  # a background child may inherit SIGINT ignored
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint
    )
    wait_for_chunks(proc, out / "manifest.json", 2)
    assert proc.poll() is None, "the run ended before the signal: the test proved nothing"
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130
    last = stderr.strip().splitlines()[-1]
    manifest = json.loads((out / "manifest.json").read_text())
    totals, partial = manifest["totals"], manifest.get("partial", [])
    deals = totals["deals"] + sum(p["deals"] for p in partial)
    games = totals["games"] + sum(p["games"][1] - p["games"][0] for p in partial)
    assert last.startswith(f"interrupted: kept {deals:,} deals in {games:,} games "), last
    assert f"({totals['chunks']:,} whole chunks" in last
    assert ("of 1 unfinished chunk)" in last) == bool(partial), last
    assert last.endswith("run the same command again to resume after them")
    assert manifest["status"] == "running" and 2 <= len(manifest["chunks"]) < 15
    assert not (out / ".tmp").exists() and not (out / ".lock").exists()
    again = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    run_simulation(config(tmp_path, "ref", strategies=LONG, games=6000, seed=6, chunk_size=400))
    assert parts(out) == parts(tmp_path / "ref")


def test_a_different_config_is_refused_unless_overwrite(tmp_path: Path) -> None:
    run_simulation(config(tmp_path, seed=3))
    before = parts(tmp_path / "run")
    with pytest.raises(RunDirConflict, match=r"seed: 3 in the run, 4 now.*--overwrite"):
        run_simulation(config(tmp_path, seed=4))
    assert parts(tmp_path / "run") == before
    summary = run_simulation(config(tmp_path, seed=4), overwrite=True)
    assert summary.resumed_chunks == 0
    assert parts(tmp_path / "run") != before
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["master_seed"] == 4


def test_a_missing_or_damaged_committed_part_is_played_again(tmp_path: Path) -> None:
    run_simulation(config(tmp_path))
    before = parts(tmp_path / "run")
    (tmp_path / "run" / "deals" / "part-00001.parquet").unlink()
    (tmp_path / "run" / "deals" / "part-00002.parquet").write_bytes(b"truncated")
    summary = run_simulation(config(tmp_path))
    assert summary.resumed_chunks == 1 and summary.chunks == len(before)
    assert parts(tmp_path / "run") == before


def test_the_same_command_on_a_finished_run_does_nothing(tmp_path: Path) -> None:
    run_simulation(config(tmp_path))
    before = parts(tmp_path / "run")
    summary = run_simulation(config(tmp_path, workers=None))  # workers are not part of the run
    assert summary.session_deals == 0 and summary.resumed_chunks == summary.chunks
    assert parts(tmp_path / "run") == before


def test_part_files_without_manifest_are_not_touched(tmp_path: Path) -> None:
    deals = tmp_path / "run" / "deals"
    deals.mkdir(parents=True)
    (deals / "part-00000.parquet").write_bytes(b"someone else's data")
    with pytest.raises(RunDirConflict, match="no manifest"):
        run_simulation(config(tmp_path))
    assert (deals / "part-00000.parquet").read_bytes() == b"someone else's data"


def test_no_temp_or_lock_files_remain_and_manifest_records_the_run(tmp_path: Path) -> None:
    seen: list[Progress] = []
    cfg = config(tmp_path, strategies=["random", LONG, "random", LONG])
    summary = run_simulation(cfg, progress=seen.append)
    run = tmp_path / "run"
    assert sorted(p.name for p in run.iterdir()) == ["deals", "manifest.json"]
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["run_id"] == summary.run_id
    assert manifest["master_seed"] == 11 and manifest["variant"] == "pagat-au"
    assert manifest["rules"]["scoring.win_score"] == 500
    assert manifest["versions"]["engine"] and manifest["versions"]["fivehundred"]
    seat1 = manifest["strategies"][1]
    assert seat1["name"] == "random.v1" and seat1["version"] == "v1"
    assert seat1["params"] == {"max_raise": 2, "pass_probability": 0.6}
    assert [c["index"] for c in manifest["chunks"]] == list(range(summary.chunks))
    assert sum(c["deals"] for c in manifest["chunks"]) == summary.deals
    assert [c["first_deal_id"] for c in manifest["chunks"]][1] == manifest["chunks"][0]["deals"]
    assert seen[0].deals == 0 and seen[-1].deals == summary.deals and seen[-1].fraction == 1.0
    assert [p.games for p in seen] == sorted(p.games for p in seen)
    labels = log(run).column("strategies")[0].as_py()
    assert labels == ["random.v1", "random.v1(max_raise=2,pass_probability=0.6)"] * 2


def test_file_uri_output_gives_the_same_files(tmp_path: Path) -> None:
    run_simulation(config(tmp_path, "plain"))
    run_simulation(config(tmp_path, "uri", out=(tmp_path / "uri").as_uri()))
    assert parts(tmp_path / "uri") == parts(tmp_path / "plain")


@pytest.mark.parametrize("object_store", [False, True])
def test_a_pyarrow_filesystem_gets_the_same_files(tmp_path: Path, monkeypatch, object_store: bool) -> None:
    """Through a pyarrow filesystem (in-memory here): rename-in, or direct puts as on S3/GCS."""
    if object_store:
        monkeypatch.setattr(rundir, "OBJECT_STORES", (*rundir.OBJECT_STORES, "mock"))
    fs = pafs._MockFileSystem(datetime.datetime(2020, 1, 1))
    run_simulation(config(tmp_path, "plain"))
    summary = run_simulation(config(tmp_path, out="bucket/run"), filesystem=fs)
    local = parts(tmp_path / "plain")
    names = [i.base_name for i in fs.get_file_info(pafs.FileSelector("bucket/run/deals"))]
    assert sorted(names) == sorted(local)
    for name in names:
        with fs.open_input_stream(f"bucket/run/deals/{name}") as fh:
            assert fh.read() == local[name]
    with fs.open_input_stream("bucket/run/manifest.json") as fh:
        assert json.loads(fh.read())["status"] == "complete"
    assert fs.get_file_info("bucket/run/.tmp").type == pafs.FileType.NotFound
    again = run_simulation(config(tmp_path, out="bucket/run"), filesystem=fs)
    assert again.session_deals == 0 and again.deals == summary.deals


def test_a_run_file_with_overrides(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_text(
        'variant = "north-american"\nseed = 9\ndeals = 100\nchunk_size = 10\nout = "somewhere"\n'
        'strategies = ["random", {name = "random", params = {pass_probability = 0.5}}, "random", "random"]\n'
    )
    cfg = load_config(path, games=30, out=str(tmp_path / "o"), workers=0)
    assert cfg.games == 30 and cfg.deals is None  # --games replaces the file's deals
    assert cfg.seed == 9 and cfg.chunk_size == 10 and cfg.rules.name == "north-american"
    assert cfg.seats[1].label == "random.v1(pass_probability=0.5)"
    summary = run_simulation(cfg)
    assert log(tmp_path / "o").column("variant").unique().to_pylist() == ["north-american"]
    assert summary.games == 30


def test_a_variant_file_named_in_a_run_file_is_found_beside_it(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "mine.toml").write_text(
        'base = "pagat-au"\nname = "mine"\n[scoring]\nwin_score = 300\n'
    )
    (tmp_path / "sub" / "run.toml").write_text(
        'variant = "mine.toml"\nstrategies = "random"\nseed = 1\ngames = 2\n'
    )
    cfg = load_config(tmp_path / "sub" / "run.toml", out=str(tmp_path / "o"))
    assert cfg.rules.name == "mine" and cfg.rules.win_score == 300


def test_shipped_run_configs_load() -> None:
    files = sorted((REPO / "configs" / "runs").glob("*.toml"))
    assert files
    for path in files:
        cfg = load_config(path)
        assert cfg.games or cfg.deals


@pytest.mark.parametrize(
    ("text", "overrides", "message"),
    [
        ("seed = -1\n", {}, r"x.toml: key 'seed' = -1: must be between 0 and"),
        ('seed = "7"\n', {}, r"x.toml: key 'seed' = '7': expected an integer"),
        ("seed = 1\n", {"games": 0}, r"command line: key 'games' = 0: must be at least 1"),
        ("seed = 1\nchunk_size = 0\n", {}, r"x.toml: key 'chunk_size' = 0"),
        ("seed = 1\nworkers = -2\n", {}, r"x.toml: key 'workers' = -2"),
        ("seed = 1\nspeed = 3\n", {}, r"x.toml: unknown key 'speed'"),
        ("seed = 1\ngames = 3\ndeals = 4\n", {"games": None}, r"give either 'games' or 'deals'"),
        ("seed = 1\n", {"strategies": "random,random"}, r"key 'strategies' has 2 entries"),
        ("seed = 1\n", {"strategies": "nosuchbot"}, r"key 'strategies': unknown strategy 'nosuchbot'"),
        ("seed = 1\n", {"strategies": "random(speed=2)"}, r"unknown parameter 'speed'"),
        ("seed = 1\nvariant = 'nosuch'\n", {}, r"unknown variant 'nosuch'"),
        ("seed = [1\n", {}, r"x.toml: not valid TOML"),
    ],
)
def test_config_mistakes_are_one_line_naming_the_key(tmp_path: Path, text: str, overrides, message) -> None:
    path = tmp_path / "x.toml"
    path.write_text(text)
    values = {"strategies": "random", "games": 5, "out": str(tmp_path / "o"), **overrides}
    if "games = 3" in text:
        values.pop("games")
    with pytest.raises(UserError, match=message) as info:
        if "[1" in text:
            read_run_file(path)
        else:
            make_config(read_run_file(path), **{k: v for k, v in values.items() if v is not None})
    assert "\n" not in str(info.value)


def test_missing_things_on_the_command_line_are_named() -> None:
    with pytest.raises(RunConfigError, match=r"command line: key 'seed' is missing \(--seed\)"):
        make_config(None, strategies="random", games=3, out="x")
    with pytest.raises(RunConfigError, match=r"give 'games' or 'deals'"):
        make_config(None, strategies="random", seed=1, out="x")
    with pytest.raises(RunConfigError, match=r"no such run config file"):
        load_config("/nonexistent/run.toml")


def test_an_unreachable_cluster_address_is_one_line_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ray

    def no_init(*args: object, **kwargs: object) -> None:
        raise AssertionError("ray.init was called: Ray would retry the address for minutes")

    monkeypatch.setattr(ray, "init", no_init)
    with socket.socket() as s:  # a port where nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ClusterError, match=rf"address '127.0.0.1:{port}': cannot reach a Ray head there"):
        run_simulation(config(tmp_path, workers=None, address=f"127.0.0.1:{port}"))
