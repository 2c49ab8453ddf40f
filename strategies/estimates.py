"""Trick and misère estimates of a hand, and the table-aware constants the bidding uses.

The estimates read a hand (an int bitmask) with the tables of :mod:`~strategies.tables`; their values
come from memo tables kept on the :class:`~strategies.tables.RulesInfo`, keyed by raw holdings, so a
hot path does a few dict look-ups per hand.
"""

from __future__ import annotations

from typing import Final

from fivehundred.sim.notation import NT
from fivehundred.strategies.tables import TOP_SIDE, TOP_TRUMPS, RulesInfo

#: Partner help beyond the first partner: each further partner adds this fraction of
#: ``partner_tricks``.  Measured on forced 6-level contracts (the declarer's own estimate against
#: the tricks its side took, 6,000 deals per table): with two partners of the 63-card 6-player
#: deck the side takes about 0.2 of a trick more than the 4-player side with the same estimate, not
#: a whole partner's share more (each hand holds a smaller part of a bigger deck).
MORE_PARTNERS: Final = 0.125
#: Tricks added when the seat has no partner (the 3-player game): against two hands only, its
#: honours and length take more tricks than the suit tables assume (forced 6-level contracts with
#: 4-5 trumps take about 1.7 tricks more than the hand's own estimate, where the kitty counts 0.6).
#: With :data:`PASSED_OPPONENT` and :data:`SHORT_TRUMP` this sets the 3-player trade-off between
#: thrown-in deals and made contracts (1,000 self-play games: 0.4 threw in 21.6% and made 79.0%,
#: 0.55 17.4% and 77.7%, 0.7 13.8% and 76.4%).
ALONE_TRICKS: Final = 0.55


#: With several partners (the 6-player game), tricks asked beyond the estimate for a bid of 8 or
#: more for each partner that passed: it shows less than the average help counted for it.
#: Competitive raises to 8 or more by a seat whose partners had both passed were made 49% of the
#: time without it (taking it off every bid instead threw in a quarter of the deals).
PASSED_PARTNER: Final = 0.6


#: Alone (the 3-player game): trumps wanted, and tricks taken off a trump suit's estimate for each
#: trump short of that.  Forced 6-level contracts in the 3-player game (8,000 deals, own estimate
#: 3.5-6.5) took 1.7 tricks above the estimate with 4-5 trumps, 0.5 with 3, -0.4 with 2 and -1.4
#: with 1 (the 4-player side, with a partner to hold the trumps: 2.6, 2.1, 1.4, 1.6).
ALONE_TRUMPS: Final = 4
SHORT_TRUMP: Final = 1.0
#: Alone (the 3-player game): tricks added to the estimate for each opponent that passed in the
#: auction (a passed opponent holds less than its share, so the bidder's cards take more tricks).
PASSED_OPPONENT: Final = 0.4


def help_tricks(info: RulesInfo, seat: int, partner_tricks: float) -> float:
    """Tricks that ``seat``'s partners are expected to add to its own (table-aware).

    One partner (the 4-player game): ``partner_tricks``.  More partners: the first counts in full,
    each further one :data:`MORE_PARTNERS` of it.  No partner at a table of three or more seats
    (each for themselves): :data:`ALONE_TRICKS`, the extra worth of the hand against two opponents.
    """
    k = len(info.partners[seat])
    if k == 1:
        return partner_tricks
    if k == 0:
        return ALONE_TRICKS if info.n > 2 else 0.0
    return partner_tricks * (1.0 + MORE_PARTNERS * (k - 1))


_HONOUR_W: Final[tuple[float, ...]] = (1.0, 0.7, 0.45, 0.25)
_SIDE_W: Final[tuple[float, ...]] = (1.0, 0.45, 0.15)


def _trump_eval(info: RulesInfo, t: int, top: int, n: int) -> float:
    """Tricks from ``n`` trumps of suit ``t`` whose top-card pattern is ``top``."""
    if not n:
        return 0.0
    tricks = 0.0
    missing = 0
    used = 0
    counted = 0
    for c in info.trump_order[t][:TOP_TRUMPS]:
        if top >> c & 1:
            if missing < 4:
                w = _HONOUR_W[missing]
                if n - used <= missing:  # not enough guards to survive the higher trumps
                    w *= 0.3
                tricks += w
                counted += 1
            used += 1
            if used == n:
                break
        else:
            missing += 1
            if missing >= 4:
                break
    opp_long = (info.n_trumps[t] - n) * info.in_hand_frac + 1.0
    low = n - counted
    if low > 0:
        tricks += max(0.0, min(low, n - opp_long))
    return tricks


def _side_eval(info: RulesInfo, t: int, s: int, top: int, length: int, ruffing: bool) -> float:
    """Tricks from a side suit ``s`` (trump ``t``; 4 = NT) of ``length`` cards with top pattern ``top``."""
    if length == 0:
        return 0.8 if ruffing else 0.0
    total = 0.35 if length == 1 and ruffing else 0.0
    missing = 0
    used = 0
    order = info.side_order[t][s]
    for c in order[:TOP_SIDE]:
        if top >> c & 1:
            if missing < 3 and length > missing:
                w = _SIDE_W[missing]
                if used >= 2 and t < 4:
                    w *= 0.5  # third round of a side suit is often ruffed
                total += w
            used += 1
            if used == length:
                break
        else:
            missing += 1
            if missing >= 3:
                break
    if t == NT and length >= 5 and top >> order[0] & 1:
        total += 0.6 * (length - 4)  # a long running suit
    return total


def _stopper(info: RulesInfo, s: int, top: int, length: int) -> int:
    """1 if a no-trump holding stops suit ``s`` (A, Kx or Qxx), else 0."""
    order = info.side_order[NT][s]
    for depth in range(min(3, len(order))):
        if top >> order[depth] & 1 and length > depth:
            return 1
    return 0


def nt_stopper(info: RulesInfo, s: int, hand: int) -> bool:
    """Whether ``hand`` stops natural suit ``s`` in no-trumps (A, Kx or Qxx; jokers not counted)."""
    m = hand & info.masks[NT][s]
    return bool(_stopper(info, s, m & info.top_masks[NT][s], m.bit_count()))


def suit_estimates(info: RulesInfo, hand: int) -> tuple[list[float], float, int]:
    """The hand's own tricks with each trump suit ``S C D H``, its NT tricks and its NT stoppers.

    Trump tricks: trumps walked from the top (joker, bowers, ace, ...) with a weight that falls with
    the number of missing higher trumps and needs guards, plus low trumps beyond what the longest
    opponent probably holds.  Side suits: aces, guarded kings and queens (a third round counts half),
    a void (0.8) or singleton (0.35) with three trumps or more.  NT: jokers, top cards and long running
    suits; a stopper is A, Kx or Qxx.  Values come from memo tables keyed by the raw holdings: one
    look-up per trump holding and one per natural suit holding (which gives that suit's side value
    under every trump, its NT value and whether it is a stopper).
    """
    trump_raw = info.trump_raw
    trump_masks = info.trump_masks
    nat = info.nat_masks
    suit_raw = info.suit_raw
    v0 = suit_raw[0].get(hand & nat[0]) or _suit_row(info, 0, hand & nat[0])
    v1 = suit_raw[1].get(hand & nat[1]) or _suit_row(info, 1, hand & nat[1])
    v2 = suit_raw[2].get(hand & nat[2]) or _suit_row(info, 2, hand & nat[2])
    v3 = suit_raw[3].get(hand & nat[3]) or _suit_row(info, 3, hand & nat[3])
    est = []
    for t in range(4):
        tm = hand & trump_masks[t]
        tt = trump_raw[t].get(tm)
        if tt is None:
            tt = _trump_row(info, t, tm)
        tv, ruff = tt
        i = 2 * t + ruff
        if t != 0:
            tv += v0[i]
        if t != 1:
            tv += v1[i]
        if t != 2:
            tv += v2[i]
        if t != 3:
            tv += v3[i]
        est.append(tv)
    jokers = (hand & info.joker_mask).bit_count()
    nt = float(jokers) + v0[8] + v1[8] + v2[8] + v3[8]
    # Index 9 of a suit row is its stopper flag, always an int (0 or 1).
    stoppers = jokers + int(v0[9]) + int(v1[9]) + int(v2[9]) + int(v3[9])
    return est, nt, stoppers


def _trump_row(info: RulesInfo, t: int, tm: int) -> tuple[float, int]:
    """Memo entry of a raw trump holding: (its trump tricks, 1 if it allows ruffing)."""
    n = tm.bit_count()
    key = (tm & info.top_masks[t][t]) << 5 | n
    tt = info.trump_memo[t].get(key)
    if tt is None:
        tt = info.trump_memo[t][key] = _trump_eval(info, t, tm & info.top_masks[t][t], n)
    row = (tt, 1 if n >= 3 else 0)
    info.trump_raw[t][tm] = row
    return row


def _suit_row(info: RulesInfo, s: int, m: int) -> tuple[float | int, ...]:
    """Memo entry of a raw natural-suit holding ``m`` of suit ``s``.

    Index ``2 * t + ruff``: its side value under trump ``t`` (0 for ``t == s``); 8: its NT value;
    9: 1 if it stops the suit in NT.
    """
    row: list[float | int] = []
    for t in range(4):
        for ruff in (0, 1):
            if t == s:
                row.append(0.0)
                continue
            mt = m & info.masks[t][s]
            length = mt.bit_count()
            top = mt & info.top_masks[t][s]
            key = top << 5 | length
            d = info.side_memo[t][s][ruff]
            x = d.get(key)
            if x is None:
                x = d[key] = _side_eval(info, t, s, top, length, bool(ruff))
            row.append(x)
    mt = m & info.masks[NT][s]
    length = mt.bit_count()
    top = mt & info.top_masks[NT][s]
    key = top << 5 | length
    d = info.side_memo[NT][s][0]
    x = d.get(key)
    if x is None:
        x = d[key] = _side_eval(info, NT, s, top, length, False)
    row.append(x)
    st = info.stop_memo[s].get(key)
    if st is None:
        st = info.stop_memo[s][key] = _stopper(info, s, top, length)
    row.append(st)
    out = tuple(row)
    info.suit_raw[s][m] = out
    return out


def live_fraction(info: RulesInfo, defenders: int) -> float:
    """The share of the cards outside one hand that ``defenders`` hands hold (at most 1; 0 when no
    card is outside): the ``live_frac`` of :func:`misere_danger` and :func:`misere_total`."""
    outside = info.full.bit_count() - info.hand_size
    return min(1.0, defenders * info.hand_size / outside) if outside > 0 else 0.0


def misere_danger(info: RulesInfo, hand: int, live_frac: float) -> list[tuple[float, int]]:
    """Danger of each card of ``hand`` in a misère, as ``(danger, card)`` sorted most dangerous first.

    A card is dangerous when many live outside cards of its suit are lower than it, compared with
    how many of the seat's own cards sit below it.  Jokers are always fully dangerous.  Only cards
    with some danger are listed.
    """
    ci = info.suit_info[NT]
    out: list[tuple[float, int]] = []
    for c in info.jokers:
        if hand >> c & 1:
            out.append((2.0, c))
    memos = info.danger_memo.get(live_frac)
    if memos is None:
        memos = info.danger_memo[live_frac] = [{} for _ in range(4)]
    for s in range(4):
        m = hand & ci.suit_mask[s]
        if not m:
            continue
        memo = memos[s]
        part = memo.get(m)
        if part is None:
            part = []
            i = 0
            for c in reversed(info.side_order[NT][s]):  # lowest first
                if m >> c & 1:
                    below = (ci.lower[c] & ~m).bit_count() * live_frac
                    d = (below - i - 0.5) / 1.5
                    if d > 0:
                        part.append((min(d, 1.0), c))
                    i += 1
            memo[m] = part
        out.extend(part)
    out.sort(reverse=True)
    return out


def misere_total(info: RulesInfo, hand: int, live_frac: float) -> float:
    """The sum of :func:`misere_danger` over ``hand`` (jokers 2.0 each), from per-suit memo tables."""
    memos = info.danger_sum_memo.get(live_frac)
    if memos is None:
        memos = info.danger_sum_memo[live_frac] = [{} for _ in range(4)]
    nat = info.nat_masks
    total = 2.0 * (hand & info.joker_mask).bit_count()
    for s in range(4):
        m = hand & nat[s]
        if m:
            x = memos[s].get(m)
            if x is None:
                x = 0.0
                for d, _ in misere_danger(info, m, live_frac):
                    x += d
                memos[s][m] = x
            total += x
    return total
