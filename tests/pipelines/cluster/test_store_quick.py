"""One small round trip through the S3 server in the quick tier: simulate to the store, read back."""

from __future__ import annotations

from pathlib import Path

from fivehundred.pipelines.loopback import S3Server
from tests.cli.helpers import in_process


def test_simulate_to_s3_then_verify_and_replay_read_the_uri(
    s3: str, s3_service: S3Server, tmp_path: Path
) -> None:
    """``simulate --out s3://...`` writes the same part files as a local run; ``verify`` and
    ``replay`` take the URI as a run location (not a local path ``s3:/...``)."""
    run = f"{s3}/run"
    args = ["simulate", "--games", "2", "--seed", "5", "--strategies", "random", "--workers", "0"]
    status, _, err = in_process([*args, "--out", run])
    assert status == 0, err
    status, _, err = in_process([*args, "--out", str(tmp_path / "local")])
    assert status == 0, err
    fs = s3_service.filesystem()
    bucket = s3.removeprefix("s3://")
    local = sorted((tmp_path / "local" / "deals").glob("*.parquet"))
    assert local
    for f in local:
        with fs.open_input_stream(f"{bucket}/run/deals/{f.name}") as fh:  # type: ignore[attr-defined]
            assert fh.read() == f.read_bytes()
    status, out, err = in_process(["verify", run])
    assert status == 0, err
    assert "s3:/" + bucket not in out + err  # never the URI taken for a path
    status, out, err = in_process(["replay", run, "1"])
    assert status == 0 and "deal" in out.lower(), err


def test_the_s3_server_runs_one_master_without_an_election(s3_service: S3Server) -> None:
    """The server's master runs alone (``-master.peers=none``): it is leader at once, so the volume
    server's first heartbeat is taken, not refused and retried 5 s later."""
    log = s3_service.log.read_text(errors="replace")
    assert "single-master mode" in log
    assert "I am the leader" in log
