"""Isolation mode: strategies in their own processes, same logs, one-line errors (strategies/isolation.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from fivehundred.pipelines.runconfig import RunConfigError, make_config
from fivehundred.pipelines.simulate import run_simulation
from fivehundred.pipelines.tournament import load_config, run_tournament
from fivehundred.sim.errors import StrategyError
from fivehundred.strategies.isolation import IsolatedStrategy, is_shipped
from tests.strategies.isolated_bots import LOG_ENV, two_entry_tournament

pytestmark = pytest.mark.slow  # starts Ray or long-running processes: `-m 'not slow'` skips it

REPO = Path(__file__).resolve().parents[2]
BOTS = "tests.strategies.isolated_bots"


def parts(run_dir: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((run_dir / "deals").glob("*.parquet"))}


def simulate(tmp_path: Path, name: str, strategies: str, isolate: bool, **kw: object) -> Path:
    out = tmp_path / name
    cfg = make_config(
        None,
        strategies=strategies,
        seed=11,
        games=4,
        chunk_size=2,
        workers=0,
        out=str(out),
        isolate=isolate,
        **kw,
    )
    run_simulation(cfg)
    return out


def test_isolated_runs_write_the_same_files(tmp_path: Path) -> None:
    mixed = "heuristic,random,montecarlo(samples=2),random(pass_probability=0.5, max_raise=2)"
    assert parts(simulate(tmp_path, "iso", mixed, True)) == parts(simulate(tmp_path, "in", mixed, False))


def test_an_isolated_bot_sees_no_engine_state_no_seed_and_no_token(tmp_path: Path, monkeypatch) -> None:
    log = tmp_path / "log"
    monkeypatch.setenv(LOG_ENV, str(log))
    monkeypatch.setenv("RAY_AUTH_TOKEN", "s3cret")
    simulate(tmp_path, "iso", f"{BOTS}:WherePlays", True)
    lines = log.read_text().splitlines()
    assert len(lines) >= 4  # one process per seat (and per chunk)
    pids = {line.split()[0] for line in lines}
    assert f"pid={os.getpid()}" not in pids and len(pids) == len(lines)  # a process per seat and chunk
    for line in lines:
        assert " states=0 " in line and " seeds=[] " in line and " env=[] " in line, line
    # The same bot in-process does find them: the walk works.
    log.unlink()
    simulate(tmp_path, "in", f"{BOTS}:WherePlays", False)
    for line in log.read_text().splitlines():
        assert " states=0 " not in line and " seeds=[11] " in line and "RAY_AUTH_TOKEN" in line


@pytest.mark.parametrize(
    ("bot", "message"),
    [
        ("Crashes", r"strategy '.*' \(seat 0\) raised IsolatedBotError: .*exited \(status 3\): about to die"),
        ("Hangs", r"took too long to answer \(limit 1 s per decision\)"),
        ("Nonsense", r"answered \"'AS'\", not an action"),
        ("Illegal", r"returned illegal action"),
    ],
)
def test_a_crash_a_hang_or_nonsense_is_one_line_naming_the_strategy(
    tmp_path: Path, bot: str, message: str
) -> None:
    spec = f"{BOTS}:{bot},random,random,random"
    with pytest.raises(StrategyError, match=message) as info:
        simulate(tmp_path, "bad", spec, True, isolate_timeout=1)
    assert "\n" not in str(info.value) and f"strategy '{bot.lower()}.v1' (seat 0)" in str(info.value)


def test_the_cli_flag_and_a_crash_in_one_line(tmp_path: Path) -> None:
    cmd = [
        sys.executable,
        "-m",
        "fivehundred.cli.main",
        "simulate",
        "--games",
        "2",
        "--seed",
        "1",
        "--workers",
        "0",
    ]
    cmd += ["--strategies", f"{BOTS}:Crashes,random,random,random", "--isolate", "--out", str(tmp_path / "r")]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: strategy 'crashes.v1' (seat 0)"), done.stderr


def test_isolate_keys_are_validated() -> None:
    with pytest.raises(RunConfigError, match="isolate"):
        make_config(None, strategies="random", seed=1, games=1, out="x", isolate="yes")
    with pytest.raises(RunConfigError, match="isolate_timeout"):
        make_config(None, strategies="random", seed=1, games=1, out="x", isolate=True, isolate_timeout=0)


def test_what_is_shipped() -> None:
    assert is_shipped("random") and is_shipped("heuristic(aggression=1.2)") and is_shipped("montecarlo")
    assert not is_shipped(f"{BOTS}:WherePlays")
    assert not is_shipped("fivehundred.strategies.random_bot:RandomStrategy")  # named as code: not trusted


TOURNAMENT = two_entry_tournament(
    "iso", 3, ("outsider", "tests.strategies.isolated_bots:WherePlays"), ("heuristic", "heuristic"), 2, 1
)


def test_a_tournament_isolates_strategies_not_shipped_unless_trusted(tmp_path: Path, monkeypatch) -> None:
    log = tmp_path / "log"
    monkeypatch.setenv(LOG_ENV, str(log))
    path = tmp_path / "t.toml"
    path.write_text(TOURNAMENT)
    cfg = load_config(path)
    assert cfg.isolated(cfg.entries[0]) and not cfg.isolated(cfg.entries[1])
    run_tournament(cfg, tmp_path / "isolated")
    assert all(f"pid={os.getpid()} " not in line for line in log.read_text().splitlines())
    path.write_text(TOURNAMENT.replace("chunk_pairs = 1", 'chunk_pairs = 1\ntrust = ["outsider"]'))
    trusted = load_config(path)
    assert not trusted.isolated(trusted.entries[0]) and trusted.digest() == cfg.digest()
    log.unlink()
    run_tournament(trusted, tmp_path / "trusted")
    assert f"pid={os.getpid()} " in log.read_text()
    files = {p.name: p.read_bytes() for p in (tmp_path / "isolated" / "deals").glob("*")}
    assert files and files == {p.name: p.read_bytes() for p in (tmp_path / "trusted" / "deals").glob("*")}


def test_trust_names_an_entry() -> None:
    from fivehundred.pipelines.tournament.config import TournamentConfigError, parse_config

    text = TOURNAMENT.replace("chunk_pairs = 1", 'chunk_pairs = 1\ntrust = ["nobody"]')
    with pytest.raises(TournamentConfigError, match="trust"):
        parse_config(tomllib.loads(text), "t.toml")


def test_an_isolated_strategy_closes_its_process() -> None:
    from fivehundred.sim import load_rules

    bot = IsolatedStrategy("random", {}, load_rules("pagat-au"), "random.v1", 5.0)
    proc = bot._proc
    assert proc.poll() is None
    bot.close()
    assert proc.poll() is not None


class _Counted(IsolatedStrategy):
    """Counts the decisions that cross to the child, and the forced ones among them."""

    asked = forced = 0

    def _ask(self, method, view, legal, rng):  # type: ignore[no-untyped-def]
        self.asked += 1
        self.forced += len(legal) == 1
        return super()._ask(method, view, legal, rng)


@pytest.mark.parametrize(("spec", "wants_forced"), [("heuristic.v1", False), ("random.v1", True)])
def test_a_forced_action_crosses_only_when_the_childs_bot_asks_for_it(spec: str, wants_forced: bool) -> None:
    """heuristic.v1 declares ``asked_when_forced = False``: isolated, its forced actions are taken by
    the runner without a round trip, as in the same process; random.v1 is asked them.  The games are
    the same either way."""
    from fivehundred.sim import load_rules
    from fivehundred.sim.game import play_game
    from fivehundred.strategies.base import make

    rules = load_rules("pagat-au")
    bots = [_Counted(spec, {}, rules, f"s{s}", 30.0) for s in range(rules.players)]
    try:
        assert all(b.asked_when_forced is wants_forced for b in bots)
        isolated = [play_game(rules, bots, 3, g, labels=[spec] * 4) for g in range(3)]
    finally:
        for b in bots:
            b.close()
    local = [make(spec) for _ in range(rules.players)]
    assert isolated == [play_game(rules, local, 3, g, labels=[spec] * 4) for g in range(3)]
    assert sum(b.asked for b in bots) > 0
    assert (sum(b.forced for b in bots) > 0) is wants_forced
