"""Text rendering of a seat's view of a deal, for ``fivehundred play`` and ``replay --game``.

Every function here reads only a :class:`~sim.engine.SeatView` (what one seat may know), the rules,
and public facts (the deal-log columns of a finished deal), so nothing it prints can be another
seat's hidden card.  Cards, bids and joker leads are shown in the log's notation
(:func:`sim.notation.action_name`: ``TH``, ``JK=H``, ``8NT``, ``P``), the same text a person types.

Lines that carry bids (the auction, the contract, a deal's result, the list of calls, the call
prompt) start with ``Auction``, ``Contract:``, ``Result:``, ``Calls:`` or ``Your call``; every other
line names only cards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from fivehundred.sim.cards import JACK, SAME_COLOUR, SUIT_NAMES, bits
from fivehundred.sim.engine import AUCTION, JOKER, KITTY, PLAY, ContractTables, contract_tables
from fivehundred.sim.notation import (
    LEAD_SEP,
    NAME_NONE,
    NAME_SUIT,
    NO_SUIT,
    SUITS,
    action_name,
    deal_place,
    naming_text,
)
from fivehundred.sim.rules import Rules
from fivehundred.sim.view import SeatView

if TYPE_CHECKING:
    from fivehundred.pipelines.verify import GameReplay

_WORDS: Final = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_END_REASONS: Final = {"reached_500": "reached {win}", "fell_to_-500": "fell to {lose}", "deal_limit": ""}
#: Moves per line in a numbered list.
_PER_LINE: Final = 8


def words(k: int) -> str:
    """A small count in words (``one`` .. ``ten``), digits beyond."""
    return _WORDS[k] if 0 <= k < len(_WORDS) else str(k)


# ------------------------------------------------------------------------------------------ seats


def seat_names(rules: Rules, seat: int) -> tuple[str, ...]:
    """The name of every seat as ``seat`` sees the table.

    Four players: ``You``, ``Left`` (plays after you), ``Partner``, ``Right``.  Other tables:
    ``You`` and ``Seat N`` (the seat numbers of the deal log).
    """
    n = rules.players
    if n == 4:
        around = ("You", "Left", "Partner", "Right")
        return tuple(around[(s - seat) % 4] for s in range(n))
    return tuple("You" if s == seat else f"Seat {s}" for s in range(n))


def team_names(rules: Rules, names: Sequence[str]) -> tuple[str, ...]:
    """The name of every team: its seats' names joined, ``You`` first (``You & Partner``, ``Seat 1``)."""
    teams = rules.teams
    seats = sorted(range(rules.players), key=lambda s: names[s] != "You")
    return tuple(" & ".join(names[s] for s in seats if s % teams == t) for t in range(teams))


def table_text(rules: Rules, seat: int) -> str:
    """Who sits where, in one line."""
    names = seat_names(rules, seat)
    teams = rules.teams
    mine = [names[s] for s in range(rules.players) if s != seat and s % teams == seat % teams]
    rest = [names[s] for s in range(rules.players) if s % teams != seat % teams]
    order = ", ".join(names[(seat + k) % rules.players] for k in range(1, rules.players))
    part = f"partners {', '.join(mine)}; " if mine else ""
    return (
        f"{rules.name}: you are seat {seat}; {part}opponents {', '.join(rest)}; "
        f"play goes clockwise: You, {order}"
    )


# ------------------------------------------------------------------------------------------ cards


def _tables(view: SeatView) -> ContractTables | None:
    """The contract's card tables once there is a contract (before play, from the bid alone)."""
    if view.tables is not None:
        return view.tables
    c = view.contract
    if c is None:
        return None
    return contract_tables(view.rules.deck, c.trump, view.jokers_named)


def hand_lines(view: SeatView) -> list[str]:
    """The seat's hand by suit, high cards first; with a contract, trumps first with the bowers marked.

    The suits are the contract's effective suits (the left bower among the trumps, a named joker in
    its suit); a suitless joker has a line of its own.
    """
    rules = view.rules
    deck = rules.deck
    t = _tables(view)
    eff = t.eff_suit if t is not None else deck.suit
    trump = t.trump if t is not None else -1
    cards = bits(view.hand)
    order = ([trump] if trump >= 0 else []) + [s for s in range(4) if s != trump]
    lines = []
    for s in order:
        mine = [c for c in cards if eff[c] == s]
        if t is not None and s == trump:
            mine.sort(key=lambda c: -t.power[c])
        else:
            rank = t.rank if t is not None else deck.rank
            mine.sort(key=lambda c: -rank[c])
        shown = [_marked(rules, c, trump) for c in mine]
        label = f"{SUIT_NAMES[s]} (trumps)" if s == trump else SUIT_NAMES[s]
        lines.append(f"  {label + ':':<18} {'  '.join(shown) if shown else '-'}")
    loose = [c for c in cards if eff[c] < 0]
    if loose:
        lines.append(f"  {'joker:':<18} {'  '.join(deck.names[c] for c in loose)}")
    return lines


def _marked(rules: Rules, card: int, trump: int) -> str:
    """A card's name, with ``(right bower)`` / ``(left bower)`` for the jacks that are trumps."""
    deck = rules.deck
    name = deck.names[card]
    if trump < 0 or deck.rank[card] != JACK:
        return name
    if deck.suit[card] == trump:
        return f"{name} (right bower)"
    if deck.suit[card] == SAME_COLOUR[trump]:
        return f"{name} (left bower)"
    return name


def cards_text(rules: Rules, mask: int) -> str:
    """Cards of a bitmask in deck order, space-separated."""
    return " ".join(rules.deck.names[c] for c in bits(mask)) or "-"


# ------------------------------------------------------------------------------------------ table


def auction_text(view: SeatView, names: Sequence[str]) -> str:
    """``Auction: Left P, Partner 7H, Right P`` (the calls so far)."""
    rules = view.rules
    calls = [f"{names[s]} {action_name(rules, a)}" for s, a in zip(view.bid_seats, view.bids, strict=True)]
    return f"Auction (dealer {names[view.dealer]}): {', '.join(calls) if calls else 'no calls yet'}"


def contract_text(view: SeatView, names: Sequence[str]) -> str:
    """``Contract: 8H by Partner`` plus what the table knows of the kitty and the joker."""
    c = view.contract
    if c is None:
        return "Contract: none"
    d = view.declarer
    out = f"Contract: {c.code} by {names[d]}"
    if view.phase >= PLAY:
        named = [s for s in view.jokers_named if s >= 0]
        if named:
            out += f"; the joker is {' and '.join(SUIT_NAMES[s] for s in named)}"
        jokers = [j for j in view.rules.deck.jokers if not view.played >> j & 1]
        if c.no_trump and not named and jokers:
            lead = f"{view.rules.deck.names[jokers[0]]}{LEAD_SEP}{'/'.join(SUITS)}"
            out += f"; the joker is suitless (led as {lead})"
    out_seats = [names[s] for s, on in enumerate(view.active) if not on]
    if out_seats and view.phase >= PLAY:
        out += f"; {' and '.join(out_seats)} {'sits' if len(out_seats) == 1 else 'sit'} out"
    return out


def trick_text(view: SeatView, names: Sequence[str]) -> str:
    """The current trick: ``Trick 3, led by Left: Left 9S, Partner KS``."""
    rules = view.rules
    trick = view.trick
    number = len(view.trick_winners) + 1
    if not trick:
        return f"Trick {number}: you lead" if view.turn == view.seat else f"Trick {number}"
    plays = view.plays[-len(trick) :]  # keeps a led joker's naming (JK=S)
    shown = ", ".join(f"{names[s]} {action_name(rules, a)}" for s, a in plays)
    return f"Trick {number}, led by {names[trick[0][0]]}: {shown}"


def tricks_text(view: SeatView, names: Sequence[str]) -> str:
    """Tricks won so far by each side (by the declarer alone in misère)."""
    rules = view.rules
    won = view.tricks_won
    c = view.contract
    if c is not None and c.misere:
        return f"Tricks: {names[view.declarer]} (misère) {won[view.declarer]}"
    teams = team_names(rules, names)
    per = [sum(w for s, w in enumerate(won) if s % rules.teams == t) for t in range(rules.teams)]
    return "Tricks: " + ", ".join(f"{teams[t]} {per[t]}" for t in range(rules.teams))


def _scores(rules: Rules, scores: Sequence[int], names: Sequence[str]) -> str:
    teams = team_names(rules, names)
    return ", ".join(f"{teams[t]} {scores[t]}" for t in range(rules.teams))


def scores_text(rules: Rules, scores: Sequence[int], names: Sequence[str]) -> str:
    """``Score: You & Partner 120, Left & Right -40 (game to 500)``."""
    return f"Score: {_scores(rules, scores, names)} (game to {rules.win_score})"


def move_label(rules: Rules, action: int) -> str:
    """A legal move as listed: its notation, with the meaning of a joker naming."""
    if action == NAME_NONE:
        return f"{NO_SUIT} (no suit)"
    if NAME_SUIT <= action < NAME_NONE:
        return f"{naming_text(action - NAME_SUIT)} ({SUIT_NAMES[action - NAME_SUIT]})"
    return action_name(rules, action)


def moves_text(view: SeatView, legal: Sequence[int]) -> list[str]:
    """The legal moves numbered from 1, several to a line (``Calls:``/``Discard:``/``Name:``/``Play:``)."""
    rules = view.rules
    head = {AUCTION: "Calls:", KITTY: "Discard:", JOKER: "Name:", PLAY: "Play:"}[view.phase]
    items = [f"{i}) {move_label(rules, a)}" for i, a in enumerate(legal, 1)]
    return [f"{head} {'  '.join(items[k : k + _PER_LINE])}" for k in range(0, len(items), _PER_LINE)]


def prompt_text(view: SeatView, namings_done: int = 0) -> str:
    """The question for the seat's decision (``namings_done``: the seat's joker namings so far in
    this deal, which tells the joker being named when the declarer holds two)."""
    if view.phase == AUCTION:
        return "Your call (number or bid): "
    if view.phase == KITTY:
        k = len(bits(view.discards or 0)) + 1
        return f"Discard card {k} of {view.rules.kitty_size} (number or card): "
    if view.phase == JOKER:
        deck = view.rules.deck
        held = [deck.names[j] for j in deck.jokers if view.hand >> j & 1]
        which = held[namings_done] if len(held) > 1 and namings_done < len(held) else "the joker"
        return f"Name the suit of {which} (number or {'/'.join(SUITS)}, {NO_SUIT} for none): "
    return "Your play (number or card): "


def decision_text(view: SeatView, legal: Sequence[int], names: Sequence[str]) -> str:
    """Everything the seat needs to decide: hand, auction or contract, trick, score, numbered moves."""
    rules = view.rules
    out = ["", scores_text(rules, view.scores, names)]
    if view.phase == AUCTION:
        out.append(auction_text(view, names))
        if view.high_bid is not None:
            out.append(f"Auction: highest bid {view.high_bid.code} by {names[view.high_bidder]}")
    else:
        out.append(contract_text(view, names))
    if view.phase == KITTY and view.kitty is not None:
        out.append(f"Kitty (now in your hand): {cards_text(rules, view.kitty)}")
    if view.phase == PLAY:
        out.append(trick_text(view, names))
        out.append(tricks_text(view, names))
        exposed = view.exposed
        if exposed is not None and view.declarer != view.seat:
            out.append(f"Open hand of {names[view.declarer]}: {cards_text(rules, exposed)}")
    out.append("Your hand:")
    out.extend(hand_lines(view))
    out.extend(moves_text(view, legal))
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------------------------ results


def deal_result_text(rules: Rules, result: Mapping[str, Any], names: Sequence[str]) -> str:
    """A finished deal in words, from its deal-log columns.

    ``Result: Partner's 8H made with one overtrick, +300; Left & Right +10`` /
    ``Result: Left's 7S went down, -140 (5 of 7 tricks)`` / ``Result: your misère made, +250`` /
    ``Result: all passed: thrown in``.
    """
    code = result.get("contract")
    if code is None:
        return "Result: all passed: thrown in"
    bid = rules.bid(code)
    d = int(result["declarer"])
    team = d % rules.teams
    delta = list(result["score_delta"])
    pts = delta[team]
    got = result["declarer_tricks"]
    who = "your" if names[d] == "You" else f"{names[d]}'s"
    if bid.misere:
        kind = "open misère" if bid.open else "blind misère" if bid.blind else "misère"
        how = f"{kind} made" if got == 0 else f"{kind} went down"
        taker = "you" if names[d] == "You" else names[d]
        extra = "" if got == 0 else f" ({taker} took a trick)"
    else:
        need = bid.tricks
        if got >= need:
            over = got - need
            if over == 0:
                how = f"{code} made exactly"
            else:
                how = f"{code} made with {words(over)} overtrick{'s' if over > 1 else ''}"
            extra = f" (all {words(got)} tricks)" if got == rules.hand_size else ""
        else:
            how = f"{code} went down"
            extra = f" ({got} of {need} tricks)"
    teams = team_names(rules, names)
    defence = [f"{teams[t]} {delta[t]:+d}" for t in range(rules.teams) if t != team and delta[t]]
    tail = f"; {', '.join(defence)}" if defence else ""
    return f"Result: {who} {how}, {pts:+d}{extra}{tail}"


def game_result_text(rules: Rules, result: Mapping[str, Any], names: Sequence[str]) -> str:
    """``Game over: You & Partner win 520 to 130 (reached 500).`` from the game's last deal."""
    teams = team_names(rules, names)
    after = list(result["score_after"])
    winner = result.get("winner")
    reason = _END_REASONS.get(result.get("end_reason") or "", "")
    why = reason.format(win=rules.win_score, lose=rules.lose_score)
    scores = " to ".join(str(after[t]) for t in sorted(range(rules.teams), key=lambda t: t != winner))
    if winner is None:
        return f"Game over at the deal limit, no winner: {_scores(rules, after, names)}."
    losers = [teams[t] for t in range(rules.teams) if after[t] <= rules.lose_score]
    if result.get("end_reason") == "fell_to_-500" and losers:
        why = f"{' and '.join(losers)} {why}"
    verb = "win" if "&" in teams[winner] or teams[winner] == "You" else "wins"
    return f"Game over: {teams[winner]} {verb} {scores} ({why})."


# ------------------------------------------------------------------------------------------ replay


def game_replay_text(game: GameReplay) -> str:
    """A logged game deal by deal, as ``play`` shows it but with every hand open: the hands (by the
    contract's suits, trumps and bowers marked, the declarer's after the discard), the kitty and
    the discards, the auction and contract, each trick, the result in words and the score."""
    rules, viewer = game.rules, game.viewer
    names = seat_names(rules, viewer)
    n = rules.players
    out = [table_text(rules, viewer).replace("you are seat", "seen from seat")]
    last: Mapping[str, Any] = {}
    for deal in game.deals:
        r = deal.result
        first = deal.dealt.view(viewer)
        dealer = names[r["dealer"]]
        place = deal_place(game.game_id, r["hand_no"]).capitalize()
        out.append(
            f"\n=== {place}: {dealer} deal{'' if dealer == 'You' else 's'} (deal id {r['deal_id']}) ==="
        )
        out.append(scores_text(rules, first.scores, names))
        shown = deal.start if deal.start is not None else deal.dealt
        if deal.start is not None:
            out.append("Hands at the first lead (the declarer's after taking the kitty and discarding):")
        else:
            out.append("Hands as dealt:")
        strategies = r["strategies"]
        for s in range(n):
            who = f"{names[s]} (seat {s}{', ' + strategies[s] if s < len(strategies) else ''})"
            out.append(f"{who}:")
            out.extend(hand_lines(shown.view(s)))
        out.append(f"Kitty: {cards_text(rules, deal.dealt.kitty)}")
        final = deal.final.view(viewer)
        out.append(auction_text(final, names))
        if deal.start is not None:
            start = deal.start.view(viewer)
            out.append(contract_text(start, names))
            out.append(f"{names[start.declarer]} discards {cards_text(rules, deal.final.discards)}")
            for k, after in enumerate(deal.after_tricks):
                v = after.view(viewer)
                per = sum(after.active)
                plays = v.plays[-per:]
                shown_cards = ", ".join(f"{names[s]} {action_name(rules, a)}" for s, a in plays)
                won = f"won by {names[v.trick_winners[-1]]}. {tricks_text(v, names)}"
                out.append(f"Trick {k + 1}: {shown_cards} -> {won}")
        out.append(deal_result_text(rules, r, names))
        out.append(scores_text(rules, r["score_after"], names))
        last = r
    if last.get("game_over"):
        out.append(game_result_text(rules, last, names))
    else:
        out.append("The log ends before this game does.")
    return "\n".join(out)
