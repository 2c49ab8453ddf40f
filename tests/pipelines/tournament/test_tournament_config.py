"""Tournament configs: the shipped ones load; every mistake is a one-line error naming file and key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fivehundred.pipelines.tournament.config import TournamentConfigError, config_from_specs, load_config
from fivehundred.sim.errors import UserError
from tests.strategies.isolated_bots import entries_toml

ROOT = Path(__file__).resolve().parents[3]

GOOD = (
    'name = "t"\nseed = 3\n'
    + entries_toml(("a", "random"), ("b", "random"))
    + """[stop]
rule = "sprt"
elo0 = 0
elo1 = 50
alpha = 0.05
beta = 0.05
"""
)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cfg.toml"
    path.write_text(text)
    return path


SHIPPED = sorted((ROOT / "configs" / "tournaments").glob("*.toml"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_configs_load(path: Path) -> None:
    cfg = load_config(path)
    assert len(cfg.entries) >= 2 and cfg.matches


def test_good_config_and_formats(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, GOOD))
    assert cfg.format == "match" and cfg.matches == ((0, 1),)
    assert cfg.stop.sprt is not None and cfg.stop.sprt.s0 == 0.5
    three = GOOD + '[[entries]]\nname = "c"\nstrategy = "random"\n'
    rr = load_config(write(tmp_path, three))
    assert rr.format == "round_robin" and rr.matches == ((0, 1), (0, 2), (1, 2))
    g = load_config(write(tmp_path, 'format = "gauntlet"\ngauntlet = "b"\n' + three))
    assert g.matches == ((1, 0), (1, 2))
    score = GOOD.replace("elo0 = 0\nelo1 = 50", "score0 = 0.5\nscore1 = 0.75")
    assert load_config(write(tmp_path, score)).stop.elo1 == pytest.approx(190.85, abs=0.01)


BAD = [
    (GOOD.replace('strategy = "random"\n[stop]', 'strategy = "nosuchbot"\n[stop]'), "entries[1].strategy"),
    (GOOD.replace('name = "b"', 'name = "a"'), "entries[1].name"),
    (GOOD.replace("alpha = 0.05", "alpha = 1.0"), "stop.alpha"),
    (GOOD.replace("beta = 0.05", "beta = 0"), "stop.beta"),
    (GOOD.replace("alpha = 0.05\nbeta = 0.05", "alpha = 0.6\nbeta = 0.5"), "stop.beta"),
    (GOOD.replace("elo1 = 50", "elo1 = 0"), "stop.elo1"),
    (GOOD.replace("elo1 = 50", "elo1 = -10"), "stop.elo1"),
    (GOOD.replace("elo0 = 0\nelo1 = 50", "score0 = 0.6\nscore1 = 0.55"), "stop.score1"),
    (GOOD.replace("elo0 = 0", "elo0 = 0\nscore1 = 0.6"), "stop.score1"),
    (GOOD.replace('rule = "sprt"', 'rule = "sometimes"'), "stop.rule"),
    (GOOD.replace("[stop]", "[stop]\npairs = 10"), "stop.pairs"),
    (GOOD.replace("seed = 3", 'seed = 3\nformat = "knockout"'), "format"),
    (GOOD.replace("seed = 3", 'seed = 3\nformat = "gauntlet"\ngauntlet = "zed"'), "gauntlet"),
    (GOOD.replace("seed = 3", 'seed = 3\nvariant = "three-player-nonexistent"'), "variant"),
    (GOOD.replace("seed = 3", 'seed = "three"'), "seed"),
    (GOOD.replace("seed = 3", 'seed = 3\ncolour = "red"'), "colour"),
    (GOOD + "[stats]\nconfidence = 95\n", "stats.confidence"),
    (GOOD + "[stats]\nprior = 0\n", "stats.prior"),
    (GOOD + "[run]\nchunk_pairs = 0\n", "run.chunk_pairs"),
    (GOOD.split("[[entries]]")[0] + '[[entries]]\nname = "a"\nstrategy = "random"\n', "entries"),
    (GOOD.replace('"random"\n[stop]', '"random"\nparams = { zeal = 2 }\n[stop]'), "params"),
]


@pytest.mark.parametrize(("text", "key"), BAD, ids=[k for _, k in BAD])
def test_bad_configs_name_file_and_key(tmp_path: Path, text: str, key: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(TournamentConfigError) as info:
        load_config(path)
    msg = str(info.value)
    assert isinstance(info.value, UserError)
    assert "\n" not in msg and str(path) in msg and key in msg, msg
    assert "': =" not in msg, msg  # "key 'k' = value: ...", one colon


def test_a_bad_entry_spec_names_the_option_and_the_spec() -> None:
    """``--entry`` specs are checked as the option's own: the message names the spec as typed,
    not a key of the config built from it."""
    with pytest.raises(TournamentConfigError) as info:
        config_from_specs(["random", "expert.v2(suit_dd_tricks=21)"])
    assert str(info.value) == (
        "--entry expert.v2(suit_dd_tricks=21): strategy 'expert.v2': parameter 'suit_dd_tricks' = 21: "
        "must be between 0 and 20"
    )
    with pytest.raises(TournamentConfigError, match=r"^--entry nosuchbot: "):
        config_from_specs(["nosuchbot", "random"])


def test_two_entries_needed_for_a_match_and_two_teams(tmp_path: Path) -> None:
    three = GOOD + '[[entries]]\nname = "c"\nstrategy = "random"\n'
    with pytest.raises(TournamentConfigError, match="format"):
        load_config(write(tmp_path, 'format = "match"\n' + three))
    three_player = ROOT / "configs" / "variants" / "three-player.toml"
    if three_player.exists():
        with pytest.raises(TournamentConfigError, match="two partnerships"):
            load_config(write(tmp_path, f'variant = "{three_player}"\n' + GOOD))


def test_cli_prints_one_line_error(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("elo1 = 50", "elo1 = 0"))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "fivehundred.cli.main",
            "tournament",
            str(path),
            "--out",
            str(tmp_path / "o"),
            "--workers=0",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "stop.elo1" in lines[0]
    assert not (tmp_path / "o").exists()
