"""``heuristic.v1``: a rule-based player in the style of a good club player.

Bidding estimates the tricks of the hand for every trump suit and for no-trumps (trump length and
honours, side aces and kings, voids and singletons, the kitty's help, what partners and opponents
bid) and bids the cheapest call of the best denomination that the estimate covers; misère and open
misère are judged on how dangerous the cards are after the kitty exchange.  The discard keeps trumps
and winners and voids short side suits.  Play follows the usual maxims: the declaring side draws
trumps, second hand low, third hand high, win as cheaply as possible, never trump a partner's
winner; misère declarers duck under, misère defenders lead low and keep the declarer on lead.

Everything is read from the seat's :class:`~sim.engine.SeatView` and done with bitmasks; nothing
assumes 4 seats or a 43-card deck.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final

from fivehundred.sim._mypyc import mypyc_attr
from fivehundred.sim.cards import bits
from fivehundred.sim.engine import BID, JOKER_LEAD, NAME_NONE, NAME_SUIT, PASS, trick_winner
from fivehundred.sim.notation import NT, led_suit_of_action
from fivehundred.sim.rng import Rng
from fivehundred.strategies.base import boolean, number, register, whole
from fivehundred.strategies.estimates import (
    ALONE_TRUMPS,
    PASSED_OPPONENT,
    PASSED_PARTNER,
    SHORT_TRUMP,
    help_tricks,
    live_fraction,
    misere_danger,
    misere_total,
    suit_estimates,
)
from fivehundred.strategies.sampling import shown_voids
from fivehundred.strategies.tables import CardInfo, RulesInfo, card_info, play_sides, rules_info

if TYPE_CHECKING:
    import random

    from fivehundred.sim.rules import Bid, Rules
    from fivehundred.sim.view import SeatView

#: Misère danger of a joker in the bidder's hand (it will be discarded).
_JOKER_MISERE: Final = 0.5
#: Misère defence: below this chance of catching the exposed declarer now, unblock a high card first.
_UNBLOCK: Final = 0.5


def _trick_winner(ci: CardInfo, trick: tuple[tuple[int, int], ...], led: int) -> tuple[int, int, int]:
    """The (non-empty) trick's winner so far (:func:`sim.engine.trick_winner`): its strength (power, or
    rank in the suit led), seat and card."""
    win_seat, win_card = trick[trick_winner(ci.tables, [c for _, c in trick], led)]
    return ci.strength[win_card], win_seat, win_card


def _lowest(cards: Sequence[int], key: tuple[int, ...]) -> int:
    best = cards[0]
    bk = key[best]
    for c in cards:
        if key[c] < bk:
            best, bk = c, key[c]
    return best


def _shown_out(plays: tuple[tuple[int, int], ...], eff: tuple[int, ...], suit: int, n: int) -> int:
    """Bitmask of the seats that failed to follow a lead of effective suit ``suit`` (all ``n`` seats
    play, as in suit contracts)."""
    shown = 0
    total = len(plays)
    for i in range(0, total, n):
        if plays[i][1] < JOKER_LEAD and eff[plays[i][1]] == suit:
            for k in range(i + 1, min(i + n, total)):
                s, a = plays[k]
                if a >= JOKER_LEAD or eff[a] != suit:
                    shown |= 1 << s
    return shown


def _highest(cards: Sequence[int], key: tuple[int, ...]) -> int:
    best = cards[0]
    bk = key[best]
    for c in cards:
        if key[c] > bk:
            best, bk = c, key[c]
    return best


class Turn:
    """One play decision as the play helpers read it (one object rather than eight arguments each):
    the view, the rule set's and the contract's tables, the legal actions, the trick so far, the
    cards the seat has not seen (``unseen``), its hand, the declarer and the side of each seat.

    A plain class with its own ``__init__``: mypyc compiles it (a dataclass's generated ``__init__``
    would run as interpreted Python at every play decision)."""

    def __init__(
        self,
        view: SeatView,
        info: RulesInfo,
        ci: CardInfo,
        legal: Sequence[int],
        trick: tuple[tuple[int, int], ...],
        unseen: int,
        hand: int,
        declarer: int,
        sides: tuple[int, ...],
    ) -> None:
        self.view = view
        self.info = info
        self.ci = ci
        self.legal = legal
        self.trick = trick
        self.unseen = unseen
        self.hand = hand
        self.declarer = declarer
        self.sides = sides


#: heuristic.v1's parameters: name -> (default, validator, meaning).  One table: the class's
#: ``DEFAULTS``, ``PARAMS`` and ``PARAM_HELP`` are read from it (heuristic.v2 extends it).
V1_PARAMETERS: Final[dict[str, tuple[Any, Any, str]]] = {
    "aggression": (0.0, number(-3.0, 3.0), "tricks added to every estimate"),
    "partner_tricks": (1.6, number(0.0, 5.0), "tricks expected from each partner"),
    "kitty_tricks": (0.6, number(0.0, 3.0), "tricks expected from the kitty exchange"),
    "nt_stoppers": (3, whole(1, 5), "stoppers needed for a no-trump bid"),
    "misere": (True, boolean, "bid misère and open misère at all"),
    "misere_risk": (1.4, number(0.0, 10.0), "misère risk (whole hand, joker 0.5) allowed for MIS"),
    "open_misere_risk": (1.1, number(0.0, 10.0), "misère risk allowed for OMIS"),
    "score_aware": (True, boolean, "adjust bidding near the winning and losing scores"),
    "smart_leads": (
        True,
        boolean,
        "defenders lead a suit their partner bid; the declaring side stops drawing trumps "
        "once every opponent has shown out of them",
    ),
    "defend_together": (
        True,
        boolean,
        "in the 3-player game the two defenders play as partners while the contract can still go either way",
    ),
}


# Compiled with mypyc, yet other packages may subclass it; registered at the end of the module
# rather than by a class decorator (mypyc gives up native subclassing for other class decorators).
@mypyc_attr(allow_interpreted_subclasses=True)
class HeuristicStrategy:
    """The rule-based player.  See the module docstring; parameters are in :attr:`PARAMS`."""

    name: ClassVar[str] = "heuristic.v1"
    #: One line on what it is (``fivehundred strategies``).
    summary: ClassVar[str] = "rule-based club player: counts its tricks, draws trumps, cashes winners (fast)"

    #: Deterministic: it never draws from its RNG, so the game runner need not build one per deal.
    uses_rng: ClassVar[bool] = False
    #: Its answer to a forced action is that action (nothing is learnt or kept): the runner need not ask.
    asked_when_forced: ClassVar[bool] = False

    #: Tunable parameters: name -> validator (returns an error message or None).
    PARAMS: ClassVar[dict[str, Any]] = {k: v[1] for k, v in V1_PARAMETERS.items()}
    #: What each parameter does (``fivehundred strategies --describe``; docs/strategies.md).
    PARAM_HELP: ClassVar[dict[str, str]] = {k: v[2] for k, v in V1_PARAMETERS.items()}
    #: Each parameter's default value.
    DEFAULTS: ClassVar[dict[str, Any]] = {k: v[0] for k, v in V1_PARAMETERS.items()}

    def __init__(self, **params: Any) -> None:
        """Parameters by name (:attr:`PARAMS`; ``make`` validates them), the rest at :attr:`DEFAULTS`."""
        unknown = [k for k in params if k not in self.DEFAULTS]
        if unknown:
            raise TypeError(f"{self.name}: unknown parameter {unknown[0]!r}")
        values = dict(self.DEFAULTS)
        values.update(params)
        self._configure(values)
        self._memo: dict[tuple[Any, ...], Any] = {}
        self._menus: dict[int, Any] = {}  # id(legal bid tuple) -> (tuple, menu)
        # seat -> [plays seen, how many, shown voids, suit led, active seats, contract tables, rules]:
        # the voids kept up to date while the plays of later views extend the plays seen.
        self._void_cache: dict[int, list[Any]] = {}
        # seat -> the deal's fixed facts in play, with what they were derived from (views are snapshots)
        self._deals: dict[int, tuple[Any, ...]] = {}
        self._rules: Any = None  # the last rules and contract tables seen, with their derived tables
        self._info: Any = None
        self._tables: Any = None
        self._ci: Any = None

    def _configure(self, p: dict[str, Any]) -> None:
        """Set the parameters from ``p`` (every name of :attr:`DEFAULTS`); subclasses add theirs."""
        self.aggression = float(p["aggression"])
        self.partner_tricks = float(p["partner_tricks"])
        self.kitty_tricks = float(p["kitty_tricks"])
        self.nt_stoppers = int(p["nt_stoppers"])
        self.misere = bool(p["misere"])
        self.misere_risk = float(p["misere_risk"])
        self.open_misere_risk = float(p["open_misere_risk"])
        self.score_aware = bool(p["score_aware"])
        self.smart_leads = bool(p["smart_leads"])
        self.defend_together = bool(p["defend_together"])

    # ================================================================== bidding

    def _rules_info(self, rules: Rules) -> RulesInfo:
        """The rule set's tables; the per-hand memos are dropped when the rule set changes."""
        if rules is not self._rules:
            self._rules, self._info = rules, rules_info(rules)
            self._memo.clear()
            self._menus.clear()
        return self._info

    def _hand_values(self, seat: int, hand: int, info: RulesInfo) -> list[float]:
        """The hand's own estimates per denomination (memoised on seat and hand)."""
        key = (seat, hand)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        help_ = help_tricks(info, seat, self.partner_tricks) + self.kitty_tricks + self.aggression
        own, nt, stoppers = suit_estimates(info, hand)
        est = [own[0] + help_, own[1] + help_, own[2] + help_, own[3] + help_]
        if not info.partners[seat] and info.n > 2:
            # Alone against two: without a partner to hold the trump suit, short trumps lose control.
            for t in range(4):
                short = ALONE_TRUMPS - (hand & info.trump_masks[t]).bit_count()
                if short > 0:
                    est[t] -= SHORT_TRUMP * short
        est.append(nt + help_ if stoppers >= self.nt_stoppers else -1.0)
        if len(self._memo) > 4096:
            self._memo.clear()
        self._memo[key] = est
        return est

    def _menu(
        self, legal: Sequence[int]
    ) -> tuple[tuple[tuple[int, Bid] | None, ...], tuple[tuple[int, Bid], ...]]:
        """The cheapest legal bid of each denomination and the legal (non-blind) misère bids.

        Memoised on the legal-action tuple (the engine keeps one tuple per auction position).
        """
        hit = self._menus.get(id(legal))
        if hit is not None and hit[0] is legal:
            return hit[1]
        ladder = self._rules.ladder
        cheapest: list[tuple[int, Bid] | None] = [None] * 5
        miseres: list[tuple[int, Bid]] = []
        for a in legal:
            if a < BID:
                continue
            b = ladder[a - BID]
            if b.misere:
                if not b.blind:
                    miseres.append((a, b))
            elif cheapest[b.trump] is None:
                cheapest[b.trump] = (a, b)
        out = (tuple(cheapest), tuple(miseres))
        if type(legal) is tuple:
            if len(self._menus) > 512:
                self._menus.clear()
            self._menus[id(legal)] = (legal, out)
        return out

    def _misere_risk(self, seat: int, hand: int, info: RulesInfo) -> float:
        """The hand's misère risk: the whole hand's danger, a joker counted :data:`_JOKER_MISERE`.

        The whole hand counts (the kitty is as likely to bring danger as to take it away: forced
        misère deals show the made rate falls steadily with the whole hand's danger); a joker in the
        hand is thrown to the kitty and costs one discard, not a trick (forced misère deals with the
        joker make about as often as those with 0.5 more danger).
        """
        defenders = info.n - 1 - len(info.partners[seat])
        total = misere_total(info, hand, live_fraction(info, defenders))
        return total - (2.0 - _JOKER_MISERE) * (hand & info.joker_mask).bit_count()

    def _misere_fit(self, seat: int, hand: int, info: RulesInfo) -> tuple[bool, bool]:
        """Whether the hand suits misère and open misère: its :meth:`_misere_risk` is small enough."""
        total = self._misere_risk(seat, hand, info)
        return total <= self.misere_risk, total <= self.open_misere_risk

    def estimates(self, view: SeatView) -> list[float]:
        """Estimated tricks of the seat's side for each denomination ``S C D H NT`` (NT is -1 if unfit)."""
        info = self._rules_info(view.rules)
        own = self._hand_values(view.seat, view.hand, info)
        bids = view.bids
        return self._adjusted(view, info, own, bids) if bids else list(own)

    def _adjusted(
        self, view: SeatView, info: RulesInfo, own: list[float], bids: tuple[int, ...]
    ) -> list[float]:
        """The hand's estimates adjusted for what partners and opponents bid."""
        est = list(own)
        seat = view.seat
        teams = info.teams
        team = seat % teams
        ladder = info.rules.ladder
        last: dict[int, Bid] = {}
        for s, a in zip(view.bid_seats, bids):  # noqa: B905 (equal lengths by construction)
            if a > PASS:
                last[s] = ladder[a - BID]
        for s, b in last.items():
            if s == seat or b.misere:
                continue
            if s % teams == team:
                if b.trump < 4:
                    # Partner's bid: support counts more, and the partner shows more than average.
                    shown = b.tricks - help_tricks(info, s, self.partner_tricks) - self.kitty_tricks
                    extra = max(0.0, shown - 4.0) * 0.5
                    est[b.trump] += 0.8 + extra
                    for t in range(4):
                        if t != b.trump:
                            est[t] += 0.2
                else:
                    for t in range(5):
                        if est[t] > 0:
                            est[t] += 0.5
            else:
                if b.trump < 4:
                    est[b.trump] -= 0.8
                    if est[NT] > 0:
                        est[NT] -= 0.4
        return est

    def _bid_margins(
        self, view: SeatView, info: RulesInfo, bids: tuple[int, ...]
    ) -> tuple[float, float, bool]:
        """Tricks a suit bid must have to spare in this auction: ``(margin, caution, lose guard)``.

        ``margin``: an opponent about to win holds the bid (push: -0.6); alone, opponents passed
        (-:data:`PASSED_OPPONENT` each); the seat's side holds the bid (overcall or raise only with a
        trick of extra value: +1).  ``caution``: half a trick more near the losing score (not applied
        to the misère gate).  ``lose guard``: a failure that would lose the game is to be avoided.
        """
        rules = info.rules
        seat = view.seat
        teams = info.teams
        team = seat % teams
        scores = view.scores
        high_bidder = view.high_bidder
        margin = 0.0
        score_aware = self.score_aware and scores
        lose_guard = bool(score_aware and rules.lose_at_minus_500)
        caution = 0.0
        if score_aware:
            if rules.lose_at_minus_500 and scores[team] <= rules.lose_score + 200:
                caution = 0.5
            if high_bidder >= 0 and high_bidder % teams != team:
                opp_best = max((sc for t, sc in enumerate(scores) if t != team), default=0)
                if opp_best >= rules.win_score - 150:
                    margin -= 0.6  # they win if they make it: push
        if bids and not info.partners[seat] and info.n > 2:
            # Alone (3 players): each opponent that passed is weak, so the hand takes more tricks.
            margin -= PASSED_OPPONENT * sum(
                1
                for s, a in zip(view.bid_seats, bids)  # noqa: B905 (equal lengths by construction)
                if a == PASS and s != seat
            )
        if high_bidder >= 0 and high_bidder % teams == team:
            # A declarer raise turn, or a partner holds the bid: only overcall with clear extra values.
            margin += 1.0
        return margin, caution, lose_guard

    def _suit_bids(
        self,
        view: SeatView,
        info: RulesInfo,
        est: list[float],
        cheapest: tuple[tuple[int, Bid] | None, ...],
        margin: float,
        lose_guard: bool,
    ) -> list[tuple[int, float, int, Bid]]:
        """The denominations worth a bid: ``(denomination, tricks to spare, action, bid)`` for each
        cheapest legal bid that the estimate covers with ``margin`` (and, with several partners, a
        bid of 8 or more with :data:`PASSED_PARTNER` per partner that passed)."""
        rules = info.rules
        scores = view.scores
        team = view.seat % info.teams
        high_margin = self._passed_partners(view, info) * PASSED_PARTNER if view.bids else 0.0
        out: list[tuple[int, float, int, Bid]] = []
        for t in range(5):
            entry = cheapest[t]
            if entry is None:
                continue
            e = est[t]
            if e < 0:
                continue
            a, b = entry
            spare = e - margin - b.tricks
            if b.tricks >= 8:
                spare -= high_margin
            if spare < 0:
                continue
            if lose_guard and scores[team] - b.points <= rules.lose_score and spare < 1.0:
                continue
            out.append((t, spare, a, b))
        return out

    def bid(self, view: SeatView, legal: Sequence[int], rng: Rng | random.Random) -> int:
        """The cheapest call of the best denomination that the trick estimate covers, else pass."""
        if len(legal) == 1:
            return legal[0]
        rules = view.rules
        info = self._rules_info(rules)
        seat = view.seat
        own = self._hand_values(seat, view.hand, info)
        bids = view.bids
        est = self._adjusted(view, info, own, bids) if bids else own
        cheapest, miseres = self._menu(legal)
        team = seat % info.teams
        scores = view.scores
        margin, caution, lose_guard = self._bid_margins(view, info, bids)
        best = PASS
        best_key = (-99.0, 0)
        # Caution near -500 asks suit bids for more tricks; it must not invite a misère instead.
        if miseres and self.misere and max(est[0], est[1], est[2], est[3]) < 7.0 + margin:
            mis, omis = self._misere_fit(seat, view.hand, info)
            if mis or omis:
                for a, b in miseres:
                    if lose_guard and scores[team] - b.points <= rules.lose_score:
                        continue  # failing it would end the game at -500
                    if omis if b.open else mis:
                        key = (5.0, b.points)
                        if key > best_key:
                            best, best_key = a, key
        margin += caution
        if best == PASS and max(est) - margin < 6:
            return PASS  # nothing reaches the lowest contract
        for _, spare, a, b in self._suit_bids(view, info, est, cheapest, margin, lose_guard):
            # Prefer the denomination with the most to spare, then the cheaper bid.
            key = (round(spare, 3), -b.rank)
            if key > best_key:
                best, best_key = a, key
        return best

    @staticmethod
    def _passed_partners(view: SeatView, info: RulesInfo) -> int:
        """With several partners (the 6-player game), how many of them passed in this auction (a
        partner that passed shows less than the help counted for it); 0 with one partner or none."""
        partners = info.partners[view.seat]
        if len(partners) < 2:
            return 0
        return sum(1 for s, a in zip(view.bid_seats, view.bids) if a == PASS and s in partners)  # noqa: B905

    # ================================================================== kitty

    def discard(self, view: SeatView, legal: Sequence[int], rng: Rng | random.Random) -> int:
        """Throw the card worth least: short side suits first, never trumps, jokers or winners."""
        contract = view.contract
        assert contract is not None  # the kitty exchange follows the auction
        info = rules_info(view.rules)
        hand = view.hand
        if contract.misere:
            # Two defenders at every table (heuristic.v1's reading since its first version; the
            # six-player table has four: its bidding counts them, its discard does not).
            danger = misere_danger(info, hand, live_fraction(info, 2))
            if danger:
                return danger[0][1]
            ci = info.suit_info[NT]
            return _highest(legal, ci.strength)
        t = contract.trump
        ci = info.suit_info[t if t < 4 else NT]
        outside = info.full & ~hand
        trumps = hand & ci.trump_mask
        n_trumps = trumps.bit_count()
        best = legal[0]
        best_v = 1_000_000_000  # an int, like every value compared with it
        for c in legal:
            if ci.power[c]:
                v = 10000 + ci.power[c]
            else:
                s = ci.eff[c]
                length = (hand & ci.suit_mask[s]).bit_count()
                if not ci.higher[c] & outside & ~ci.trump_mask:
                    v = 500 + ci.strength[c]  # a winner in its suit
                elif t == NT:
                    v = ci.strength[c] + 6 * length
                    # keep a guard under a king/queen
                    if (ci.higher[c] & hand & ci.suit_mask[s]) and length <= 3:
                        v += 30
                else:
                    v = ci.strength[c] + 6 * length
                    if n_trumps >= 3 and length <= 2:
                        v -= 20  # make a void to ruff
            if v < best_v:
                best, best_v = c, v
        return best

    def name_joker(self, view: SeatView, legal: Sequence[int], rng: Rng | random.Random) -> int:
        """No-trumps: keep the joker suitless.  Misère: name the seat's longest suit."""
        contract = view.contract
        assert contract is not None  # a joker is named after the auction
        if not contract.misere and NAME_NONE in legal:
            return NAME_NONE
        info = rules_info(view.rules)
        ci = info.suit_info[NT]
        hand = view.hand
        best = legal[0]
        best_len = -1
        for a in legal:
            if NAME_SUIT <= a < NAME_NONE:
                n = (hand & ci.suit_mask[a - NAME_SUIT]).bit_count()
                if n > best_len:
                    best, best_len = a, n
        return best

    # ================================================================== play

    def play(self, view: SeatView, legal: Sequence[int], rng: Rng | random.Random) -> int:
        """One card (or joker lead) by the play maxims; misère has its own logic."""
        if len(legal) == 1:
            return legal[0]
        dc = self._deals.get(view.seat)
        if (
            dc is None
            or dc[0] is not view.tables
            or dc[4] != view.declarer
            or dc[8] is not view.contract
            or dc[9] != view.discards
            or dc[10] is not view.rules
        ):
            dc = self._deal_facts(view)
        _, info, ci, seat, declarer, misere, sides, base, _, _, _ = dc
        hand = view.hand
        unseen = base & ~hand & ~view.played
        if misere:
            exposed = view.exposed
            if exposed:
                unseen &= ~exposed
            t = Turn(view, info, ci, legal, view.trick, unseen, hand, declarer, sides)
            if seat == declarer:
                return self._misere_declarer(t)
            return self._misere_defender(t, exposed)
        if sides[0] < 0:  # each for themselves (3 players): defend together while the contract is open
            sides = self._open_sides(view, info, declarer)
        led = view.led_suit
        if led < 0:
            return self._lead(Turn(view, info, ci, legal, (), unseen, hand, declarer, sides))
        return self._follow(Turn(view, info, ci, legal, view.trick, unseen, hand, declarer, sides), led)

    def _deal_facts(self, view: SeatView) -> tuple[Any, ...]:
        """What stays fixed for a seat through the play of a deal, cached per seat with its sources.

        ``(contract tables, rules info, card info, seat, declarer, misère?, side of each seat, cards
        not known to be out of play, contract, discards, rules)``: the eighth is the whole deck less
        the declarer's own discards (for the declarer).  Sides are the teams, except where every seat
        is its own team (the 3-player game): there the defenders form one side against the declarer
        for the deal, as partners do.
        """
        info = self._rules_info(view.rules)
        tables = view.tables
        assert tables is not None  # the play has contract tables
        if tables is not self._tables:
            self._tables, self._ci = tables, card_info(tables)
        seat = view.seat
        declarer = view.declarer
        base = info.full
        if seat == declarer:
            d = view.discards
            if d:
                base &= ~d
        contract = view.contract
        assert contract is not None
        sides = play_sides(info, declarer)
        if info.teams == info.n and not contract.misere:
            sides = (-1,)  # worked out per trick by _open_sides
        dc = (
            tables,
            info,
            self._ci,
            seat,
            declarer,
            contract.misere,
            sides,
            base,
            contract,
            view.discards,
            view.rules,
        )
        self._deals[seat] = dc
        return dc

    def _open_sides(self, view: SeatView, info: RulesInfo, declarer: int) -> tuple[int, ...]:
        """Sides at a table where every seat is its own team (the 3-player game).

        The defenders defend together (:func:`~strategies.tables.play_sides`: they play as
        partners) while the contract can still go either way; once it is made or beaten, or with
        ``defend_together`` off, each seat plays for its own tricks (each defender scores its own).
        """
        own = tuple(range(info.n))
        if not self.defend_together:
            return own
        won = view.tricks_won
        contract = view.contract
        assert contract is not None
        need = contract.tricks
        mine = won[declarer]
        if mine >= need or sum(won) - mine > info.hand_size - need:
            return own
        return play_sides(info, declarer)

    # ---------------------------------------------------------------- suit and NT contracts

    def _lead(self, t: Turn) -> int:
        """A lead in a suit or no-trump contract (see the module docstring)."""
        view, info, ci, legal = t.view, t.info, t.ci, t.legal
        unseen, hand, declarer, sides = t.unseen, t.hand, t.declarer, t.sides
        # The card leads: the hand but its suitless jokers (those are led as joker-lead actions).
        tables = view.tables
        assert tables is not None
        cm = hand & ~tables.suitless_jokers
        if not cm:  # only joker leads: name the suit we are longest in
            return self._joker_lead(ci, legal, hand)
        higher, strength = ci.higher, ci.strength
        tm = ci.trump_mask
        my_trumps = hand & tm
        attacking = sides[view.seat] == sides[declarer]
        if ci.trump >= 0 and attacking and my_trumps:
            out_trumps = unseen & tm
            bit = 1 << ci.trump
            if out_trumps and self.smart_leads and view.led_suits & bit:
                # Stop drawing when every opponent has shown out of trumps.
                shown = _shown_out(view.plays, ci.eff, ci.trump, info.n)
                if all(shown >> s & 1 for s in range(info.n) if sides[s] != sides[declarer]):
                    out_trumps = 0
            if out_trumps:
                mine = bits(cm & my_trumps)
                top = _highest(mine, strength)
                if not higher[top] & unseen:
                    return top  # draw trumps with a winner
                if self._draws_low(t, mine):
                    return _lowest(mine, strength)
        sm = cm & ~tm
        if not sm:
            return _lowest(bits(cm), strength)
        side = bits(sm)
        # Cash side winners (the defence first of all, before they get ruffed).
        out_side = unseen & ~tm
        winners = [c for c in side if not higher[c] & out_side]
        if winners:
            safe = [c for c in winners if not higher[c] & unseen]
            pick = safe or (winners if not attacking or not self._ruffers(t) else [])
            if pick:
                return _highest(pick, strength)
        if attacking and ci.trump >= 0:
            lead = self._ruff_lead(t, sm)
            if lead >= 0:
                return lead
        masks = ci.suit_mask
        if self.smart_leads and not attacking:
            # Defenders: lead low in a suit a partner bid.
            suits = self._partner_suits(view, sides)
            if suits:
                pm = 0
                for s in range(4):
                    if suits >> s & 1:
                        pm |= masks[s]
                if sm & pm:
                    return _lowest(bits(sm & pm), strength)
        # Lead low from the longest side suit.
        best_len = -1
        best_m = 0
        for s in range(4):
            m = sm & masks[s]
            if m:
                n = (hand & masks[s]).bit_count()
                if n > best_len:
                    best_len, best_m = n, m
        return _lowest(bits(best_m), strength)

    def _voids(self, view: SeatView) -> list[int]:
        """:func:`~strategies.sampling.shown_voids`, updated with the plays since the last call."""
        plays = view.plays
        tables = view.tables
        assert tables is not None
        active = sum(view.active)
        # The voids follow from the plays, the effective suits and the seats in play alone: a cached
        # result stands for any view whose plays begin with the plays it was worked out from.
        hit = self._void_cache.get(view.seat)
        rules = view.rules
        if (
            hit is None
            or hit[5] is not tables
            or hit[6] is not rules
            or hit[4] != active
            or plays[: hit[1]] != hit[0]
        ):
            hit = [(), 0, [0] * rules.players, -1, active, tables, rules]
            self._void_cache[view.seat] = hit
        done, voids, led = hit[1], hit[2], hit[3]
        eff = tables.eff_suit
        for i in range(done, len(plays)):
            seat, a = plays[i]
            if i % active == 0:
                led = led_suit_of_action(a) if a >= JOKER_LEAD else eff[a]
            elif a >= JOKER_LEAD or eff[a] != led:
                voids[seat] |= 1 << led
        hit[0] = plays
        hit[1] = len(plays)
        hit[3] = led
        return voids

    def _partner_suits(self, view: SeatView, sides: tuple[int, ...]) -> int:
        """Bitmask of the suits the seat's side (partners) bid (their last bids) in this deal's auction."""
        seat = view.seat
        team = sides[seat]
        last: dict[int, int] = {}
        for s, a in zip(view.bid_seats, view.bids):  # noqa: B905 (equal lengths by construction)
            if a > PASS and s != seat and sides[s] == team:
                last[s] = a
        if not last:
            return 0
        ladder = self._rules.ladder
        out = 0
        for a in last.values():
            b = ladder[a - BID]
            if not b.misere and b.trump < 4:
                out |= 1 << b.trump
        return out

    def _joker_lead(self, ci: CardInfo, legal: Sequence[int], hand: int) -> int:
        best = legal[0]
        best_len = -1
        for a in legal:
            if a >= JOKER_LEAD:
                n = (hand & ci.suit_mask[led_suit_of_action(a)]).bit_count()
                if n > best_len:
                    best, best_len = a, n
        return best

    def _follow(self, t: Turn, led: int) -> int:
        """Following to a lead of effective suit ``led`` in a suit or no-trump contract."""
        view, info, ci, legal = t.view, t.info, t.ci, t.legal
        trick, unseen, hand, sides = t.trick, t.unseen, t.hand, t.sides
        power, eff, strength, higher = ci.power, ci.eff, ci.strength, ci.higher
        _, win_seat, win_card = _trick_winner(ci, trick, led)
        # Following, the legal actions are the cards of the led suit, or the whole hand when void.
        lm = hand & ci.suit_mask[led] or hand
        wm = lm & higher[win_card]  # the cards that beat the trick's winner
        to_play = info.n - len(trick) - 1  # every seat plays in suit and NT contracts
        if sides[win_seat] == sides[view.seat]:  # partner winning
            if wm and to_play and higher[win_card] & unseen:
                sure = [c for c in bits(wm & ~ci.trump_mask) if not higher[c] & unseen]
                if sure:
                    return _lowest(sure, strength)
            # never trump a partner's winner
            return self._cheap(ci, bits(lm & ~wm) if lm != wm else legal, hand, unseen)
        if wm:
            winning = bits(wm)
            if not to_play:
                return _lowest(winning, strength)  # last hand wins as cheaply as possible
            pick = self._win_with(t, led, winning, to_play)
            if pick >= 0:
                return pick
            sure = [c for c in winning if not higher[c] & unseen]
            if sure:
                return _lowest(sure, strength)
            w0 = winning[0]
            if eff[w0] == led and not power[w0]:
                if len(trick) == 1:
                    return self._cheap(ci, legal, hand, unseen)  # second hand low
                return _highest(winning, strength)  # third hand high
            return _lowest(winning, strength)  # ruff as cheaply as possible
        return self._cheap(ci, legal, hand, unseen)

    def _draws_low(self, t: Turn, mine: Sequence[int]) -> bool:
        """Whether the declaring side, drawing trumps without a sure winner among ``mine`` (its
        trumps), leads the lowest: the declarer with three or more."""
        return len(mine) >= 3 and t.view.seat == t.declarer

    def _ruffers(self, t: Turn) -> int:
        """The trumps that could ruff the declaring side's side winners: every unseen trump."""
        return t.unseen & t.ci.trump_mask

    def _ruff_lead(self, t: Turn, side: int) -> int:
        """A lead for the declaring side in a suit contract before its long suit (``side``: its side
        cards), or -1: none here."""
        return -1

    def _win_with(self, t: Turn, led: int, winning: Sequence[int], to_play: int) -> int:
        """The card that beats an opponent's winning card when others play after (``winning``: the
        cards that beat it), before the maxims below, or -1: none here."""
        return -1

    def _cheap(self, ci: CardInfo, cards: Sequence[int], hand: int, unseen: int) -> int:
        """The card worth least: plain losers of long suits first, then winners, then trumps."""
        if len(cards) == 1:
            return cards[0]
        power, higher, strength, eff, masks = ci.power, ci.higher, ci.strength, ci.eff, ci.suit_mask
        best = cards[0]
        bv = 1 << 30
        ls = -1
        n = 0
        for c in cards:
            if power[c]:
                v = 10000 + power[c]
            elif not higher[c] & unseen:
                v = 1000 + strength[c]
            else:
                s = eff[c]
                if s != ls:
                    ls = s
                    n = 4 * (hand & masks[s]).bit_count()
                v = strength[c] + n
            if v < bv:
                best, bv = c, v
        return best

    # ---------------------------------------------------------------- misère

    def _misere_declarer(self, t: Turn) -> int:
        """The misère declarer's card: lead what others must beat, duck, shed danger when void."""
        view, ci, legal, trick, unseen = t.view, t.ci, t.legal, t.trick, t.unseen
        strength, lower, higher = ci.strength, ci.lower, ci.higher
        cards = [a for a in legal if a < JOKER_LEAD]
        if not cards:
            return legal[0]
        if not trick:
            # Lead the card with the fewest outstanding cards under it (and most above).
            best = cards[0]
            bk = (1 << 30, 0)
            for c in cards:
                k = ((lower[c] & unseen).bit_count(), -(higher[c] & unseen).bit_count())
                if k < bk:
                    best, bk = c, k
            return best
        led = view.led_suit
        power, eff = ci.power, ci.eff
        best_p = _trick_winner(ci, trick, led)[0]
        following = [c for c in cards if eff[c] == led]
        if following:
            under = [c for c in following if not power[c] and strength[c] < best_p]
            if under:
                return _highest(under, strength)  # duck with the highest card that still loses
            return _lowest(following, strength)
        # Void: shed the most dangerous card (most outstanding cards under it).
        best = cards[0]
        worst = -1
        for c in cards:
            danger = (lower[c] & unseen).bit_count() * 4 + (10_000 if power[c] else 0) + strength[c] // 8
            if danger > worst:
                best, worst = c, danger
        return best

    def _misere_defender(self, t: Turn, exposed: int | None) -> int:
        """A misère defender's card: make the declarer take a trick (``exposed``: its open hand)."""
        view, ci, legal, trick, unseen = t.view, t.ci, t.legal, t.trick, t.unseen
        strength, power, eff, masks = ci.strength, ci.power, ci.eff, ci.suit_mask
        declarer = view.declarer
        if not trick and legal[-1] >= JOKER_LEAD:
            # A suitless joker wins any trick it is played to: a void defender forced to play it
            # would rescue the declarer, so lead it now (the defence keeps the lead).
            return self._misere_joker_lead(view, ci, legal, unseen, exposed)
        cards = [a for a in legal if a < JOKER_LEAD]
        if not cards:
            return legal[0]
        if not trick:
            return self._misere_lead(t, cards, exposed)
        led = view.led_suit
        best_p, win_seat, _ = _trick_winner(ci, trick, led)
        following = [c for c in cards if eff[c] == led]
        declarer_played = any(s == declarer for s, _ in trick)
        if following:
            if declarer_played:
                if win_seat == declarer:
                    under = [c for c in following if not power[c] and strength[c] < best_p]
                    if under:
                        return _highest(under, strength)
                    # Forced to overtake: keep the low cards for leads into the declarer.
                return _highest(following, strength)  # trick is lost for the declarer: unload
            if exposed and led >= 0:
                dm = exposed & masks[led]
                if dm:
                    # The declarer plays later: stay under its lowest card with our highest such card.
                    d = _lowest(bits(dm), strength)
                    if best_p < strength[d]:
                        under = [c for c in following if not power[c] and strength[c] < strength[d]]
                        if under:
                            return _highest(under, strength)
            return _lowest(following, strength)  # keep the declarer's cards the highest
        if declarer_played and win_seat == declarer:
            # Do not overtake the declarer: any card of another suit loses; throw a high one.
            safe = [c for c in cards if not power[c]] or cards
            return _highest(safe, strength)
        return _highest(cards, strength)

    def _misere_joker_lead(
        self, view: SeatView, ci: CardInfo, legal: Sequence[int], unseen: int, exposed: int | None
    ) -> int:
        """Lead the joker naming the suit where the declarer's forced discard matters least: the
        suit it holds most cards of (exposed), else one it has not shown out of with most unseen cards."""
        masks = ci.suit_mask
        void = 0 if exposed else self._voids(view)[view.declarer]
        best = legal[-1]
        bk = -1
        for a in legal:
            if a < JOKER_LEAD:
                continue
            s = led_suit_of_action(a)
            if exposed:
                k = (exposed & masks[s]).bit_count()
            else:
                k = 0 if void >> s & 1 else 1 + (unseen & masks[s]).bit_count()
            if k > bk:
                best, bk = a, k
        return best

    def _misere_lead(self, t: Turn, cards: list[int], exposed: int | None) -> int:
        """A misère defender's lead: the suit most likely to force the declarer to win the trick.

        Against the exposed hand: a suit where we hold a card under the declarer's lowest one (the
        highest such card, keeping lower ones for later), preferring suits where the other defenders
        can still play under the declarer (unseen cards below its lowest, or shown void) rather than
        be forced over it.  Unexposed: our lowest card of a suit the declarer has not shown out of,
        where few unseen cards lie below it (the declarer cannot duck) and many above (it must follow).
        """
        view, info, ci, unseen, hand = t.view, t.info, t.ci, t.unseen, t.hand
        strength, lower, masks = ci.strength, ci.lower, ci.suit_mask
        declarer = view.declarer
        seat = view.seat
        voids = shown_voids(view)
        others = [s for s in range(info.n) if s != seat and s != declarer and view.active[s]]
        n_unseen = unseen.bit_count()
        cm = 0
        for c in cards:
            cm |= 1 << c
        best = -1
        bk: tuple[float, int] = (-1.0, 0)
        if exposed:
            # Unseen cards are the other defenders' (as many as ours each), the declarer's discards and
            # the hands of seats that sit out: the chance that one is not with another defender.
            held = len(others) * hand.bit_count()
            in_pile = 1.0 - held / n_unseen if n_unseen else 1.0
            for s in range(4):
                mine = cm & masks[s]
                dm = exposed & masks[s]
                if not mine or not dm:
                    continue  # a suit the declarer is void in only gives it a free discard
                d = _lowest(bits(dm), strength)
                under = [c for c in bits(mine) if strength[c] < strength[d]]
                if not under:
                    continue
                u = unseen & masks[s]
                if not u or all(voids[o] >> s & 1 for o in others):
                    p = 1.0
                else:
                    u_lo = (lower[d] & u).bit_count()
                    u_hi = u.bit_count() - u_lo
                    # Fails when another defender holds cards above the declarer's and none below.
                    p = 1.0 - (1.0 - in_pile**u_hi) * in_pile**u_lo
                    if p < _UNBLOCK and not u_lo and dm.bit_count() >= 2:
                        # The other defender probably holds only cards above the declarer's: lead
                        # over the declarer's top card first, so that it can throw one of them.
                        top = _highest(bits(dm), strength)
                        over = [c for c in bits(mine) if strength[c] > strength[top]]
                        if over:
                            k = (_UNBLOCK, -strength[over[0]])
                            if k > bk:
                                best, bk = _highest(over, strength), k
                c = _highest(under, strength)
                k = (p, -strength[c])
                if k > bk:
                    best, bk = c, k
            if best >= 0:
                return best
            # No suit catches it now: lead where the declarer has the fewest cards to duck with.
            bu = 99
            for c in cards:
                s = ci.eff[c]
                dm = exposed & masks[s] if s >= 0 else 0
                if dm:
                    under_d = (lower[c] & dm).bit_count()
                    if under_d < bu or (under_d == bu and strength[c] < strength[best]):
                        best, bu = c, under_d
            if best >= 0:
                return best
            return _lowest(cards, strength)
        # Unexposed: the declarer holds its hand's share of the unseen cards.
        dvoid = voids[declarer]
        share = min(1.0, hand.bit_count() / n_unseen) if n_unseen else 0.0
        miss = 1.0 - share
        for s in range(4):
            mine = cm & masks[s]
            if not mine or dvoid >> s & 1:
                continue
            c = _lowest(bits(mine), strength)
            u = unseen & masks[s]
            u_lo = (lower[c] & u).bit_count()
            u_hi = u.bit_count() - u_lo
            # The declarer cannot duck (no card below ours) and must follow (some card above).
            p = miss**u_lo * (1.0 - miss**u_hi)
            k = (p, -strength[c])
            if k > bk:
                best, bk = c, k
        if best >= 0:
            return best
        return _lowest(cards, strength)


register(HeuristicStrategy.name)(HeuristicStrategy)
