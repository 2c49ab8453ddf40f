"""A finished tournament's results as Markdown (``tables/tournament.md``)."""

from __future__ import annotations

from typing import Any

import polars as pl

from fivehundred.pipelines.tournament.config import TournamentConfig
from fivehundred.pipelines.tournament.live import fmt_num


def _md_table(df: pl.DataFrame, digits: int = 2) -> str:
    def cell(v: Any) -> str:
        if v is None:
            return ""
        if isinstance(v, float):
            return fmt_num(v, digits)
        return str(v)

    head = "| " + " | ".join(df.columns) + " |"
    sep = "|" + "|".join("---" for _ in df.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.iter_rows()]
    return "\n".join([head, sep, *body])


def markdown_report(
    config: TournamentConfig,
    run_id: str,
    counts: dict[str, int],
    matches: pl.DataFrame,
    entries: pl.DataFrame,
) -> str:
    """The tournament's results as Markdown."""
    stop = config.stop
    if stop.rule == "sprt":
        rule = (
            f"SPRT elo0 = {stop.elo0:g}, elo1 = {stop.elo1:g}, alpha = {stop.alpha:g}, beta = {stop.beta:g}, "
            f"at most {stop.pairs} pairs per match"
        )
    else:
        rule = f"{stop.pairs} game pairs per match"
    lines = [
        f"# Tournament {config.name}",
        "",
        f"- run id: `{run_id}`; variant `{config.variant}`; seed {config.seed}; format {config.format}",
        f"- stopping rule: {rule}",
        f"- played: {counts['pairs']} game pairs, {counts['games']} games, {counts['deals']} deals "
        "(every game in duplicate: the same boards twice, partnerships swapping seats)",
        f"- intervals: {100 * config.confidence:g}%; ratings: Bradley–Terry, "
        f"{'bootstrap over game pairs' if config.interval == 'bootstrap' else 'Fisher information'}, "
        f"prior {config.prior:g} drawn game(s) per pairing",
        "",
        "## Entries",
        "",
        _md_table(entries, 3),
        "",
        "## Matches",
        "",
        "Scores, Elo and points per deal (`ppd_diff`) are entry_a's; `penta_k` counts game pairs in "
        "which entry_a scored k/2 points.",
        "",
        _md_table(matches, 3),
        "",
    ]
    return "\n".join(lines)
