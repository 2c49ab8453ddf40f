"""Golden playthroughs: whole games rendered as readable text, one file per (variant, seed, game, bot).

:func:`render_game` plays a game with one bot on every seat through :func:`sim.play_game`,
replays each logged deal through the engine to recover who played each card, and writes every
action in log notation with its seat, the trick winners and the scores.  The random-bot games
(the engine's goldens) live in ``tests/sim/golden/``, the heuristic-bot games (the bots' goldens) in
``tests/strategies/golden/``; ``scripts/regen_golden.py`` rewrites them and ``test_golden.py`` in each
folder compares byte for byte, so any change of engine or bot behaviour shows up as a reviewable diff.
"""

from __future__ import annotations

from pathlib import Path

from fivehundred.sim import ENGINE_VERSION, JOKER, KITTY, PLAY, load_rules, parse_action, play_game
from fivehundred.sim.game import new_deal
from fivehundred.strategies import make

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
BOT_GOLDEN_DIR = Path(__file__).resolve().parents[1] / "strategies" / "golden"

#: (variant, master seed, game id, deal limit or 0 for the variant's own) of each golden file, chosen
#: for the paths their random play walks: the joker named (pagat-au game 2), a suitless joker led and
#: a fall to -500 (4), an open misère failed (20), a win at 500 (71), a declarer raise (club-004
#: game 21), a slam that wins the game in one deal (club-004 game 91), Nullo with the joker named
#: (2), and the north-american joker (a 3-deal cut of a game that random bots never finish, as no
#: side falls out at -500 there).
GOLDEN_GAMES: tuple[tuple[str, int, int, int], ...] = (
    ("pagat-au", 7, 2, 0),
    ("pagat-au", 7, 4, 0),
    ("pagat-au", 7, 20, 0),
    ("pagat-au", 7, 71, 0),
    ("club-004", 7, 21, 0),
    ("club-004", 7, 91, 0),
    ("nullo", 7, 2, 0),
    ("north-american", 7, 0, 3),
)

#: (variant, master seed, game id, strategy) of each bot golden file, chosen for what the bot bids and
#: plays: an open misère and a thrown-in deal (pagat-au game 1), no-trump contracts (pagat-au game 3),
#: a misère over a 7 bid under the club rules (club-004 game 3), the 3- and 6-player tables with open
#: misère (three-player game 3, six-player game 0) and two jokers with NT and open misère (game 0).
BOT_GOLDEN_GAMES: tuple[tuple[str, int, int, str], ...] = (
    ("pagat-au", 7, 1, "heuristic.v1"),
    ("pagat-au", 7, 3, "heuristic.v1"),
    ("club-004", 7, 3, "heuristic.v1"),
    ("three-player", 7, 3, "heuristic.v1"),
    ("six-player", 7, 0, "heuristic.v1"),
    ("two-jokers", 7, 0, "heuristic.v1"),
)


def golden_path(variant: str, seed: int, game: int, deal_limit: int = 0) -> Path:
    """Where the golden file of one game lives."""
    cut = f"_limit{deal_limit}" if deal_limit else ""
    return GOLDEN_DIR / f"{variant}_seed{seed}_game{game}{cut}.txt"


def bot_golden_path(variant: str, seed: int, game: int, strategy: str) -> Path:
    """Where the golden file of one bot game lives."""
    return BOT_GOLDEN_DIR / f"{variant}_seed{seed}_game{game}_{strategy}.txt"


def render_game(variant: str, seed: int, game: int, deal_limit: int = 0, strategy: str = "random") -> str:
    """The text of one whole game: every deal, every action with its seat, winners and scores."""
    rules = load_rules(variant, overrides={"game.deal_limit": deal_limit} if deal_limit else None)
    records = play_game(rules, [make(strategy)] * rules.players, master_seed=seed, game_id=game)
    cut = f", deal limit {deal_limit}" if deal_limit else ""
    bots = "random bots" if strategy == "random" else f"{strategy} on every seat"
    out = [
        f"# golden playthrough: variant {variant}{cut}, master seed {seed}, game {game}, {bots}",
        f"# {ENGINE_VERSION}; regenerate with: python scripts/regen_golden.py",
    ]
    for rec in records:
        out.append("")
        out.append(f"hand {rec['hand_no']}  dealer {rec['dealer']}  deal seed {rec['seed']}")
        for seat, hand in enumerate(rec["hands"]):
            out.append(f"  seat {seat}: {' '.join(hand)}")
        out.append(f"  kitty:  {' '.join(rec['kitty'])}")
        state, _ = new_deal(rules, seed, game, rec["hand_no"])
        calls = []
        for call in rec["bids"]:
            calls.append(f"{state.turn}:{call}")
            state.apply_checked(parse_action(rules, call, state.phase))
        out.append(f"  auction {' '.join(calls)}")
        if rec["contract"] is None:
            out.append("  thrown in")
        else:
            out.append(f"  contract {rec['contract']} by seat {rec['declarer']}")
            assert state.phase == KITTY
            for card in rec["discards"]:
                state.apply_checked(parse_action(rules, card, KITTY))
            out.append(f"  discards {' '.join(rec['discards'])}")
            names = (rec["joker_suit"] or "").split(",")
            k = 0
            while state.phase == JOKER:
                name = names[k] if k < len(names) and names[k] else "-"
                out.append(f"  joker named by seat {state.turn}: {name}")
                state.apply_checked(parse_action(rules, name, JOKER))
                k += 1
            assert state.phase == PLAY
            trick: list[str] = []
            n_tricks = 0
            for play in rec["plays"]:
                trick.append(f"{state.turn}:{play}")
                state.apply_checked(parse_action(rules, play, PLAY))
                if len(state.trick_winners) > n_tricks:
                    n_tricks += 1
                    out.append(
                        f"  trick {n_tricks:2d}  {' '.join(trick):<24} won by {state.trick_winners[-1]}"
                    )
                    trick = []
            assert not trick and state.trick_winners == rec["trick_winners"]
            out.append(f"  declarer side took {rec['declarer_tricks']}")
        assert state.done
        out.append(f"  score delta {rec['score_delta']}  scores {rec['score_after']}")
        if rec["game_over"]:
            winner = "none" if rec["winner"] is None else f"team {rec['winner']}"
            out.append(f"game over after {len(records)} deals: winner {winner} ({rec['end_reason']})")
    return "\n".join(out) + "\n"
