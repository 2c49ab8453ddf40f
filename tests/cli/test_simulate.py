"""``fivehundred simulate``: flags and run files to files on disk; mistakes are one line, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import fivehundred.cli.main  # noqa: F401  (registers every command)
from fivehundred.cli.app import app
from tests.cli.helpers import in_process

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()


def test_simulate_writes_the_log_and_prints_a_summary(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["simulate", "--deals", "120", "--seed", "7", "--out", str(out), "--strategies", "random"]
    result = runner.invoke(app, [*args, "--workers", "0", "--chunk-size", "50"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    deals = manifest["totals"]["deals"]
    assert deals >= 120
    assert f"{deals:,} deals in" in result.output and f"{out}/deals/*.parquet" in result.output
    again = runner.invoke(app, [*args, "--workers", "0", "--chunk-size", "50"])
    assert again.exit_code == 0 and "run already complete" in again.output


def test_a_run_file_with_flag_overrides(tmp_path: Path) -> None:
    path = tmp_path / "r.toml"
    path.write_text(f'strategies = "random"\nseed = 1\ngames = 500\nout = "{tmp_path / "a"}"\nworkers = 0\n')
    result = runner.invoke(
        app, ["simulate", "--config", str(path), "--games", "20", "--out", str(tmp_path / "b")]
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["identity"]["games"] == 20 and manifest["config"]["source"] == str(path)
    assert not (tmp_path / "a").exists()


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fivehundred.cli.main", "simulate", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
    )


def test_mistakes_are_one_line_with_exit_status_2(tmp_path: Path) -> None:
    bad = _cli("--games", "0", "--seed", "1", "--strategies", "random", "--out", str(tmp_path / "x"))
    assert bad.returncode == 2
    assert bad.stderr == "error: command line: key 'games' = 0: must be at least 1\n"
    run = [
        "simulate",
        "--games",
        "5",
        "--strategies",
        "random",
        "--workers",
        "0",
        "--out",
        str(tmp_path / "r"),
    ]
    status, _, err = in_process([*run, "--seed", "1"])
    assert status == 0, err
    status, _, err = in_process([*run, "--seed", "2"])
    assert status == 2 and err.count("\n") == 1
    assert "seed: 1 in the run, 2 now" in err and "--overwrite" in err


def test_progress_bar_shows_rate_and_time_left() -> None:
    import io

    from fivehundred.cli.progress import CLEAR, StatusLine
    from fivehundred.cli.simulate import SimulationBar
    from fivehundred.pipelines.simulate import Progress

    err = io.StringIO()
    bar = SimulationBar(StatusLine(err, tty=True, min_interval=0.0, width=120))
    bar(Progress(deals=500, games=100, target_deals=None, target_games=400, session_deals=500, elapsed=5.0))
    # Mid-chunk: 150 more games finished on the workers, not committed yet; the rate's clock is 4 s
    # (Ray's start-up excluded).
    live = Progress(
        deals=500,
        games=100,
        target_deals=None,
        target_games=400,
        session_deals=500,
        elapsed=6.0,
        played_deals=1000,
        played_games=200,
        playing=4.0,
    )
    bar(live)
    bar.close()
    lines = err.getvalue().split(CLEAR)
    assert lines[1].startswith("[#####...............]  25.0% 500 deals, 100/400 games")
    assert lines[2].startswith("[##########..........]  50.0% 1,000 deals, 200/400 games  250 deals/s")
    assert "ETA 00:04" in lines[2] and lines[-1] == ""  # erased at the end
    assert live.eta == 1000 / 250
    p = Progress(deals=800, games=90, target_deals=1000, target_games=None, session_deals=300, elapsed=3.0)
    assert p.fraction == 0.8 and p.eta == 2.0


class FakeClock:
    """A clock the test sets: ``now`` seconds, whatever the machine's uptime."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("start", [0.0, 10.0, 1e6])
def test_status_line_off_a_terminal_prints_plain_lines_seldom(start: float) -> None:
    import io

    from fivehundred.cli.progress import StatusLine, fit

    clock = FakeClock(start)
    err = io.StringIO()
    status = StatusLine(err, tty=False, every=3600, clock=clock)
    status.update("first")  # within `every` of the start: nothing
    status.phase("analysing ...")  # a phase too
    status.update("forced", force=True)
    clock.now += 3599
    status.update("still too soon")
    clock.now += 1
    status.update("an hour on")
    status.close()
    assert err.getvalue() == "forced\nan hour on\n"
    tty = io.StringIO()
    clock.now = start
    with StatusLine(tty, tty=True, min_interval=3600, width=40, clock=clock) as shown:
        shown.update("a")  # the first update is drawn at once, whatever the clock reads
        shown.update("b")  # throttled
        shown.phase("analysing ...")  # at once, even within min_interval
        clock.now += 3600
        shown.update("c")
    assert tty.getvalue() == "\r\x1b[2Ka\r\x1b[2Kanalysing ...\r\x1b[2Kc\r\x1b[2K"
    assert fit("abcdef", 4) == "abc…" and fit("abc", 4) == "abc" and len(fit("x" * 500, 79)) == 79


def test_status_line_reads_the_real_clock_by_default() -> None:
    """Without a clock the first update on a terminal is drawn at once, on any machine."""
    import io

    from fivehundred.cli.progress import StatusLine

    tty = io.StringIO()
    StatusLine(tty, tty=True, min_interval=1e9, width=40).update("a")
    assert tty.getvalue() == "\r\x1b[2Ka"


def test_interrupted_line_counts_whole_and_unfinished_chunks() -> None:
    from fivehundred.cli.simulate import interrupted_text
    from fivehundred.pipelines.simulate import SimulationInterrupted

    kept = SimulationInterrupted(12_345, 1_612, 150, 0, 3_000, partial_games=412, partial_chunks=2)
    assert interrupted_text(kept) == (
        "interrupted: kept 12,345 deals in 1,612 games (150 whole chunks and 412 games of 2 unfinished "
        "chunks); run the same command again to resume after them"
    )
    one = SimulationInterrupted(10, 1, 1, 3)
    assert interrupted_text(one) == (
        "interrupted: kept 10 deals in 1 game (1 whole chunk); 3 games finished in chunks still in flight "
        "will be played again; run the same command again to resume after them"
    )


def test_summary_names_part_files_and_tasks_in_words(tmp_path: Path) -> None:
    out = tmp_path / "one"
    args = ["--games", "30", "--seed", "1", "--strategies", "random", "--workers", "0"]
    done = runner.invoke(app, ["simulate", *args, "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert "30 games, 1 part file\n" in done.output and "in-process, 1 task)" in done.output
    assert "chunks in flight" not in done.output


def test_status_line_log_keeps_a_line_above_the_live_one() -> None:
    import io

    from fivehundred.cli.progress import CLEAR, StatusLine
    from fivehundred.cli.sweep import _SweepBar
    from fivehundred.pipelines.sweep import SweepProgress

    tty = io.StringIO()
    with StatusLine(tty, tty=True, min_interval=0.0, width=30) as status:
        bar = _SweepBar(status)
        bar(SweepProgress(0, 3, 100, 9000, 100, 1.0, "pagat-au"))
        status.log("[1/3] pagat-au: done")
        bar(SweepProgress(1, 3, 3100, 9000, 3100, 2.0, "club"))
    shown = tty.getvalue().split(CLEAR)
    assert shown[1] == "[run 1/3] pagat-au 100/9,000…"  # cut to the terminal's width (30 - 1)
    assert shown[2] == "[1/3] pagat-au: done\n" and shown[3].startswith("[run 2/3] club") and shown[-1] == ""
    plain = io.StringIO()
    status = StatusLine(plain, tty=False, every=3600)
    status.update("hidden")
    status.log("kept")
    assert plain.getvalue() == "kept\n"
