/* The double-dummy search: the C kernel of sim/dd.py, the project's one solver.
 *
 * sim/dd.py derives every rule fact from the engine's rules object and card tables (sim/engine.py)
 * and hands it here as plain ints in a Context (sim/dd.py, _context): the card numbering (each card's
 * block, i.e. effective suit, and its trick score, weakest first within a block), the seats' order
 * (who sits out of a misère is already left out of `next`) and sides, and the suitless joker's lead
 * rule as a table (suits it may name, by last trick / suits led / other cards held).  This file holds
 * no rule of the game beyond "follow the led block if able" and "the highest score wins the trick";
 * tests/sim/test_dd_reference.py checks it against a plain search over the engine's own State on
 * every shipped variant.
 *
 * The search answers null-window questions ("can the counted side take at least t of the remaining
 * tricks?", fail-soft alpha-beta) and narrows t to the exact value (MTD(f), from a guess).  What
 * makes it fast (docs/dd.md measures each):
 * - equivalent cards: cards of one seat with no other unplayed card of their block between them
 *   are one move (runs);
 * - sibling classes: after a move, a sibling card of the same block below every card the result
 *   relied on gives a position of the same class, hence the same value, and is skipped;
 * - a partition-search transposition table at trick boundaries (Entry, Class): a result holds for
 *   every position with the same counts of each block in each hand and the same owners of the cards
 *   it relied on (the "relevant" cards, see below), whoever holds the lower ones;
 * - bounds at each trick boundary (bounds, quick): power cards above the other side's, k power cards
 *   against m, and the leader's side's quick tricks played out; within a trick (second_hand), the
 *   side to move taking the trick for sure (and cashing after it);
 * - move ordering: the table's best lead first, winners, leads to a partner's winner, then the
 *   leader's short blocks (away from a ruff); followers cover or duck by who can still beat the trick
 *   after them, discard from their longest block.
 *
 * The table is a pool of entries and a hash table of classes, allocated once (TT_BYTES) and emptied
 * for each solve by a generation stamp (solves of one deal that share the card numbering and the
 * seats may keep it: "reuse", with the bounds mirrored when the other side is counted).  The GIL is
 * held throughout, so no two solves share it at once.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t u64;

#define NAMING 64
#define JOKERS 4
#define TT_POOL_BITS 18  /* entries */
#define TT_CLASS_BITS 15 /* class slots (at most half used) */
#define MAXMOVES 80
#define QUICK_PHASES 4 /* the leader's side's quick tricks cross between two seats at most 3 times */

/* A transposition entry holds a bound pair valid for every position of its class (see Class): in each
 * block b, the same owners of the block's top k[b] cards still in hands (partition search: the lower
 * cards' ranks did not decide any trick of the search that proved the bounds). */
typedef struct {
    u64 val[5];    /* per block: the owners of its top k cards, top-aligned like S.code (0 when k is 0) */
    uint32_t next; /* the next entry of its class (index + 1; 0: none) */
    uint8_t k[5];
    int8_t lo, hi; /* the side the table counts (see S.flip) */
    int16_t move;  /* the best lead, relative (see rel), + 1; 0: none */
} Entry;

/* A class: the same leader (and led suits when they matter) and the same number of cards of each
 * block in each hand.  Its entries form a list (newest first) in the pool. */
typedef struct {
    u64 k0, k1;
    uint32_t stamp; /* the table generation that filled it (older: empty) */
    uint32_t head;
} Class;

#define POOL_SIZE (1u << TT_POOL_BITS)
#define CLASS_SIZE (1u << TT_CLASS_BITS)
static Entry *pool = NULL;
static Class *classes = NULL;
static uint32_t pool_used = 0, classes_used = 0;
static uint32_t tt_stamp = 0;
static unsigned long long node_count = 0; /* lead nodes searched, over all solves (statistics) */

/* The techniques, each of which can be switched off to measure what it buys (benchmarks/dd.py
 * --techniques); every combination gives the same values, only the work differs. */
#define T_RUNS 1        /* equivalent cards searched once */
#define T_SIBLINGS 2    /* sibling classes skipped */
#define T_TABLE 4       /* the transposition table */
#define T_PARTITION 8   /* entries shared by positions that differ in irrelevant cards (else: exact) */
#define T_QUICK 16      /* the leader's side's quick tricks */
#define T_POWER 32      /* power cards above the other side's, k against m */
#define T_ORDER 64      /* move ordering: leads by weights, followers by the trick's fate, keyed discards */
#define T_SECOND 128   /* the side to follow wins the trick for sure (and cashes after) */
#define T_KILLER 256   /* the leads that last cut off at the same depth and leader tried first */
#define T_ALL 511
static int techniques = T_ALL;
/* What the table holds: the share key of its solves (card numbering, seats), the counted seats. */
static long tt_share = -1;
static int tt_counted = 0;

typedef struct {
    /* the context (fixed for a contract, its joker namings and its declarer) */
    int n, nact, misere, forced, ls_matters, hand_size, trump, ncards, two_sides, declarer;
    u64 suitless, power_mask, block_low; /* block_low: the lowest card of each block */
    int next[6], counted[6], maxer[6];
    u64 block_mask[5];
    uint8_t jls[64];
    int block_of[64], pw[64];
    /* the search state */
    u64 hands[6], rem, code[5], trick_mask;
    u64 key[3]; /* each block's counts by seat (4 bits a seat, 24 bits a block): blocks 0-1, 2-3, 4 */
    int led_suits, left, tp, flip;
    int k, seat, led, best, win;
} S;

static inline int popc(u64 x) { return __builtin_popcountll(x); }
static inline int msb(u64 x) { return 63 - __builtin_clzll(x); }
static inline u64 above(int c) { return c >= 63 ? 0 : ~((2ULL << c) - 1); } /* bits above c */

/* The top 3k bits (a code's top k cards, see read_frame). */
static const u64 TOPMASK[22] = {
    0, ~0ULL << 61, ~0ULL << 58, ~0ULL << 55, ~0ULL << 52, ~0ULL << 49, ~0ULL << 46, ~0ULL << 43,
    ~0ULL << 40, ~0ULL << 37, ~0ULL << 34, ~0ULL << 31, ~0ULL << 28, ~0ULL << 25, ~0ULL << 22,
    ~0ULL << 19, ~0ULL << 16, ~0ULL << 13, ~0ULL << 10, ~0ULL << 7, ~0ULL << 4, ~0ULL << 1};
static inline u64 topmask(int k) { return TOPMASK[k]; }

/* The unit of a seat's count of block b in S.key[b >> 1]. */
static inline u64 key_unit(int b, int seat) { return 1ULL << (24 * (b & 1) + 4 * seat); }

static inline int score(const S *s, int c, int led) {
    int p = s->pw[c];
    if (p) return p;
    return s->block_of[c] == led ? 64 + c : 0;
}

static inline u64 take(S *s, int seat, int c) {
    u64 bit = 1ULL << c;
    int b = s->block_of[c];
    u64 old = s->code[b];
    int q = popc(s->rem & s->block_mask[b] & above(c)), shift = 61 - 3 * q;
    s->code[b] = (old & topmask(q)) | ((old & ((1ULL << shift) - 1)) << 3);
    s->key[b >> 1] -= key_unit(b, seat);
    s->hands[seat] ^= bit;
    s->rem ^= bit;
    return old;
}

static inline void give(S *s, int seat, int c, u64 old) {
    u64 bit = 1ULL << c;
    int b = s->block_of[c];
    s->code[b] = old;
    s->key[b >> 1] += key_unit(b, seat);
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

/* The lowest card of each run of equivalent cards (no other unplayed card between them), in card
 * order.  A card is not the lowest of its run when the next unplayed card below it in its block is
 * one of the cards: shifting the cards up one place and carrying them through the played cards lands
 * each on the next unplayed card above it (the carries stop at each block's lowest card). */
static int runs(const S *s, u64 cards, int *out) {
    u64 reps = cards;
    if (techniques & T_RUNS) {
        u64 gone = ~(s->rem | s->trick_mask) & ~s->block_low, up = (cards << 1) & ~s->block_low;
        u64 land = ((up + gone) ^ gone) & ~gone;
        reps = cards & ~(land & ~s->block_low);
    }
    int n = 0;
    for (; reps; reps &= reps - 1) out[n++] = __builtin_ctzll(reps);
    return n;
}

/* Quick tricks of the leader's side, by playing them out: the leader draws the opponents' trumps
 * with its trumps above theirs, then cashes its winners block by block (its highest card of a block
 * above every opponent's card there, the opponents keeping their highest), as long as no opponent
 * holding a power card can be void there (nothing is ruffed); the partner follows low or discards a
 * card of a block where it holds no winner.  Then it crosses to a partner's winner through a low card
 * of its own and the partner cashes in turn.  Discards of the opponents are not taken from their hands
 * (they hold at least what is left), so every trick counted is won whatever they do.  Afterwards each
 * seat of the side still holds its power cards: k of them against m of the opponents' win k - m
 * tricks.  Every winning card is added to rv. */
static int quick(const S *s, int leader, u64 *rv) {
    u64 h[6];
    int side = s->maxer[leader], n = s->n, p = -1;
    for (int q = 0; q < n; q++) h[q] = s->hands[q];
    for (int q = 0; q < n; q++)
        if (q != leader && s->maxer[q] == side && s->hands[q]) {
            p = q;
            break;
        }
    u64 power = s->power_mask, trumps = s->trump >= 0 ? s->block_mask[s->trump] : 0;
    int tricks = 0, left = s->left, lead = leader, mate = p;
    u64 r = 0;
    for (int phase = 0; phase < QUICK_PHASES; phase++) {
        int progress = 1;
        while (progress && tricks < left) {
            progress = 0;
            u64 opp = 0, opp_power = 0;
            for (int q = 0; q < n; q++)
                if (s->maxer[q] != side) opp |= h[q];
            opp_power = opp & power;
            for (int b = 0; b < 4 && tricks < left; b++) {
                u64 cards = s->block_mask[b];
                int is_trump = cards == trumps;
                if (!is_trump && (cards & power)) continue;
                u64 mine = h[lead] & cards;
                if (!mine) continue;
                int x = msb(mine);
                u64 oc = opp & cards;
                if (oc && msb(oc) > x) continue;
                if (is_trump) {
                    if (!oc) continue; /* drawing only: the side's trumps are counted at the end */
                } else if (opp_power) {
                    int safe = 1;
                    for (int q = 0; q < n && safe; q++)
                        if (s->maxer[q] != side && (h[q] & power) && !(h[q] & cards)) safe = 0;
                    if (!safe) continue;
                }
                int over = -1; /* a partner whose lowest card of the block is above x wins the trick */
                for (int q = 0; q < n; q++) {
                    if (q == lead || s->maxer[q] != side || !h[q]) continue;
                    u64 pc = h[q] & cards;
                    if (pc) {
                        int low = __builtin_ctzll(pc);
                        if (low > x) over = q;
                        h[q] ^= 1ULL << low;
                    } else {
                        int d = -1;
                        for (int e = 0; e < 4 && d < 0; e++) {
                            u64 ec = h[q] & s->block_mask[e] & ~power;
                            if (!ec) continue;
                            u64 oe = opp & s->block_mask[e];
                            if (oe && msb(oe) > msb(ec)) d = __builtin_ctzll(ec);
                        }
                        if (d < 0) {
                            u64 any = h[q] & ~power;
                            d = any ? __builtin_ctzll(any) : __builtin_ctzll(h[q]);
                        }
                        h[q] ^= 1ULL << d;
                    }
                }
                for (int q = 0; q < n; q++) {
                    if (s->maxer[q] == side) continue;
                    u64 qc = h[q] & cards;
                    if (qc) h[q] ^= qc & -qc; /* follows with its lowest card (else discards) */
                }
                h[lead] ^= 1ULL << x;
                r |= 1ULL << x;
                tricks++;
                progress = 1;
                if (over >= 0) {
                    if (over != mate) goto done; /* another partner leads: stop counting */
                    int t = lead;
                    lead = mate;
                    mate = t;
                    goto next_phase;
                }
                break; /* recompute the opponents' cards */
            }
        }
        if (mate < 0 || phase == QUICK_PHASES - 1 || tricks >= left) break;
        {
            u64 opp = 0;
            for (int q = 0; q < n; q++)
                if (s->maxer[q] != side) opp |= h[q];
            int done = 0;
            for (int b = 0; b < 4 && !done; b++) {
                u64 cards = s->block_mask[b];
                if (cards & power) continue;
                u64 mine = h[lead] & cards, pc = h[mate] & cards, oc = opp & cards;
                if (!mine || !pc) continue;
                int z = msb(pc);
                if ((oc && msb(oc) > z) || __builtin_ctzll(mine) > z) continue;
                int safe = 1;
                for (int q = 0; q < n && safe; q++)
                    if (s->maxer[q] != side && (h[q] & power) && !(h[q] & cards)) safe = 0;
                if (!safe) continue;
                int bad = 0; /* a third seat of the side must not overtake z */
                for (int q = 0; q < n; q++)
                    if (q != lead && q != mate && s->maxer[q] == side && (h[q] & cards) &&
                        __builtin_ctzll(h[q] & cards) > z)
                        bad = 1;
                if (bad) continue;
                h[lead] ^= mine & -mine;
                h[mate] ^= 1ULL << z;
                for (int q = 0; q < n; q++) {
                    if (q == lead || q == mate || !h[q]) continue;
                    u64 qc = h[q] & cards;
                    if (qc)
                        h[q] ^= qc & -qc;
                    else if (s->maxer[q] == side) {
                        u64 any = h[q] & ~power;
                        h[q] ^= any ? any & -any : h[q] & -h[q];
                    }
                }
                r |= 1ULL << z;
                tricks++;
                int t = lead;
                lead = mate;
                mate = t;
                done = 1;
            }
            if (!done) break;
        }
    next_phase:;
    }
done:;
    /* the side's power cards still held */
    u64 opp_power = 0;
    for (int q = 0; q < n; q++)
        if (s->maxer[q] != side) opp_power |= h[q] & power;
    int m = popc(opp_power), most = 0;
    for (int q = 0; q < n; q++)
        if (s->maxer[q] == side) {
            int k = popc(h[q] & power) - m;
            if (k > most) most = k;
        }
    tricks += most;
    if (tricks > left) tricks = left;
    *rv |= r;
    return tricks;
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
    if (power && (techniques & T_POWER)) {
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
        /* A seat's power card wins the trick it is played to unless the other side plays a higher
         * power card there, and each of those beats at most one: k cards against m win k - m tricks
         * (counts only: no card is relevant). */
        int m_max = popc(top_min), m_min = popc(top_max);
        for (int q = 0; q < s->n; q++) {
            int k = popc(s->hands[q] & power);
            if (s->maxer[q]) {
                if (k - m_max > smax) {
                    smax = k - m_max;
                    ra_max = 0;
                }
            } else if (k - m_min > smin) {
                smin = k - m_min;
                ra_min = 0;
            }
        }
    }
    u64 rc = 0;
    int c = (techniques & T_QUICK) ? quick(s, leader, &rc) : 0;
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

/* The two leads that last cut off (when not the first tried) by tricks left and leader, the newest
 * first, as rel() gives them (-1: none); tried first at the next lead node of the same depth and
 * leader, before the table's hint.  Forgotten when a solve starts (start). */
static int killer[22][6][2];

/* A lead that cut off (rel() k, not the first tried) becomes the newest killer of its depth and leader. */
static inline void add_killer(const S *s, int leader, int k) {
    int *kl = killer[s->left][leader];
    if (kl[0] != k) {
        kl[1] = kl[0];
        kl[0] = k;
    }
}

static int rel(const S *s, int m) {
    int c = m & 63, b = s->block_of[c];
    int p = popc(s->rem & s->block_mask[b] & ((1ULL << c) - 1));
    return p | b << 4 | (m >> 6) << 7;
}

/* The order of the leads from block b that neither win nor reach a partner's winner (higher first):
 * from the leader's shorter blocks first in a trump contract and in misère, its longer ones in no
 * trumps (to set them up), towards a partner who can ruff, away from an opponent who can; towards a
 * block whose top falls in one round (the side holds the second and third best, or an opponent's
 * top card is bare); at four seats towards a partner's second best behind the top, not into it. */
static int lead_weight(const S *s, int leader, int b) {
    int side = s->maxer[leader];
    u64 cards = s->block_mask[b];
    int w = (s->trump < 0 && !s->misere ? 2 : -2) * popc(s->hands[leader] & cards);
    int mate_ruff = 0, opp_ruff = 0;
    if (s->misere) return w;
    if (b != s->trump)
        for (int q = 0; q < s->n; q++) {
            if (!s->hands[q] || (s->hands[q] & cards) || !(s->hands[q] & s->power_mask)) continue;
            if (s->maxer[q] != side)
                opp_ruff = 1;
            else if (q != leader)
                mate_ruff = 1;
        }
    u64 all = s->rem & cards, mine = 0; /* the block's cards; the side's */
    if (all) {
        for (int q = 0; q < s->n; q++)
            if (s->maxer[q] == side) mine |= s->hands[q];
        int top = msb(all);
        u64 rest = all & ~(1ULL << top), rest2 = rest ? rest & ~(1ULL << msb(rest)) : 0;
        int second = rest ? msb(rest) : -1, third = rest2 ? msb(rest2) : -1;
        /* the side holds the second and third best and not the top: after one round it holds the top */
        if (third >= 0 && !(mine >> top & 1) && (mine >> second & 1) && (mine >> third & 1)) w += 5;
        for (int q = 0; q < s->n; q++) /* an opponent's bare top card falls */
            if (s->maxer[q] != side && (s->hands[q] & cards) == (1ULL << top)) w += 5;
        if (s->nact == 4) { /* four seats: towards a partner's second best behind the top, not into it */
            int lho = s->next[leader], pd = s->next[lho], rho = s->next[pd];
            if (s->maxer[pd] == side && s->maxer[lho] != side) {
                if ((s->hands[lho] >> top & 1) && second >= 0 && (s->hands[pd] >> second & 1) &&
                    popc(s->hands[pd] & cards) != 1)
                    w += 10;
                else if (((s->hands[rho] >> top & 1) || (second >= 0 && (s->hands[rho] >> second & 1))) &&
                         popc(s->hands[rho] & cards) != 1)
                    w -= 5;
            }
        }
    }
    return w + 15 * mate_ruff - 20 * opp_ruff;
}

static int lead_moves(const S *s, int leader, int hint, int *out) {
    u64 hand = s->hands[leader], jk = hand & s->suitless, others = s->rem & ~hand;
    int reps[64], nrep = runs(s, hand ^ jk, reps);
    int win[64], part[64], rest[MAXMOVES], nw = 0, np = 0, nr = 0, jm[MAXMOVES], nj = 0;
    int side = s->maxer[leader];
    u64 partners = 0, ruffers = 0; /* the hands of the opponents holding a power card */
    for (int q = 0; q < s->n; q++) {
        if (!s->misere && s->maxer[q] != side && (s->hands[q] & s->power_mask)) ruffers |= 1ULL << q;
        if (q != leader && s->maxer[q] == side) partners |= s->hands[q];
    }
    for (int i = 0; i < nrep; i++) {
        int c = reps[i], b = s->block_of[c];
        u64 higher = others & s->block_mask[b] & above(c);
        int ruff = 0; /* an opponent void in the block can ruff */
        for (u64 rq = ruffers; rq && !ruff; rq &= rq - 1)
            if (!(s->hands[__builtin_ctzll(rq)] & s->block_mask[b])) ruff = 1;
        if (!s->misere && !higher && (b == s->trump || !ruff))
            win[nw++] = c;
        else if (!s->misere && higher && (partners >> msb(higher) & 1) &&
                 (b == s->trump || s->trump < 0 || !ruff))
            part[np++] = c; /* to a partner's top card (in a trump contract: that no opponent can ruff) */
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
    if (nr > 1 && (techniques & T_ORDER)) { /* insertion sort by lead_weight, stable */
        int w[MAXMOVES], bw[5] = {INT_MIN, INT_MIN, INT_MIN, INT_MIN, INT_MIN}; /* a block's weight */
        for (int i = 0; i < nr; i++) {
            int c = rest[i], b = s->block_of[c], j = i;
            if (bw[b] == INT_MIN) bw[b] = lead_weight(s, leader, b);
            int x = bw[b];
            for (; j > 0 && w[j - 1] < x; j--) {
                rest[j] = rest[j - 1];
                w[j] = w[j - 1];
            }
            rest[j] = c;
            w[j] = x;
        }
    }
    /* winners, leads to a partner's winner, suitless jokers (a sure trick that keeps), the rest;
     * in misère the jokers last */
    int n = 0;
    for (int i = 0; i < nw; i++) /* side-suit winners before top trumps */
        if (s->block_of[win[i]] != s->trump) out[n++] = win[i];
    for (int i = 0; i < nw; i++)
        if (s->block_of[win[i]] == s->trump) out[n++] = win[i];
    for (int i = 0; i < np; i++) out[n++] = part[i];
    if (!s->misere)
        for (int i = 0; i < nj; i++) out[n++] = jm[i];
    for (int i = 0; i < nr; i++) out[n++] = rest[i];
    if (s->misere)
        for (int i = 0; i < nj; i++) out[n++] = jm[i];
    /* the killer leads, newest first, then the table's best lead (each moved to the front in turn) */
    int first[3] = {hint, killer[s->left][leader][1], killer[s->left][leader][0]};
    for (int h = 0; h < ((techniques & T_KILLER) ? 3 : 1); h++) {
        if (first[h] < 0) continue;
        for (int i = 0; i < n; i++) {
            if (rel(s, out[i]) == first[h]) {
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

/* A void seat's discards by length alone: its longest block first (ties: the lower block), lowest
 * card first. */
static int add_discards_by_length(const S *s, int seat, u64 cards, int *out, int n) {
    int ord[5], len[5], nb = 0;
    for (int b = 0; b < 5; b++) {
        if (!(cards & s->block_mask[b])) continue;
        int l = popc(s->hands[seat] & s->block_mask[b]), j = nb++;
        for (; j > 0 && len[j - 1] < l; j--) {
            ord[j] = ord[j - 1];
            len[j] = len[j - 1];
        }
        ord[j] = b;
        len[j] = l;
    }
    for (int i = 0; i < nb; i++) n = add_runs(s, cards & s->block_mask[ord[i]], 0, out, n);
    return n;
}

/* A void seat's discards.  At a table of four, highest key first: twice its length of the card's
 * block minus the cards of the block below it (longer blocks first and low cards first, but a low
 * card of a block one card shorter before a high one of the longer block; ties keep card order).  At
 * other tables by length alone (the keyed order made one six-seat solve four times larger). */
static int add_discards(const S *s, int seat, u64 cards, int *out, int n) {
    if (s->nact != 4) return add_discards_by_length(s, seat, cards, out, n);
    int r[64], key[64], nr = runs(s, cards, r);
    for (int i = 0; i < nr; i++) {
        int c = r[i], b = s->block_of[c], j = i;
        u64 block = s->block_mask[b];
        int x = 2 * popc(s->hands[seat] & block) - popc(s->rem & block & ((1ULL << c) - 1));
        for (; j > 0 && key[j - 1] < x; j--) {
            r[j] = r[j - 1];
            key[j] = key[j - 1];
        }
        r[j] = c;
        key[j] = x;
    }
    for (int i = 0; i < nr; i++) out[n++] = r[i];
    return n;
}

/* The best trick score a seat can give the trick (led block led): its highest power card, else its
 * highest card of the led block, else nothing (0); the card in *card (-1: none). */
static inline int top_score(const S *s, u64 pl, int led, int *card) {
    u64 p = pl & s->power_mask;
    if (p) {
        *card = msb(p);
        return s->pw[*card];
    }
    u64 f = pl & s->block_mask[led];
    if (f) {
        *card = msb(f);
        return 64 + *card;
    }
    *card = -1;
    return 0;
}

/* The cards whose trick score beats sc (see score; below 64: every card of the led block and every
 * power card). */
static inline u64 beat_mask(const S *s, int sc, int led) {
    if (sc >= 192) return s->suitless & above(sc - 192);
    if (sc >= 128) return s->suitless | (s->power_mask & ~s->suitless & above(sc - 128));
    if (sc >= 64) return s->power_mask | (s->block_mask[led] & above(sc - 64));
    return s->power_mask | s->block_mask[led];
}

/* A follower's moves in search order.  The trick's fate is read from the later seats' best cards of
 * the led block (a later seat void in it, ruffing or not, is not counted).  The side holds the trick
 * (its card is best and above every later opponent's) or a later partner takes it: low cards first.
 * Else the cheapest card sure to take it (above every later opponent's) first, then low.  Else, with
 * no later opponent holding the block (the other side winning), the cheapest card that beats the
 * trick first.  Else a later opponent takes it: a void seat discards first; a seat that follows
 * tries first the cheapest card that forces that side's top card out, then low.  A void seat's low
 * cards are its discards (add_discards).  Without T_ORDER: low first when the side wins so far, else
 * the cheapest winning card first. */
static int follow_moves(const S *s, int k, int seat, u64 legal, int led, int best, int win, int *out) {
    u64 win_cards = legal & beat_mask(s, best, led), lose_cards = legal & ~win_cards, sure;
    int n = 0, side_wins = s->maxer[win] == s->maxer[seat];
    if (s->misere) {
        n = add_runs(s, lose_cards, seat == s->declarer || win == s->declarer, out, n);
        return add_runs(s, win_cards, 0, out, n);
    }
    if (!(techniques & T_ORDER)) {
        if (side_wins) {
            n = add_runs(s, lose_cards, 0, out, n);
            return add_runs(s, win_cards, 0, out, n);
        }
        n = add_runs(s, win_cards, 0, out, n);
        return add_runs(s, lose_cards, 0, out, n);
    }
    u64 oc = 0, mc = 0; /* the later opponents' and partners' cards of the led block */
    for (int q = s->next[seat], kk = k + 1; kk < s->nact; q = s->next[q], kk++)
        if (s->maxer[q] == s->maxer[seat])
            mc |= s->hands[q] & s->block_mask[led];
        else
            oc |= s->hands[q] & s->block_mask[led];
    int cx, opp_top = top_score(s, oc, led, &cx), mate_top = top_score(s, mc, led, &cx);
    sure = win_cards & beat_mask(s, opp_top, led);
    int discard = !(legal & s->block_mask[led]);
    if ((side_wins && best > opp_top) || (mate_top > best && mate_top > opp_top)) { /* the side holds it */
        n = discard ? add_discards(s, seat, lose_cards, out, n) : add_runs(s, lose_cards, 0, out, n);
        return add_runs(s, win_cards, 0, out, n);
    }
    if (sure) {
        n = add_runs(s, sure, 0, out, n);
        if (!discard) return add_runs(s, legal & ~sure, 0, out, n);
        n = add_discards(s, seat, lose_cards, out, n);
        return add_runs(s, win_cards & ~sure, 0, out, n);
    }
    if (!opp_top) { /* the other side wins so far and no later opponent holds the led block */
        n = add_runs(s, win_cards, 0, out, n);
        return discard ? add_discards(s, seat, lose_cards, out, n) : add_runs(s, lose_cards, 0, out, n);
    }
    if (discard) {
        n = add_discards(s, seat, lose_cards, out, n);
        return add_runs(s, win_cards, 0, out, n);
    }
    /* A later opponent takes it: first the cheapest card above all its side's cards of the block but
     * the top one (it forces the top card out), then low. */
    u64 under = oc & ~(1ULL << msb(oc));
    int second = under ? score(s, msb(under), led) : 0, r[64], nr = runs(s, legal, r), f = -1;
    for (int i = 0; i < nr && f < 0; i++)
        if ((win_cards >> r[i] & 1) && score(s, r[i], led) > second) f = i;
    if (f >= 0) out[n++] = r[f];
    for (int i = 0; i < nr; i++)
        if (i != f) out[n++] = r[i];
    return n;
}

static int lead(S *s, int leader, int alpha, int beta, u64 *rv);

/* Quick tricks within a trick (k cards played, seat to play): when the best card the side to move
 * can still put on the trick beats everything the other side can still play (and what is already
 * winning), that side takes the trick; when no opponent holds a power card, the seat that wins it
 * then cashes the top card of each other block it holds.  Returns those tricks (0: none sure), the
 * cards relied on (the winning card, the card it beats, the cashed tops) added to rv. */
static int second_hand(const S *s, int k, int seat, int led, int best, int win, u64 *rv) {
    int side = s->maxer[seat], mine = s->maxer[win] == side ? best : -1;
    int theirs = s->maxer[win] == side ? -1 : best, hh = -1, cx = -1;
    for (int q = seat, i = k; i < s->nact; q = s->next[q], i++) {
        int c, sc = top_score(s, playable(s, s->hands[q], led), led, &c);
        if (s->maxer[q] == side) {
            if (sc > mine) {
                mine = sc;
                hh = q;
                cx = c;
            }
        } else if (sc > theirs) {
            theirs = sc;
        }
    }
    if (mine <= theirs) return 0;
    u64 r = cx >= 0 ? 1ULL << cx : 1ULL << score_card(best); /* the card that takes the trick */
    int tricks = 1;
    if (hh >= 0) {
        u64 opp = 0;
        for (int q = 0; q < s->n; q++)
            if (s->maxer[q] != side) opp |= s->hands[q];
        if (!(opp & s->power_mask)) {
            u64 h = s->hands[hh] & ~bit_of(cx);
            for (int b = 0; b < 5 && tricks < s->left; b++) {
                u64 cards = s->rem & s->block_mask[b] & ~bit_of(cx);
                if (!cards || b == JOKERS) continue;
                int top = msb(cards);
                if (h >> top & 1) {
                    tricks++;
                    r |= 1ULL << top;
                }
            }
        }
    }
    *rv |= r;
    return tricks;
}

/* Within a trick: k cards played, seat to play, best/win the score and seat winning so far; the
 * counted side's tricks from this trick on, fail-soft like lead, the relevant cards added to rv. */
static int play(S *s, int k, int seat, int alpha, int beta, int led, int best, int win, u64 *rv) {
    u64 hand = s->hands[seat], u = s->rem | s->trick_mask;
    u64 legal = playable(s, hand, led), racc = 0;
    int maxer = s->maxer[seat], last = k + 1 == s->nact, nxt = s->next[seat];
    int a = alpha, b = beta, value = maxer ? -1 : 99;
    if (!last && !s->misere && (techniques & T_SECOND)) {
        u64 r2 = 0;
        int q = second_hand(s, k, seat, led, best, win, &r2);
        if (q) {
            if (maxer && q >= beta) {
                *rv |= r2;
                return q;
            }
            if (!maxer && s->left - q <= alpha) {
                *rv |= r2;
                return s->left - q;
            }
        }
    }
    int moves[64], nm = follow_moves(s, k, seat, legal, led, best, win, moves);
    int thr[5] = {-1, -1, -1, -1, -1}, sib = techniques & T_SIBLINGS;
    for (int i = 0; i < nm; i++) {
        int c = moves[i], v;
        if (sib && c < thr[s->block_of[c]]) continue; /* the same result as a sibling (see below) */
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
        if (sib) {
            /* Sibling classes: the result holds for every position with the same owners of the cards
             * from the lowest relevant one of c's block up; playing another card of that block below
             * it instead of c gives a position of the same class, hence the same bound. */
            int bc = s->block_of[c];
            u64 m = r1 & s->block_mask[bc];
            int t = m ? __builtin_ctzll(m) : 64;
            if (c < t && t > thr[bc]) thr[bc] = t;
        }
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

/* The class of a position (see Class): each block's counts by seat (4 bits a seat, 24 bits a block),
 * and aux (leader * 16 + led suits), packed in two words. */
static inline void tt_key(const S *s, uint32_t aux, u64 *k0, u64 *k1) {
    *k0 = s->key[0] | s->key[1] << 48;
    *k1 = s->key[1] >> 16 | s->key[2] << 32 | (u64)aux << 56;
}

static inline uint32_t tt_hash(u64 k0, u64 k1) {
    u64 h = k0 * 0x9E3779B97F4A7C15ULL ^ k1;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 32;
    h *= 0xC4CEB9FE1A85EC53ULL;
    return (uint32_t)(h >> 29);
}

/* Empties the table (a new generation): every solve starts with one, and a full table starts over. */
static void tt_reset(void) {
    if (++tt_stamp == 0) { /* wrapped: clear the stamps once every 2**32 generations */
        for (uint32_t i = 0; i < CLASS_SIZE; i++) classes[i].stamp = 0;
        tt_stamp = 1;
    }
    pool_used = 0;
    classes_used = 0;
}

/* The class slot of (k0, k1), or NULL when it holds no entry (create: a new empty class, NULL when the
 * table is full). */
static inline Class *tt_class(u64 k0, u64 k1, int create) {
    uint32_t i = tt_hash(k0, k1) & (CLASS_SIZE - 1);
    for (;;) {
        Class *c = &classes[i];
        if (c->stamp != tt_stamp) {
            if (!create || classes_used >= CLASS_SIZE / 2) return NULL;
            classes_used++;
            c->stamp = tt_stamp;
            c->k0 = k0;
            c->k1 = k1;
            c->head = 0;
            return c;
        }
        if (c->k0 == k0 && c->k1 == k1) return c;
        i = (i + 1) & (CLASS_SIZE - 1);
    }
}

static inline int tt_match(const S *s, const Entry *e) {
    for (int b = 0; b < 5; b++)
        if ((s->code[b] & topmask(e->k[b])) != e->val[b]) return 0;
    return 1;
}

static inline u64 tt_rel(const S *s, const Entry *e) {
    u64 r = 0;
    for (int b = 0; b < 5; b++)
        if (e->k[b]) r |= 1ULL << nth_high(s->rem & s->block_mask[b], e->k[b]);
    return r;
}

/* The bounds of the class's entries that match the position: lo/hi tightened (stopping at the first
 * that decides the window alpha..beta), the relevant cards of the entries that tightened them in
 * rlo/rhi, the first matching entry's move in hint, else the class's newest entry's (a position with
 * the same counts: its best lead, relative, is often good here too). */
static void tt_probe(const S *s, const Class *cl, int alpha, int beta, int *lo, int *hi, u64 *rlo, u64 *rhi,
                     int *hint) {
    int matched = 0;
    if (cl->head) *hint = pool[cl->head - 1].move - 1;
    for (uint32_t i = cl->head; i; i = pool[i - 1].next) {
        const Entry *e = &pool[i - 1];
        if (!tt_match(s, e)) continue;
        if (!matched) {
            *hint = e->move - 1;
            matched = 1;
        }
        int elo = s->flip ? s->left - e->hi : e->lo, ehi = s->flip ? s->left - e->lo : e->hi;
        if (elo > *lo) {
            *lo = elo;
            *rlo = tt_rel(s, e);
            if (*lo >= beta) return;
        }
        if (ehi < *hi) {
            *hi = ehi;
            *rhi = tt_rel(s, e);
            if (*hi <= alpha) return;
        }
        if (*lo == *hi) return;
    }
}

static void tt_store(const S *s, uint32_t aux, int lo, int hi, u64 r, int move) {
    u64 k0, k1, val[5];
    if (!(techniques & T_TABLE)) return;
    if (s->flip) {
        int t = lo;
        lo = s->left - hi;
        hi = s->left - t;
    }
    tt_key(s, aux, &k0, &k1);
    Class *cl = tt_class(k0, k1, 1);
    if (!cl || pool_used >= POOL_SIZE) {
        tt_reset();
        cl = tt_class(k0, k1, 1);
    }
    uint8_t k[5];
    for (int b = 0; b < 5; b++) {
        u64 cards = s->rem & s->block_mask[b], m = r & cards;
        int n = m ? popc(cards & ~((1ULL << __builtin_ctzll(m)) - 1)) : 0;
        if (!(techniques & T_PARTITION)) n = popc(cards); /* exact positions only */
        k[b] = (uint8_t)n;
        val[b] = s->code[b] & topmask(n);
    }
    for (uint32_t i = cl->head; i; i = pool[i - 1].next) {
        Entry *e = &pool[i - 1];
        if (!memcmp(e->k, k, 5) && !memcmp(e->val, val, sizeof val)) {
            if (lo > e->lo) e->lo = (int8_t)lo;
            if (hi < e->hi) e->hi = (int8_t)hi;
            e->move = (int16_t)(move + 1);
            return;
        }
    }
    Entry *e = &pool[pool_used++];
    memcpy(e->k, k, 5);
    memcpy(e->val, val, sizeof val);
    e->lo = (int8_t)lo;
    e->hi = (int8_t)hi;
    e->move = (int16_t)(move + 1);
    e->next = cl->head;
    cl->head = pool_used;
}

/* At a trick boundary, leader to lead: the counted side's tricks from here, fail-soft; the cards the
 * result relies on are added to rv. */
static int lead(S *s, int leader, int alpha, int beta, u64 *rv) {
    int left = s->left;
    if (left <= 1) return left ? last_trick(s, leader, rv) : 0;
    if (beta <= 0) return 0;
    if (alpha >= left) return left;
    node_count++;
    u64 rem = s->rem;
    int ls = (s->ls_matters && (rem & s->suitless)) ? s->led_suits : 0;
    uint32_t aux = (uint32_t)(leader * 16 + ls);
    u64 k0, k1;
    tt_key(s, aux, &k0, &k1);
    const Class *cl = (techniques & T_TABLE) ? tt_class(k0, k1, 0) : NULL;
    int lo = 0, hi = left, hint = -1;
    u64 rlo = 0, rhi = 0;
    if (cl) tt_probe(s, cl, alpha, beta, &lo, &hi, &rlo, &rhi, &hint);
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
                tt_store(s, aux, lo, left, rlo, hint);
                *rv |= rlo;
                return lo;
            }
            if (hi <= alpha || lo == hi) {
                u64 r = rhi | (lo == hi ? rlo : 0);
                tt_store(s, aux, lo == hi ? lo : 0, hi, r, hint);
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
    int thr[5] = {-1, -1, -1, -1, -1}, sib = techniques & T_SIBLINGS;
    for (int i = 0; i < nm; i++) {
        int m = moves[i], c = m & 63, naming = m >> 6;
        int led = naming ? naming - 1 : s->block_of[c];
        if (sib && !naming && c < thr[s->block_of[c]]) continue;
        u64 old = take(s, leader, c), r1 = 0;
        s->trick_mask = 1ULL << c;
        s->led_suits = saved_ls | 1 << led;
        int v = play(s, 1, nxt, a, b, led, score(s, c, led), leader, &r1);
        give(s, leader, c, old);
        s->trick_mask = 0;
        s->led_suits = saved_ls;
        r1 = lift(s, r1, c, hand, rem);
        if (sib && !naming) {
            int bc = s->block_of[c];
            u64 mm = r1 & s->block_mask[bc];
            int t = mm ? __builtin_ctzll(mm) : 64;
            if (c < t && t > thr[bc]) thr[bc] = t;
        }
        if (maxer) {
            if (v > best) {
                best = v;
                found = m;
                if (best >= b) {
                    if (i > 0) add_killer(s, leader, rel(s, m));
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
                if (i > 0) add_killer(s, leader, rel(s, m));
                rcut = r1;
                cut = 1;
                break;
            }
            if (best < b) b = best;
        }
        racc |= r1;
    }
    u64 r = cut ? rcut : racc;
    if (best <= a0)
        tt_store(s, aux, 0, best, r, found >= 0 ? rel(s, found) : hint);
    else if (best >= b0)
        tt_store(s, aux, best, left, r, found >= 0 ? rel(s, found) : hint);
    else
        tt_store(s, aux, best, best, r, found >= 0 ? rel(s, found) : hint);
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

/* ------------------------------------------------------------------ the Python interface */

/* A Context: the fixed part of S for one contract, its joker namings and its declarer, and the card
 * numbering (engine card -> position in the solver's numbering, and back). */
typedef struct {
    PyObject_HEAD S fixed;
    int perm[64], inv[64];
    long share; /* solves with the same share key may keep the table (same numbering and seats) */
} Context;

static int read_ints(PyObject *seq, Py_ssize_t *at, Py_ssize_t len, long long *out, int count) {
    for (int i = 0; i < count; i++) {
        if (*at >= len) {
            PyErr_SetString(PyExc_ValueError, "context too short");
            return -1;
        }
        long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(seq, (*at)++));
        if (v == -1 && PyErr_Occurred()) return -1;
        out[i] = v;
    }
    return 0;
}

/* Context(fields): the layout of sim/dd.py's _context (a tuple of ints):
 * n, nact, misere, forced, ls_matters, hand_size, trump block (-1: none), deck size, two_sides,
 * share key, next[6], counted[6], maxer[6], jls[64], then per engine card: its block, its score
 * when it is a power card (else 0), its position in the solver's numbering. */
static int context_init(Context *self, PyObject *args, PyObject *kwds) {
    PyObject *t;
    (void)kwds;
    if (!PyArg_ParseTuple(args, "O!", &PyTuple_Type, &t)) return -1;
    Py_ssize_t len = PyTuple_GET_SIZE(t), at = 0;
    long long head[10], seats[18], lead[64];
    if (read_ints(t, &at, len, head, 10) < 0 || read_ints(t, &at, len, seats, 18) < 0 ||
        read_ints(t, &at, len, lead, 64) < 0)
        return -1;
    S *s = &self->fixed;
    memset(s, 0, sizeof *s);
    s->n = (int)head[0];
    s->nact = (int)head[1];
    s->misere = (int)head[2];
    s->forced = (int)head[3];
    s->ls_matters = (int)head[4];
    s->hand_size = (int)head[5];
    s->trump = (int)head[6];
    s->ncards = (int)head[7];
    s->two_sides = (int)head[8];
    self->share = (long)head[9];
    if (s->n < 2 || s->n > 6 || s->ncards < 1 || s->ncards > 64 || s->nact < 2 || s->nact > s->n ||
        s->trump < -1 || s->trump > 3 || s->hand_size < 1 || s->hand_size > 21) {
        PyErr_SetString(PyExc_ValueError, "context out of range");
        return -1;
    }
    for (int i = 0; i < 6; i++) {
        s->next[i] = (int)seats[i];
        s->counted[i] = (int)seats[6 + i];
        s->maxer[i] = (int)seats[12 + i];
        if (s->next[i] < 0 || s->next[i] >= s->n) {
            PyErr_SetString(PyExc_ValueError, "context: a seat out of range");
            return -1;
        }
    }
    for (int i = 0; i < 64; i++) s->jls[i] = (uint8_t)(lead[i] & 15);
    s->declarer = -1; /* the counted seat of a misère */
    for (int q = 0; q < s->n; q++)
        if (s->misere && s->counted[q]) s->declarer = q;
    long long card[3];
    int used[64] = {0};
    for (int c = 0; c < s->ncards; c++) {
        if (read_ints(t, &at, len, card, 3) < 0) return -1;
        int b = (int)card[0], p = (int)card[2];
        if (b < 0 || b > 4 || p < 0 || p >= s->ncards || used[p]) {
            PyErr_SetString(PyExc_ValueError, "context: a card out of range");
            return -1;
        }
        used[p] = 1;
        self->perm[c] = p;
        self->inv[p] = c;
        s->block_of[p] = b;
        s->pw[p] = card[1] ? (b == JOKERS ? 192 + p : 128 + p) : 0;
        s->block_mask[b] |= 1ULL << p;
    }
    if (at != len) {
        PyErr_SetString(PyExc_ValueError, "context too long");
        return -1;
    }
    for (int p = 0; p < s->ncards; p++)
        if (s->pw[p]) s->power_mask |= 1ULL << p;
    s->suitless = s->block_mask[JOKERS];
    for (int b = 0; b < 5; b++) s->block_low |= s->block_mask[b] & -s->block_mask[b];
    return 0;
}

static PyTypeObject ContextType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "_ddc.Context",
    .tp_basicsize = sizeof(Context),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The fixed tables of one contract, joker namings and declarer (see sim/dd.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)context_init,
};

/* A mask of engine cards in the solver's numbering. */
static u64 renumber(const Context *ctx, u64 m) {
    u64 out = 0;
    while (m) {
        int c = __builtin_ctzll(m);
        m &= m - 1;
        out |= 1ULL << ctx->perm[c];
    }
    return out;
}

/* The search state of a position: the context's tables, the hands (engine masks, one per seat, a
 * sitting-out seat's empty), the cards of the current trick in play order (engine cards), its leader
 * and led block, the suits led so far and the tricks played. */
static int init_state(S *s, const Context *ctx, PyObject *hands, PyObject *trick, int leader, int led,
                      int led_suits, int tricks_played) {
    *s = ctx->fixed;
    PyObject *hs = PySequence_Fast(hands, "hands must be a sequence");
    if (!hs) return -1;
    if (PySequence_Fast_GET_SIZE(hs) != s->n) {
        Py_DECREF(hs);
        PyErr_SetString(PyExc_ValueError, "hands: one mask per seat");
        return -1;
    }
    u64 limit = s->ncards == 64 ? ~0ULL : (1ULL << s->ncards) - 1, seen = 0;
    for (int q = 0; q < 6; q++) s->hands[q] = 0;
    for (int q = 0; q < s->n; q++) {
        unsigned long long m = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(hs, q));
        if (m == (unsigned long long)-1 && PyErr_Occurred()) {
            Py_DECREF(hs);
            return -1;
        }
        if ((m & ~limit) || (m & seen)) {
            Py_DECREF(hs);
            PyErr_SetString(PyExc_ValueError, "hands: a card out of the deck or held twice");
            return -1;
        }
        seen |= m;
        s->hands[q] = renumber(ctx, m);
    }
    Py_DECREF(hs);
    PyObject *ts = PySequence_Fast(trick, "trick must be a sequence");
    if (!ts) return -1;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(ts);
    if (leader < 0 || leader >= s->n || k >= s->nact || (k && (led < 0 || led > 3))) {
        Py_DECREF(ts);
        PyErr_SetString(PyExc_ValueError, "trick: out of range");
        return -1;
    }
    s->trick_mask = 0;
    s->best = -1;
    s->win = -1;
    int seat = leader;
    for (Py_ssize_t i = 0; i < k; i++) {
        long c = PyLong_AsLong(PySequence_Fast_GET_ITEM(ts, i));
        if (c < 0 || c >= s->ncards || (seen >> c & 1)) {
            Py_DECREF(ts);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "trick: a card out of range or held");
            return -1;
        }
        int p = ctx->perm[c], sc = s->pw[p] ? s->pw[p] : (s->block_of[p] == led ? 64 + p : 0);
        s->trick_mask |= 1ULL << p;
        if (sc > s->best) {
            s->best = sc;
            s->win = seat;
        }
        seat = s->next[seat];
    }
    Py_DECREF(ts);
    s->k = (int)k;
    s->seat = seat;
    s->led = k ? led : -1;
    s->led_suits = led_suits & 15;
    s->left = popc(s->hands[seat]);
    s->tp = tricks_played;
    if (s->left < 1 || tricks_played < 0 || tricks_played + s->left > s->hand_size) {
        PyErr_SetString(PyExc_ValueError, "no trick left to play, or too many");
        return -1;
    }
    s->rem = 0;
    for (int q = 0; q < s->n; q++) s->rem |= s->hands[q];
    /* the relative-rank codes: for each block, the owners (seat + 1) of its cards in hands, strongest
     * first, top-aligned (3 bits a card from bit 61 down) */
    for (int b = 0; b < 5; b++) {
        u64 cards = s->rem & s->block_mask[b], code = 0;
        if (popc(cards) > 21) {
            PyErr_SetString(PyExc_ValueError, "a block holds too many cards");
            return -1;
        }
        for (int p = 0; cards; p++) {
            int c = msb(cards);
            cards ^= 1ULL << c;
            for (int q = 0; q < s->n; q++)
                if (s->hands[q] >> c & 1) code |= (u64)(q + 1) << (61 - 3 * p);
        }
        s->code[b] = code;
    }
    s->key[0] = s->key[1] = s->key[2] = 0;
    for (int b = 0; b < 5; b++)
        for (int q = 0; q < s->n; q++)
            s->key[b >> 1] += (u64)popc(s->hands[q] & s->block_mask[b]) * key_unit(b, q);
    return 0;
}

static int ensure_table(void) {
    if (pool) return 0;
    pool = (Entry *)malloc(POOL_SIZE * sizeof(Entry));
    classes = (Class *)calloc(CLASS_SIZE, sizeof(Class));
    if (!pool || !classes) {
        free(pool);
        free(classes);
        pool = NULL;
        classes = NULL;
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* Starts a solve: forgets the killer leads; empties the table, unless asked to reuse it and it holds
 * results of the same card numbering and seats (then with the bounds mirrored when the other side is
 * counted). */
static void start(S *s, const Context *ctx, int reuse) {
    memset(killer, 0xff, sizeof killer);
    int counted = 0, active = 0;
    for (int q = 0; q < s->n; q++) {
        counted |= s->counted[q] << q;
        if (s->next[q] != q) active |= 1 << q;
    }
    for (int q = 0; q < s->n; q++) active |= 1 << s->next[q];
    s->flip = 0;
    if (reuse && ctx->share == tt_share) {
        if (counted == tt_counted) return;
        if (s->two_sides && counted == (active & ~tt_counted)) {
            s->flip = 1;
            return;
        }
    }
    tt_reset();
    tt_share = ctx->share;
    tt_counted = counted;
}

/* solve(context, hands, trick, leader, led, led_suits, tricks_played, guess, moves, reuse) -> list[int]:
 * with no moves, [the counted side's tricks from this position on]; else the same after each move
 * (engine card + 64 * (named suit + 1) for a led suitless joker, else the card). */
static PyObject *ddc_solve(PyObject *self, PyObject *args) {
    PyObject *ctxo, *hands, *trick, *moves;
    int leader, led, led_suits, tricks_played, guess, reuse;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!OOiiiiiOp", &ContextType, &ctxo, &hands, &trick, &leader, &led, &led_suits,
                          &tricks_played, &guess, &moves, &reuse))
        return NULL;
    const Context *ctx = (const Context *)ctxo;
    S s;
    if (init_state(&s, ctx, hands, trick, leader, led, led_suits, tricks_played) < 0) return NULL;
    PyObject *seq = PySequence_Fast(moves, "moves must be a sequence");
    if (!seq) return NULL;
    if (ensure_table() < 0) {
        Py_DECREF(seq);
        return NULL;
    }
    start(&s, ctx, reuse);
    Py_ssize_t nm = PySequence_Fast_GET_SIZE(seq);
    PyObject *out = PyList_New(nm ? nm : 1);
    if (!out) {
        Py_DECREF(seq);
        return NULL;
    }
    if (!nm) PyList_SET_ITEM(out, 0, PyLong_FromLong(exact(&s, guess)));
    for (Py_ssize_t i = 0; i < nm; i++) {
        long m = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        int c = (int)(m & 63), naming = (int)(m >> 6) - 1;
        int p = c < s.ncards ? ctx->perm[c] : 0;
        if ((m == -1 && PyErr_Occurred()) || m < 0 || c >= s.ncards || !(s.hands[s.seat] >> p & 1) ||
            naming > 3 || (naming >= 0 && (s.k || s.block_of[p] != JOKERS))) {
            Py_DECREF(seq);
            Py_DECREF(out);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a move not in the hand to move");
            return NULL;
        }
        PyList_SET_ITEM(out, i, PyLong_FromLong(value_after(&s, p, naming, guess)));
    }
    Py_DECREF(seq);
    return out;
}

/* bounds(context, hands, leader, led_suits, tricks_played) -> (maximiser's, minimiser's sure tricks)
 * at a trick boundary, for tests of their soundness; None in misère (it uses none). */
static PyObject *ddc_bounds(PyObject *self, PyObject *args) {
    PyObject *ctxo, *hands;
    int leader, led_suits, tricks_played;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!Oiii", &ContextType, &ctxo, &hands, &leader, &led_suits, &tricks_played))
        return NULL;
    S s;
    PyObject *empty = PyTuple_New(0);
    if (!empty) return NULL;
    int rc = init_state(&s, (const Context *)ctxo, hands, empty, leader, -1, led_suits, tricks_played);
    Py_DECREF(empty);
    if (rc < 0) return NULL;
    if (s.misere) Py_RETURN_NONE;
    int smax, smin;
    u64 rmax, rmin;
    bounds(&s, s.seat, &smax, &smin, &rmax, &rmin);
    return Py_BuildValue("ii", smax, smin);
}

static PyObject *ddc_techniques(PyObject *self, PyObject *args) {
    int mask = -1;
    (void)self;
    if (!PyArg_ParseTuple(args, "|i", &mask)) return NULL;
    int previous = techniques;
    if (mask >= 0) {
        techniques = mask & T_ALL;
        tt_share = -1; /* a table filled otherwise is not reused */
    }
    return PyLong_FromLong(previous);
}

static PyObject *ddc_nodes(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return PyLong_FromUnsignedLongLong(node_count);
}

static PyMethodDef methods[] = {
    {"nodes", ddc_nodes, METH_NOARGS, "nodes() -> int: trick-boundary nodes searched so far (all solves)."},
    {"solve", ddc_solve, METH_VARARGS,
     "solve(context, hands, trick, leader, led, led_suits, tricks_played, guess, moves, reuse) -> list[int]"},
    {"techniques", ddc_techniques, METH_VARARGS,
     "techniques([mask]) -> int: the techniques switched on (a mask of T_*), set when mask is given."},
    {"bounds", ddc_bounds, METH_VARARGS,
     "bounds(context, hands, leader, led_suits, tricks_played) -> (sure tricks of each side) or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_ddc", "The double-dummy search of sim/dd.py (see sim/_ddc.c).", -1, methods,
};

PyMODINIT_FUNC PyInit__ddc(void) {
#if defined(__x86_64__) && defined(__POPCNT__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("popcnt")) {
        PyErr_SetString(PyExc_ImportError, "this processor lacks the popcnt instruction the build assumed");
        return NULL;
    }
#endif
    if (PyType_Ready(&ContextType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&ContextType);
    if (PyModule_AddObject(m, "Context", (PyObject *)&ContextType) < 0 ||
        PyModule_AddIntConstant(m, "TT_SIZE", POOL_SIZE) < 0 || PyModule_AddIntConstant(m, "T_RUNS", T_RUNS) < 0 ||
        PyModule_AddIntConstant(m, "T_SIBLINGS", T_SIBLINGS) < 0 ||
        PyModule_AddIntConstant(m, "T_TABLE", T_TABLE) < 0 ||
        PyModule_AddIntConstant(m, "T_PARTITION", T_PARTITION) < 0 ||
        PyModule_AddIntConstant(m, "T_QUICK", T_QUICK) < 0 || PyModule_AddIntConstant(m, "T_POWER", T_POWER) < 0 ||
        PyModule_AddIntConstant(m, "T_ORDER", T_ORDER) < 0 || PyModule_AddIntConstant(m, "T_SECOND", T_SECOND) < 0 ||
        PyModule_AddIntConstant(m, "T_KILLER", T_KILLER) < 0 || PyModule_AddIntConstant(m, "T_ALL", T_ALL) < 0 ||
        PyModule_AddIntConstant(m, "TT_BYTES", (long)(POOL_SIZE * sizeof(Entry) + CLASS_SIZE * sizeof(Class))) < 0) {
        Py_DECREF(&ContextType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
