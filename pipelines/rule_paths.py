"""Which rule paths of RULES.md a deal log exercises, and how often.

``fivehundred rule-paths RUN_DIR`` counts, over every deal of a log, the rare paths that the rules
tests pin on hand-made positions (the joker named in NT and misère, the suitless joker led, the
must-play joker in misère, the partner sitting out, the early stop of a misère, the slam floor, going
out backwards, a team past 500 on defence not winning, ...).  It is how we show that a real run
walks every path, not only the tests.  It reads only the deal-log columns: the texts through
:mod:`sim.notation`, and the facts of the rules (who sat out, the declaring team, a slam, how the game
ended) from the columns the engine logged, never recomputing them.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import polars as pl

from fivehundred.pipelines.rundir import RunLog, open_log
from fivehundred.pipelines.schema import check_part_files
from fivehundred.sim.errors import UserError
from fivehundred.sim.game import DEAL_LIMIT, FELL_TO_LOSS, REACHED_WIN
from fivehundred.sim.notation import (
    MISERE,
    OPEN_MISERE,
    PASS_TEXT,
    SUITS,
    bid_text,
    is_joker,
    parse_joker_suit,
    split_card,
    split_play,
)
from fivehundred.sim.rules import Rules, load_rules

#: Every path counted, with the sentence that explains it.
PATHS: dict[str, str] = {
    "thrown_in": "all players passed: the deal is thrown in",
    "auction_won": "a contract was reached (the auction ended when all but one had passed)",
    "joker_named_nt": "the NT declarer named a suit for the joker",
    "joker_named_misere": "the misère declarer named a suit for the joker",
    "joker_led_unled_suit": "the suitless joker was led naming a suit not yet led (before the last trick)",
    "joker_led_last_trick": "the suitless joker was led at the last trick after all four suits had been led",
    "joker_forced_in_misere": "in misère a player void in the suit led had to play the suitless joker",
    "misere_over_seven": "misère was bid over a 7-level bid",
    "open_misere_over_10d": "open misère was bid over 10D",
    "open_misere_opening": "open misère was the opening bid",
    "misere_partner_sits_out": "in misère the declarer's partner sat out (short tricks)",
    "misere_early_stop": "a misère stopped as soon as the declarer won a trick",
    "misere_made": "a misère or open misère was made",
    "slam_floor": "all ten tricks on a contract worth less than 250 scored 250",
    "defenders_scored": "defenders scored 10 per trick on a suit or NT contract",
    "reached_500": "a team won by reaching 500 through its own contract",
    "went_out_backwards": "a team fell to -500 and lost",
    "past_500_on_defence": "a team stood at 500 or more after defending and had not won",
    "deal_limit": "a game hit the deal limit",
}

_COLUMNS = (
    "variant", "dealer", "bids", "contract", "declarer", "joker_suit", "plays", "trick_winners",
    "declarer_tricks", "score_delta", "score_after", "game_over", "winner", "end_reason",
    "declarer_team", "sitting_out", "slam",
)  # fmt: skip


class RulePathsError(UserError, ValueError):
    """The run directory cannot be read; the message is one line."""


def scan_log(run_dir: str | Path | RunLog) -> pl.LazyFrame:
    """Lazy scan of a run's deal log (the glob of part files, never the bare folder; a path or URI)."""
    run = run_dir if isinstance(run_dir, RunLog) else open_log(run_dir, error=RulePathsError)
    # readable, the columns counted here, each deal once
    check_part_files(run.files, run.open, run.path, ("deal_id", *_COLUMNS))
    return run.scan()


def _rule_sets(variants: Iterable[str]) -> dict[str, Rules]:
    out = {}
    for v in variants:
        out[v] = load_rules(v)
    return out


def _paths_of_deal(row: dict[str, Any], rules: Rules) -> list[str]:
    found: list[str] = []
    contract = row["contract"]
    if contract is None:
        return ["thrown_in"]
    found.append("auction_won")
    bid = rules.bid(contract)
    made_bids = [b for b in row["bids"] if b != PASS_TEXT]
    if MISERE in made_bids:
        i = made_bids.index(MISERE)
        if i > 0 and rules.bid(made_bids[i - 1]).tricks == 7:
            found.append("misere_over_seven")
    if OPEN_MISERE in made_bids:
        i = made_bids.index(OPEN_MISERE)
        if i == 0:
            found.append("open_misere_opening")
        elif made_bids[i - 1] == bid_text(10, SUITS.index("D")):
            found.append("open_misere_over_10d")
    named = row["joker_suit"] is not None
    if named:
        found.append("joker_named_misere" if bid.misere else "joker_named_nt")
    plays, winners = row["plays"], row["trick_winners"]
    per_trick = rules.players - len(row["sitting_out"])
    if bid.misere:
        if row["sitting_out"]:
            found.append("misere_partner_sits_out")
        if len(winners) < rules.hand_size:
            found.append("misere_early_stop")
        if row["declarer_tricks"] == 0:
            found.append("misere_made")
    if bid.no_trump:
        led: set[int] = set()
        named_suits = parse_joker_suit(row["joker_suit"])
        for t in range(len(winners)):
            trick = plays[t * per_trick : (t + 1) * per_trick]
            card, suit = split_play(trick[0])
            if suit >= 0:
                found.append("joker_led_last_trick" if len(led) == 4 else "joker_led_unled_suit")
                led.add(suit)
            elif is_joker(card):
                led.add(named_suits[0] if named_suits else -1)
            else:
                led.add(split_card(card)[1])
            if bid.misere and not named and rules.joker_no_trump == "pagat" and t < rules.hand_size - 1:
                if any(is_joker(split_play(p)[0]) for p in trick[1:]):
                    found.append("joker_forced_in_misere")
    delta = row["score_delta"]
    dteam = row["declarer_team"]
    if not bid.misere:
        floor = rules.slam_floor
        if row["slam"] and bid.points < floor and delta[dteam] == floor:
            found.append("slam_floor")
        if any(delta[t] > 0 for t in range(len(delta)) if t != dteam):
            found.append("defenders_scored")
    reason = row["end_reason"]
    if reason == REACHED_WIN:
        found.append("reached_500")
    elif reason == FELL_TO_LOSS:
        found.append("went_out_backwards")
    elif reason == DEAL_LIMIT:
        found.append("deal_limit")
    after = row["score_after"]
    for t in range(len(after)):
        if after[t] >= rules.win_score and row["winner"] != t:
            found.append("past_500_on_defence")
            break
    return found


def rule_paths(run_dir: str | Path | RunLog) -> pl.DataFrame:
    """Count each path of :data:`PATHS` over a run's deal log: columns ``path``, ``deals``, ``meaning``."""
    df = scan_log(run_dir).select(_COLUMNS).collect()
    rules_by_variant = _rule_sets(df["variant"].unique().to_list())
    counts = dict.fromkeys(PATHS, 0)
    for row in df.iter_rows(named=True):
        for path in set(_paths_of_deal(row, rules_by_variant[row["variant"]])):
            counts[path] += 1
    return pl.DataFrame(
        {"path": list(PATHS), "deals": [counts[p] for p in PATHS], "meaning": list(PATHS.values())},
        schema={"path": pl.String, "deals": pl.Int64, "meaning": pl.String},
    )
