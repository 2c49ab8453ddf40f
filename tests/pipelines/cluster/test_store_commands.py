"""Every command on runs in a real S3 server (SeaweedFS on loopback): the run locations are URIs
(``s3://bucket/run``), the endpoint and credentials come from the ``AWS_*`` variables, and what is
written on the store is byte for byte what the same command writes in a local folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from fivehundred.pipelines.loopback import S3Server
from tests.cli.helpers import in_process

pytestmark = pytest.mark.slow

SIM = ["simulate", "--games", "6", "--seed", "11", "--strategies", "random", "--workers", "0"]


def ok(args: list[str]) -> str:
    status, out, err = in_process(args)
    assert status == 0, f"{args}: {err}"
    assert "Traceback" not in err
    return out


def store_files(server: S3Server, prefix: str) -> dict[str, bytes]:
    """Every object under ``prefix`` (``bucket/path``) by its path below it."""
    import pyarrow.fs as pafs

    fs = server.filesystem()
    infos = fs.get_file_info(pafs.FileSelector(prefix, recursive=True))  # type: ignore[attr-defined]
    out = {}
    for info in infos:
        if info.type == pafs.FileType.File:
            with fs.open_input_stream(info.path) as fh:  # type: ignore[attr-defined]
                out[info.path.removeprefix(prefix + "/")] = fh.read()
    return out


def local_files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_every_reading_command_takes_a_store_run_and_writes_what_a_local_run_gets(
    s3: str, s3_service: S3Server, tmp_path: Path
) -> None:
    run, local = f"{s3}/run", tmp_path / "run"
    ok([*SIM, "--out", run])
    ok([*SIM, "--out", str(local)])
    bucket = s3.removeprefix("s3://")
    on_store = store_files(s3_service, f"{bucket}/run")
    parts = {k: v for k, v in local_files(local).items() if k.startswith("deals/")}
    assert parts and {k: v for k, v in on_store.items() if k.startswith("deals/")} == parts

    # analyze: the tables go to RUN/stats on the store, the same bytes as a local analysis
    out = ok(["analyze", run])
    assert f"{run}/stats" in out
    ok(["analyze", str(local)])
    stats = {k: v for k, v in local_files(local / "stats").items()}
    assert stats and store_files(s3_service, f"{bucket}/run/stats") == stats
    ok(["analyze", run, "--out", f"{s3}/elsewhere"])
    assert store_files(s3_service, f"{bucket}/elsewhere") == stats

    # --what-if and --dd keep their sidecars beside the run on the store
    ok(["analyze", run, "--what-if", "misere", "--sample", "12", "--out", str(tmp_path / "w")])
    ok(["analyze", run, "--dd", "--dd-sample", "12", "--out", str(tmp_path / "d")])
    names = set(store_files(s3_service, f"{bucket}/run"))
    assert any(n.startswith("whatif_misere/") for n in names) and any(n.startswith("dd/") for n in names)
    assert (tmp_path / "w" / "misere_whatif.parquet").exists() and (
        tmp_path / "d" / "dd_success.csv"
    ).exists()

    verified = ok(["verify", run])
    assert verified.startswith(f"{run}: ") and verified.rstrip().endswith(": OK"), verified
    assert ok(["replay", run, "--game", "1"]) == ok(["replay", str(local), "--game", "1"])
    assert ok(["rule-paths", run]) == ok(["rule-paths", str(local)])
    out = ok(["report", run, "-o", str(tmp_path / "r.html")])
    assert (tmp_path / "r.html").stat().st_size > 1000, out
    ok(["report", run, "--stats", f"{s3}/elsewhere", "-o", str(tmp_path / "r2.html")])


def test_tournament_sweep_and_run_write_to_the_store(s3: str, s3_service: S3Server, tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text(
        'name = "tiny"\nvariant = "pagat-au"\nseed = 3\n'
        '[[entries]]\nname = "a"\nstrategy = "random"\n'
        '[[entries]]\nname = "b"\nstrategy = "random"\n'
        '[stop]\nrule = "fixed"\npairs = 4\n'
    )
    bucket = s3.removeprefix("s3://")
    ok(["tournament", str(config), "--out", f"{s3}/t", "--workers", "0"])
    ok(["tournament", str(config), "--out", str(tmp_path / "t"), "--workers", "0"])
    on_store = store_files(s3_service, f"{bucket}/t")
    assert {k: v for k, v in on_store.items() if k.startswith("tables/")} == {
        k: v for k, v in local_files(tmp_path / "t").items() if k.startswith("tables/")
    }

    sweep = ["sweep", "--deals", "60", "--switches", "scoring.slam_floor", "--strategies", "random"]
    sweep += ["--workers", "0", "--no-pdf"]
    out = ok([*sweep, "--out", f"{s3}/sweep"])
    assert f"{s3}/sweep/report.html" in out
    names = set(store_files(s3_service, f"{bucket}/sweep"))
    assert {"report.html", "stats/COMPLETE", "runs/base/manifest.json"} <= names

    job = ["run", "--deals", "60", "--workers", "0", "--compare-variant", "", "--what-if-sample", "0"]
    job += ["--dd-sample", "0"]
    out = ok([*job, "--out", f"{s3}/main"])
    names = set(store_files(s3_service, f"{bucket}/main"))
    assert {"report.html", "stats/COMPLETE", "main/manifest.json"} <= names, out
