"""The strength ladder: duplicate matches between bots, with confidence intervals, and bot speeds.

Each match plays game ``g`` twice with the same master seed, so hand ``j`` of game ``g`` has the same
cards and dealer in both runs: once with bot A's team in seats 0/2 (team 0) and bot B's in 1/3, once
swapped.  A *deal pair* is hand ``j`` of game ``g`` when both runs reached it; its value is the
points A's team gained over B's team, averaged over the two seatings.  The script prints, from the
stronger side's point of view, the mean points per deal with a 95% confidence interval from the
paired differences (deal pairs of one game are correlated through the game score, so the interval
treats each game pair as one unit: a cluster-robust interval), and the game win rate (of games with a
winner) with a 95% Wilson interval.

The ladder is random < heuristic.v1 < heuristic.v2 < montecarlo.v2 < expert.v1 (issue 14): each bot
plays the one below it (``--montecarlo montecarlo.v1`` puts v1, on heuristic.v1, in its step).
The bot table gives, from self-play, each bot's whole-game deals per second on one core, the share
of contracts that are misère, open misère and blind misère, and how often a no-trump declarer names
the joker's suit.  A misère line gives how often heuristic self-play (``--misere-games``, default
2,000 games) ends in a misère contract and how often each misère contract is made (issue 3 asks for
under ~8% of pagat-au contracts, at a made rate that reflects the risk).

    python benchmarks/ladder.py                   # the full ladder (2,000 / 1,000 / 200 deal pairs)
    python benchmarks/ladder.py --pairs 200 --mc-pairs 50 --expert-pairs 20 --speed-games 50   # quick
    python benchmarks/ladder.py --misere-only --variant club-004 --misere-games 1000
    python benchmarks/ladder.py --v2-only --pairs 3000 --workers 2   # heuristic.v2 vs v1 and speeds
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fivehundred.sim import load_rules, play_game
from fivehundred.sim.errors import UserError
from fivehundred.strategies.base import label, make

Z95 = 1.959964


@dataclass(frozen=True)
class Seating:
    """How :func:`play_pair` builds the bots, names them and plays a game: by default the strategy
    registry (``make``, ``label``) and :func:`sim.game.play_game`.  A benchmark may pass its own (a
    bot the registry must not offer, a game loop that shows it more): benchmarks/oracle.py.  The
    functions must be picklable (module level) for ``workers > 1``."""

    make: Callable[[str], Any] = make
    label: Callable[[str], str] = label
    play: Callable[..., list[dict[str, Any]]] = play_game


REGISTRY = Seating()


@dataclass
class GamePair:
    """The result of one game played twice with the teams swapped."""

    game_id: int
    diffs: list[float]  # per deal pair: points of A's team minus B's, averaged over both seatings
    seat_diffs: list[float]  # per deal of the first run: team 0's points minus team 1's (seat-bias check)
    a_wins: int  # games (0..2) won by A's team
    decided: int  # games (0..2) with a winner
    deals: int  # deals played in both runs together
    seconds: float
    #: per deal pair and seating: (kind of contract, who declared: "A"/"B"/"-", made, A's share of the gain)
    kinds: list[tuple[str, str, bool, float]] = field(default_factory=list)
    #: per deal pair (two seatings only): what each side's cards led to, and the pair's value
    swaps: list[tuple[str, float]] = field(default_factory=list)


def play_pair(
    variant: str, spec_a: str, spec_b: str, master_seed: int, game_id: int, seating: Seating = REGISTRY
) -> GamePair:
    """Play game ``game_id`` with A as team 0 and then with A as team 1.

    At a table where every seat is its own team (3 players) the game is played once with A in each
    seat and B in the others; a deal's value is A's points minus the mean of the others', averaged
    over the seatings.  ``seating`` builds, names and plays the bots (default: the registry).
    """
    rules = load_rules(variant)
    a = seating.make(spec_a)
    b = seating.make(spec_b)
    la, lb = seating.label(spec_a), seating.label(spec_b)
    n = rules.players
    alone = rules.teams == n
    t0 = time.perf_counter()
    runs = []
    for a_team in range(n if alone else 2):
        mine = [(s == a_team) if alone else (s % 2 == a_team) for s in range(n)]
        bots = [a if m else b for m in mine]
        labels = [la if m else lb for m in mine]
        runs.append((a_team, seating.play(rules, bots, master_seed, game_id, labels)))
    seconds = time.perf_counter() - t0

    def gain(t: int, delta: list[int]) -> float:
        others = [d for u, d in enumerate(delta) if u != t]
        return delta[t] - sum(others) / len(others)

    diffs = []
    for j in range(min(len(r) for _, r in runs)):
        diffs.append(sum(gain(t, r[j]["score_delta"]) for t, r in runs) / len(runs))
    kinds = []
    for j in range(len(diffs)):
        for t, r in runs:
            rec = r[j]
            code = rec["contract"]
            side = "-" if code is None else ("A" if rec["declarer_team"] == t else "B")
            kinds.append(
                (contract_kind(rules, code), side, bool(rec["made"]), gain(t, rec["score_delta"]) / len(runs))
            )
    swaps = []
    if not alone:
        for j, d in enumerate(diffs):
            swaps.append((swap_key(rules, la, lb, runs[0][1][j], runs[1][1][j]), d))
    seat_diffs = [gain(0, r["score_delta"]) for r in runs[0][1]]
    a_wins = sum(1 for t, r in runs if r[-1]["winner"] == t)
    decided = sum(1 for _, r in runs if r[-1]["winner"] is not None)
    deals = sum(len(r) for _, r in runs)
    return GamePair(game_id, diffs, seat_diffs, a_wins, decided, deals, seconds, kinds, swaps)


def swap_key(rules: Any, la: str, lb: str, r0: dict[str, Any], r1: dict[str, Any]) -> str:
    """What the two seatings of one deal did: ``r0`` with A in the even seats, ``r1`` with A in the
    odd ones.  When the same cards declared in both, "same hands: A's contract / B's contract";
    otherwise each seating's declarer (by bot) and contract."""

    def what(r: dict[str, Any]) -> str:
        if r["contract"] is None:
            return "thrown in"
        return f"{contract_kind(rules, r['contract'])} {'made' if r['made'] else 'failed'}"

    if r0["contract"] is not None and r1["contract"] is not None and r0["declarer"] % 2 == r1["declarer"] % 2:
        a_run, b_run = (r0, r1) if r0["declarer"] % 2 == 0 else (r1, r0)
        return f"same hands: {la} {what(a_run)} / {lb} {what(b_run)}"
    parts = []
    for r, a_even in ((r0, True), (r1, False)):
        if r["contract"] is None:
            parts.append("thrown in")
        else:
            bot = la if (r["declarer"] % 2 == 0) == a_even else lb
            parts.append(f"{bot} {what(r)}")
    return "other hands: " + " / ".join(sorted(parts))


def contract_kind(rules: Any, code: str | None) -> str:
    """The kind of a contract for the breakdown: thrown in, misère, open or blind misère, NT, a suit
    contract by level (6, 7, 8+)."""
    if code is None:
        return "thrown in"
    b = rules.ladder[rules.bid_index[code]]
    if b.misere:
        return "blind misère" if b.blind else "open misère" if b.open else "misère"
    level = f"{b.tricks}" if b.tricks < 8 else "8+"
    return f"{level}NT" if b.trump == 4 else f"{level} suit"


def format_breakdown(r: dict[str, Any]) -> list[str]:
    """Where A's points per deal come from: per kind of contract, who declared it and whether it was
    made, the number of seatings and the contribution to the mean (the contributions add up to it)."""
    cells: dict[tuple[str, str, bool], list[float]] = {}
    for kind, side, made, g in r["kinds"]:
        c = cells.setdefault((kind, side, made if side != "-" else False), [0, 0.0])
        c[0] += 1
        c[1] += g
    n = r["deal_pairs"]
    out = [f"breakdown of {r['a']} vs {r['b']} (A = {r['a']}; contribution to points/deal):"]
    for (kind, side, made), (k, g) in sorted(cells.items(), key=lambda kv: kv[1][1]):
        who = {"A": "A declares", "B": "B declares", "-": ""}[side]
        res = "" if side == "-" else ("made" if made else "failed")
        out.append(f"  {kind:>12} {who:>10} {res:>6}: {k:6d} seatings, {g / n:+6.2f}")
    swaps: dict[str, list[float]] = {}
    for key, d in r["swaps"]:
        c = swaps.setdefault(key, [0, 0.0])
        c[0] += 1
        c[1] += d
    if swaps:
        out.append("by what each side's cards led to (deal pairs, contribution to points/deal):")
        ranked = sorted(swaps.items(), key=lambda kv: kv[1][1])
        for key, (k, g) in [*ranked[:15], ("...", [0, 0.0]), *ranked[-15:]]:
            out.append(f"  {key}: {k} pairs, {g / n:+.2f}" if k else "  ...")
    return out


def _pair_task(args: tuple[str, str, str, int, int, Seating]) -> GamePair:
    return play_pair(*args)


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``k / n``."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def cluster_ci(groups: list[list[float]], z: float = Z95) -> tuple[float, float, float]:
    """Mean per item and a 95% interval that treats each group (a game pair) as one independent unit."""
    sizes = [len(g) for g in groups if g]
    sums = [sum(g) for g in groups if g]
    total = sum(sizes)
    m = sum(sums) / total
    k = len(sizes)
    if k < 2:
        return m, m, m
    var = sum((s - m * n) ** 2 for s, n in zip(sums, sizes, strict=True)) * k / (k - 1)
    half = z * math.sqrt(var) / total
    return m, m - half, m + half


def run_match(
    variant: str,
    spec_a: str,
    spec_b: str,
    pairs: int,
    master_seed: int,
    workers: int,
    seating: Seating = REGISTRY,
) -> dict[str, Any]:
    """Play game pairs in game-id order until at least ``pairs`` deal pairs; summarise the match
    (``seating``: see :func:`play_pair`)."""
    results: list[GamePair] = []
    got = 0
    next_game = 0
    batch = max(workers * 4, 8)
    pool = ProcessPoolExecutor(workers) if workers > 1 else None
    try:
        while got < pairs:
            games = range(next_game, next_game + batch)
            tasks = [(variant, spec_a, spec_b, master_seed, g, seating) for g in games]
            next_game += batch
            done = list(pool.map(_pair_task, tasks)) if pool else [_pair_task(t) for t in tasks]
            for gp in done:  # in game order: the result does not depend on the number of workers
                if got >= pairs:
                    break
                results.append(gp)
                got += len(gp.diffs)
    finally:
        if pool:
            pool.shutdown()
    rules = load_rules(variant)
    runs = rules.players if rules.teams == rules.players else 2  # seatings per game (play_pair)
    diffs = [d for gp in results for d in gp.diffs]
    m, lo, hi = cluster_ci([gp.diffs for gp in results])
    seat = cluster_ci([gp.seat_diffs for gp in results])
    wins = sum(gp.a_wins for gp in results)
    decided = sum(gp.decided for gp in results)
    return {
        "a": seating.label(spec_a),
        "b": seating.label(spec_b),
        "games": runs * len(results),
        "deal_pairs": len(diffs),
        "mean": m,
        "lo": lo,
        "hi": hi,
        "a_wins": wins,
        "decided": decided,
        "seconds": sum(gp.seconds for gp in results),
        "deals": sum(gp.deals for gp in results),
        "seat_check": seat,
        "kinds": [k for gp in results for k in gp.kinds],
        "swaps": [k for gp in results for k in gp.swaps],
    }


def format_match(r: dict[str, Any]) -> str:
    """One line per match, from the stronger side's point of view."""
    a, b, m, lo, hi = r["a"], r["b"], r["mean"], r["lo"], r["hi"]
    wins, decided = r["a_wins"], r["decided"]
    if m < 0:
        a, b, m, lo, hi = b, a, -m, -hi, -lo
        wins = decided - wins
    wlo, whi = wilson(wins, decided)
    rate = wins / decided if decided else float("nan")
    return (
        f"{a} vs {b}: {r['deal_pairs']} deal pairs, {r['games']} games | "
        f"points/deal {m:+.1f} [95% CI {lo:+.1f}, {hi:+.1f}] | "
        f"games won {wins}/{decided} = {rate:.1%} [95% CI {wlo:.1%}, {whi:.1%}]"
    )


def speed(variant: str, spec: str, games: int, master_seed: int, max_seconds: float) -> tuple[float, int]:
    """Whole-game deals per CPU second of ``spec`` in self-play (one process: one core).

    CPU time of this process is used, not wall time, so that other work on a shared machine does not
    count against the bot; it stops after ``max_seconds`` of CPU time.
    """
    p = self_play(variant, spec, games, master_seed, max_seconds)
    return p["dps"], p["deals"]


def misere_stats(variant: str, spec: str, games: int, master_seed: int) -> dict[str, Any]:
    """How often ``spec`` in every seat ends in a misère contract, and how often it is made
    (:func:`self_play` over games ``0 .. games - 1``, without a time limit)."""
    return self_play(variant, spec, games, master_seed, math.inf, first_game=0)


def format_misere(variant: str, spec: str, s: dict[str, Any]) -> str:
    """One line: the misère share of contracts and each misère contract's made rate."""
    total = sum(n for n, _ in s["misere"].values())
    share = total / s["contracts"] if s["contracts"] else 0.0
    parts = [
        f"{code} {made}/{n} made ({made / n:.0%})" for code, (n, made) in sorted(s["misere"].items()) if n
    ]
    return (
        f"misère ({label(spec)} self-play, {variant}, {s['games']} games): {total}/{s['contracts']} "
        f"contracts = {share:.1%}; " + ("; ".join(parts) or "none") + f"; joker named in "
        f"{s['nt'][1]}/{s['nt'][0]} NT contracts"
    )


#: The ladder, weakest first: each step is a duplicate match of a bot against the one below it.
#: ``montecarlo`` and ``expert`` stand for the ``--montecarlo`` and ``--expert`` specs.
LADDER = ("random", "heuristic.v1", "heuristic.v2", "montecarlo", "expert")


def self_play(
    variant: str, spec: str, games: int, master_seed: int, max_seconds: float, first_game: int = 10_000
) -> dict[str, Any]:
    """Self-play of ``spec`` in every seat: deals per CPU second, and what was bid.

    Plays up to ``games`` whole games from game ``first_game`` on (stopping after ``max_seconds`` of
    this process's CPU time) and returns the deals per second, the number of contracts, per misère
    code the number bid and made, and the no-trump contracts with the number in which the declarer
    named a joker's suit.
    """
    rules = load_rules(variant)
    bots = [make(spec) for _ in range(rules.players)]
    deals = contracts = 0
    per: dict[str, list[int]] = {}
    nt = [0, 0]
    t0 = time.process_time()
    played = 0
    for g in range(games):
        records = play_game(rules, bots, master_seed, first_game + g)
        played += 1
        deals += len(records)
        for r in records:
            code = r["contract"]
            if code is None:
                continue
            contracts += 1
            if code.endswith("NT"):
                nt[0] += 1
                nt[1] += r["joker_suit"] is not None
            if rules.ladder[rules.bid_index[code]].misere:
                row = per.setdefault(code, [0, 0])
                row[0] += 1
                row[1] += r["declarer_tricks"] == 0
        if time.process_time() - t0 > max_seconds:
            break
    cpu = time.process_time() - t0
    return {
        "games": played,
        "deals": deals,
        "dps": deals / cpu,
        "contracts": contracts,
        "misere": per,
        "nt": nt,
    }


def mixed_speed(
    variant: str, spec: str, other: str, games: int, master_seed: int, max_seconds: float
) -> tuple[float, int]:
    """Deals per CPU second with ``spec`` in the even seats and ``other`` in the odd ones (whole games
    from game 10,000 on, stopping after ``max_seconds`` of this process's CPU time)."""
    rules = load_rules(variant)
    bots = [make(spec if s % 2 == 0 else other) for s in range(rules.players)]
    deals = 0
    t0 = time.process_time()
    for g in range(games):
        deals += len(play_game(rules, bots, master_seed, 10_000 + g))
        if time.process_time() - t0 > max_seconds:
            break
    return deals / (time.process_time() - t0), deals


def format_profile(spec: str, p: dict[str, Any]) -> str:
    """One line of the bot table: speed, misère and open-misère share, joker naming frequency."""
    n = p["contracts"] or 1
    mis = sum(k for code, (k, _) in p["misere"].items() if not code.startswith(("OMIS", "BMIS")))
    omis = sum(k for code, (k, _) in p["misere"].items() if code.startswith("OMIS"))
    bmis = sum(k for code, (k, _) in p["misere"].items() if code.startswith("BMIS"))
    nt, named = p["nt"]
    return (
        f"| {label(spec)} | {p['dps']:,.2f} | {p['deals']} | {mis / n:.1%} | {omis / n:.1%} | {bmis / n:.1%} "
        f"| {named}/{nt} = {named / nt if nt else 0:.0%} |"
    )


def input_error(variant: str, specs: Sequence[str], build: Callable[[str], Any] = make) -> str | None:
    """What is wrong with a benchmark's rules and bots (one line), or ``None``: checked before any
    game is played, so a mistake is an ``error:`` line, not a traceback from a worker."""
    try:
        load_rules(variant)
        for spec in specs:
            build(spec)
    except UserError as e:
        return str(e)
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the ladder and print it."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="pagat-au")
    ap.add_argument("--seed", type=int, default=500)
    ap.add_argument("--pairs", type=int, default=2000, help="deal pairs per match (default 2000)")
    ap.add_argument("--mc-pairs", type=int, default=1000, help="deal pairs for montecarlo matches")
    ap.add_argument("--expert-pairs", type=int, default=200, help="deal pairs for the expert match")
    ap.add_argument("--montecarlo", default="montecarlo.v2", help="the Monte Carlo step's spec")
    ap.add_argument("--expert", default="expert", help="expert spec (default settings)")
    ap.add_argument("--workers", type=int, default=1, help="processes for the matches")
    ap.add_argument("--speed-games", type=int, default=300, help="self-play games for the bot table")
    ap.add_argument("--speed-seconds", type=float, default=30.0, help="CPU seconds per bot for the bot table")
    ap.add_argument("--skip-mc", action="store_true", help="leave out montecarlo and expert")
    ap.add_argument("--skip-expert", action="store_true", help="leave out expert")
    ap.add_argument("--speed-only", action="store_true", help="only the bot table, no matches")
    ap.add_argument(
        "--misere-games", type=int, default=2000, help="heuristic self-play games for the misère line"
    )
    ap.add_argument("--misere-only", action="store_true", help="only the misère frequency line")
    ap.add_argument(
        "--pair-speed",
        action="store_true",
        help="only the deals per CPU second of --expert in two seats against heuristic.v2",
    )
    ap.add_argument("--pair-baseline", default="", help="--pair-speed: a spec measured first, for a ratio")
    ap.add_argument(
        "--v2-only",
        action="store_true",
        help="only heuristic.v2 vs heuristic.v1 (--pairs deal pairs), their misère lines and speeds",
    )
    ap.add_argument("--a", default="heuristic.v2", help="--v2-only: the first bot (default heuristic.v2)")
    ap.add_argument("--b", default="heuristic.v1", help="--v2-only: the second bot (default heuristic.v1)")
    ap.add_argument("--breakdown", action="store_true", help="--v2-only: points per deal by kind of contract")
    args = ap.parse_args(argv)
    named = [args.a, args.b, args.montecarlo, args.expert]
    problem = input_error(args.variant, named + ([args.pair_baseline] if args.pair_baseline else []))
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if args.pair_speed:
        base = None
        for spec in (args.pair_baseline, args.expert) if args.pair_baseline else (args.expert,):
            dps, deals = mixed_speed(
                args.variant, spec, "heuristic.v2", args.speed_games, args.seed, args.speed_seconds
            )
            ratio = f", {dps / base:.2f} x the first" if base else ""
            who = f"{label(spec)} in two seats against heuristic.v2"
            print(f"{who}: {dps:.2f} deals/s ({deals} deals{ratio})", flush=True)
            base = base or dps
        return 0
    if args.misere_only:
        for spec in ("heuristic.v1", "heuristic.v2"):
            s = misere_stats(args.variant, spec, args.misere_games, args.seed)
            print(format_misere(args.variant, spec, s), flush=True)
        return 0
    if args.v2_only:
        print(f"variant {args.variant}, master seed {args.seed}, workers {args.workers}")
        r = run_match(args.variant, args.a, args.b, args.pairs, args.seed, args.workers)
        print(format_match(r), f"| {r['seconds']:.1f} cpu-s", flush=True)
        if args.breakdown:
            print("\n".join(format_breakdown(r)), flush=True)
        if args.misere_games:
            for spec in ("heuristic.v1", "heuristic.v2"):
                s = misere_stats(args.variant, spec, args.misere_games, args.seed)
                print(format_misere(args.variant, spec, s), flush=True)
        if args.speed_games:
            print("speed (self-play, whole games, deals per CPU second of one process = one core):")
            for spec in ("heuristic.v1", "heuristic.v2"):
                dps, deals = speed(args.variant, spec, args.speed_games, args.seed, 30.0)
                print(f"  {label(spec)}: {dps:,.0f} deals/s ({deals} deals)", flush=True)
        return 0

    specs = {"montecarlo": args.montecarlo, "expert": args.expert}
    bots = [specs.get(b, b) for b in LADDER]
    if args.skip_mc:
        bots = bots[:3]
    elif args.skip_expert:
        bots = bots[:4]
    sizes = {args.montecarlo: args.mc_pairs, args.expert: args.expert_pairs}
    print(f"variant {args.variant}, master seed {args.seed}, workers {args.workers}")
    if not args.speed_only:
        print("ladder (duplicate matches, each bot against the one below it):")
        for lower, upper in itertools.pairwise(bots):
            n = sizes.get(upper, args.pairs)
            r = run_match(args.variant, upper, lower, n, args.seed, args.workers)
            print(f"  {format_match(r)} | {r['seconds']:.1f} cpu-s", flush=True)
    print(
        f"bots (self-play, up to {args.speed_games} games or {args.speed_seconds:g} CPU seconds each; "
        "deals per CPU second of one process = one core; shares of all contracts):"
    )
    print("| bot | deals/s | deals | misère | open misère | blind misère | NT contracts naming the joker |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for spec in bots:
        p = self_play(args.variant, spec, args.speed_games, args.seed, args.speed_seconds)
        print(format_profile(spec, p), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
