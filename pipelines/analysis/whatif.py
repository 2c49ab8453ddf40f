"""What-if misère: replay a sample of logged deals with a forced MIS and OMIS for the seat left of
the dealer, so misère viability is measured on every kind of hand, not only on hands a bidding
policy chose.  Each replay re-deals the logged deal from its seed (checked against the log's cards),
forces the contract with :meth:`sim.engine.State.force_contract` and plays it out with one strategy
in every seat; its points are compared with what the declarer's team really scored on that deal.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from fivehundred.pipelines.analysis.blocks import POINTS_COLUMNS, RATE_COLUMNS, rate_points
from fivehundred.pipelines.analysis.frame import Frame, manifest_rules
from fivehundred.pipelines.analysis.intervals import bootstrap_table
from fivehundred.pipelines.analysis.io import AnalysisError
from fivehundred.pipelines.analysis.misere import misere_features, misere_long
from fivehundred.pipelines.analysis.multiplicity import versus_rest
from fivehundred.sim.engine import State
from fivehundred.sim.errors import UserError
from fivehundred.sim.game import play_deal
from fivehundred.sim.notation import MISERE, OPEN_MISERE, joker_suit_text, universal_mask
from fivehundred.sim.seeding import bot_rng

WHATIF_CONTRACTS = (MISERE, OPEN_MISERE)
SEAT_REL = 1


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


def sample_deals(df: pl.DataFrame, sample: int) -> pl.DataFrame:
    """``sample`` deals spread evenly over the run in deal-id order (all deals if fewer)."""
    d = df.sort("deal_id")
    if sample >= d.height:
        return d
    idx = np.unique(np.linspace(0, d.height - 1, sample).round().astype(np.int64))
    return d[idx]


def sampled_rows(frame: Frame, sample: int) -> pl.DataFrame:
    """The per-deal rows of :func:`sample_deals` of the run, read part by part (only the deal ids of
    the whole run are held at once)."""
    ids = frame.run.scan.select("deal_id").collect()
    picked = sample_deals(ids, sample)["deal_id"]
    return frame.with_deals(picked).df.sort("deal_id")


def replay(frame: Frame, spec: str, sample: int) -> pl.DataFrame:
    """One row per (sampled deal, forced contract): made, points, actual points, hand and joker."""
    from fivehundred.strategies import label, make

    rules = rules_of(frame)
    contracts = [c for c in WHATIF_CONTRACTS if c in rules.bid_index]
    rows = sampled_rows(frame, sample)
    logged = (
        frame.run.scan.filter(pl.col("deal_id").is_in(rows["deal_id"].to_list()))
        .select("deal_id", "hands")
        .collect()
    )
    hands = dict(zip(logged["deal_id"].to_list(), logged["hands"].to_list(), strict=True))
    bots = [make(spec) for _ in range(rules.players)]
    labels = [label(spec)] * rules.players
    jokers = rules.deck.jokers
    out: dict[str, list[Any]] = {
        k: []
        for k in ("deal_id", "contract", "made", "dpoints", "actual", "hand", "joker_place", "joker_suit")
    }
    for r in rows.iter_rows(named=True):  # one replay per sampled deal (engine calls, not statistics)
        seat = (r["dealer"] + SEAT_REL) % rules.players
        base = State.deal(rules, r["seed"], r["dealer"])
        base.hand_no = r["hand_no"]
        dealt = rules.deck.names_of(base.dealt[seat])
        if sorted(dealt) != sorted(hands[r["deal_id"]][seat]):
            raise AnalysisError(
                f"{frame.run.path}: deal {r['deal_id']} does not re-deal from its seed with the rules of "
                f"{frame.run.variant!r}; cannot replay it"
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
            named = joker_suit_text(st.jokers_named)
            out["deal_id"].append(r["deal_id"])
            out["contract"].append(code)
            out["made"].append(bool(st.made()))
            out["dpoints"].append(int(st.score_delta[team]))
            out["actual"].append(int(r[f"points_t{team}"]))
            out["hand"].append(universal_mask(rules.deck, base.dealt[seat]))
            out["joker_place"].append(place)
            out["joker_suit"].append(named)
    schema = {
        "deal_id": pl.Int64,
        "contract": pl.String,
        "made": pl.Boolean,
        "dpoints": pl.Int32,
        "actual": pl.Int32,
        "hand": pl.UInt64,
        "joker_place": pl.String,
        "joker_suit": pl.String,
    }
    df = pl.DataFrame(out, schema=schema)
    return df.with_columns(
        (pl.col("dpoints") - pl.col("actual")).alias("diff"),
        pl.lit(labels[0]).alias("strategy"),
    )


def misere_whatif(frames: list[Frame], seat_strategy: str | None, sample: int) -> dict[str, pl.DataFrame]:
    """``misere_whatif`` and ``misere_whatif_by_feature`` for each run (see docs/statistics.md)."""
    if sample < 1:
        raise AnalysisError(f"--sample must be at least 1, got {sample}")
    spec = seat_strategy or default_strategy()
    summary, by_feature = [], []
    for f in frames:
        d = replay(f, spec, sample)
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
