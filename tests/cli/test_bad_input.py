"""Bad input to every command, replayed from tables (issue 12, "Bad input").

Each case is ``(id, args, setup)``: ``setup`` (optional) writes the bad files into the case's own
folder, which is also the working directory; ``args`` may name ``{tmp}`` (that folder), ``{run}`` (a
small good run shared by all cases) and ``{other}`` (a good run with another seed).  Every case must
give exactly one line on stderr, starting ``error: ``, exit status 2, no ``Traceback`` anywhere, and
leave every file and folder as it was (the case's folder and both shared runs are snapshotted before
and after).  Cases run in-process through the installed entry point (:func:`cli.main.main`) with
captured streams; those in :data:`SUBPROCESS` (strategy specs naming ``sys:exit``, ``os:abort``...,
which must never be called) and a few others run as a real process to prove the exit status.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fivehundred.pipelines.runconfig import make_config
from fivehundred.pipelines.simulate import run_simulation
from tests.cli.helpers import in_process
from tests.pipelines.dd_golden import GOLDEN

REPO = Path(__file__).resolve().parents[2]

Setup = Callable[[Path, Path], None]


# ----------------------------------------------------------------------------------- TOML writing


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(v)


def toml(data: dict[str, Any]) -> str:
    """A small TOML writer: top-level values, tables, arrays of tables (enough for these configs)."""
    tables = (
        [e for e in data.get("entries", []) if isinstance(e, dict)]
        if isinstance(data.get("entries"), list)
        else []
    )
    lines = [f"{k} = {_toml_value(v)}" for k, v in data.items() if not isinstance(v, dict | list)]
    lines += [
        f"{k} = {_toml_value(v)}"
        for k, v in data.items()
        if isinstance(v, list) and (k != "entries" or not tables)
    ]
    for k, v in data.items():
        if isinstance(v, dict):
            lines.append(f"[{k}]")
            lines += [f"{kk} = {_toml_value(vv)}" for kk, vv in v.items()]
    for entry in tables:
        lines.append("[[entries]]")
        lines += [f"{kk} = {_toml_value(vv)}" for kk, vv in entry.items()]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------- setups


def write(name: str, content: str | bytes = "") -> Setup:
    """Write one file (or, with a trailing ``/``, make a folder) in the case's folder."""

    def setup(tmp: Path, run: Path) -> None:
        path = tmp / name
        if name.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content.replace("{tmp}", str(tmp)))

    return setup


def both(*setups: Setup) -> Setup:
    """Run several setups in order."""

    def setup(tmp: Path, run: Path) -> None:
        for s in setups:
            s(tmp, run)

    return setup


def damaged(kind: str, name: str = "r") -> Setup:
    """A copy of the good run as ``{tmp}/<name>`` with one kind of damage."""

    def setup(tmp: Path, run: Path) -> None:
        dst = tmp / name
        shutil.copytree(run, dst)
        deals = dst / "deals"
        part = deals / "part-00000.parquet"
        if kind == "copy":
            pass
        elif kind == "zero-byte":
            (deals / "part-00001.parquet").write_bytes(b"")
        elif kind == "truncated":
            part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
        elif kind == "text":
            (deals / "part-00001.parquet").write_text("not parquet at all\n")
        elif kind == "foreign":
            pq.write_table(pa.table({"a": [1, 2]}), deals / "part-00001.parquet")
        elif kind == "only-foreign":
            part.unlink()
            pq.write_table(pa.table({"a": [1, 2]}), deals / "part-00000.parquet")
        elif kind == "wrong-type":
            t = pq.read_table(part)
            i = t.schema.get_field_index("deal_id")
            part.unlink()
            pq.write_table(t.set_column(i, "deal_id", t.column(i).cast(pa.string())), part)
        elif kind == "duplicate":
            shutil.copy(part, deals / "part-00001.parquet")
        elif kind == "no-parts":
            part.unlink()
        elif kind == "no-deals":
            shutil.rmtree(deals)
        elif kind == "null-hands":
            t = pq.read_table(part)
            i = t.schema.get_field_index("hands")
            nulls = pa.array([None] * t.num_rows, t.schema.field("hands").type)
            part.unlink()
            pq.write_table(t.set_column(i, t.schema.field("hands"), nulls), part)
        elif kind == "no-manifest":
            (dst / "manifest.json").unlink()
        elif kind == "manifest-not-json":
            (dst / "manifest.json").write_text("{not json")
        elif kind == "manifest-not-utf8":
            (dst / "manifest.json").write_bytes(b"\xff\xfe{}")
        elif kind == "manifest-list":
            (dst / "manifest.json").write_text("[1, 2]")
        else:
            raise ValueError(kind)

    return setup


def bot_module(module: str, source: str) -> Setup:
    """A user bot module ``{tmp}/<module>.py`` (the case's folder is on ``sys.path``)."""
    return write(f"{module}.py", source)


RANDOM_BASE = "from fivehundred.strategies.random_bot import RandomStrategy\n"

# ---------------------------------------------------------------------------------------- configs

TOURNEY: dict[str, Any] = {
    "name": "t",
    "seed": 1,
    "entries": [{"name": "a", "strategy": "random"}, {"name": "b", "strategy": "random"}],
    "stop": {"rule": "fixed", "pairs": 1},
}


def tourney(**changes: Any) -> dict[str, Any]:
    """The good tournament config with top-level keys replaced (``None`` removes one)."""
    data = json.loads(json.dumps(TOURNEY))
    for k, v in changes.items():
        if v is None:
            data.pop(k, None)
        else:
            data[k] = v
    return data


def tourney_file(data: dict[str, Any] | str, name: str = "t.toml") -> Setup:
    return write(name, data if isinstance(data, str) else toml(data))


def run_file(text: str, name: str = "r.toml") -> Setup:
    return write(name, text)


GOOD_RUN = 'strategies = "random"\nseed = 1\ngames = 1\nworkers = 0\nout = "{tmp}/o"\n'


def variant_file(text: str, name: str = "v.toml") -> Setup:
    return write(name, text)


SIM = ["simulate", "--games", "1", "--seed", "1", "--out", "{tmp}/o", "--workers", "0"]


def sim(*extra: str, strategies: str = "random") -> list[str]:
    """``simulate`` with good values for every flag, then ``extra`` (later flags win)."""
    return [*SIM, "--strategies", strategies, *extra]


# ------------------------------------------------------------------------------------------ cases

Case = tuple[str, list[str], Setup | None]
CASES: list[Case] = []


def case(cid: str, args: list[str], setup: Setup | None = None) -> None:
    CASES.append((cid, args, setup))


# --- the command line itself: usage errors of every command
for cid, args in [
    ("unknown-command", ["nosuch"]),
    ("unknown-top-option", ["--bogus"]),
    ("simulate-unknown-option", ["simulate", "--bogus"]),
    ("simulate-games-no-value", ["simulate", "--games"]),
    ("simulate-games-not-int", sim("--games", "abc")),
    ("simulate-games-float", sim("--games", "1.5")),
    ("simulate-seed-not-int", sim("--seed", "x")),
    ("simulate-seed-exponent", sim("--seed", "1e3")),
    ("simulate-workers-not-int", sim("--workers", "two")),
    ("simulate-chunk-not-int", sim("--chunk-size", "big")),
    ("simulate-retries-not-int", sim("--max-retries", "x")),
    ("simulate-overwrite-value", [*sim(), "--overwrite=maybe"]),
    ("simulate-extra-argument", [*sim(), "extra"]),
    ("analyze-no-run", ["analyze"]),
    ("analyze-unknown-option", ["analyze", "{run}", "--bogus"]),
    ("analyze-sample-not-int", ["analyze", "{run}", "--sample", "many", "--out", "{tmp}/s"]),
    ("analyze-compare-no-value", ["analyze", "{run}", "--compare"]),
    ("report-pdf-no-value", ["report", "{run}", "--pdf"]),
    ("report-two-runs", ["report", "{run}", "{other}"]),
    ("report-no-run", ["report"]),
    ("replay-no-deal", ["replay", "{run}"]),
    ("replay-deal-not-int", ["replay", "{run}", "abc"]),
    ("replay-deal-float", ["replay", "{run}", "1.5"]),
    ("replay-extra", ["replay", "{run}", "0", "1"]),
    ("verify-no-run", ["verify"]),
    ("verify-max-findings-negative", ["verify", "{run}", "--max-findings", "-1"]),
    ("verify-max-findings-not-int", ["verify", "{run}", "--max-findings", "x"]),
    ("rule-paths-no-run", ["rule-paths"]),
    ("rule-paths-strict-value", ["rule-paths", "{run}", "--strict=yes"]),
    ("tournament-no-config", ["tournament"]),
    ("tournament-workers-negative", ["tournament", "{tmp}/t.toml", "--workers", "-1"]),
    ("tournament-workers-not-int", ["tournament", "{tmp}/t.toml", "--workers", "x"]),
    ("run-deals-zero", ["run", "--deals", "0", "--out", "{tmp}/j"]),
    ("run-deals-negative", ["run", "--deals", "-5", "--out", "{tmp}/j"]),
    ("run-deals-not-int", ["run", "--deals", "lots", "--out", "{tmp}/j"]),
    ("run-workers-negative", ["run", "--workers", "-1", "--out", "{tmp}/j"]),
    ("run-what-if-negative", ["run", "--what-if-sample", "-1", "--out", "{tmp}/j"]),
    ("run-dd-sample-negative", ["run", "--dd-sample", "-1", "--out", "{tmp}/j"]),
    ("run-dd-sample-not-int", ["run", "--dd-sample", "some", "--out", "{tmp}/j"]),
    ("run-unknown-option", ["run", "--bogus"]),
    ("variants-extra-argument", ["variants", "extra"]),
    ("variants-unknown-option", ["variants", "--all"]),
    ("strategies-extra-argument", ["strategies", "extra"]),
    ("strategies-unknown-option", ["strategies", "--long"]),
    # issue 19: a variant's name without `show`, and the other mistakes of `variants show`
    ("variants-name-without-show", ["variants", "pagat-au"]),
    ("variants-show-no-name", ["variants", "show"]),
    ("variants-show-unknown", ["variants", "show", "nosuch"]),
    ("variants-show-extra", ["variants", "show", "pagat-au", "extra"]),
    ("strategies-describe-value", ["strategies", "--describe=yes"]),
    ("replay-nothing", ["replay"]),
    ("analyze-two-unknown-flags", ["analyze", "{run}", "--bogus", "--other"]),
]:
    case(cid, args, tourney_file(TOURNEY) if args[:1] == ["tournament"] else None)


def holding_runs(tmp: Path, run: Path) -> None:
    """The case's folder holds two runs (as ``runs/main`` after ``fivehundred run``) and no deal log."""
    shutil.copytree(run, tmp / "main")
    shutil.copytree(run, tmp / "compare-club-004")


case("replay-folder-of-runs", ["replay", "{tmp}", "42"], holding_runs)
case("analyze-folder-of-runs", ["analyze", "{tmp}", "--out", "{tmp}/s"], holding_runs)

# --- simulate: numbers out of range, missing and conflicting flags
for cid, args in [
    ("sim-games-zero", sim("--games", "0")),
    ("sim-games-negative", sim("--games", "-3")),
    ("sim-deals-zero", [*SIM[:1], *SIM[3:], "--strategies", "random", "--deals", "0"]),
    ("sim-deals-negative", [*SIM[:1], *SIM[3:], "--strategies", "random", "--deals", "-1"]),
    ("sim-games-and-deals", [*sim(), "--deals", "5"]),
    ("sim-seed-negative", sim("--seed", "-1")),
    ("sim-seed-2-64", sim("--seed", str(2**64))),
    ("sim-seed-huge", sim("--seed", "9" * 40)),
    ("sim-chunk-zero", sim("--chunk-size", "0")),
    ("sim-chunk-negative", sim("--chunk-size", "-5")),
    ("sim-chunk-too-big", sim("--chunk-size", str(10**7))),
    ("sim-games-beyond-int64", sim("--games", str(2**63))),
    ("sim-deals-beyond-int64", [*SIM[:1], *SIM[3:], "--strategies", "random", "--deals", str(10**30)]),
    ("sim-workers-negative", sim("--workers", "-1")),
    ("sim-workers-too-many", sim("--workers", "5000")),
    ("sim-retries-negative", sim("--max-retries", "-1")),
    ("sim-retries-too-many", sim("--max-retries", "101")),
    ("sim-no-seed", ["simulate", "--games", "1", "--out", "{tmp}/o", "--strategies", "random"]),
    ("sim-no-out", ["simulate", "--games", "1", "--seed", "1", "--strategies", "random"]),
    ("sim-no-strategies", ["simulate", "--games", "1", "--seed", "1", "--out", "{tmp}/o"]),
    ("sim-no-size", ["simulate", "--seed", "1", "--out", "{tmp}/o", "--strategies", "random"]),
    ("sim-out-empty", sim("--out", "")),
    ("sim-out-blank", sim("--out", "   ")),
    ("sim-in-process-with-address", sim("--address", "127.0.0.1:1")),
    ("sim-address-unreachable", [*sim(), "--workers", "1", "--address", "127.0.0.1:1"]),
    ("sim-address-port-not-int", [*sim(), "--workers", "1", "--address", "localhost:http"]),
    ("sim-variant-unknown", sim("--variant", "nosuch")),
    ("sim-variant-missing-file", sim("--variant", "{tmp}/nosuch.toml")),
    ("sim-variant-blank", sim("--variant", " ")),
    ("sim-three-strategies", [*sim(), "--strategies", "random,random,random"]),
    ("sim-five-strategies", [*sim(), "--strategies", "random,random,random,random,random"]),
    ("sim-empty-strategy", [*sim(), "--strategies", "random,,random,random"]),
    ("sim-blank-strategies", [*sim(), "--strategies", " "]),
    (
        "sim-three-player-four-seats",
        [*sim("--variant", "three-player"), "--strategies", "random,random,random,random"],
    ),
]:
    case(cid, args)
case("sim-variant-folder", sim("--variant", "{tmp}/vdir"), write("vdir/"))
case("sim-variant-folder-toml", sim("--variant", "{tmp}/v.toml"), write("v.toml/"))
case("sim-out-is-a-file", sim("--out", "{tmp}/f"), write("f", "x"))
case("sim-out-under-a-file", sim("--out", "{tmp}/f/run"), write("f", "x"))
case("sim-out-in-proc", sim("--out", "/proc/fivehundred-bad-input/run"))
case("sim-out-other-run", sim("--out", "{tmp}/r"), damaged("copy"))
case("sim-out-parts-without-manifest", sim("--out", "{tmp}/r"), damaged("no-manifest"))
case("sim-out-manifest-not-json", sim("--out", "{tmp}/r"), damaged("manifest-not-json"))

# --- sweep: every input checked before a deal is played (docs/sweep.md)
SWEEP = ["sweep", "--out", "{tmp}/s", "--deals", "5", "--workers", "0", "--switches", "bidding.misere"]
for cid, args in [
    ("sweep-no-out", ["sweep", "--switches", "bidding.misere"]),
    ("sweep-unknown-switch", [*SWEEP, "--switches", "bidding.nosuch"]),
    ("sweep-dd-sample-zero", [*SWEEP, "--dd-sample", "0"]),
    ("sweep-dd-sample-not-int", [*SWEEP, "--dd-sample", "x"]),
    ("sweep-switch-twice", [*SWEEP, "--switches", "bidding.misere,bidding.misere"]),
    ("sweep-switch-empty-item", [*SWEEP, "--switches", "bidding.misere,,table.players"]),
    ("sweep-unknown-base", [*SWEEP, "--base", "nosuch"]),
    ("sweep-unknown-variant", [*SWEEP, "--variants", "club-004,nosuch"]),
    ("sweep-variant-twice", [*SWEEP, "--variants", "club-004,club-004"]),
    ("sweep-unknown-strategy", [*SWEEP, "--strategies", "nosuch"]),
    ("sweep-strategies-count", [*SWEEP, "--strategies", "random,random"]),
    ("sweep-deals-zero", [*SWEEP, "--deals", "0"]),
    ("sweep-deals-not-int", [*SWEEP, "--deals", "many"]),
    ("sweep-seed-negative", [*SWEEP, "--seed", "-1"]),
    ("sweep-workers-negative", [*SWEEP, "--workers", "-1"]),
    ("sweep-in-process-with-address", [*SWEEP, "--address", "127.0.0.1:1"]),
    ("sweep-address-unreachable", [*SWEEP, "--workers", "1", "--address", "127.0.0.1:1"]),
    ("sweep-out-in-proc", [*SWEEP, "--out", "/proc/fivehundred-bad-input/s"]),
]:
    case(cid, args)
case("sweep-out-is-a-file", [*SWEEP, "--out", "{tmp}/f"], write("f", "x"))
case("sweep-out-holds-another-run", SWEEP, damaged("copy", "s/runs/base"))
case(
    "sweep-bad-variant-file", [*SWEEP, "--variants", "{tmp}/v.toml"], variant_file("[bidding]\nmisere = 7\n")
)

# --- strategy specs (through simulate), with and without parameters
SPECS = [
    ("colon-only-class", ":Foo"),
    ("relative-module", ".foo:Bar"),
    ("colon-no-class", "random:"),
    ("two-colons", "a:b:c"),
    ("module-missing", "nosuch_module_xyz:Bot"),
    ("class-missing", "fivehundred.strategies.base:Nope"),
    ("function-not-class", "os.path:join"),
    ("class-without-methods", "builtins:object"),
    ("int-class", "builtins:int"),
    ("exception-class", "builtins:ValueError"),
    ("module-not-class", "fivehundred:strategies"),
    ("unknown-name", "heuristc"),
    ("unknown-version", "random.v9"),
    ("name-with-space", "a b"),
    ("trailing-call", "heuristic(a=1)(b=2)"),
    ("trailing-call-valid-first", "heuristic(aggression=1)(b=2)"),
    ("trailing-word", "heuristic(aggression=1) x"),
    ("trailing-text", "heuristic()x"),
    ("unclosed", "heuristic(aggression=1"),
    ("only-parens", "()"),
    ("positional", "heuristic(1)"),
    ("kwargs", "heuristic(**x)"),
    ("name-value", "heuristic(aggression=x)"),
    ("call-value", "heuristic(aggression=__import__('os'))"),
    ("repeated-param", "heuristic(aggression=1, aggression=2)"),
    ("unknown-param", "heuristic(agression=1)"),
    ("aggression-too-high", "heuristic(aggression=9)"),
    ("aggression-string", "heuristic(aggression='high')"),
    ("aggression-bool", "heuristic(aggression=True)"),
    ("aggression-list", "heuristic(aggression=[1, 2])"),
    ("aggression-dict", "heuristic(aggression={'a': 1})"),
    ("aggression-none", "heuristic(aggression=None)"),
    ("misere-int", "heuristic(misere=1)"),
    ("nt-stoppers-float", "heuristic(nt_stoppers=3.5)"),
    ("nt-stoppers-zero", "heuristic(nt_stoppers=0)"),
    ("mc-samples-zero", "montecarlo(samples=0)"),
    ("mc-samples-float", "montecarlo(samples=2.5)"),
    ("mc-rollout-unknown", "montecarlo(rollout='nosuch')"),
    ("mc-rollout-itself", "montecarlo(rollout='montecarlo')"),
    ("mc-rollout-int", "montecarlo(rollout=3)"),
    ("mc-infer-int", "montecarlo(infer=1)"),
    ("random-probability-high", "random(pass_probability=2)"),
    ("random-probability-negative", "random(pass_probability=-0.1)"),
    ("random-max-raise-zero", "random(max_raise=0)"),
    ("random-max-raise-bool", "random(max_raise=True)"),
    ("random-unknown-param", "random(nope=1)"),
    ("params-on-a-class-spec", "fivehundred.strategies.random_bot:RandomStrategy(nope=1)"),
]
for cid, spec in SPECS:
    case(f"spec-{cid}", sim(strategies=spec))
case("spec-one-bad-seat", sim(strategies="random,random,heuristic(a=1)(b=2),random"))

# --- user bot modules
BOTS = [
    ("syntax-error", "def f(:\n"),
    ("name-int", RANDOM_BASE + "class Bot(RandomStrategy):\n    name = 5\n"),
    ("name-list", RANDOM_BASE + "class Bot(RandomStrategy):\n    name = ['x']\n"),
    ("raises-on-import", "raise RuntimeError('no import for you')\n"),
    ("exits-on-import", "import sys\nsys.exit(0)\n"),
    ("imports-missing", "import nosuch_module_abc\n"),
    ("no-methods", "class Bot:\n    pass\n"),
    ("no-play", "class Bot:\n    def bid(self, v, l, r): return l[0]\n    discard = name_joker = bid\n"),
    ("play-not-callable", RANDOM_BASE + "class Bot(RandomStrategy):\n    play = 5\n"),
    ("instance-not-class", RANDOM_BASE + "Bot = RandomStrategy()\n"),
    ("init-raises", RANDOM_BASE + "class Bot(RandomStrategy):\n    def __init__(self):\n        1 / 0\n"),
    (
        "init-exits",
        RANDOM_BASE + "class Bot(RandomStrategy):\n    def __init__(self):\n        raise SystemExit(0)\n",
    ),
    (
        "init-needs-arg",
        RANDOM_BASE + "class Bot(RandomStrategy):\n    def __init__(self, x):\n        pass\n",
    ),
    ("params-not-dict", RANDOM_BASE + "class Bot(RandomStrategy):\n    PARAMS = 5\n"),
]
for cid, source in BOTS:
    module = "bot_" + cid.replace("-", "_")
    case(f"bot-{cid}", sim(strategies=f"{module}:Bot"), bot_module(module, source))

# --- variant files (through simulate --variant FILE and a run file's variant)
VARIANTS = [
    ("players-float", 'base = "pagat-au"\n[table]\nplayers = 4.0\n'),
    ("players-five", 'base = "pagat-au"\n[table]\nplayers = 5\n'),
    ("players-string", 'base = "pagat-au"\n[table]\nplayers = "4"\n'),
    ("players-bool", 'base = "pagat-au"\n[table]\nplayers = true\n'),
    ("jokers-bool", 'base = "pagat-au"\n[table]\njokers = true\n'),
    ("jokers-three", 'base = "pagat-au"\n[table]\njokers = 3\n'),
    ("jokers-float", 'base = "pagat-au"\n[table]\njokers = 1.0\n'),
    ("two-jokers-six-players", 'base = "pagat-au"\n[table]\nplayers = 6\njokers = 2\n'),
    ("misere-unknown", 'base = "pagat-au"\n[bidding]\nmisere = "sometimes"\n'),
    ("misere-bool", 'base = "pagat-au"\n[bidding]\nmisere = true\n'),
    ("open-misere-int", 'base = "pagat-au"\n[bidding]\nopen_misere = 1\n'),
    ("open-misere-with-misere-off", 'base = "pagat-au"\n[bidding]\nmisere = "off"\nopen_misere = true\n'),
    ("nullo-with-misere-off", 'base = "pagat-au"\n[bidding]\nmisere = "off"\nmisere_values = "nullo"\n'),
    ("open-misere-with-nullo", 'base = "pagat-au"\n[bidding]\nmisere_values = "nullo"\nopen_misere = true\n'),
    ("joker-rule-unknown", 'base = "pagat-au"\n[joker]\nno_trump = "x"\n'),
    ("slam-floor-string", 'base = "pagat-au"\n[scoring]\nslam_floor = "yes"\n'),
    ("overtricks-negative", 'base = "pagat-au"\n[scoring]\novertrick_points = -1\n'),
    ("overtricks-float", 'base = "pagat-au"\n[scoring]\novertrick_points = 1.5\n'),
    ("overtricks-bool", 'base = "pagat-au"\n[scoring]\novertrick_points = true\n'),
    ("win-score-zero", 'base = "pagat-au"\n[scoring]\nwin_score = 0\n'),
    ("lose-score-positive", 'base = "pagat-au"\n[scoring]\nlose_score = 1\n'),
    ("deal-limit-zero", 'base = "pagat-au"\n[game]\ndeal_limit = 0\n'),
    ("deal-limit-huge", 'base = "pagat-au"\n[game]\ndeal_limit = 1000000\n'),
    ("unknown-key", 'base = "pagat-au"\n[table]\nseats = 4\n'),
    ("unknown-section", 'base = "pagat-au"\n[foo]\nx = 1\n'),
    ("array-of-tables", 'base = "pagat-au"\n[[table]]\nplayers = 4\n'),
    ("name-int", 'base = "pagat-au"\nname = 5\n'),
    ("description-int", 'base = "pagat-au"\ndescription = 5\n'),
    ("base-unknown", 'base = "nosuch"\n'),
    ("base-int", "base = 5\n"),
    ("base-empty", 'base = ""\n'),
    ("base-self", 'base = "v"\n'),
    ("no-base-missing-keys", "[table]\nplayers = 4\n"),
    ("empty-file", ""),
    ("not-toml", "players = = 4\n"),
]
for cid, text in VARIANTS:
    case(f"variant-{cid}", sim("--variant", "{tmp}/v.toml"), variant_file(text))
case("variant-not-utf8", sim("--variant", "{tmp}/v.toml"), write("v.toml", b'name = "\xff\xfe"\n'))
case("variant-binary", sim("--variant", "{tmp}/v.toml"), write("v.toml", bytes(range(256))))
case(
    "variant-base-folder",
    sim("--variant", "{tmp}/v.toml"),
    both(variant_file('base = "d"\n'), write("d.toml/")),
)
case(
    "variant-base-cycle",
    sim("--variant", "{tmp}/a.toml"),
    both(variant_file('base = "b"\n', "a.toml"), variant_file('base = "a"\n', "b.toml")),
)
case("runfile-variant-players-float", ["simulate", "--config", "{tmp}/r.toml"], both(
    variant_file('base = "pagat-au"\n[table]\nplayers = 4.0\n'),
    run_file(GOOD_RUN + 'variant = "v.toml"\n'),
))  # fmt: skip

# --- run config files (simulate --config FILE)
RUNFILES = [
    ("unknown-key", GOOD_RUN + "colour = 1\n"),
    ("seed-string", GOOD_RUN.replace("seed = 1", 'seed = "1"')),
    ("seed-float", GOOD_RUN.replace("seed = 1", "seed = 1.0")),
    ("seed-bool", GOOD_RUN.replace("seed = 1", "seed = true")),
    ("seed-negative", GOOD_RUN.replace("seed = 1", "seed = -1")),
    ("seed-too-big", GOOD_RUN.replace("seed = 1", f"seed = {2**64}")),
    ("games-zero", GOOD_RUN.replace("games = 1", "games = 0")),
    ("games-bool", GOOD_RUN.replace("games = 1", "games = true")),
    ("games-float", GOOD_RUN.replace("games = 1", "games = 1.5")),
    ("games-and-deals", GOOD_RUN + "deals = 5\n"),
    ("no-size", GOOD_RUN.replace("games = 1\n", "")),
    ("deals-string", GOOD_RUN.replace("games = 1", 'deals = "5"')),
    ("chunk-zero", GOOD_RUN + "chunk_size = 0\n"),
    ("chunk-bool", GOOD_RUN + "chunk_size = true\n"),
    ("workers-negative", GOOD_RUN.replace("workers = 0", "workers = -1")),
    ("workers-string", GOOD_RUN.replace("workers = 0", 'workers = "2"')),
    ("workers-with-address", GOOD_RUN + 'address = "127.0.0.1:1"\n'),
    ("address-int", GOOD_RUN.replace("workers = 0", "address = 5")),
    ("retries-too-many", GOOD_RUN + "max_retries = 500\n"),
    ("retries-float", GOOD_RUN + "max_retries = 1.0\n"),
    ("dd-sample-negative", GOOD_RUN + "dd_sample = -1\n"),
    ("dd-sample-string", GOOD_RUN + 'dd_sample = "all"\n'),
    ("dd-sample-bool", GOOD_RUN + "dd_sample = true\n"),
    ("out-int", GOOD_RUN.replace('out = "{tmp}/o"', "out = 5")),
    ("out-empty", GOOD_RUN.replace('out = "{tmp}/o"', 'out = ""')),
    ("no-out", GOOD_RUN.replace('out = "{tmp}/o"\n', "")),
    ("strategies-int", GOOD_RUN.replace('strategies = "random"', "strategies = 5")),
    ("strategies-empty-list", GOOD_RUN.replace('strategies = "random"', "strategies = []")),
    ("strategies-two", GOOD_RUN.replace('strategies = "random"', 'strategies = ["random", "random"]')),
    ("strategies-int-entry", GOOD_RUN.replace('strategies = "random"', "strategies = [5]")),
    ("strategies-table-name-int", GOOD_RUN.replace('strategies = "random"', "strategies = [{name = 5}]")),
    (
        "strategies-table-params-int",
        GOOD_RUN.replace('strategies = "random"', 'strategies = [{name = "random", params = 5}]'),
    ),
    (
        "strategies-table-extra-key",
        GOOD_RUN.replace('strategies = "random"', 'strategies = [{name = "random", colour = 1}]'),
    ),
    (
        "strategies-table-bad-param",
        GOOD_RUN.replace(
            'strategies = "random"', 'strategies = [{name = "heuristic", params = {aggression = 9}}]'
        ),
    ),
    (
        "strategies-table-trailing-call",
        GOOD_RUN.replace('strategies = "random"', 'strategies = [{name = "heuristic(a=1)(b=2)"}]'),
    ),
    ("no-strategies", GOOD_RUN.replace('strategies = "random"\n', "")),
    ("variant-int", GOOD_RUN + "variant = 5\n"),
    ("variant-empty", GOOD_RUN + 'variant = ""\n'),
    ("variant-unknown", GOOD_RUN + 'variant = "nosuch"\n'),
    ("not-toml", "seed = [1\n"),
    ("empty", ""),
]
for cid, text in RUNFILES:
    case(f"runfile-{cid}", ["simulate", "--config", "{tmp}/r.toml"], run_file(text))
case("runfile-missing", ["simulate", "--config", "{tmp}/nosuch.toml"])
case("runfile-folder", ["simulate", "--config", "{tmp}/cfg"], write("cfg/"))
case(
    "runfile-not-utf8", ["simulate", "--config", "{tmp}/r.toml"], write("r.toml", b"seed = 1\nout = '\xff'\n")
)
case(
    "runfile-flag-overrides-bad", ["simulate", "--config", "{tmp}/r.toml", "--games", "0"], run_file(GOOD_RUN)
)

# --- tournament configs
TOURNEYS: list[tuple[str, dict[str, Any] | str]] = [
    ("unknown-key", tourney(colour=1)),
    ("name-dotdot", tourney(name="..")),
    ("name-dot", tourney(name=".")),
    ("name-slash", tourney(name="a/b")),
    ("name-backslash", tourney(name="a\\b")),
    ("name-empty", tourney(name="")),
    ("name-hidden", tourney(name=".hidden")),
    ("name-int", tourney(name=5)),
    ("name-absolute", tourney(name="/tmp/x")),
    ("seed-negative", tourney(seed=-1)),
    ("seed-too-big", tourney(seed=2**64)),
    ("seed-string", tourney(seed="1")),
    ("seed-float", tourney(seed=1.5)),
    ("seed-bool", tourney(seed=True)),
    ("variant-three-player", tourney(variant="three-player")),
    ("variant-unknown", tourney(variant="nosuch")),
    ("variant-int", tourney(variant=5)),
    ("no-entries", tourney(entries=None)),
    ("entries-empty", tourney(entries=[])),
    ("entries-int", tourney(entries=5)),
    ("one-entry", tourney(entries=[{"name": "a", "strategy": "random"}])),
    ("entries-not-tables", tourney(entries=[1, 2])),
    ("entry-no-name", tourney(entries=[{"strategy": "random"}, {"name": "b", "strategy": "random"}])),
    ("entry-no-strategy", tourney(entries=[{"name": "a"}, {"name": "b", "strategy": "random"}])),
    (
        "entry-name-blank",
        tourney(entries=[{"name": " ", "strategy": "random"}, {"name": "b", "strategy": "random"}]),
    ),
    (
        "entry-name-int",
        tourney(entries=[{"name": 1, "strategy": "random"}, {"name": "b", "strategy": "random"}]),
    ),
    ("entries-same-name", tourney(entries=[{"name": "a", "strategy": "random"}] * 2)),
    (
        "entry-unknown-key",
        tourney(entries=[{"name": "a", "strategy": "random", "x": 1}, {"name": "b", "strategy": "random"}]),
    ),
    (
        "entry-unknown-strategy",
        tourney(entries=[{"name": "a", "strategy": "nosuch"}, {"name": "b", "strategy": "random"}]),
    ),
    (
        "entry-trailing-call",
        tourney(
            entries=[{"name": "a", "strategy": "heuristic(a=1)(b=2)"}, {"name": "b", "strategy": "random"}]
        ),
    ),
    (
        "entry-function-spec",
        tourney(entries=[{"name": "a", "strategy": "os.path:join"}, {"name": "b", "strategy": "random"}]),
    ),
    (
        "entry-params-int",
        tourney(
            entries=[{"name": "a", "strategy": "random", "params": 5}, {"name": "b", "strategy": "random"}]
        ),
    ),
    (
        "entry-params-unknown",
        tourney(
            entries=[
                {"name": "a", "strategy": "random", "params": {"x": 1}},
                {"name": "b", "strategy": "random"},
            ]
        ),
    ),
    (
        "entry-params-bad-value",
        tourney(
            entries=[
                {"name": "a", "strategy": "heuristic", "params": {"aggression": 9}},
                {"name": "b", "strategy": "random"},
            ]
        ),
    ),
    ("format-unknown", tourney(format="swiss")),
    (
        "format-match-three",
        tourney(format="match", entries=[{"name": n, "strategy": "random"} for n in "abc"]),
    ),
    ("gauntlet-without-format", tourney(gauntlet="a")),
    ("gauntlet-unknown-hero", tourney(format="gauntlet", gauntlet="nobody")),
    ("stop-not-table", tourney(stop=5)),
    ("stop-rule-unknown", tourney(stop={"rule": "x"})),
    ("stop-pairs-zero", tourney(stop={"rule": "fixed", "pairs": 0})),
    ("stop-pairs-float", tourney(stop={"rule": "fixed", "pairs": 1.5})),
    ("stop-pairs-bool", tourney(stop={"rule": "fixed", "pairs": True})),
    ("stop-fixed-with-elo", tourney(stop={"rule": "fixed", "elo0": 0})),
    ("stop-sprt-with-pairs", tourney(stop={"rule": "sprt", "pairs": 5})),
    ("stop-elo-and-score", tourney(stop={"rule": "sprt", "elo0": 0, "score1": 0.6})),
    ("stop-score-above-one", tourney(stop={"rule": "sprt", "score0": 1.5})),
    ("stop-score-order", tourney(stop={"rule": "sprt", "score0": 0.6, "score1": 0.55})),
    ("stop-elo-order", tourney(stop={"rule": "sprt", "elo0": 50, "elo1": 0})),
    ("stop-elo-huge", tourney(stop={"rule": "sprt", "elo1": 5000})),
    ("stop-elo-nan", tourney(stop={"rule": "sprt", "elo1": math.nan})),
    ("stop-alpha-zero", tourney(stop={"rule": "sprt", "alpha": 0})),
    ("stop-alpha-one", tourney(stop={"rule": "sprt", "alpha": 1})),
    ("stop-alpha-beta-sum", tourney(stop={"rule": "sprt", "alpha": 0.5, "beta": 0.6})),
    ("stop-max-pairs-zero", tourney(stop={"rule": "sprt", "max_pairs": 0})),
    ("stop-unknown-key", tourney(stop={"rule": "fixed", "pairs": 1, "x": 1})),
    ("prior-inf", tourney(stats={"prior": math.inf})),
    ("prior-minus-inf", tourney(stats={"prior": -math.inf})),
    ("prior-nan", tourney(stats={"prior": math.nan})),
    ("prior-zero", tourney(stats={"prior": 0})),
    ("prior-negative", tourney(stats={"prior": -1})),
    ("prior-string", tourney(stats={"prior": "1"})),
    ("confidence-one", tourney(stats={"confidence": 1})),
    ("confidence-zero", tourney(stats={"confidence": 0})),
    ("confidence-nan", tourney(stats={"confidence": math.nan})),
    ("interval-unknown", tourney(stats={"interval": "x"})),
    ("bootstrap-zero", tourney(stats={"bootstrap": 0})),
    ("bootstrap-huge", tourney(stats={"bootstrap": 10**9})),
    ("stats-unknown-key", tourney(stats={"x": 1})),
    ("chunk-pairs-zero", tourney(run={"chunk_pairs": 0})),
    ("run-unknown-key", tourney(run={"x": 1})),
    ("not-toml", "name = = 1\n"),
    ("empty", ""),
]
for cid, data in TOURNEYS:
    case(f"tourney-{cid}", ["tournament", "{tmp}/t.toml", "--workers", "0"], tourney_file(data))
case("tourney-missing", ["tournament", "{tmp}/nosuch.toml"])
case("tourney-folder", ["tournament", "{tmp}/t.toml"], write("t.toml/"))
case("tourney-not-utf8", ["tournament", "{tmp}/t.toml"], write("t.toml", b'name = "\xff"\n'))
case("tourney-variant-folder", ["tournament", "{tmp}/t.toml"], both(
    tourney_file(tourney(variant="{tmp}/vd")), write("vd/")
))  # fmt: skip
case("tourney-variant-bad-file", ["tournament", "{tmp}/t.toml"], both(
    tourney_file(tourney(variant="{tmp}/v.toml")), variant_file('base = "pagat-au"\n[table]\njokers = true\n')
))  # fmt: skip
T_OK = tourney_file(TOURNEY)
T_RUN = ["tournament", "{tmp}/t.toml", "--workers", "0", "--out"]
for cid, out, extra in [
    ("out-is-a-file", "{tmp}/f", write("f", "x")),
    ("out-under-a-file", "{tmp}/f/o", write("f", "x")),
    ("out-in-proc", "/proc/fivehundred-x", None),
    ("out-foreign", "{tmp}/o", write("o/x.txt", "x")),
    ("out-manifest-not-json", "{tmp}/o", write("o/manifest.json", "{")),
    ("out-manifest-not-utf8", "{tmp}/o", write("o/manifest.json", b"\xff")),
    ("out-manifest-list", "{tmp}/o", write("o/manifest.json", "[]")),
    (
        "out-other-tournament",
        "{tmp}/o",
        write("o/manifest.json", '{"kind": "tournament", "config_digest": "x"}'),
    ),
]:
    case(f"tourney-{cid}", [*T_RUN, out], both(T_OK, extra) if extra else T_OK)
case(
    "tourney-address-unreachable",
    ["tournament", "{tmp}/t.toml", "--workers", "1", "--address", "127.0.0.1:1", "--out", "{tmp}/o"],
    T_OK,
)

# --- run directories: analyze, analyze --compare, report, replay, verify, rule-paths
# (a folder named part-*.parquet is not a part file: pipelines.rundir lists files only)
RUN_DAMAGE = [
    "zero-byte",
    "truncated",
    "text",
    "foreign",
    "only-foreign",
    "wrong-type",
    "duplicate",
]
for kind in RUN_DAMAGE:
    case(f"analyze-{kind}", ["analyze", "{tmp}/r", "--out", "{tmp}/s"], damaged(kind))
    case(f"compare-{kind}", ["analyze", "{run}", "--compare", "{tmp}/r", "--out", "{tmp}/s"], damaged(kind))
    case(f"report-{kind}", ["report", "{tmp}/r", "-o", "{tmp}/x.html"], damaged(kind))
    case(f"rule-paths-{kind}", ["rule-paths", "{tmp}/r"], damaged(kind))
    case(f"replay-{kind}", ["replay", "{tmp}/r", "0"], damaged(kind))
    if kind not in ("duplicate",):  # verify reports repeated ids as findings (exit 1), by design
        case(f"verify-{kind}", ["verify", "{tmp}/r"], damaged(kind))
for kind in ["no-parts", "no-deals", "manifest-not-json", "manifest-not-utf8", "manifest-list"]:
    case(f"analyze-{kind}", ["analyze", "{tmp}/r", "--out", "{tmp}/s"], damaged(kind))
    case(f"replay-{kind}", ["replay", "{tmp}/r", "0"], damaged(kind))
    case(f"verify-{kind}", ["verify", "{tmp}/r"], damaged(kind))
for kind in ["no-parts", "no-deals"]:
    case(f"rule-paths-{kind}", ["rule-paths", "{tmp}/r"], damaged(kind))
    case(f"report-{kind}", ["report", "{tmp}/r", "-o", "{tmp}/x.html"], damaged(kind))
case("replay-null-hands", ["replay", "{tmp}/r", "0"], damaged("null-hands"))
case("replay-zero-byte-missing-id", ["replay", "{tmp}/r", "99"], damaged("zero-byte"))
case("replay-duplicate-id", ["replay", "{tmp}/r", "0"], damaged("duplicate"))
case("replay-missing-id", ["replay", "{run}", "99"])
case("replay-negative-id", ["replay", "{run}", "--", "-1"])
for cmd in (["analyze"], ["report"], ["replay"], ["verify"], ["rule-paths"]):
    tail = ["0"] if cmd == ["replay"] else []
    name = cmd[0]
    case(f"{name}-missing-run", [*cmd, "{tmp}/nosuch", *tail])
    case(f"{name}-run-is-a-file", [*cmd, "{tmp}/f", *tail], write("f", "x"))
    case(f"{name}-empty-folder", [*cmd, "{tmp}/e", *tail], write("e/"))

# --- outputs
for cid, args, setup in [
    ("analyze-out-in-deals", ["analyze", "{tmp}/r", "--out", "{tmp}/r/deals"], damaged("copy")),
    ("analyze-out-under-deals", ["analyze", "{tmp}/r", "--out", "{tmp}/r/deals/stats"], damaged("copy")),
    (
        "analyze-out-in-compared-deals",
        ["analyze", "{run}", "--compare", "{tmp}/r", "--out", "{tmp}/r/deals"],
        damaged("copy"),
    ),
    ("analyze-out-is-a-file", ["analyze", "{run}", "--out", "{tmp}/f"], write("f", "x")),
    ("analyze-out-under-a-file", ["analyze", "{run}", "--out", "{tmp}/f/s"], write("f", "x")),
    ("analyze-out-in-proc", ["analyze", "{run}", "--out", "/proc/fivehundred-x"], None),
    ("analyze-what-if-unknown", ["analyze", "{run}", "--what-if", "nullo", "--out", "{tmp}/s"], None),
    (
        "analyze-sample-zero",
        ["analyze", "{run}", "--what-if", "misere", "--sample", "0", "--out", "{tmp}/s"],
        None,
    ),
    (
        "analyze-sample-negative",
        ["analyze", "{run}", "--what-if", "misere", "--sample", "-4", "--out", "{tmp}/s"],
        None,
    ),
    (
        "analyze-seat-strategy-unknown",
        ["analyze", "{run}", "--what-if", "misere", "--seat-strategy", "nosuch", "--out", "{tmp}/s"],
        None,
    ),
    (
        "analyze-seat-strategy-trailing",
        [
            "analyze",
            "{run}",
            "--what-if",
            "misere",
            "--seat-strategy",
            "heuristic(a=1)(b=2)",
            "--out",
            "{tmp}/s",
        ],
        None,
    ),
    (
        "analyze-seat-strategy-function",
        ["analyze", "{run}", "--what-if", "misere", "--seat-strategy", "os.path:join", "--out", "{tmp}/s"],
        None,
    ),
    ("analyze-dd-sample-zero", ["analyze", "{run}", "--dd-sample", "0", "--out", "{tmp}/s"], None),
    ("analyze-dd-unknown", ["analyze", "{run}", "--dd", "parr", "--out", "{tmp}/s"], None),
    (
        "analyze-dd-par-sample-zero",
        ["analyze", "{run}", "--dd", "par", "--dd-sample", "0", "--out", "{tmp}/s"],
        None,
    ),
    (
        "analyze-dd-sample-negative",
        ["analyze", "{run}", "--dd", "--dd-sample", "-3", "--out", "{tmp}/s"],
        None,
    ),
    ("analyze-dd-sample-not-int", ["analyze", "{run}", "--dd-sample", "half", "--out", "{tmp}/s"], None),
    ("analyze-dd-sample-no-value", ["analyze", "{run}", "--dd-sample"], None),
    ("analyze-compare-missing", ["analyze", "{run}", "--compare", "{tmp}/nosuch", "--out", "{tmp}/s"], None),
    ("analyze-compare-twice", ["analyze", "{run}", "--compare", "{run}", "--out", "{tmp}/s"], None),
    ("analyze-compare-other-seed", ["analyze", "{run}", "--compare", "{other}", "--out", "{tmp}/s"], None),
    ("report-out-is-a-folder", ["report", "{run}", "-o", "{tmp}/d"], write("d/")),
    ("report-out-under-a-file", ["report", "{run}", "-o", "{tmp}/f/x.html"], write("f", "x")),
    ("report-out-in-proc", ["report", "{run}", "-o", "/proc/fivehundred-x/r.html"], None),
    ("report-pdf-is-a-folder", ["report", "{run}", "-o", "{tmp}/x.html", "--pdf", "{tmp}/d"], write("d/")),
    ("report-pdf-same-as-html", ["report", "{run}", "-o", "{tmp}/x.html", "--pdf", "{tmp}/x.html"], None),
    ("report-stats-missing", ["report", "{run}", "-o", "{tmp}/x.html", "--stats", "{tmp}/nosuch"], None),
    ("report-stats-a-file", ["report", "{run}", "-o", "{tmp}/x.html", "--stats", "{tmp}/f"], write("f", "x")),
    ("report-compare-missing", ["report", "{run}", "--compare", "{tmp}/nosuch", "-o", "{tmp}/x.html"], None),
    ("run-out-is-a-file", ["run", "--out", "{tmp}/f", "--workers", "0", "--deals", "5"], write("f", "x")),
    (
        "run-out-under-a-file",
        ["run", "--out", "{tmp}/f/j", "--workers", "0", "--deals", "5"],
        write("f", "x"),
    ),
    (
        "run-compare-variant-unknown",
        ["run", "--compare-variant", "nosuch", "--out", "{tmp}/j", "--workers", "0", "--deals", "5"],
        None,
    ),
    (
        "run-compare-variant-folder",
        ["run", "--compare-variant", "{tmp}/vd", "--out", "{tmp}/j", "--workers", "0", "--deals", "5"],
        write("vd/"),
    ),
    (
        "run-compare-variant-bad-file",
        ["run", "--compare-variant", "{tmp}/v.toml", "--out", "{tmp}/j", "--workers", "0", "--deals", "5"],
        variant_file('base = "pagat-au"\n[table]\nplayers = 4.0\n'),
    ),
    (
        "run-config-missing",
        ["run", "--config", "{tmp}/nosuch.toml", "--out", "{tmp}/j", "--workers", "0", "--deals", "5"],
        None,
    ),
    (
        "run-config-bad",
        ["run", "--config", "{tmp}/r.toml", "--out", "{tmp}/j", "--workers", "0", "--deals", "5"],
        run_file(GOOD_RUN + "colour = 1\n"),
    ),
    (
        "run-config-folder",
        ["run", "--config", "{tmp}/cfg", "--out", "{tmp}/j", "--workers", "0", "--deals", "5"],
        write("cfg/"),
    ),
]:
    case(cid, args, setup)

# --- fivehundred dd: every line is checked before any solve; a bad one names its line, no output file
_POS = GOLDEN[0][0]  # a good position (8H, two tricks left)


def positions(**changes: Any) -> Setup:
    """``p.jsonl``: a good position, then the position with ``changes`` (a bad line 2)."""
    return write("p.jsonl", json.dumps(_POS) + "\n" + json.dumps({**_POS, **changes}) + "\n")


_DD = ["dd", "{tmp}/p.jsonl", "--out", "{tmp}/o.jsonl"]
_NT = {"contract": "8NT", "hands": [["JK", "4H"], ["AS", "KS"], ["QH", "QS"], ["5S", "6S"]]}
for cid, setup in [
    ("unknown-card", positions(hands=[["AH", "ZZ"], ["AS", "KS"], ["QH", "QS"], ["5S", "6S"]])),
    ("card-not-in-deck", positions(hands=[["AH", "2H"], ["AS", "KS"], ["QH", "QS"], ["5S", "6S"]])),
    ("card-twice", positions(hands=[["AH", "KH"], ["AS", "KS"], ["QH", "AH"], ["5S", "6S"]])),
    ("unequal-hands", positions(hands=[["AH", "KH"], ["AS"], ["QH", "QS"], ["5S", "6S"]])),
    ("contract-variant-lacks", positions(contract="BMIS")),
    ("contract-not-a-bid", positions(contract="11H")),
    ("joker-suit-without-joker", positions(contract="8NT", joker_suit="H")),
    ("joker-suit-in-suit-contract", positions(hands=_NT["hands"], joker_suit="H")),
    ("joker-suit-bad-letter", positions(**_NT, joker_suit="X")),
    ("misere-partner-holds-cards", positions(contract="MIS")),
    (
        "misere-partner-leads",
        positions(contract="MIS", leader=2, hands=[["AH", "KH"], ["AS", "KS"], [], ["5S", "6S"]]),
    ),
    ("tricks-do-not-add-up", positions(tricks_played=7)),
    ("declarer-tricks-too-many", positions(declarer_tricks=9)),
    ("suit-led-twice", positions(suits_led=["H", "H"])),
    ("suit-led-nt", positions(suits_led=["NT"])),
    ("declarer-not-a-seat", positions(declarer=4)),
    ("leader-not-int", positions(leader="0")),
    ("unknown-variant", positions(variant="nosuch")),
    ("unknown-field", positions(trump="H")),
    ("missing-field", write("p.jsonl", json.dumps({k: v for k, v in _POS.items() if k != "hands"}) + "\n")),
    ("not-json", write("p.jsonl", json.dumps(_POS) + "\n{oops\n")),
    ("not-an-object", write("p.jsonl", "[1, 2]\n")),
    ("empty-file", write("p.jsonl", "")),
    ("not-utf8", write("p.jsonl", b"\xff\xfe\n")),
]:
    case(f"dd-{cid}", _DD, setup)
case("dd-missing-file", _DD, None)
case("dd-input-is-folder", _DD, write("p.jsonl/"))
case("dd-no-out", ["dd", "{tmp}/p.jsonl"], positions())
case("dd-out-is-input", ["dd", "{tmp}/p.jsonl", "--out", "{tmp}/p.jsonl"], positions())
case("dd-out-is-folder", ["dd", "{tmp}/p.jsonl", "--out", "{tmp}/d"], both(positions(), write("d/")))
case("analyze-dd-workers-negative", ["analyze", "{run}", "--dd", "--workers", "-1", "--out", "{tmp}/s"])

# --- fivehundred hand: the hand, the constraints, the options (all refused before any dealing)
HAND = "JK JH JD AH KH QH TH 5C 5S 6D"
for cid, args in [
    ("hand-no-hand", ["hand"]),
    ("hand-example-4c", ["hand", "JK JH JD AH KH QH TH 4C 5S 6D"]),  # no black four in the 43-card pack
    ("hand-nine-cards", ["hand", "JK JH JD AH KH QH TH 5C 5S"]),
    ("hand-eleven-cards", ["hand", HAND + " 7D"]),
    ("hand-repeated-card", ["hand", "JK JH JD AH KH QH TH 5C 5S JK"]),
    ("hand-not-a-card", ["hand", "JK JH JD AH KH QH TH 5C 5S 1D"]),
    ("hand-empty", ["hand", ""]),
    ("hand-three-player-size", ["hand", HAND, "--variant", "three-player"]),
    ("hand-variant-unknown", ["hand", HAND, "--variant", "nosuch"]),
    ("hand-seat-too-big", ["hand", HAND, "--seat", "4"]),
    ("hand-seat-negative", ["hand", HAND, "--seat", "-1"]),
    ("hand-seat-not-int", ["hand", HAND, "--seat", "north"]),
    ("hand-dealer-too-big", ["hand", HAND, "--dealer", "9"]),
    ("hand-deals-zero", ["hand", HAND, "--deals", "0"]),
    ("hand-deals-too-many", ["hand", HAND, "--deals", "100001"]),
    ("hand-seed-negative", ["hand", HAND, "--seed", "-1"]),
    ("hand-seed-too-big", ["hand", HAND, "--seed", str(2**64)]),
    ("hand-plot-not-png", ["hand", HAND, "--plot", "{tmp}/t.pdf"]),
    ("hand-plot-no-folder", ["hand", HAND, "--plot", "{tmp}/nosuch/t.png"]),
    ("hand-constraint-no-colon", ["hand", HAND, "--constraints", "partner H>=3"]),
    ("hand-constraint-holder", ["hand", HAND, "--constraints", "north: H>=3"]),
    ("hand-constraint-own-seat", ["hand", HAND, "--constraints", "seat 0: H>=3"]),
    ("hand-constraint-suit", ["hand", HAND, "--constraints", "partner: X>=3"]),
    ("hand-constraint-count", ["hand", HAND, "--constraints", "partner: H>=lots"]),
    ("hand-constraint-card", ["hand", HAND, "--constraints", "kitty: no 4C"]),
    ("hand-constraint-empty", ["hand", HAND, "--constraints", "partner:"]),
    ("hand-constraint-partner-3p", ["hand", "JK AS KS QS JS TS 9S 8S 7S AH", "--variant", "three-player",
                                    "--constraints", "partner: H>=1"]),
    ("hand-impossible-own-card", ["hand", HAND, "--constraints", "partner: has AH"]),
    ("hand-impossible-twice", ["hand", HAND, "--constraints", "partner: has AS; left: has AS"]),
    ("hand-impossible-nowhere", ["hand", HAND, "--constraints", "partner: no AS; left: no AS; "
                                                                "right: no AS; kitty: no AS"]),
    ("hand-impossible-too-many-hearts", ["hand", HAND, "--constraints", "left: H>=4; right: H>=3"]),
    ("hand-impossible-both-ways", ["hand", HAND, "--constraints", "kitty: S>=2, S<=1"]),
    ("hand-impossible-cannot-fill", ["hand", HAND, "--constraints", "left: S=0, C=0, D=0"]),
    ("replay-game-missing", ["replay", "{run}", "--game", "99"]),
    ("replay-game-negative", ["replay", "{run}", "--game", "-1"]),
    ("replay-game-not-int", ["replay", "{run}", "--game", "first"]),
    ("replay-game-and-deal", ["replay", "{run}", "0", "--game", "1"]),
]:  # fmt: skip
    case(cid, args)

#: Run as a real process: specs that must never be called (they would end a test process), and a few
#: ordinary ones to prove the real exit status and stderr.
SUBPROCESS = {
    "spec-sys-exit": sim(strategies="sys:exit"),
    "spec-builtins-quit": sim(strategies="builtins:quit"),
    "spec-builtins-exit": sim(strategies="builtins:exit"),
    "spec-os-abort": sim(strategies="os:abort"),
    "spec-os-kill": sim(strategies="os:_exit"),
    "spec-abort-in-tournament": ["tournament", "{tmp}/t.toml", "--workers", "0"],
    "spec-abort-seat-strategy": ["analyze", "{run}", "--what-if", "misere", "--seat-strategy", "os:abort"],
    "proc-unknown-command": ["nosuch"],
    "proc-zero-byte-part": ["analyze", "{tmp}/r", "--out", "{tmp}/s"],
    "proc-prior-inf": ["tournament", "{tmp}/t.toml", "--workers", "0"],
    "proc-address-leaves-nothing": [*sim(), "--workers", "1", "--address", "127.0.0.1:1"],
}
SUBPROCESS_SETUP: dict[str, Setup] = {
    "spec-abort-in-tournament": tourney_file(
        tourney(entries=[{"name": "a", "strategy": "os:abort"}, {"name": "b", "strategy": "random"}])
    ),
    "proc-zero-byte-part": damaged("zero-byte"),
    "proc-prior-inf": tourney_file(tourney(stats={"prior": math.inf})),
}


# ------------------------------------------------------------------------------------ the harness


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two small good runs (in-process, a few games): the shared ``{run}`` and ``{other}`` seed."""
    root = tmp_path_factory.mktemp("good")
    out = []
    for name, seed in (("run", 3), ("other", 4)):
        cfg = make_config(strategies="random", seed=seed, games=4, out=str(root / name), workers=0)
        run_simulation(cfg)
        out.append(root / name)
    return out[0], out[1]


def _snapshot(*roots: Path) -> dict[str, tuple[bool, int, int]]:
    snap: dict[str, tuple[bool, int, int]] = {}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            for n in dirnames + filenames:
                p = Path(dirpath) / n
                st = p.lstat()
                snap[str(p)] = (p.is_dir(), st.st_size, 0 if p.is_dir() else st.st_mtime_ns)
    return snap


def _fill(args: list[str], tmp: Path, runs: tuple[Path, Path]) -> list[str]:
    return [
        a.replace("{tmp}", str(tmp)).replace("{run}", str(runs[0])).replace("{other}", str(runs[1]))
        for a in args
    ]


def _check(status: int, stdout: str, stderr: str) -> None:
    lines = stderr.splitlines()
    assert "Traceback" not in stdout + stderr, stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith("error: "), (
        f"stderr: {stderr[-2000:]!r} stdout: {stdout[-500:]!r}"
    )
    assert status == 2, f"exit status {status}: {stderr!r}"


def _prepare(
    tmp: Path, runs: tuple[Path, Path], setup: Setup | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if setup is not None:
        setup(tmp, runs[0])
    monkeypatch.chdir(tmp)


IDS = [c[0] for c in CASES] + list(SUBPROCESS)
assert len(IDS) == len(set(IDS)), sorted({i for i in IDS if IDS.count(i) > 1})


def test_there_are_enough_cases() -> None:
    assert len(CASES) + len(SUBPROCESS) >= 250, len(CASES) + len(SUBPROCESS)


@pytest.mark.parametrize(("cid", "args", "setup"), CASES, ids=[c[0] for c in CASES])
def test_bad_input(
    cid: str,
    args: list[str],
    setup: Setup | None,
    runs: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _prepare(tmp_path, runs, setup, monkeypatch)
    monkeypatch.syspath_prepend(str(tmp_path))  # user bot modules
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # no __pycache__ left by them
    before = _snapshot(tmp_path, *runs)
    modules = set(sys.modules)
    try:
        status, stdout, stderr = in_process(_fill(args, tmp_path, runs))
    finally:
        for name in set(sys.modules) - modules:
            if name.startswith("bot_"):
                del sys.modules[name]
    _check(status, stdout, stderr)
    assert _snapshot(tmp_path, *runs) == before, "files or folders were left behind or changed"


#: The real-process cases of the quick tier (each starts an interpreter: the rest are slow).
QUICK_SUBPROCESS = ("spec-os-abort", "proc-unknown-command")


@pytest.mark.parametrize(
    "cid", [c if c in QUICK_SUBPROCESS else pytest.param(c, marks=pytest.mark.slow) for c in SUBPROCESS]
)
def test_bad_input_in_a_real_process(cid: str, runs: tuple[Path, Path], tmp_path: Path) -> None:
    setup = SUBPROCESS_SETUP.get(cid)
    if setup is not None:
        setup(tmp_path, runs[0])
    before = _snapshot(tmp_path, *runs)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tmp_path), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, "-m", "fivehundred.cli.main", *_fill(SUBPROCESS[cid], tmp_path, runs)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    _check(proc.returncode, proc.stdout, proc.stderr)
    assert _snapshot(tmp_path, *runs) == before, "files or folders were left behind or changed"


def test_messages_say_what_and_where(
    runs: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sample of the messages: each names the thing that is wrong (not only that something is)."""
    expect = {
        "sim-seed-2-64": "seed",
        "spec-trailing-call": "heuristic(a=1)(b=2)",
        "spec-colon-only-class": ":Foo",
        "bot-name-int": "name = 5",
        "bot-syntax-error": "SyntaxError",
        "variant-players-float": "table.players",
        "variant-jokers-bool": "table.jokers",
        "variant-not-utf8": "UTF-8",
        "sim-variant-folder": "directory",
        "tourney-name-dotdot": "'name'",
        "analyze-dd-unknown": "--dd 'parr': expected contract or par",
        "tourney-seed-too-big": "'seed'",
        "tourney-prior-inf": "'stats.prior'",
        "analyze-duplicate": "deal id",
        "analyze-zero-byte": "part-00001.parquet",
        "analyze-out-in-deals": "deal log",
        "replay-null-hands": "null hands",
        "replay-zero-byte-missing-id": "part-00001.parquet",
        "report-out-is-a-folder": "is a folder",
        "run-compare-variant-unknown": "--compare-variant",
        "variants-name-without-show": "fivehundred variants show pagat-au",
        "variants-show-unknown": "nosuch",
        "replay-nothing": "missing RUN_DIR",
        "replay-folder-of-runs": "holds runs: compare-club-004, main",
        "analyze-folder-of-runs": "holds runs: compare-club-004, main",
        "hand-example-4c": "'4C' is not a card",
        "hand-repeated-card": "JK is given twice",
        "hand-nine-cards": "9 cards given, a hand of pagat-au has 10",
        "hand-constraint-holder": "constraints clause 1 ('north: H>=3')",
        "hand-impossible-nowhere": "impossible constraints: AS can be nowhere",
        "hand-plot-not-png": ".png",
        "replay-game-missing": "no game 99",
    }
    table = {c[0]: c for c in CASES}
    for cid, words in expect.items():
        _, args, setup = table[cid]
        tmp = tmp_path / cid
        tmp.mkdir()
        with monkeypatch.context() as m:
            _prepare(tmp, runs, setup, m)
            m.syspath_prepend(str(tmp))
            m.setattr(sys, "dont_write_bytecode", True)
            status, _, stderr = in_process(_fill(args, tmp, runs))
        assert status == 2 and words in stderr, (cid, stderr)


def test_a_run_that_never_committed_a_chunk_does_not_block_a_retry(tmp_path: Path) -> None:
    """A failed start leaves nothing; a zero-chunk manifest left by an older version is no obstacle."""
    from fivehundred.pipelines.rundir import RunDir
    from fivehundred.pipelines.simulate import new_manifest

    out = tmp_path / "run"
    args = ["simulate", "--games", "2", "--seed", "1", "--strategies", "random", "--out", str(out)]
    status, _, stderr = in_process([*args, "--address", "127.0.0.1:1"])
    assert status == 2 and "127.0.0.1:1" in stderr and not out.exists()
    stale = make_config(strategies="random", seed=1, games=2, out=str(out), workers=0)
    RunDir(str(out)).write_manifest(new_manifest(stale))  # what the failed start used to leave
    retry = make_config(strategies="random", seed=2, games=2, out=str(out), workers=0)
    summary = run_simulation(retry)
    assert summary.games == 2
    assert json.loads((out / "manifest.json").read_text())["master_seed"] == 2
