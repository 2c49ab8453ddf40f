"""The report's sections, in order: one function per section, each returning a
:class:`~reports.section.Section` (title, reading, methods text, figures, tables, the bots it
describes, why it may have nothing to show).  A new section is one more function listed once in
:data:`SECTION_BUILDERS`; :mod:`reports.build` renders them.
"""

from __future__ import annotations

from collections.abc import Callable

from fivehundred.reports import figures
from fivehundred.reports import section_tables as st
from fivehundred.reports.dd import dd_section
from fivehundred.reports.section import Context, FigureSlot, Section, TableSlot


def overview_section(ctx: Context) -> Section:
    """What was simulated, per run."""
    return Section(
        "overview",
        "Overview",
        "What was simulated: deals, games, thrown-in deals and contracts per run.",
        methods="Counts from the deal log; shares carry 95% Wilson intervals.",
        tables=(TableSlot("overview", st.overview_table),),
        strategies=ctx.lineups(),
    )


def contracts_section(ctx: Context) -> Section:
    """How often each contract is played and made."""
    return Section(
        "contracts",
        "Contracts",
        "How often each contract is played and how often it is made, with 95% intervals.",
        methods="Success rates and shares of deals: Wilson intervals; expected points: bootstrap means.",
        figures=(FigureSlot("contracts", figures.contracts_chart),),
        tables=(
            TableSlot("contracts", st.contracts_table),
            TableSlot("success_by_level", st.level_table),
            TableSlot("success_by_seat", st.seat_table),
        ),
        strategies=ctx.lineups(),
    )


def trumps_section(ctx: Context) -> Section:
    """Suit contracts by the declarer's dealt trumps."""
    return Section(
        "trumps",
        "Trump holding",
        "Suit contracts by the declarer's dealt trumps (joker and bowers count as trumps).",
        methods=(
            f"Heatmap cells show the share made and the number of contracts; cells under "
            f"{figures.MIN_N} contracts are blank and cells under {figures.FEW_N} are hatched (their "
            "Wilson interval is wider than ±15 points). Pooled panels: Wilson intervals."
        ),
        figures=(FigureSlot("trumps", figures.trumps_chart), FigureSlot("bowers", figures.bowers_chart)),
        tables=(TableSlot("success_by_trumps_joker", st.trumps_table, optional=True, appendix=True),),
        strategies=ctx.lineups(),
        absent="no suit contract was played",
    )


def misere_section(ctx: Context) -> Section:
    """Misère and open misère, as bid and forced."""
    return Section(
        "misere",
        "Misère and open misère",
        "Misère bids as played, and (if analysed) forced misère on every kind of hand. Hand features of "
        "bid misères are the declarer's final 10 cards; of forced ones, the hand as dealt.",
        methods=(
            "The what-if forces each misère contract on the seat left of the dealer for a sample of deals "
            "and plays it out with the same bots; rates carry Wilson intervals."
        ),
        figures=(FigureSlot("misere", figures.misere_chart),),
        tables=(
            TableSlot("misere", st.misere_table),
            TableSlot(
                "misere_by_feature",
                st.misere_feature_table("misere_by_feature", "misère as bid (final 10 cards)"),
                optional=True,
                appendix=True,
            ),
            TableSlot("misere_whatif", st.whatif_table, optional=True),
            TableSlot(
                "misere_whatif_by_feature",
                st.misere_feature_table("misere_whatif_by_feature", "forced misère (dealt hand)"),
                optional=True,
                appendix=True,
            ),
        ),
        strategies=ctx.lineups(),
        absent="no misère was played and none was forced (analyze --what-if misere)",
    )


def strategies_section(ctx: Context) -> Section:
    """Points per deal and games won, per strategy and team line-up."""
    return Section(
        "strategies",
        "Strategies",
        "Points per deal and games won, per strategy and per team line-up.",
        methods=(
            "Intervals clustered by game (partners share a score, deals share a game). Points per deal "
            "weigh every deal alike; games won count what the rules reward. The two can disagree: a bolder "
            "team can lose points on average through costly failed contracts and still win more games, "
            "because a game ends at 500 (or −500) and big swings decide it. The paired comparison "
            "(the same deals with the seats swapped: a duplicate run given to report --compare, or a "
            "tournament) is the clean test of which bot is better."
        ),
        figures=(FigureSlot("strategies", figures.strategies_chart),),
        tables=(
            TableSlot("strategies", st.strategies_table),
            TableSlot("strategy_disagreement", st.disagreement_note, optional=True),
            TableSlot("tournament_entries", st.tournament_entries_table, optional=True),
            TableSlot("tournament_matches", st.tournament_matches_table, optional=True),
        ),
        strategies=ctx.lineups(),
    )


def effects_section(ctx: Context) -> Section:
    """Paired differences between runs with the same seed."""
    return Section(
        "effects",
        "Variant effects",
        "Runs with the same seed compared deal by deal (run minus base).",
        methods=(
            "Paired differences over the deals both runs played; Holm-adjusted p-values over the metrics "
            "of one compared run. Success rates compared unpaired are kept apart."
        ),
        figures=(FigureSlot("effects", figures.effects_chart),),
        tables=(
            TableSlot("effects", st.effects_table, optional=True),
            TableSlot("success_comparison", st.success_comparison_table, optional=True),
        ),
        strategies=ctx.lineups(),
        absent="no run with the same seed and table to compare with",
    )


def tables_section(ctx: Context) -> Section:
    """Runs on other tables, compared unpaired."""
    return Section(
        "tables",
        "Comparing tables",
        "Runs on other tables (another number of players or teams, or another deck) deal different cards "
        "from the same seed, so they are compared unpaired: each run's rate or mean with its own 95% "
        "interval, and the difference (run − base) with an interval for independent samples.",
        methods="Unpaired: Wilson intervals per run, Newcombe intervals for differences of rates.",
        figures=(FigureSlot("tables", figures.tables_chart),),
        tables=(TableSlot("table_comparison", st.table_comparison_table, optional=True),),
        strategies=ctx.lineups(),
        absent="every run is on the same table",
    )


def games_section(ctx: Context) -> Section:
    """Game length, game ends and score trajectories."""
    return Section(
        "games",
        "Games",
        "How long games last, how they end, and how the scores get there.",
        methods=(
            "Each game counted once; shares of games carry Wilson intervals, mean scores bootstrap "
            "intervals; late deals are drawn while at least max(10, 1%) of the games still run."
        ),
        figures=(
            FigureSlot("games", figures.games_chart),
            FigureSlot("trajectories", figures.trajectories_chart),
        ),
        tables=(
            TableSlot("game_ends", st.game_ends_table),
            TableSlot("score_trajectories", st.trajectories_table),
        ),
        strategies=ctx.lineups(),
    )


def methods_section(ctx: Context) -> Section:
    """Rules, strategies, seeds, counts and versions of every run."""
    text = st.methods(ctx.dirs, ctx.manifests, ctx.tables, ctx.runs)
    return Section(
        "methods",
        "Methods",
        "Rules, strategies, seeds, counts and versions.",
        tables=(TableSlot("methods", lambda _t, _r: text),),
        depends_on_bots=False,
        always_shown=True,
    )


#: Every section in report order: one function per section, listed once.
SECTION_BUILDERS: tuple[Callable[[Context], Section], ...] = (
    overview_section,
    contracts_section,
    trumps_section,
    misere_section,
    strategies_section,
    effects_section,
    tables_section,
    games_section,
    dd_section,
    methods_section,
)


def sections(ctx: Context) -> list[Section]:
    """The report's sections for ``ctx``, in order."""
    return [build(ctx) for build in SECTION_BUILDERS]
