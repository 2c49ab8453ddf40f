/* The double-dummy search of sim/dd.py in C: the same search over the same renumbered cards.
 *
 * sim/dd.py (class _Solver) derives everything rule-dependent from the engine's rules object and
 * card tables and passes it here as plain ints (see _Solver.c_frame): the seats' order and sides,
 * each card's block (effective suit) and trick score, the block masks, and the suitless joker's
 * lead rule as a table (suits it may name, by last trick / suits led / other cards held).  This file
 * holds no rule of the game beyond "follow the led block if able"; the pure-Python search of
 * sim/dd.py gives identical answers (tests/sim/test_dd.py runs every test against both).
 *
 * solve(frame, moves) -> list[int]: with no moves, [the counted side's tricks from the current
 * frame on]; else the same after each move (card + 64 * (naming + 1), a led joker's named suit).
 *
 * The transposition table is one static array of TT_SIZE entries (bounded memory), reused across
 * calls: each solve bumps a stamp, and entries of older stamps count as empty.  The GIL is held
 * throughout, so no two solves share it at once.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>

typedef uint64_t u64;

#define NAMING 64
#define JOKERS 4
#define TT_BITS 18
#define TT_SIZE (1u << TT_BITS)
#define MAXMOVES 80

typedef struct {
    u64 code[5];
    uint32_t aux; /* leader * 16 + led suits */
    uint32_t stamp;
    int8_t lo, hi;
    int16_t move; /* the best lead, relative (see rel), + 1; 0: none */
} Entry;

static Entry *tt = NULL;
static uint32_t tt_stamp = 0;
static unsigned long long node_count = 0; /* lead nodes searched, over all solves (statistics) */

typedef struct {
    int n, nact, misere, forced, ls_matters, hand_size, trump, declarer, ncards;
    u64 suitless, power_mask;
    int next[6], counted[6], maxer[6];
    u64 block_mask[5];
    uint8_t jls[64];
    int block_of[64], pw[64];
    /* the search state */
    u64 hands[6], rem, code[5], trick_mask;
    int led_suits, left, tp;
    int k, seat, led, best, win;
} S;

static inline int popc(u64 x) { return __builtin_popcountll(x); }
static inline int msb(u64 x) { return 63 - __builtin_clzll(x); }
static inline u64 above(int c) { return c >= 63 ? 0 : ~((2ULL << c) - 1); } /* bits above c */

static inline int score(const S *s, int c, int led) {
    int p = s->pw[c];
    if (p) return p;
    return s->block_of[c] == led ? 64 + c : 0;
}

static inline u64 take(S *s, int seat, int c) {
    u64 bit = 1ULL << c;
    int b = s->block_of[c];
    u64 old = s->code[b];
    int p = 3 * popc(s->rem & s->block_mask[b] & (bit - 1));
    u64 low = p ? old & ((1ULL << p) - 1) : 0;
    s->code[b] = ((old >> (p + 3)) << p) | low;
    s->hands[seat] ^= bit;
    s->rem ^= bit;
    return old;
}

static inline void give(S *s, int seat, int c, u64 old) {
    u64 bit = 1ULL << c;
    s->code[s->block_of[c]] = old;
    s->hands[seat] ^= bit;
    s->rem ^= bit;
}

static inline int jls(const S *s, int tp, int other) {
    return s->jls[((tp == s->hand_size - 1) * 16 + (s->led_suits & 15)) * 2 + (other ? 1 : 0)];
}

static inline u64 playable(const S *s, u64 hand, int led) {
    u64 follow = hand & s->block_mask[led];
    if (follow) return follow;
    u64 jk = hand & s->suitless;
    if (jk && s->forced) return jk;
    return hand;
}

static int last_trick(const S *s, int leader) {
    int c = msb(s->hands[leader]);
    int led = s->block_of[c];
    int best = score(s, c, led), win = leader;
    for (int seat = s->next[leader]; seat != leader; seat = s->next[seat]) {
        int sc = score(s, msb(s->hands[seat]), led);
        if (sc > best) {
            best = sc;
            win = seat;
        }
    }
    return s->counted[win];
}

/* The lowest card of each run of equivalent cards (no other unplayed card between them). */
static int runs(const S *s, u64 cards, int *out) {
    u64 u = s->rem | s->trick_mask;
    int prev = -1, block = -1, n = 0;
    while (cards) {
        u64 low = cards & -cards;
        int c = __builtin_ctzll(cards);
        cards ^= low;
        int b = s->block_of[c];
        if (!(b == block && !(u & (low - (2ULL << prev))))) {
            out[n++] = c;
            block = b;
        }
        prev = c;
    }
    return n;
}

static int top_run(u64 hand, u64 cards) {
    int run = 0;
    while (cards) {
        int top = msb(cards);
        if (!(hand >> top & 1)) break;
        run++;
        cards ^= 1ULL << top;
    }
    return run;
}

/* The leader's tricks cashed at once: its top trumps (drawing the other side's trumps), or its top
 * suitless joker, then its top cards of each other block.  A side-suit winner cannot be ruffed by an
 * opponent that still holds cards of that block, so with ruffers left a block's run counts up to the
 * shortest ruffer's length there; a partner void of the block but holding power cards could be
 * forced to overtake, so the side-suit total is also capped by every such partner's other cards. */
static int cash_by(const S *s, int leader, int no_joker, int spent) {
    u64 hand = s->hands[leader], power = s->power_mask & s->rem;
    int side = s->maxer[leader], total = 0, drawn = 0;
    u64 ruffers[6];
    int loss[6], nr = 0;
    if (s->trump >= 0) {
        u64 trumps = s->block_mask[s->trump] & s->rem;
        total = drawn = top_run(hand, trumps);
        for (int q = 0; q < s->n; q++) {
            if (s->maxer[q] == side) continue;
            if (popc(s->hands[q] & trumps) > total) { /* follows every trump lead: keeps its other cards */
                loss[nr] = 0;
                ruffers[nr++] = s->hands[q];
            } else if (s->hands[q] & s->suitless & s->rem) {
                loss[nr] = drawn;
                ruffers[nr++] = s->hands[q];
            }
        }
    } else {
        u64 jokers = s->suitless & s->rem;
        if (jokers) {
            if (!no_joker && hand >> msb(jokers) & 1 && jls(s, s->tp, hand != (hand & jokers))) total = drawn = 1;
            for (int q = 0; q < s->n; q++)
                if (s->maxer[q] != side && (s->hands[q] & jokers)) {
                    loss[nr] = drawn; /* a card of some block went on the joker's lead */
                    ruffers[nr++] = s->hands[q];
                }
        }
    }
    int side_total = 0;
    for (int b = 0; b < 4; b++) {
        if (b == s->trump) continue;
        int run = top_run(hand, s->block_mask[b] & s->rem);
        for (int i = 0; i < nr && run; i++) {
            int len = popc(ruffers[i] & s->block_mask[b]) - loss[i];
            if (len < run) run = len < 0 ? 0 : len;
        }
        side_total += run;
    }
    for (int q = 0; q < s->n && side_total; q++) {
        if (q == leader || s->maxer[q] != side || !(s->hands[q] & power)) continue;
        int other = popc(s->hands[q] & ~power) - drawn - (q == spent);
        if (other < side_total) side_total = other < 0 ? 0 : other;
    }
    total += side_total;
    return total < s->left ? total : s->left;
}

/* cash_by for the leader, or for its one partner after a lead of a side block to the partner's top
 * card there (every opponent with power cards holding that block, so the entry cannot be ruffed; the
 * entry trick is the first of the partner's run in that block). */
static int cash(const S *s, int leader) {
    int c = cash_by(s, leader, 0, -1), side = s->maxer[leader], p = -1, mates = 0;
    for (int q = 0; q < s->n; q++)
        if (q != leader && s->maxer[q] == side) {
            p = q;
            mates++;
        }
    if (mates != 1 || c >= s->left) return c;
    u64 power = s->power_mask & s->rem;
    for (int b = 0; b < 4; b++) {
        if (b == s->trump) continue;
        u64 cards = s->block_mask[b] & s->rem;
        if (!(s->hands[leader] & cards) || !(s->hands[p] >> msb(cards) & 1)) continue;
        int ok = 1;
        for (int q = 0; q < s->n && ok; q++)
            if (s->maxer[q] != side && (s->hands[q] & power) && !(s->hands[q] & cards)) ok = 0;
        if (!ok) continue;
        int v = cash_by(s, p, 1, leader);
        return v > c ? v : c;
    }
    return c;
}

/* Tricks each side is sure of (see _Solver._bounds). */
static void bounds(const S *s, int leader, int *sure_max, int *sure_min) {
    u64 power = s->power_mask & s->rem, top_max = 0, top_min = 0;
    for (int q = 0; q < s->n; q++) {
        if (s->maxer[q])
            top_max |= s->hands[q] & power;
        else
            top_min |= s->hands[q] & power;
    }
    int smax = 0, smin = 0;
    if (power) {
        u64 over_max = top_min ? above(msb(top_min)) : ~0ULL;
        u64 over_min = top_max ? above(msb(top_max)) : ~0ULL;
        for (int q = 0; q < s->n; q++) {
            u64 h = s->hands[q] & power;
            if (!h) continue;
            if (s->maxer[q]) {
                int o = popc(h & over_max);
                if (o > smax) smax = o;
            } else {
                int o = popc(h & over_min);
                if (o > smin) smin = o;
            }
        }
    }
    int c = cash(s, leader);
    if (s->maxer[leader]) {
        if (c > smax) smax = c;
    } else if (c > smin) {
        smin = c;
    }
    *sure_max = smax;
    *sure_min = smin;
}

static int rel(const S *s, int m) {
    int c = m & 63, b = s->block_of[c];
    int p = popc(s->rem & s->block_mask[b] & ((1ULL << c) - 1));
    return p | b << 4 | (m >> 6) << 7;
}

static int lead_moves(const S *s, int leader, int hint, int *out) {
    u64 hand = s->hands[leader], jk = hand & s->suitless, others = s->rem & ~hand;
    int reps[64], nrep = runs(s, hand ^ jk, reps);
    int win[64], part[64], rest[MAXMOVES], nw = 0, np = 0, nr = 0, jm[MAXMOVES], nj = 0;
    int ruff = 0, side = s->maxer[leader];
    u64 partners = 0;
    for (int q = 0; q < s->n; q++) {
        if (!s->misere && s->maxer[q] != side && (s->hands[q] & s->power_mask)) ruff = 1;
        if (q != leader && s->maxer[q] == side) partners |= s->hands[q];
    }
    for (int i = 0; i < nrep; i++) {
        int c = reps[i], b = s->block_of[c];
        u64 higher = others & s->block_mask[b] & above(c);
        if (!s->misere && !higher && (b == s->trump || !ruff))
            win[nw++] = c;
        else if (!s->misere && higher && (partners >> msb(higher) & 1))
            part[np++] = c;
        else
            rest[nr++] = c;
    }
    if (jk) {
        int suits = jls(s, s->tp, hand != jk), jr[64], njr = runs(s, jk, jr);
        for (int i = 0; i < njr; i++) {
            int c = jr[i];
            int alone = !(s->suitless & s->rem & ~(1ULL << c)), void_done = 0;
            for (int x = 0; x < 4; x++) {
                if (!(suits >> x & 1)) continue;
                if (alone && !(others & s->block_mask[x])) {
                    if (void_done) continue;
                    void_done = 1;
                }
                jm[nj++] = c + NAMING * (x + 1);
            }
        }
    }
    int n = 0;
    if (!s->misere)
        for (int i = 0; i < nj; i++) out[n++] = jm[i];
    for (int i = 0; i < nw; i++) out[n++] = win[i];
    for (int i = 0; i < np; i++) out[n++] = part[i];
    for (int i = 0; i < nr; i++) out[n++] = rest[i];
    if (s->misere)
        for (int i = 0; i < nj; i++) out[n++] = jm[i];
    if (hint >= 0) {
        for (int i = 0; i < n; i++) {
            if (rel(s, out[i]) == hint) {
                int m = out[i];
                for (int j = i; j > 0; j--) out[j] = out[j - 1];
                out[0] = m;
                break;
            }
        }
    }
    return n;
}

static int add_runs(const S *s, u64 cards, int high_first, int *out, int n) {
    if (!cards) return n;
    int r[64], nr = runs(s, cards, r);
    for (int i = 0; i < nr; i++) out[n++] = high_first ? r[nr - 1 - i] : r[i];
    return n;
}

static int follow_moves(const S *s, int seat, u64 legal, int led, int best, int win, int *out) {
    u64 beat;
    if (best >= 192)
        beat = s->suitless & above(best - 192);
    else if (best >= 128)
        beat = s->suitless | (s->power_mask & ~s->suitless & above(best - 128));
    else
        beat = s->power_mask | (s->block_mask[led] & above(best - 64));
    u64 win_cards = legal & beat, lose_cards = legal & ~beat;
    int n = 0;
    if (s->misere) {
        n = add_runs(s, lose_cards, seat == s->declarer || win == s->declarer, out, n);
        n = add_runs(s, win_cards, 0, out, n);
    } else if (s->maxer[win] == s->maxer[seat]) {
        n = add_runs(s, lose_cards, 0, out, n);
        n = add_runs(s, win_cards, 0, out, n);
    } else {
        n = add_runs(s, win_cards, 0, out, n);
        n = add_runs(s, lose_cards, 0, out, n);
    }
    return n;
}

static int lead(S *s, int leader, int alpha, int beta);

static int play(S *s, int k, int seat, int alpha, int beta, int led, int best, int win) {
    u64 legal = playable(s, s->hands[seat], led);
    int maxer = s->maxer[seat], last = k + 1 == s->nact, nxt = s->next[seat];
    int a = alpha, b = beta, value = maxer ? -1 : 99;
    int moves[64], nm = follow_moves(s, seat, legal, led, best, win, moves);
    for (int i = 0; i < nm; i++) {
        int c = moves[i], v;
        u64 bit = 1ULL << c;
        int sc = score(s, c, led), nb = best, nw = win;
        if (sc > best) {
            nb = sc;
            nw = seat;
        }
        u64 old = take(s, seat, c);
        if (last) {
            u64 tm = s->trick_mask;
            s->trick_mask = 0;
            s->left--;
            s->tp++;
            if (s->counted[nw])
                v = s->misere ? 1 : 1 + lead(s, nw, a - 1, b - 1);
            else
                v = lead(s, nw, a, b);
            s->left++;
            s->tp--;
            s->trick_mask = tm;
        } else {
            s->trick_mask |= bit;
            v = play(s, k + 1, nxt, a, b, led, nb, nw);
            s->trick_mask ^= bit;
        }
        give(s, seat, c, old);
        if (maxer) {
            if (v > value) {
                value = v;
                if (value >= b) return value;
                if (value > a) a = value;
            }
        } else if (v < value) {
            value = v;
            if (value <= a) return value;
            if (value < b) b = value;
        }
    }
    return value;
}

static inline u64 tt_hash(const u64 *code, uint32_t aux) {
    u64 h = aux * 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 5; i++) {
        h ^= code[i] + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
        h *= 0xFF51AFD7ED558CCDULL;
    }
    return h ^ (h >> 29);
}

static inline Entry *tt_find(const S *s, uint32_t aux, u64 h) {
    Entry *e = &tt[h & (TT_SIZE - 1)];
    if (e->stamp == tt_stamp && e->aux == aux && e->code[0] == s->code[0] && e->code[1] == s->code[1] &&
        e->code[2] == s->code[2] && e->code[3] == s->code[3] && e->code[4] == s->code[4])
        return e;
    return NULL;
}

static inline void tt_store(const S *s, uint32_t aux, u64 h, int lo, int hi, int move) {
    Entry *e = &tt[h & (TT_SIZE - 1)];
    for (int i = 0; i < 5; i++) e->code[i] = s->code[i];
    e->aux = aux;
    e->stamp = tt_stamp;
    e->lo = (int8_t)lo;
    e->hi = (int8_t)hi;
    e->move = (int16_t)(move + 1);
}

/* At a trick boundary, leader to lead: the counted side's tricks from here, fail-soft. */
static int lead(S *s, int leader, int alpha, int beta) {
    int left = s->left;
    if (left <= 1) return left ? last_trick(s, leader) : 0;
    if (beta <= 0) return 0;
    if (alpha >= left) return left;
    node_count++;
    u64 rem = s->rem;
    int ls = (s->ls_matters && (rem & s->suitless)) ? s->led_suits : 0;
    uint32_t aux = (uint32_t)(leader * 16 + ls);
    u64 h = tt_hash(s->code, aux);
    Entry *e = tt_find(s, aux, h);
    int lo = 0, hi = left, hint = -1;
    if (e) {
        lo = e->lo;
        hi = e->hi;
        if (lo >= beta || lo == hi) return lo;
        if (hi <= alpha) return hi;
        hint = e->move - 1;
    }
    if (s->misere) {
        u64 jk = s->suitless & rem;
        if (jk && (s->hands[s->declarer] >> msb(jk) & 1)) return 1;
    } else {
        int smax, smin;
        bounds(s, leader, &smax, &smin);
        if (smax > lo || left - smin < hi) {
            if (smax > lo) lo = smax;
            if (left - smin < hi) hi = left - smin;
            if (lo >= beta || lo == hi) {
                tt_store(s, aux, h, lo, hi, hint);
                return lo;
            }
            if (hi <= alpha) {
                tt_store(s, aux, h, lo, hi, hint);
                return hi;
            }
        }
    }
    int a = alpha > lo ? alpha : lo, b = beta < hi ? beta : hi, a0 = a, b0 = b;
    int maxer = s->maxer[leader], best = maxer ? -1 : 99, found = -1;
    int saved_ls = s->led_suits, nxt = s->next[leader];
    int moves[MAXMOVES], nm = lead_moves(s, leader, hint, moves);
    for (int i = 0; i < nm; i++) {
        int m = moves[i], c = m & 63, naming = m >> 6;
        int led = naming ? naming - 1 : s->block_of[c];
        u64 old = take(s, leader, c);
        s->trick_mask = 1ULL << c;
        s->led_suits = saved_ls | 1 << led;
        int v = play(s, 1, nxt, a, b, led, score(s, c, led), leader);
        give(s, leader, c, old);
        s->trick_mask = 0;
        s->led_suits = saved_ls;
        if (maxer) {
            if (v > best) {
                best = v;
                found = m;
                if (best >= b) break;
                if (best > a) a = best;
            }
        } else if (v < best) {
            best = v;
            found = m;
            if (best <= a) break;
            if (best < b) b = best;
        }
    }
    if (best <= a0) {
        if (best < hi) hi = best;
    } else if (best >= b0) {
        if (best > lo) lo = best;
    } else {
        lo = hi = best;
    }
    tt_store(s, aux, h, lo, hi, found >= 0 ? rel(s, found) : hint);
    return best;
}

static int search(S *s, int alpha, int beta) {
    if (s->k == 0) return lead(s, s->seat, alpha, beta);
    return play(s, s->k, s->seat, alpha, beta, s->led, s->best, s->win);
}

static int exact(S *s, int guess) {
    if (s->misere) return search(s, 0, 1) >= 1 ? 1 : 0;
    int lo = 0, hi = s->left;
    int g = guess < 0 ? 0 : (guess > hi ? hi : guess);
    while (lo < hi) {
        int beta = g == lo ? g + 1 : g;
        g = search(s, beta - 1, beta);
        if (g < beta)
            hi = g;
        else
            lo = g;
    }
    return lo;
}

/* exact() after the seat to move plays card c (naming: a led joker's suit, or -1). */
static int value_after(S *s, int c, int naming, int guess) {
    S saved = *s;
    int seat = s->seat;
    if (s->k == 0) {
        s->led = naming >= 0 ? naming : s->block_of[c];
        s->led_suits |= 1 << s->led;
    }
    int sc = score(s, c, s->led);
    if (sc > s->best) {
        s->best = sc;
        s->win = seat;
    }
    take(s, seat, c);
    s->trick_mask |= 1ULL << c;
    int value;
    if (s->k + 1 == s->nact) {
        int winner = s->win, gained = s->counted[winner];
        s->trick_mask = 0;
        s->left--;
        s->tp++;
        s->k = 0;
        s->seat = winner;
        s->best = -1;
        s->win = -1;
        value = (s->misere && gained) ? 1 : gained + exact(s, guess - gained);
    } else {
        s->k++;
        s->seat = s->next[seat];
        value = exact(s, guess);
    }
    *s = saved;
    return value;
}

/* Reads the frame of _Solver.c_frame (a tuple of ints; the layout is fixed there). */
static int read_frame(PyObject *frame, S *s, int *guess) {
    if (!PyTuple_Check(frame)) {
        PyErr_SetString(PyExc_TypeError, "frame must be a tuple");
        return -1;
    }
    Py_ssize_t len = PyTuple_GET_SIZE(frame), at = 0;
#define NEXT(dst, type)                                                             \
    do {                                                                            \
        if (at >= len) {                                                            \
            PyErr_SetString(PyExc_ValueError, "frame too short");                   \
            return -1;                                                              \
        }                                                                           \
        unsigned long long v_ = PyLong_AsUnsignedLongLongMask(PyTuple_GET_ITEM(frame, at++)); \
        if (v_ == (unsigned long long)-1 && PyErr_Occurred()) return -1;            \
        (dst) = (type)v_;                                                           \
    } while (0)
    NEXT(s->n, int);
    NEXT(s->nact, int);
    NEXT(s->misere, int);
    NEXT(s->forced, int);
    NEXT(s->ls_matters, int);
    NEXT(s->hand_size, int);
    NEXT(s->trump, int);
    NEXT(s->declarer, int);
    NEXT(s->ncards, int);
    NEXT(s->suitless, u64);
    NEXT(s->power_mask, u64);
    if (s->n < 1 || s->n > 6 || s->ncards < 0 || s->ncards > 64) {
        PyErr_SetString(PyExc_ValueError, "frame out of range");
        return -1;
    }
    for (int i = 0; i < 6; i++) NEXT(s->next[i], int);
    for (int i = 0; i < 6; i++) NEXT(s->counted[i], int);
    for (int i = 0; i < 6; i++) NEXT(s->maxer[i], int);
    for (int i = 0; i < 5; i++) NEXT(s->block_mask[i], u64);
    for (int i = 0; i < 64; i++) NEXT(s->jls[i], uint8_t);
    for (int i = 0; i < s->ncards; i++) NEXT(s->block_of[i], int);
    for (int i = 0; i < s->ncards; i++) NEXT(s->pw[i], int);
    for (int i = 0; i < 6; i++) NEXT(s->hands[i], u64);
    NEXT(s->trick_mask, u64);
    NEXT(s->led_suits, int);
    NEXT(s->k, int);
    NEXT(s->seat, int);
    NEXT(s->led, int);
    NEXT(s->best, int);
    NEXT(s->win, int);
    NEXT(s->left, int);
    NEXT(s->tp, int);
    NEXT(*guess, int);
#undef NEXT
    if (at != len) {
        PyErr_SetString(PyExc_ValueError, "frame too long");
        return -1;
    }
    /* the relative-rank codes: for each block, the owners (seat + 1) of its cards in hands, weakest first */
    s->rem = 0;
    for (int q = 0; q < 6; q++) s->rem |= s->hands[q];
    for (int b = 0; b < 5; b++) {
        u64 cards = s->rem & s->block_mask[b], code = 0;
        int p = 0;
        if (popc(cards) > 21) {
            PyErr_SetString(PyExc_ValueError, "a block holds too many cards");
            return -1;
        }
        while (cards) {
            int c = __builtin_ctzll(cards);
            cards &= cards - 1;
            for (int q = 0; q < 6; q++)
                if (s->hands[q] >> c & 1) code |= (u64)(q + 1) << (3 * p);
            p++;
        }
        s->code[b] = code;
    }
    return 0;
}

static PyObject *ddc_solve(PyObject *self, PyObject *args) {
    PyObject *frame, *moves;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO", &frame, &moves)) return NULL;
    S s;
    int guess = 0;
    if (read_frame(frame, &s, &guess) < 0) return NULL;
    PyObject *seq = PySequence_Fast(moves, "moves must be a sequence");
    if (!seq) return NULL;
    if (!tt) {
        tt = (Entry *)calloc(TT_SIZE, sizeof(Entry));
        if (!tt) {
            Py_DECREF(seq);
            return PyErr_NoMemory();
        }
    }
    if (++tt_stamp == 0) { /* wrapped: clear the stamps once every 2**32 solves */
        for (uint32_t i = 0; i < TT_SIZE; i++) tt[i].stamp = 0;
        tt_stamp = 1;
    }
    Py_ssize_t nm = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(nm ? nm : 1);
    if (!out) {
        Py_DECREF(seq);
        return NULL;
    }
    if (!nm) {
        PyList_SET_ITEM(out, 0, PyLong_FromLong(exact(&s, guess)));
    }
    for (Py_ssize_t i = 0; i < nm; i++) {
        long m = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (m == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            Py_DECREF(out);
            return NULL;
        }
        int c = (int)(m & 63), naming = (int)(m >> 6) - 1;
        if (m < 0 || c >= s.ncards || !(s.hands[s.seat] >> c & 1)) {
            Py_DECREF(seq);
            Py_DECREF(out);
            PyErr_SetString(PyExc_ValueError, "a move not in the hand to move");
            return NULL;
        }
        PyList_SET_ITEM(out, i, PyLong_FromLong(value_after(&s, c, naming, guess)));
    }
    Py_DECREF(seq);
    return out;
}

static PyObject *ddc_nodes(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return PyLong_FromUnsignedLongLong(node_count);
}

static PyMethodDef methods[] = {
    {"nodes", ddc_nodes, METH_NOARGS, "nodes() -> int: trick-boundary nodes searched so far (all solves)."},
    {"solve", ddc_solve, METH_VARARGS,
     "solve(frame, moves) -> list[int]: the counted side's tricks from the frame (moves empty), or after "
     "each move."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ddc", "The C double-dummy search of sim/dd.py (see sim/_ddc.c).", -1, methods,
};

PyMODINIT_FUNC PyInit__ddc(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "TT_SIZE", TT_SIZE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
