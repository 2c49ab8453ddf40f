"""What-if misère: replay a sample of logged deals with a forced MIS and OMIS for the seat left of
the dealer, so misère viability is measured on every kind of hand, not only on hands a bidding
policy chose.  Each replay re-deals the logged deal from its seed (checked against the log's cards),
forces the contract with :meth:`sim.engine.State.force_contract` and plays it out with one strategy
in every seat; its points are compared with what the declarer's team really scored on that deal.

The sample (:func:`sample_ids`, evenly spaced in ``deal_id`` order) is found holding one part file's
ids at a time (:mod:`pipelines.idspans`).  The replays are a sidecar of the run,
``RUN/whatif_misere/part-NNNNN.parquet``: the sampled deals in ``deal_id`` order, :data:`CHUNK_DEALS`
per part, each part replayed by one task (:func:`replay_chunk`: in this process, or a Ray task on the
shared scheduler of :mod:`pipelines.scheduler`) and written atomically when it comes back, as the DD
sidecar's (:func:`pipelines.analysis.dd.sidecar_parts`).  A part is reused when its deal ids, seeds
and version (:func:`replay_version`: this replay's definition, the seat strategy's id, the engine's
version and the rules) match; so an interrupted or repeated analysis replays only what is missing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from fivehundred.pipelines.analysis.blocks import POINTS_COLUMNS, RATE_COLUMNS, rate_points
from fivehundred.pipelines.analysis.dd_sidecar import SIDECAR_SCHEMA, sidecar_parts
from fivehundred.pipelines.analysis.frame import Frame, manifest_rules
from fivehundred.pipelines.analysis.intervals import bootstrap_table
from fivehundred.pipelines.analysis.io import AnalysisError
from fivehundred.pipelines.analysis.misere import misere_features, misere_long
from fivehundred.pipelines.analysis.multiplicity import versus_rest
from fivehundred.pipelines.idspans import Span, ids_at_ranks, read_ids
from fivehundred.pipelines.rundir import encode_parquet
from fivehundred.sim.engine import ENGINE_VERSION, State
from fivehundred.sim.errors import UserError
from fivehundred.sim.game import play_deal
from fivehundred.sim.notation import MISERE, OPEN_MISERE, joker_suit_text, universal_mask
from fivehundred.sim.rules import Rules
from fivehundred.sim.seeding import bot_rng

WHATIF_CONTRACTS = (MISERE, OPEN_MISERE)
SEAT_REL = 1
#: What a replay row means (the seat, the contracts, the joker's place): a change replays again.
WHATIF_VERSION = "whatif.v1"
WHATIF_DIR = "whatif_misere"
#: Deals replayed per task and per part file (fixed: the parts, and their bytes, do not depend on
#: the workers).
CHUNK_DEALS = 50
#: Log columns a replay reads.
LOG_COLUMNS = ("deal_id", "game_id", "hand_no", "seed", "dealer", "hands", "score_delta")
#: A part file: one row per (sampled deal, forced contract), in deal order then contract order.
PART_SCHEMA = pa.schema(
    [SIDECAR_SCHEMA.field(c) for c in ("deal_id", "seed", "contract")]
    + [("made", pa.bool_()), ("dpoints", pa.int32()), ("actual", pa.int32()), ("hand", pa.uint64())]
    + [(c, pa.string()) for c in ("joker_place", "joker_suit")]
    + [SIDECAR_SCHEMA.field("dd_version")]  # the sidecars' version column
)


def default_strategy() -> str:
    """``heuristic`` when a heuristic bot is registered, else ``random``."""
    from fivehundred.strategies import available

    return "heuristic" if any(n.startswith("heuristic.") for n in available()) else "random"


def rules_of(frame: Frame) -> Any:
    """The run's rules: the manifest's full rule settings when present, else the variant by name."""
    from fivehundred import sim

    rules = manifest_rules(frame.run)
    if rules is not None:
        return rules
    try:
        return sim.load_rules(frame.run.variant)
    except UserError as exc:
        raise AnalysisError(
            f"{frame.run.path}: cannot replay deals of variant {frame.run.variant!r}: {exc}"
        ) from exc


def sample_ranks(n: int, sample: int) -> np.ndarray:
    """The ranks (0-based, in ``deal_id`` order) of ``sample`` deals spread evenly over ``n`` (all
    deals if fewer)."""
    if sample >= n:
        return np.arange(n, dtype=np.int64)
    return np.unique(np.linspace(0, n - 1, sample).round().astype(np.int64))


def sample_ids(frame: Frame, sample: int) -> list[int]:
    """The deal ids of ``sample`` deals spread evenly over the run in deal-id order (:func:`sample_ranks`),
    holding one part file's ids at a time (the log's ids are unique: :func:`open_run` checked them
    and kept each file's span, so only the files holding a sampled rank are read here)."""
    log = frame.run.log
    spans = list(frame.run.spans) or [s for s in (_span(log, rel) for rel in log.files) if s is not None]
    n = sum(s.rows for s in spans)
    return list(ids_at_ranks(log.open, spans, sample_ranks(n, sample).tolist()))


def _span(log: Any, rel: str) -> Span | None:
    """A part file's span, read (a run opened without its spans)."""
    ids = read_ids(log.open, rel)
    return Span(rel, int(ids.min()), int(ids.max()), int(ids.size)) if ids.size else None


def replay_version(rules: Rules, label: str) -> str:
    """The version a replay part must carry to be reused: :data:`WHATIF_VERSION`, the seat strategy's
    id, the engine's version and a digest of the rules (their settings, not their description)."""
    from fivehundred.pipelines.runconfig import identity_hash, jsonable

    settings = jsonable({k: v for k, v in rules.as_dict().items() if k != "description"})
    return f"{WHATIF_VERSION} {label} {ENGINE_VERSION} rules:{identity_hash({'rules': settings})}"


@dataclass(frozen=True)
class ReplayChunk:
    """One part's deals: ``key`` is the part's index; ``rows`` the log rows (:data:`LOG_COLUMNS`);
    ``spec`` the seat strategy; ``version`` :func:`replay_version`; ``where`` and ``variant`` name the
    run in errors."""

    key: int
    rules: Rules
    spec: str
    version: str
    where: str
    variant: str
    rows: tuple[dict[str, Any], ...]


def replay_chunk(chunk: ReplayChunk) -> bytes:
    """The part file's bytes of a chunk: each deal replayed with each forced contract (a Ray task)."""
    from fivehundred.strategies import label, make

    rules = chunk.rules
    contracts = [c for c in WHATIF_CONTRACTS if c in rules.bid_index]
    bots = [make(chunk.spec) for _ in range(rules.players)]
    labels = [label(chunk.spec)] * rules.players
    jokers = rules.deck.jokers
    out: dict[str, list[Any]] = {f.name: [] for f in PART_SCHEMA}
    for r in chunk.rows:  # one replay per sampled deal (engine calls, not statistics)
        seat = (r["dealer"] + SEAT_REL) % rules.players
        base = State.deal(rules, r["seed"], r["dealer"])
        base.hand_no = r["hand_no"]
        dealt = rules.deck.names_of(base.dealt[seat])
        if sorted(dealt) != sorted(r["hands"][seat]):
            raise AnalysisError(
                f"{chunk.where}: deal {r['deal_id']} does not re-deal from its seed with the rules of "
                f"{chunk.variant!r}; cannot replay it"
            )
        team = rules.team_of(seat)
        for code in contracts:
            st = base.clone()
            st.force_contract(code, seat)
            rngs = [bot_rng(r["seed"], s) for s in range(rules.players)]
            play_deal(st, bots, rngs, r["game_id"], labels)
            mates = [s for s in range(rules.players) if not st.active[s]]  # a misère's partners sit out
            held = any((base.dealt[seat] | base.kitty_dealt) >> j & 1 for j in jokers)
            if held and any(j in st.discard_order for j in jokers):
                place = "discarded"
            elif held:
                place = "named" if st.jokers_named and st.jokers_named[0] >= 0 else "unnamed"
            elif any(base.dealt[m] >> j & 1 for m in mates for j in jokers):
                place = "partner"
            else:
                place = "defender"
            for k, v in (
                ("deal_id", r["deal_id"]),
                ("seed", r["seed"]),
                ("contract", code),
                ("made", bool(st.made())),
                ("dpoints", int(st.score_delta[team])),
                ("actual", int(r["score_delta"][team])),
                ("hand", universal_mask(rules.deck, base.dealt[seat])),
                ("joker_place", place),
                ("joker_suit", joker_suit_text(st.jokers_named)),
                ("dd_version", chunk.version),
            ):
                out[k].append(v)
    return encode_parquet(pa.table(out, schema=PART_SCHEMA))


def replay(
    frame: Frame,
    spec: str,
    sample: int,
    workers: int | None = 0,
    address: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    notice: Callable[[str], None] | None = None,
) -> pl.DataFrame:
    """One row per (sampled deal, forced contract): made, points, actual points, hand and joker, from
    the run's replay sidecar (replayed where missing or stale: in this process when ``workers`` is 0
    or None and no ``address`` is given, else on Ray; ``progress(parts done, parts)``; a run folder
    that cannot be written keeps the replays in memory and tells ``notice`` once)."""
    from fivehundred.strategies import label

    rules = rules_of(frame)
    run = frame.run
    contracts = [c for c in WHATIF_CONTRACTS if c in rules.bid_index]
    ids = sample_ids(frame, sample) if contracts else []  # a ladder without misère: nothing to replay
    logged = (
        run.scan.filter(pl.col("deal_id").is_in(pl.Series(ids, dtype=pl.Int64).implode()))
        .select(LOG_COLUMNS)
        .collect(engine="streaming")
        .sort("deal_id")
        .to_dicts()
    )
    version = replay_version(rules, label(spec))
    chunks = [logged[i : i + CHUNK_DEALS] for i in range(0, len(logged), CHUNK_DEALS)]
    keys = [
        ([r["deal_id"] for r in c for _ in contracts], [r["seed"] for r in c for _ in contracts])
        for c in chunks
    ]
    parts = sidecar_parts(
        run.log.dir,
        WHATIF_DIR,
        len(chunks),
        lambda i: keys[i],
        lambda todo: [
            ReplayChunk(i, rules, spec, version, run.path, run.variant, tuple(chunks[i])) for i in todo
        ],
        version,
        replay_chunk,
        workers or 0,
        address,
        progress,
        notice=notice,
    )
    table = pa.concat_tables(parts) if parts else PART_SCHEMA.empty_table()
    df = pl.from_arrow(table.drop_columns(["seed", "dd_version"]))
    assert isinstance(df, pl.DataFrame)
    return df.with_columns(
        (pl.col("dpoints") - pl.col("actual")).alias("diff"),
        pl.lit(label(spec)).alias("strategy"),
    )


def misere_whatif(
    frames: Sequence[Frame],
    seat_strategy: str | None,
    sample: int,
    workers: int | None = 0,
    address: str | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    notice: Callable[[str], None] | None = None,
) -> dict[str, pl.DataFrame]:
    """``misere_whatif`` and ``misere_whatif_by_feature`` for each run (see docs/statistics.md), the
    replays on ``workers`` (:func:`replay`); ``progress(run, parts done, parts)``; ``notice`` is told
    when a run's replays cannot be cached (a read-only run)."""
    if sample < 1:
        raise AnalysisError(f"--sample {sample}: must be at least 1")
    spec = seat_strategy or default_strategy()
    summary, by_feature = [], []
    for f in frames:
        report = None if progress is None else (lambda done, total, p=f.run.path: progress(p, done, total))
        d = replay(f, spec, sample, workers, address, report, notice)
        tag = f"misere_whatif/{f.run.run_id}"
        keys = ["strategy", "contract"]
        t = rate_points(d, keys, tag)
        act = bootstrap_table(d, keys, "actual", "actual", tag + "/actual").drop("actual_sd")
        diff = bootstrap_table(d, keys, "diff", "diff", tag + "/diff").drop("diff_sd")
        summary.append(
            t.join(act, on=keys, how="left")
            .join(diff, on=keys, how="left")
            .with_columns(
                *f.run_columns(),
                pl.lit(SEAT_REL, dtype=pl.Int8).alias("seat_rel"),
            )
            .select(
                "run_id",
                "variant",
                "contract",
                "strategy",
                "seat_rel",
                *RATE_COLUMNS,
                *POINTS_COLUMNS,
                "actual_mean",
                "actual_lo",
                "actual_hi",
                "diff_mean",
                "diff_lo",
                "diff_hi",
            )
        )
        feats = d.with_columns(misere_features(pl.col("hand"), pl.col("joker_place"), pl.col("joker_suit")))
        long = misere_long(
            feats.rename({"diff": "_diff", "actual": "_actual"}), ["contract", "_actual", "_diff"]
        )
        fk = ["contract", "feature", "order", "value"]
        w = pl.col("_w")
        means = long.group_by(fk).agg(
            ((pl.col("_actual") * w).sum() / w.sum()).cast(pl.Float64).alias("actual_mean"),
            ((pl.col("_diff") * w).sum() / w.sum()).cast(pl.Float64).alias("diff_mean"),
        )
        t = rate_points(long, fk, tag + "/feature", weight="_w").join(means, on=fk, how="left")
        by_feature.append(
            t.with_columns(*f.run_columns())
            .select(
                "run_id",
                "variant",
                *fk[:2],
                "value",
                "order",
                *RATE_COLUMNS,
                *POINTS_COLUMNS,
                "actual_mean",
                "diff_mean",
            )
            .sort("run_id", "contract", "feature", "order")
        )
    by_value = versus_rest(pl.concat(by_feature), ["run_id", "contract", "feature"])
    return {"misere_whatif": pl.concat(summary), "misere_whatif_by_feature": by_value}
