"""The strength ladder: duplicate matches between bots with 95% intervals, and the bots' speeds.

Every match is played by the tournament module (``fivehundred.pipelines.tournament.duplicate``): board
``g`` is game ``g`` of the master seed, played once with each bot's partnership in the even seats, and
a deal pair is the same hand of the same board in both games.  Each line gives, from the stronger
side's point of view, the points a deal with a 95% interval clustered by board, and the games won
with a Wilson interval; ``--breakdown`` adds where the points come from by kind of contract.  The bot
table gives each bot's deals per CPU second in self-play (four seats, one process = one core), all
measured in this one run, and the share of contracts that are misère, open and blind misère.

    python benchmarks/ladder.py --workers 2                          # the whole ladder
    python benchmarks/ladder.py --bots random,heuristic.v1 --pairs 500 --speed-games 20
    python benchmarks/ladder.py --match expert heuristic.v1 --pairs 2000 --breakdown --workers 2
    python benchmarks/ladder.py --match expert.v2 expert.v1 --pairs 1000 --seeds 17,19 --workers 2
    python benchmarks/ladder.py --speed-only --speed-seconds 20
    python benchmarks/ladder.py --speed-only --bots heuristic.v1,heuristic.v5 --speed-games 10000 \
        --speed-seconds 60 --speed-rounds 10                         # ratios on a busy machine
    python benchmarks/ladder.py --pair-speed expert.v1,expert.v2    # two seats against heuristic.v2
    python benchmarks/ladder.py --misere-only --variant club-004
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import subprocess
import sys
from pathlib import Path

from fivehundred.pipelines.tournament import InProcessExecutor, RayExecutor
from fivehundred.pipelines.tournament.duplicate import (
    SelfPlay,
    breakdown_lines,
    duplicate_match,
    match_line,
    pooled_line,
    self_play,
)
from fivehundred.sim.errors import UserError
from fivehundred.sim.rules import load_rules
from fivehundred.strategies.base import check_spec, label

#: The ladder, weakest first: each bot plays the one below it.
LADDER = (
    "random.v1",
    "heuristic.v1",
    "heuristic.v2",
    "heuristic.v3",
    "heuristic.v4",
    "heuristic.v5",
    "montecarlo.v2",
    "expert.v1",
    "expert.v2",
)
#: Bots whose matches get ``--search-pairs`` deal pairs (they play a few deals a second).
SEARCH = ("montecarlo", "expert")


def profile_row(spec: str, p: SelfPlay) -> str:
    """One row of the bot table: speed, misère shares, joker naming in NT."""
    n = p.contracts or 1
    share = {kind: 0 for kind in ("MIS", "OMIS", "BMIS")}
    for code, (k, _) in p.misere.items():
        share["OMIS" if code.startswith("OMIS") else "BMIS" if code.startswith("BMIS") else "MIS"] += k
    nt, named = p.nt
    return (
        f"| {label(spec)} | {p.deals_per_second:,.2f} | {p.deals} | {share['MIS'] / n:.1%} | "
        f"{share['OMIS'] / n:.1%} | {share['BMIS'] / n:.1%} | {named}/{nt} |"
    )


def misere_line(variant: str, spec: str, p: SelfPlay) -> str:
    """The misère share of contracts in self-play and each misère contract's made rate."""
    total = sum(k for k, _ in p.misere.values())
    parts = [f"{code} {made}/{k} made ({made / k:.0%})" for code, (k, made) in sorted(p.misere.items()) if k]
    return (
        f"misère ({label(spec)} self-play, {variant}, {p.games} games): {total}/{p.contracts} contracts = "
        f"{total / (p.contracts or 1):.1%}; " + ("; ".join(parts) or "none")
    )


def interleaved_self_play(
    variant: str, specs: list[str], games: int, seed: int, seconds: float, rounds: int
) -> list[SelfPlay]:
    """Each bot's self-play over ``rounds`` rounds: in each, every bot plays the round's games (the
    same games for every bot, up to ``seconds / rounds`` CPU seconds), the bots' order reversed from
    one round to the next, so a change of the machine's load during the run falls on every bot alike.
    One round is :func:`self_play` of each bot in turn."""
    per = max(1, games // rounds)
    out = [SelfPlay(0, 0, 0.0, 0, {}, [0, 0]) for _ in specs]
    for r in range(rounds):
        order = range(len(specs)) if r % 2 == 0 else reversed(range(len(specs)))
        for i in order:
            out[i].add(
                self_play(variant, [specs[i]], per, seed, seconds / rounds, first_game=10_000 + r * per)
            )
    return out


def commit() -> str:
    """The checkout's commit (for the record), or ``unknown``."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    """Run what the options ask and print it."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="pagat-au")
    ap.add_argument("--seed", type=int, default=500, help="master seed of the deals (default 500)")
    ap.add_argument("--bots", default=",".join(LADDER), help="the ladder, weakest first (comma-separated)")
    ap.add_argument("--pairs", type=int, default=2000, help="deal pairs per match (default 2000)")
    ap.add_argument(
        "--search-pairs",
        type=int,
        default=0,
        help="deal pairs of a match with a search bot (default --pairs)",
    )
    ap.add_argument(
        "--match", nargs=2, metavar=("A", "B"), help="one match, A against B, instead of the ladder"
    )
    ap.add_argument(
        "--seeds",
        metavar="SEEDS",
        help="with --match: one match on each of these master seeds (comma-separated, instead of "
        "--seed), then the matches pooled by inverse variance",
    )
    ap.add_argument("--breakdown", action="store_true", help="where each match's points come from")
    ap.add_argument("--workers", type=int, default=1, help="processes for the matches (2+: Ray, default 1)")
    ap.add_argument("--speed-games", type=int, default=300, help="self-play games per bot for the bot table")
    ap.add_argument("--speed-seconds", type=float, default=30.0, help="CPU seconds per bot for the bot table")
    ap.add_argument(
        "--speed-rounds",
        type=int,
        default=1,
        help="split each bot's games into this many rounds, the bots alternating (steadier ratios on "
        "a busy machine; default 1)",
    )
    ap.add_argument("--speed-only", action="store_true", help="only the bot table")
    ap.add_argument("--no-speed", action="store_true", help="no bot table")
    ap.add_argument(
        "--pair-speed",
        metavar="SPECS",
        help="only the deals per CPU second of each of these bots (comma-separated) in two seats "
        "against heuristic.v2",
    )
    ap.add_argument("--misere-only", action="store_true", help="only the misère lines of the two heuristics")
    ap.add_argument("--misere-games", type=int, default=1000, help="self-play games for the misère lines")
    args = ap.parse_args(argv)
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    pair_specs = [b.strip() for b in (args.pair_speed or "").split(",") if b.strip()]
    try:
        seeds = [int(s) for s in (args.seeds or str(args.seed)).split(",") if s.strip()]
    except ValueError:
        print(f"error: --seeds {args.seeds!r}: expected whole numbers separated by commas", file=sys.stderr)
        return 2
    try:
        if args.seeds and not args.match:
            raise UserError("--seeds goes with --match (the ladder plays on --seed)")
        if not seeds or len(set(seeds)) != len(seeds):
            raise UserError(f"--seeds {args.seeds!r}: give at least one seed, each once")
        if args.speed_rounds < 1 or args.speed_games < 1:
            raise UserError("--speed-rounds and --speed-games must be at least 1")
        load_rules(args.variant)
        for spec in [*bots, *(args.match or []), *pair_specs]:
            check_spec(spec)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    when = datetime.date.today().isoformat()
    master = f"master seeds {args.seeds}" if len(seeds) > 1 else f"master seed {seeds[0]}"
    print(f"variant {args.variant}, {master}, workers {args.workers}, {when}, commit {commit()}")
    if args.pair_speed:
        for spec in pair_specs:
            seats = [spec, "heuristic.v2"]
            p = self_play(args.variant, seats, args.speed_games, args.seed, args.speed_seconds)
            rate = f"{p.deals_per_second:.2f} deals/s ({p.deals} deals)"
            print(f"{label(spec)} in two seats against heuristic.v2: {rate}", flush=True)
        return 0
    if args.misere_only:
        for spec in ("heuristic.v1", "heuristic.v2"):
            p = self_play(args.variant, [spec], args.misere_games, args.seed, first_game=0)
            print(misere_line(args.variant, spec, p), flush=True)
        return 0
    executor = RayExecutor(args.workers) if args.workers > 1 else InProcessExecutor()
    matches = [tuple(args.match)] if args.match else [(hi, lo) for lo, hi in itertools.pairwise(bots)]
    if not args.speed_only:
        for a, b in matches:
            search = any(label(s).startswith(SEARCH) for s in (a, b))
            n = args.search_pairs if search and args.search_pairs else args.pairs
            results = []
            for seed in seeds:
                result = duplicate_match(args.variant, a, b, n, seed, executor)
                results.append(result)
                where = f"seed {seed}: " if len(seeds) > 1 else ""
                print(f"  {where}{match_line(result)} | {result.seconds:.1f} s", flush=True)
                if args.breakdown:
                    print("\n".join(breakdown_lines(result)), flush=True)
            if len(results) > 1:
                print(f"  {pooled_line(results)}", flush=True)
    if args.speed_only or not (args.no_speed or args.match):
        print(
            f"bots (self-play, up to {args.speed_games} games or {args.speed_seconds:g} CPU seconds each; "
            "deals per CPU second of one process = one core; shares of all contracts):"
        )
        print(
            "| bot | deals/s | deals | misère | open misère | blind misère | NT contracts naming the joker |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
        if args.speed_rounds == 1:
            for spec in bots:
                p = self_play(args.variant, [spec], args.speed_games, args.seed, args.speed_seconds)
                print(profile_row(spec, p), flush=True)
        else:
            runs = interleaved_self_play(
                args.variant, bots, args.speed_games, args.seed, args.speed_seconds, args.speed_rounds
            )
            for spec, p in zip(bots, runs, strict=True):
                print(profile_row(spec, p), flush=True)
            first = runs[0].deals_per_second
            ratios = ", ".join(
                f"{label(s)} {p.deals_per_second / first:.1%}" for s, p in zip(bots, runs, strict=True)
            )
            print(f"deals/s against {label(bots[0])}'s, {args.speed_rounds} rounds alternated: {ratios}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
