/* The double-dummy search of sim/dd.py in C: the same values as the Python search, over the same
 * renumbered cards, with stronger bounds and a partition-search transposition table (so it visits
 * far fewer nodes; the values are identical, tests/sim/test_dd_backends.py).
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
 * The transposition table (partition search, see Entry and "Relevant cards") is one static array of
 * 2^TT_BITS buckets of TT_WAYS entries (bounded memory, allocated once), reused across calls: each
 * solve bumps a stamp, and a bucket of an older stamp is emptied when first touched.  The GIL is
 * held throughout, so no two solves share it at once.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t u64;

#define NAMING 64
#define JOKERS 4
#define TT_BITS 12 /* buckets */
#define TT_WAYS 64
#define TT_SIZE ((1u << TT_BITS) * TT_WAYS)
#define MAXMOVES 80

/* A transposition entry holds a bound pair valid for every position of its class: the same leader
 * (and led suits when they matter), the same number of cards of each block in each hand, and, in
 * each block b, the same owners of the block's top k[b] cards still in hands (partition search: the
 * lower cards' ranks did not decide any trick of the search that proved the bounds). */
typedef struct {
    u64 top[5];       /* per block: the owners (seat + 1, 3 bits each, weakest first) of its top k cards */
    uint32_t lens[5]; /* per block: each seat's count of its cards (4 bits a seat) */
    uint32_t aux;     /* leader * 16 + led suits */
    uint8_t k[5];
    int8_t lo, hi;
    int16_t move; /* the best lead, relative (see rel), + 1; 0: none */
} Entry;

/* A bucket holds the entries of the classes hashed to it; tag[w] is entry w's class hash mixed with
 * the solve's stamp (0: empty), so a probe reads the tags first and few entries. */
typedef struct {
    uint32_t stamp; /* the solve that filled it (older: empty) */
    uint32_t tag[TT_WAYS];
    uint8_t work[TT_WAYS]; /* log2 of the nodes searched to prove entry w (replacement keeps costly ones) */
    Entry e[TT_WAYS];
} Bucket;

static Bucket *tt = NULL;
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

/* Relevant cards.  Every search result comes with a mask of "relevant" cards: in each block, its
 * lowest relevant card t says that the result holds for every position that has the same counts of
 * each block in each hand and the same owners of that block's cards from t up (the cards below t
 * only count).  A card becomes relevant when it wins a trick over another card of its block, or
 * when a bound (quick tricks, sure trumps) relies on who holds it. */
static inline u64 bit_of(int c) { return c >= 0 ? 1ULL << c : 0; }

/* The n-th highest of cards (n >= 1), or its lowest when it holds fewer; -1 when empty. */
static inline int nth_high(u64 cards, int n) {
    int c = -1;
    while (cards && n-- > 0) {
        c = msb(cards);
        cards ^= 1ULL << c;
    }
    return c;
}

/* The card winning a trick with score sc (see score). */
static inline int score_card(int sc) { return sc >= 192 ? sc - 192 : (sc >= 128 ? sc - 128 : sc - 64); }

/* The relevance of a finished trick: its winning card when it beat another card of its block. */
static inline u64 trick_rel(const S *s, u64 trick, int sc) {
    int wc = score_card(sc);
    return popc(trick & s->block_mask[s->block_of[wc]]) >= 2 ? 1ULL << wc : 0;
}

/* A child's relevance r seen from the move c (the lowest card of its run of equivalent cards in
 * hand, u the cards in hands and in the trick): the other cards of the run could have been played
 * instead, so when r's lowest card of c's block lies in that run, the whole run is relevant. */
static inline u64 lift(const S *s, u64 r, int c, u64 hand, u64 u) {
    u64 m = r & s->block_mask[s->block_of[c]];
    if (!m) return r;
    int t = __builtin_ctzll(m);
    if (t > c && (hand >> t & 1)) {
        u64 between = ((1ULL << t) - 1) & ~((2ULL << c) - 1);
        if (!(u & between & ~hand)) r |= 1ULL << c;
    }
    return r;
}

static int last_trick(const S *s, int leader, u64 *rv) {
    int c = msb(s->hands[leader]);
    int led = s->block_of[c];
    int best = score(s, c, led), win = leader;
    u64 trick = 1ULL << c;
    for (int seat = s->next[leader]; seat != leader; seat = s->next[seat]) {
        int x = msb(s->hands[seat]), sc = score(s, x, led);
        trick |= 1ULL << x;
        if (sc > best) {
            best = sc;
            win = seat;
        }
    }
    *rv |= trick_rel(s, trick, best);
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

/* How many of the top cards hand holds without a break.  exact: the count itself is relied on (the
 * card that breaks the run is relevant too), else only "at least this many" (the run's cards). */
static int top_run(u64 hand, u64 cards, int exact, u64 *rv) {
    int run = 0;
    u64 all = cards;
    while (cards) {
        int top = msb(cards);
        if (!(hand >> top & 1)) break;
        run++;
        cards ^= 1ULL << top;
    }
    if (exact)
        *rv |= bit_of(nth_high(all, run + 1));
    else if (run)
        *rv |= bit_of(nth_high(all, run));
    return run;
}

/* The leader's tricks cashed at once: its top trumps (drawing the other side's trumps), or its top
 * suitless joker, then its top cards of each other block.  A side-suit winner cannot be ruffed by an
 * opponent that still holds cards of that block, so with ruffers left a block's run counts up to the
 * shortest ruffer's length there; a partner void of the block but holding power cards could be
 * forced to overtake, so the side-suit total is also capped by every such partner's other cards.
 * The count never falls when the leader holds more top cards (beyond the trump run, which is exact),
 * so the cards it relies on are added to rv. */
static int cash_by(const S *s, int leader, int no_joker, int spent, u64 *rv) {
    u64 hand = s->hands[leader], power = s->power_mask & s->rem;
    int side = s->maxer[leader], total = 0, drawn = 0;
    u64 ruffers[6];
    int loss[6], nr = 0;
    if (s->trump >= 0) {
        u64 trumps = s->block_mask[s->trump] & s->rem;
        total = drawn = top_run(hand, trumps, 1, rv);
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
            if (!no_joker) {
                *rv |= 1ULL << msb(jokers);
                if (hand >> msb(jokers) & 1 && jls(s, s->tp, hand != (hand & jokers))) total = drawn = 1;
            }
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
        int run = top_run(hand, s->block_mask[b] & s->rem, 0, rv);
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
 * entry trick is the first of the partner's run in that block).  The top card of every block looked
 * at is relevant (a position with other owners could pick another block). */
static int cash(const S *s, int leader, u64 *rv) {
    u64 r1 = 0, r2 = 0;
    int c = cash_by(s, leader, 0, -1, &r1), side = s->maxer[leader], p = -1, mates = 0;
    for (int q = 0; q < s->n; q++)
        if (q != leader && s->maxer[q] == side) {
            p = q;
            mates++;
        }
    if (mates != 1 || c >= s->left) {
        *rv |= r1;
        return c;
    }
    u64 power = s->power_mask & s->rem;
    for (int b = 0; b < 4; b++) {
        if (b == s->trump) continue;
        u64 cards = s->block_mask[b] & s->rem;
        if (!(s->hands[leader] & cards)) continue;
        r2 |= 1ULL << msb(cards);
        if (!(s->hands[p] >> msb(cards) & 1)) continue;
        int ok = 1;
        for (int q = 0; q < s->n && ok; q++)
            if (s->maxer[q] != side && (s->hands[q] & power) && !(s->hands[q] & cards)) ok = 0;
        if (!ok) continue;
        int v = cash_by(s, p, 1, leader, &r2);
        if (v > c) {
            *rv |= r2;
            return v;
        }
        break;
    }
    *rv |= r1;
    return c;
}

/* Power cards (trumps, suitless jokers) above c: the owners of c and of every card above it count. */
static inline u64 power_rel(const S *s, u64 top) {
    if (!top) return 0;
    int c = msb(top);
    u64 jokers = s->suitless & s->rem;
    return (1ULL << c) | (s->block_of[c] != JOKERS && jokers ? jokers & -jokers : 0);
}

/* Tricks each side is sure of (see _Solver._bounds), with the cards each figure relies on. */
static void bounds(const S *s, int leader, int *sure_max, int *sure_min, u64 *rmax, u64 *rmin) {
    u64 power = s->power_mask & s->rem, top_max = 0, top_min = 0;
    for (int q = 0; q < s->n; q++) {
        if (s->maxer[q])
            top_max |= s->hands[q] & power;
        else
            top_min |= s->hands[q] & power;
    }
    int smax = 0, smin = 0;
    u64 ra_max = 0, ra_min = 0;
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
        if (smax) ra_max = power_rel(s, top_min);
        if (smin) ra_min = power_rel(s, top_max);
    }
    u64 rc = 0;
    int c = cash(s, leader, &rc);
    if (s->maxer[leader]) {
        if (c > smax) {
            smax = c;
            ra_max = rc;
        }
    } else if (c > smin) {
        smin = c;
        ra_min = rc;
    }
    *sure_max = smax;
    *sure_min = smin;
    *rmax = ra_max;
    *rmin = ra_min;
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

static int lead(S *s, int leader, int alpha, int beta, u64 *rv);

/* Within a trick: k cards played, seat to play, best/win the score and seat winning so far; the
 * counted side's tricks from this trick on, fail-soft like lead, the relevant cards added to rv. */
static int play(S *s, int k, int seat, int alpha, int beta, int led, int best, int win, u64 *rv) {
    u64 hand = s->hands[seat], u = s->rem | s->trick_mask;
    u64 legal = playable(s, hand, led), racc = 0;
    int maxer = s->maxer[seat], last = k + 1 == s->nact, nxt = s->next[seat];
    int a = alpha, b = beta, value = maxer ? -1 : 99;
    int moves[64], nm = follow_moves(s, seat, legal, led, best, win, moves);
    for (int i = 0; i < nm; i++) {
        int c = moves[i], v;
        u64 bit = 1ULL << c, r1 = 0;
        int sc = score(s, c, led), nb = best, nw = win;
        if (sc > best) {
            nb = sc;
            nw = seat;
        }
        u64 old = take(s, seat, c);
        if (last) {
            u64 tm = s->trick_mask;
            r1 = trick_rel(s, tm | bit, nb);
            s->trick_mask = 0;
            s->left--;
            s->tp++;
            if (s->counted[nw])
                v = s->misere ? 1 : 1 + lead(s, nw, a - 1, b - 1, &r1);
            else
                v = lead(s, nw, a, b, &r1);
            s->left++;
            s->tp--;
            s->trick_mask = tm;
        } else {
            s->trick_mask |= bit;
            v = play(s, k + 1, nxt, a, b, led, nb, nw, &r1);
            s->trick_mask ^= bit;
        }
        give(s, seat, c, old);
        r1 = lift(s, r1, c, hand, u);
        if (maxer) {
            if (v > value) {
                value = v;
                if (value >= b) {
                    *rv |= r1;
                    return value;
                }
                if (value > a) a = value;
            }
        } else if (v < value) {
            value = v;
            if (value <= a) {
                *rv |= r1;
                return value;
            }
            if (value < b) b = value;
        }
        racc |= r1;
    }
    *rv |= racc;
    return value;
}

/* The class of a position (see Entry): each block's counts by seat. */
static inline void tt_lens(const S *s, uint32_t *lens) {
    for (int b = 0; b < 5; b++) {
        uint32_t x = 0;
        u64 m = s->block_mask[b];
        for (int q = 0; q < s->n; q++) x |= (uint32_t)popc(s->hands[q] & m) << (4 * q);
        lens[b] = x;
    }
}

static inline u64 tt_hash(const uint32_t *lens, uint32_t aux) {
    u64 h = (aux + 1) * 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 5; i++) {
        h ^= lens[i] + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
        h *= 0xFF51AFD7ED558CCDULL;
    }
    return h ^ (h >> 29);
}

static inline int same_class(const Entry *e, const uint32_t *lens, uint32_t aux) {
    return e->aux == aux && e->lens[0] == lens[0] && e->lens[1] == lens[1] && e->lens[2] == lens[2] &&
           e->lens[3] == lens[3] && e->lens[4] == lens[4];
}

/* The tag of a class (never 0: an empty way). */
static inline uint32_t tt_tag(u64 h) {
    uint32_t t = (uint32_t)(h >> 32);
    return t ? t : 1;
}

/* The bucket of hash h, emptied first when an older solve filled it. */
static inline Bucket *tt_bucket(u64 h) {
    Bucket *b = &tt[h & ((1u << TT_BITS) - 1)];
    if (b->stamp != tt_stamp) {
        memset(b->tag, 0, sizeof b->tag);
        memset(b->work, 0, sizeof b->work);
        b->stamp = tt_stamp;
    }
    return b;
}

/* The bounds of every entry of the bucket that matches the position: lo/hi tightened, the relevant
 * cards of the entries that tightened them in rlo/rhi, the first matching entry's move in hint. */
static void tt_probe(const S *s, const Bucket *bucket, uint32_t tag, const uint32_t *lens, uint32_t aux,
                     int *lo, int *hi, u64 *rlo, u64 *rhi, int *hint) {
    int n[5];
    for (int b = 0; b < 5; b++) n[b] = popc(s->rem & s->block_mask[b]);
    for (int w = 0; w < TT_WAYS; w++) {
        if (bucket->tag[w] != tag) continue;
        const Entry *e = &bucket->e[w];
        if (!same_class(e, lens, aux)) continue;
        int ok = 1;
        for (int b = 0; b < 5 && ok; b++) {
            int k = e->k[b];
            if (k && s->code[b] >> (3 * (n[b] - k)) != e->top[b]) ok = 0;
        }
        if (!ok) continue;
        if (*hint < 0) *hint = e->move - 1;
        if (e->lo > *lo || e->hi < *hi) {
            u64 r = 0;
            for (int b = 0; b < 5; b++)
                if (e->k[b]) r |= 1ULL << nth_high(s->rem & s->block_mask[b], e->k[b]);
            if (e->lo > *lo) {
                *lo = e->lo;
                *rlo = r;
            }
            if (e->hi < *hi) {
                *hi = e->hi;
                *rhi = r;
            }
        }
    }
}

static void tt_store(const S *s, Bucket *bucket, uint32_t tag, const uint32_t *lens, uint32_t aux, int lo,
                     int hi, u64 r, int move, int work) {
    uint8_t k[5];
    u64 top[5];
    for (int b = 0; b < 5; b++) {
        u64 cards = s->rem & s->block_mask[b], m = r & cards;
        int n = m ? popc(cards & ~((1ULL << __builtin_ctzll(m)) - 1)) : 0;
        k[b] = (uint8_t)n;
        top[b] = n ? s->code[b] >> (3 * (popc(cards) - n)) : 0;
    }
    int victim = -1;
    for (int w = 0; w < TT_WAYS; w++) {
        uint32_t t = bucket->tag[w];
        if (t == tag) {
            Entry *e = &bucket->e[w];
            if (same_class(e, lens, aux) && !memcmp(e->k, k, 5) && !memcmp(e->top, top, sizeof top)) {
                if (lo > e->lo) e->lo = (int8_t)lo;
                if (hi < e->hi) e->hi = (int8_t)hi;
                if (work > bucket->work[w]) bucket->work[w] = (uint8_t)work;
                e->move = (int16_t)(move + 1);
                return;
            }
        }
        if (victim < 0 || bucket->work[w] < bucket->work[victim]) victim = w;
    }
    Entry *e = &bucket->e[victim];
    memcpy(e->lens, lens, sizeof e->lens);
    memcpy(e->k, k, 5);
    memcpy(e->top, top, sizeof top);
    e->aux = aux;
    e->lo = (int8_t)lo;
    e->hi = (int8_t)hi;
    e->move = (int16_t)(move + 1);
    bucket->tag[victim] = tag;
    bucket->work[victim] = (uint8_t)work;
}

static inline int log2_work(unsigned long long nodes) { return nodes ? msb(nodes) + 1 : 0; }

/* At a trick boundary, leader to lead: the counted side's tricks from here, fail-soft; the cards the
 * result relies on are added to rv. */
static int lead(S *s, int leader, int alpha, int beta, u64 *rv) {
    int left = s->left;
    if (left <= 1) return left ? last_trick(s, leader, rv) : 0;
    if (beta <= 0) return 0;
    if (alpha >= left) return left;
    unsigned long long start = node_count++;
    u64 rem = s->rem;
    int ls = (s->ls_matters && (rem & s->suitless)) ? s->led_suits : 0;
    uint32_t aux = (uint32_t)(leader * 16 + ls), lens[5];
    tt_lens(s, lens);
    u64 h = tt_hash(lens, aux);
    uint32_t tag = tt_tag(h);
    Bucket *bucket = tt_bucket(h);
    int lo = 0, hi = left, hint = -1;
    u64 rlo = 0, rhi = 0;
    tt_probe(s, bucket, tag, lens, aux, &lo, &hi, &rlo, &rhi, &hint);
    if (lo >= beta) {
        *rv |= rlo;
        return lo;
    }
    if (hi <= alpha || lo == hi) {
        *rv |= rhi | (lo == hi ? rlo : 0);
        return hi;
    }
    if (s->misere) {
        u64 jk = s->suitless & rem;
        if (jk && (s->hands[s->declarer] >> msb(jk) & 1)) {
            *rv |= 1ULL << msb(jk);
            return 1;
        }
    } else {
        int smax, smin;
        u64 rmax, rmin;
        bounds(s, leader, &smax, &smin, &rmax, &rmin);
        int tighter = 0;
        if (smax > lo) {
            lo = smax;
            rlo = rmax;
            tighter = 1;
        }
        if (left - smin < hi) {
            hi = left - smin;
            rhi = rmin;
            tighter = 1;
        }
        if (tighter) {
            if (lo >= beta) {
                tt_store(s, bucket, tag, lens, aux, lo, left, rlo, hint, 0);
                *rv |= rlo;
                return lo;
            }
            if (hi <= alpha || lo == hi) {
                u64 r = rhi | (lo == hi ? rlo : 0);
                tt_store(s, bucket, tag, lens, aux, lo == hi ? lo : 0, hi, r, hint, 0);
                *rv |= r;
                return hi;
            }
        }
    }
    int a = alpha > lo ? alpha : lo, b = beta < hi ? beta : hi, a0 = a, b0 = b;
    int maxer = s->maxer[leader], best = maxer ? -1 : 99, found = -1;
    int saved_ls = s->led_suits, nxt = s->next[leader];
    u64 hand = s->hands[leader], racc = 0, rcut = 0;
    int moves[MAXMOVES], nm = lead_moves(s, leader, hint, moves), cut = 0;
    for (int i = 0; i < nm; i++) {
        int m = moves[i], c = m & 63, naming = m >> 6;
        int led = naming ? naming - 1 : s->block_of[c];
        u64 old = take(s, leader, c), r1 = 0;
        s->trick_mask = 1ULL << c;
        s->led_suits = saved_ls | 1 << led;
        int v = play(s, 1, nxt, a, b, led, score(s, c, led), leader, &r1);
        give(s, leader, c, old);
        s->trick_mask = 0;
        s->led_suits = saved_ls;
        r1 = lift(s, r1, c, hand, rem);
        if (maxer) {
            if (v > best) {
                best = v;
                found = m;
                if (best >= b) {
                    rcut = r1;
                    cut = 1;
                    break;
                }
                if (best > a) a = best;
            }
        } else if (v < best) {
            best = v;
            found = m;
            if (best <= a) {
                rcut = r1;
                cut = 1;
                break;
            }
            if (best < b) b = best;
        }
        racc |= r1;
    }
    u64 r = cut ? rcut : racc;
    int work = log2_work(node_count - start);
    if (best <= a0)
        tt_store(s, bucket, tag, lens, aux, 0, best, r, found >= 0 ? rel(s, found) : hint, work);
    else if (best >= b0)
        tt_store(s, bucket, tag, lens, aux, best, left, r, found >= 0 ? rel(s, found) : hint, work);
    else
        tt_store(s, bucket, tag, lens, aux, best, best, r, found >= 0 ? rel(s, found) : hint, work);
    if (a0 > alpha) r |= rlo;
    if (b0 < beta) r |= rhi;
    *rv |= r;
    return best;
}

static int search(S *s, int alpha, int beta) {
    u64 r = 0;
    if (s->k == 0) return lead(s, s->seat, alpha, beta, &r);
    return play(s, s->k, s->seat, alpha, beta, s->led, s->best, s->win, &r);
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
        tt = (Bucket *)calloc(1u << TT_BITS, sizeof(Bucket));
        if (!tt) {
            Py_DECREF(seq);
            return PyErr_NoMemory();
        }
    }
    if (++tt_stamp == 0) { /* wrapped: clear the stamps once every 2**32 solves */
        for (uint32_t i = 0; i < (1u << TT_BITS); i++) tt[i].stamp = 0;
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
    if (m && (PyModule_AddIntConstant(m, "TT_SIZE", TT_SIZE) < 0 ||
              PyModule_AddIntConstant(m, "TT_BYTES", (long)(sizeof(Bucket) << TT_BITS)) < 0)) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
