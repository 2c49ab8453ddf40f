"""``sweep``: the base rules and every one-switch change of them, played on the same deals and compared.

:func:`plan_sweep` validates everything first and returns a :class:`SweepPlan`: the base run, one run
per switch of the rules object (:data:`sim.rules.SWITCHES`) and each of its other values
(:func:`sim.rules.switch_values`), plus any variant files named, and the combinations that are
impossible (or play the base's rules exactly), each with its reason.  :func:`run_sweep` plays the
runs one after another with :func:`pipelines.simulate.run_simulation` -- a sweep is a folder of
normal run directories (``DIR/runs/<name>``), each resumable and reused when finished -- all with
the same master seed, so that hand ``j`` of game ``g`` holds the same cards in every run (common
random numbers) and :mod:`pipelines.analysis.variants` pairs the runs deal by deal with the base.
It then writes every statistics table of the runs and two of its own to ``DIR/stats``:

- ``sweep_variants``: one row per planned variant (played or skipped), its switch, values, the
  change in words (:func:`sim.rules.describe_change`), the bots that played and how it was paired;
- ``sweep_effects``: one row per switch value (played and paired with the base) and headline metric
  (:data:`HEADLINE`), the paired effect with Holm-adjusted p-values over every effect of the sweep
  and the matching simultaneous (Bonferroni) intervals ``adj_lo``/``adj_hi``;
- with a DD sample (``dd_sample``), the ``dd_`` tables of every run and ``sweep_dd_effects``: each
  variant's paired effect on the DD makeability of the contracts bid and on misère DD viability
  (:data:`pipelines.analysis.dd.DD_EFFECTS`) over the sampled deals both runs played, adjusted like
  ``sweep_effects`` (its own family).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import polars as pl

from fivehundred.pipelines.analysis import build_tables, dd_analysis
from fivehundred.pipelines.analysis.batches import deal_frames
from fivehundred.pipelines.analysis.dd import DD_EFFECTS
from fivehundred.pipelines.analysis.dd_sample import check_sample
from fivehundred.pipelines.analysis.distributions import normal_quantile
from fivehundred.pipelines.analysis.io import open_run, write_tables
from fivehundred.pipelines.analysis.multiplicity import ALPHA, holm
from fivehundred.pipelines.analysis.tidy import finish, lineup_text
from fivehundred.pipelines.outputs import check_output_dir
from fivehundred.pipelines.raypool import RayPool
from fivehundred.pipelines.runconfig import RunConfig, jsonable, make_config
from fivehundred.pipelines.rundir import join, read_manifest
from fivehundred.pipelines.simulate import Progress, RunSummary, run_simulation
from fivehundred.sim.errors import UserError
from fivehundred.sim.rules import (
    SWITCHES,
    Rules,
    describe_change,
    load_rules,
    rule_differences,
    switch_values,
)


class SweepError(UserError, ValueError):
    """A sweep request that cannot be played: the one-line message names the flag and the value."""


#: Games per chunk of a sweep run (small, so that even a short run spreads over the workers).
SWEEP_CHUNK_SIZE = 100
DEFAULT_DEALS = 3000
#: The effects a sweep reports for every variant, in this order: the ``variant_effects`` metric and
#: its name in the report.
HEADLINE: tuple[tuple[str, str], ...] = (
    ("points_total", "points per deal"),
    ("made", "deals with a contract made"),
    ("misere", "misère contracts (any)"),
    ("open_misere", "open misère contracts"),
    ("deals_per_game", "deals per game"),
    ("end_reached_500", "games ending at the winning score"),
    ("end_fell_to_-500", "games ending at the losing score"),
    ("end_deal_limit", "games stopped by the deal limit"),
    ("first_dealer_team_won", "games won by the first dealer's team"),
    ("first_bidder_margin", "first bidder's team − dealer's team, points per deal"),
)
VARIANT_COLUMNS = (
    "name", "kind", "switch", "base_value", "value", "change", "status", "reason",
    "run_id", "variant", "strategies", "run_dir", "deals", "games", "pairing", "paired_deals",
)  # fmt: skip
EFFECT_COLUMNS = (
    "name", "switch", "base_value", "value", "change", "base_run", "run_id", "base_variant", "variant",
    "base_lineup", "lineup", "metric", "label", "unit", "paired_n", "paired_base_mean", "paired_mean",
    "diff_mean", "diff_lo", "diff_hi", "se_paired", "p_value", "p_holm", "holm_significant",
    "adj_lo", "adj_hi", "adj_level",
)  # fmt: skip


#: What the ``pairing`` table's kind says of a sweep run.
_PAIRING = {"variant": "paired", "unpaired": "unpaired (another table: compared in table_comparison)"}


def value_text(value: Any) -> str:
    """A switch value as a variant file spells it: ``true``, ``anytime``, ``-300``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class SweepRun:
    """One run of a sweep: its folder name (also its variant name), what it changes and its config."""

    name: str
    kind: str  # "base", "switch" or "file"
    switch: str | None
    base_value: str | None
    value: str | None
    change: str  # the rule difference from the base in words ("" for the base)
    config: RunConfig


@dataclass(frozen=True)
class Skipped:
    """A planned variant that is not played, and why (an impossible combination, or the base's rules)."""

    name: str
    kind: str
    switch: str | None
    base_value: str | None
    value: str | None
    reason: str


@dataclass(frozen=True)
class SweepPlan:
    """A validated sweep: the base run first, then the variants; the skipped ones beside them."""

    out: str | Path  # a folder, or an object-store URI
    runs: tuple[SweepRun, ...]
    skipped: tuple[Skipped, ...]
    #: Deals of each run solved double dummy (``--dd-sample``); None: no DD analysis.
    dd_sample: int | None = None

    @property
    def base(self) -> SweepRun:
        """The base run (every variant is compared with it)."""
        return self.runs[0]

    @property
    def target_deals(self) -> int:
        """Deals asked of the whole sweep."""
        return sum(r.config.deals or 0 for r in self.runs)


@dataclass(frozen=True)
class SweepProgress:
    """Where a sweep stands: runs finished, deals of the whole sweep, and the run being played."""

    runs_done: int
    runs: int
    deals: int
    target_deals: int
    session_deals: int
    elapsed: float
    current: str

    @property
    def eta(self) -> float | None:
        """Seconds left at this session's pace (None before the first deal of the session)."""
        if self.session_deals <= 0 or self.elapsed <= 0:
            return None
        return max(0, self.target_deals - self.deals) * self.elapsed / self.session_deals


@dataclass(frozen=True)
class SweepResult:
    """What :func:`run_sweep` did: each run's summary, the skipped variants and the tables written."""

    plan: SweepPlan
    summaries: tuple[RunSummary, ...]
    tables: dict[str, pl.DataFrame]
    stats_dir: str | Path
    elapsed: float

    @property
    def reused(self) -> int:
        """Runs that were finished already (nothing played this time)."""
        return sum(1 for s in self.summaries if s.session_deals == 0)


def parse_switches(switches: str | Sequence[str] | None) -> tuple[str, ...]:
    """``"all"`` (or None) -> every switch; ``"a,b"`` or a list -> those, checked and de-duplicated."""
    if switches is None:
        return SWITCHES
    items = switches.split(",") if isinstance(switches, str) else list(switches)
    items = [s.strip() for s in items]
    if items == ["all"]:
        return SWITCHES
    if items == ["none"] or items == [""]:
        return ()
    out: list[str] = []
    for key in items:
        if key not in SWITCHES:
            known = ", ".join(SWITCHES)
            raise SweepError(f"--switches: unknown switch '{key}' (switches: all, none, {known})")
        if key in out:
            raise SweepError(f"--switches: switch '{key}' is given twice")
        out.append(key)
    return tuple(out)


def _variant_items(variants: str | Sequence[str] | None) -> list[str]:
    if variants is None:
        return []
    items = variants.split(",") if isinstance(variants, str) else list(variants)
    return [v.strip() for v in items if v.strip()]


def _config(base: RunConfig, rules: Rules, name: str, out: str | Path) -> RunConfig:
    """The base run's config with other rules (named ``name``) and its own folder."""
    return replace(base, rules=rules, variant=name, out=join(out, "runs", name))


def plan_sweep(
    out: str | Path,
    base: str = "pagat-au",
    switches: str | Sequence[str] | None = "all",
    variants: str | Sequence[str] | None = None,
    deals: int = DEFAULT_DEALS,
    seed: int = 1,
    strategies: str = "heuristic",
    workers: int | None = None,
    address: str | None = None,
    chunk_size: int = SWEEP_CHUNK_SIZE,
    dd_sample: int | None = None,
) -> SweepPlan:
    """Check every input of a sweep and list its runs (nothing is played or written).

    A switch value whose rules are impossible over the base (``table.players = 3`` with two jokers)
    or that plays exactly the base's rules (open misère over a base without misère) is skipped with
    its reason.  ``dd_sample`` (at least 1) adds the DD analysis of that many deals of each run.
    Every mistake (an unknown switch, variant or strategy, a bad count or folder) raises a one-line
    :class:`~sim.errors.UserError` before anything is done.
    """
    check_sample(dd_sample, error=SweepError)
    keys = parse_switches(switches)
    files = _variant_items(variants)
    out_dir = check_output_dir(out, "--out")
    try:
        base_cfg = make_config(
            variant=base,
            strategies=strategies,
            seed=seed,
            deals=deals,
            out=join(out_dir, "runs", "base"),
            workers=workers,
            address=address,
            chunk_size=chunk_size,
        )
    except UserError as exc:
        raise SweepError(str(exc).replace("command line: key 'variant'", "--base")) from None
    rules0 = base_cfg.rules
    values0 = rules0.as_dict()
    uniform = len({(s.spec, s.params) for s in base_cfg.seats}) == 1  # one bot at every seat
    runs = [SweepRun("base", "base", None, None, None, "", base_cfg)]
    skipped: list[Skipped] = []
    seen: list[tuple[Rules, str]] = [(replace(rules0, name=""), "base")]

    def add(name: str, kind: str, key: str | None, old: str | None, new: str | None, make: Any) -> None:
        try:
            rules, change = make()
        except UserError as exc:
            skipped.append(Skipped(name, kind, key, old, new, f"impossible: {exc}"))
            return
        same = [n for r, n in seen if r == replace(rules, name="")]
        if same:  # the same rules as a run already planned: nothing new to learn
            skipped.append(Skipped(name, kind, key, old, new, f"plays the same rules as {same[0]}"))
            return
        if rules.players != rules0.players and not uniform:
            reason = f"impossible: {rules.players} players for a line-up of {len(base_cfg.seats)} seats"
            skipped.append(Skipped(name, kind, key, old, new, reason))
            return
        seen.append((replace(rules, name=""), name))
        cfg = _config(base_cfg, rules, name, out_dir)
        if rules.players != len(cfg.seats):
            cfg = replace(cfg, seats=(cfg.seats[0],) * rules.players)
        runs.append(SweepRun(name, kind, key, old, new, change, cfg))

    for key in keys:
        for value in switch_values(key):
            if value == values0.get(key) and type(value) is type(values0.get(key)):
                continue
            name = f"{key}={value_text(value)}"
            old, new = value_text(values0.get(key)), value_text(value)

            def make(key: str = key, value: Any = value, name: str = name) -> tuple[Rules, str]:
                rules = load_rules(base, overrides={key: value, "name": f"{rules0.name}+{name}"})
                return rules, describe_change(key, values0.get(key), value)

            add(name, "switch", key, old, new, make)
    for item in files:
        try:
            rules = load_rules(item)
        except UserError as exc:
            raise SweepError(f"--variants: {exc}") from None

        def of_file(rules: Rules = rules) -> tuple[Rules, str]:
            diffs = rule_differences(rules, rules0)
            return rules, "; ".join(d[3] for d in diffs) or "no switch differs from the base"

        name = f"variant={rules.name}"
        if any(r.name == name for r in runs) or any(s.name == name for s in skipped):
            raise SweepError(f"--variants: variant '{rules.name}' is given twice")
        add(name, "file", None, None, rules.name, of_file)
    for run in runs:
        _check_existing(run)
    return SweepPlan(out_dir, tuple(runs), tuple(skipped), dd_sample)


def _check_existing(run: SweepRun) -> None:
    """Refuse, before anything is played, a run folder that holds a run with another config (another
    ``--deals``, ``--seed`` or ``--strategies`` over the same folder): the sweep would stop there."""
    manifest = read_manifest(run.config.out)
    if manifest is None or not manifest.identity:
        return
    if jsonable(manifest.identity) != jsonable(run.config.identity()):
        raise SweepError(
            f"--out: {run.config.out} holds a run with another config (deals, seed, strategies or rules); "
            "give another --out, or remove that folder"
        )


def run_sweep(
    plan: SweepPlan,
    progress: Callable[[SweepProgress], None] | None = None,
    on_run: Callable[[SweepRun, RunSummary, SweepProgress], None] | None = None,
    dd_progress: Callable[[str, int, int], None] | None = None,
) -> SweepResult:
    """Play (or reuse) every run of ``plan``, analyse them against the base and write ``DIR/stats``.

    The runs share one Ray session (one embedded instance, or the cluster at the plan's address);
    ``workers == 0`` plays in this process.  ``progress`` is called after every committed chunk of any
    run, ``on_run`` after each run (with the sweep's progress then), ``dd_progress(run, parts done,
    parts)`` after each DD part.  Returns the summaries and the tables written.
    """
    t0 = time.perf_counter()
    first = plan.base.config
    summaries: list[RunSummary] = []
    done_deals = 0
    session = 0

    def state(done: int, run: SweepRun, deals: int, played: int) -> SweepProgress:
        return SweepProgress(
            runs_done=done,
            runs=len(plan.runs),
            deals=deals,
            target_deals=plan.target_deals,
            session_deals=played,
            elapsed=time.perf_counter() - t0,
            current=run.name,
        )

    def report(i: int, run: SweepRun, p: Progress) -> None:
        if progress is not None:
            progress(state(i, run, done_deals + p.deals, session + p.session_deals))

    pool = None if first.workers == 0 else RayPool(workers=first.workers, address=first.address)
    with pool if pool is not None else contextlib.nullcontext():
        for i, run in enumerate(plan.runs):
            summary = run_simulation(run.config, progress=lambda p, i=i, run=run: report(i, run, p))
            summaries.append(summary)
            # a finished run counts what it was asked for, so the ETA is not skewed by overshoot
            done_deals += run.config.deals or summary.deals
            session += summary.session_deals
            if on_run is not None:
                on_run(run, summary, state(i + 1, run, done_deals, session))
        tables = analyze_sweep(plan, dd_progress)  # in the session: the DD sample is solved on its workers
    stats = join(plan.out, "stats")
    write_tables(tables, stats)
    return SweepResult(plan, tuple(summaries), tables, stats, time.perf_counter() - t0)


def analyze_sweep(
    plan: SweepPlan, dd_progress: Callable[[str, int, int], None] | None = None
) -> dict[str, pl.DataFrame]:
    """Every statistics table of the sweep's runs (each variant paired with the base), plus
    ``sweep_variants`` and ``sweep_effects`` (and with a DD sample the ``dd_`` tables and
    ``sweep_dd_effects``; module docstring)."""
    frames = deal_frames([open_run(r.config.out) for r in plan.runs])
    tables = build_tables(frames)
    if plan.dd_sample is not None:
        first = plan.base.config
        dd = dd_analysis(frames, first.workers, first.address, dd_progress, plan.dd_sample)
        tables.update(finish(dd, frames))
    run_ids = [f.run.run_id for f in frames]
    lineups = [lineup_text(f) for f in frames]
    pairing = {r["run_id"]: r for r in tables["pairing"].iter_rows(named=True)} if "pairing" in tables else {}
    rows: list[dict[str, Any]] = []
    for run, rid, lineup, f in zip(plan.runs, run_ids, lineups, frames, strict=True):
        pair = pairing.get(rid)
        games = f.count("finished")
        rows.append(
            {
                "name": run.name, "kind": run.kind, "switch": run.switch, "base_value": run.base_value,
                "value": run.value, "change": run.change, "status": "played", "reason": None,
                "run_id": rid, "variant": f.run.variant, "strategies": lineup, "run_dir": f"runs/{run.name}",
                "deals": f.count("deals"), "games": games,
                "pairing": "base" if pair is None else _PAIRING.get(pair["kind"], pair["kind"]),
                "paired_deals": f.count("deals") if pair is None else pair["paired_deals"],
            }
        )  # fmt: skip
    for s in plan.skipped:
        rows.append(
            {"name": s.name, "kind": s.kind, "switch": s.switch, "base_value": s.base_value, "value": s.value,
             "change": None, "status": "skipped", "reason": s.reason}
        )  # fmt: skip
    schema = {c: pl.String for c in VARIANT_COLUMNS} | {
        "deals": pl.Int64,
        "games": pl.Int64,
        "paired_deals": pl.Int64,
    }
    tables["sweep_variants"] = pl.DataFrame(rows, schema=schema).select(VARIANT_COLUMNS)
    tables["sweep_effects"] = sweep_effects(tables["variant_effects"], plan, run_ids)
    if "dd_variant_effects" in tables:
        tables["sweep_dd_effects"] = sweep_effects(tables["dd_variant_effects"], plan, run_ids, DD_EFFECTS)
    return tables


def sweep_effects(
    effects: pl.DataFrame,
    plan: SweepPlan,
    run_ids: Sequence[str],
    metrics: Sequence[tuple[str, str]] = HEADLINE,
) -> pl.DataFrame:
    """The ``metrics`` rows of ``effects`` (``variant_effects``, or ``dd_variant_effects``) with Holm's
    adjustment over all of them (every run and metric of the sweep: one family) and Bonferroni
    intervals at the same family-wise level."""
    labels = dict(metrics)
    order = {m: i for i, (m, _) in enumerate(metrics)}
    by_run = {rid: run for rid, run in zip(run_ids, plan.runs, strict=True)}
    df = effects.filter(pl.col("metric").is_in(list(labels)) & pl.col("run_id").is_in(list(run_ids[1:])))
    runs_order = {rid: i for i, rid in enumerate(run_ids)}
    df = df.with_columns(
        pl.col("run_id").replace_strict(runs_order, return_dtype=pl.Int64).alias("_r"),
        pl.col("metric").replace_strict(order, return_dtype=pl.Int64).alias("_m"),
    ).sort("_r", "_m")
    meta = {
        "name": [by_run[r].name for r in df["run_id"]],
        "switch": [by_run[r].switch for r in df["run_id"]],
        "base_value": [by_run[r].base_value for r in df["run_id"]],
        "value": [by_run[r].value for r in df["run_id"]],
        "change": [by_run[r].change for r in df["run_id"]],
        "label": [labels[m] for m in df["metric"]],
    }
    df = df.with_columns(pl.Series(k, v, dtype=pl.String) for k, v in meta.items())
    p = df["p_value"].to_list()
    m = sum(1 for v in p if v is not None and not math.isnan(v))
    z = normal_quantile(1 - ALPHA / (2 * max(m, 1)))
    adjusted = holm(p)
    df = df.with_columns(
        pl.Series("p_holm", adjusted, dtype=pl.Float64),
        (pl.col("diff_mean") - z * pl.col("se_paired")).alias("adj_lo"),
        (pl.col("diff_mean") + z * pl.col("se_paired")).alias("adj_hi"),
        pl.lit(1 - ALPHA / max(m, 1)).alias("adj_level"),
    ).with_columns((pl.col("p_holm") < ALPHA).alias("holm_significant"))
    return df.select(EFFECT_COLUMNS)
