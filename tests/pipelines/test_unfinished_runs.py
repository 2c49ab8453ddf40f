"""A run that is not finished says so: the reading commands refuse it in one line (how many deals of
how many are there, how to go on) unless ``--partial``; a report made with ``--partial`` says so on its
first page; a folder a run is writing into with no finished part yet says that."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.simulate import Progress, run_simulation
from tests.cli.helpers import in_process


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run stopped (as by Ctrl-C) after its first committed chunk: 5 of 20 games there."""
    out = tmp_path_factory.mktemp("unfinished") / "run"
    cfg = make_config(None, out=str(out), workers=0, games=20, chunk_size=5, seed=3, strategies="random")

    def stop_after_a_chunk(progress: Progress) -> None:  # Ctrl-C in the second chunk
        if progress.games_done >= 7:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_simulation(cfg, progress=stop_after_a_chunk)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "running" and manifest["totals"]["games"] == 5
    return out


@pytest.mark.parametrize(
    "command", [["analyze", "{run}"], ["verify", "{run}"], ["replay", "{run}", "1"], ["report", "{run}"]]
)
def test_a_reading_command_refuses_an_unfinished_run_in_one_line(
    interrupted: Path, command: list[str], tmp_path: Path
) -> None:
    args = [a.format(run=interrupted) for a in command]
    if args[0] == "report":
        args += ["-o", str(tmp_path / "r.html")]
    status, out, err = in_process(args)
    deals = json.loads((interrupted / "manifest.json").read_text())["totals"]["deals"]
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert err == (
        f"error: {interrupted}: the run is not finished ({deals:,} deals in 5 of 20 games are there; it is "
        "still running or was interrupted): run the same command again to finish it, or give --partial "
        "to use what is there\n"
    )
    assert not (interrupted / "stats").exists() and not (tmp_path / "r.html").exists()


@pytest.mark.slow  # end to end: verify, replay, analyze and a whole report of the run
def test_partial_reads_what_is_there_and_the_report_says_so_first(interrupted: Path, tmp_path: Path) -> None:
    status, out, err = in_process(["verify", str(interrupted), "--partial"])
    assert status == 0 and out.rstrip().endswith(": OK") and "5 games" in out, err
    status, out, err = in_process(["replay", str(interrupted), "1", "--partial"])
    assert status == 0 and out, err
    status, out, err = in_process(["analyze", str(interrupted), "--partial", "--out", str(tmp_path / "s")])
    assert status == 0 and (tmp_path / "s" / "overview.csv").exists(), err
    html = tmp_path / "r.html"
    status, out, err = in_process(["report", str(interrupted), "--partial", "-o", str(html)])
    assert status == 0, err
    page = html.read_text()
    note = f"Not finished: {interrupted.name} holds "
    assert note in page and page.index(note) < page.index("<h2")  # before the first section


def test_a_folder_a_run_is_writing_into_without_a_finished_part_says_so(tmp_path: Path) -> None:
    run = tmp_path / "starting"
    (run / "deals").mkdir(parents=True)
    manifest = {
        **{"format": "fivehundred.run", "format_version": 2, "kind": "simulation", "status": "running"},
        **{"identity": {"games": 100}, "totals": {"deals": 0, "games": 0, "chunks": 0}, "chunks": []},
    }
    (run / "manifest.json").write_text(json.dumps(manifest))
    for command in (["analyze", str(run)], ["verify", str(run)], ["replay", str(run), "1"]):
        status, _, err = in_process(command)
        assert status == 2 and "not a run directory" not in err, err
        assert err.startswith(f"error: {run}: a run is being written here but has no finished part yet ")
        assert "(0 deals in 0 of 100 games)" in err
