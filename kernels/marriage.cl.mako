<%doc>
  Stable marriage with incomplete lists on the device (shared/papers/004, Paper IV, Section 4):
  McVitie-Wilson and parallel Gale-Shapley, the cross-references of the two sides' lists, and
  the stability check of an answer (pyclmatch/weighted/marriage.py).

  Template values (besides index_t, offset_t, mode of common.cl.mako):
    threads_per_vertex  lanes per woman in marriage_cross_lanes (a power of two; 1 otherwise)
</%doc>
<%include file="common.cl.mako"/>
#define TPV ${threads_per_vertex}
#define NO_RANK 0x7fffffff

/* ------------------------------------------------------------------ stable marriage (Paper IV)
   Men's lists mptr/mlist (women in preference order), women's lists wptr/wlist. rank_w[e] =
   rank of the man of entry e in the woman's list; pos_m[f] = index in mlist of the entry that
   corresponds to women's entry f. srank[w] = rank (in w's list) of w's current suitor,
   NO_RANK if none: lower is better, so becoming her suitor is one atomic_min. */

/* McVitie-Wilson (Paper IV, Section 4): one work-item per man, CAS (atomic_min) on the
   woman's suitor; a rejected man (the proposer himself or the suitor he displaced) proposes
   again at once, from the position after the woman who rejected him. */
__kernel void mcvitie_wilson(__global const offset_t *mptr, __global const index_t *mlist,
                             __global const int *rank_w, index_t n_men,
                             __global const offset_t *wptr, __global const index_t *wlist,
                             __global const offset_t *pos_m, __global int *srank,
                             __global int *count)
{
    FOR_EACH_VERTEX(m0, n_men) {
        index_t m = m0;
        offset_t e = mptr[m];
        int proposals = 0;
        while (m >= 0) {
            const offset_t end = mptr[m + 1];
            index_t nx = -1;
            for (; e < end; ++e) {
                const index_t w = mlist[e];
                const int r = rank_w[e];
                if (srank[w] < r) continue;               /* she already has a better man */
                ++proposals;
                const int old = atomic_min(&srank[w], r);
                if (old > r) {                            /* accepted */
                    if (old != NO_RANK) {                 /* her previous suitor is rejected */
                        const offset_t f = wptr[w] + old;
                        nx = wlist[f];
                        e = pos_m[f] + 1;
                    }
                    break;
                }
            }
            m = nx;
        }
        if (proposals) atomic_add(&count[0], proposals);
    }
}

/* One round of the parallel Gale-Shapley algorithm (Paper IV, Section 4): every free man
   proposes to the next woman on his list; a displaced man is free again and proposes in the
   next round. A man's state is nextp[m] alone (the entry after his last proposal), written only
   by his own work-item: he is engaged iff the woman of entry nextp[m] - 1 still holds his rank
   in srank. A shared "free" flag written by the displacer would race with the man's own write
   on devices whose plain stores from different work-groups are not ordered by mem_fence (a
   displaced man could stay marked engaged, and a blocking pair follow). */
__kernel void gale_shapley_round(__global const offset_t *mptr, __global const index_t *mlist,
                                 __global const int *rank_w, index_t n_men,
                                 __global offset_t *nextp, __global int *srank,
                                 __global int *count)
{
    FOR_EACH_VERTEX(m, n_men) {
        offset_t e = nextp[m];
        const offset_t end = mptr[m + 1];
        if (e >= end) continue;                               /* list exhausted */
        if (e > mptr[m] && srank[mlist[e - 1]] == rank_w[e - 1]) continue;   /* engaged */
        while (e < end && srank[mlist[e]] < rank_w[e]) ++e;   /* skip sure rejections */
        if (e >= end) { nextp[m] = e; continue; }
        nextp[m] = e + 1;
        atomic_min(&srank[mlist[e]], rank_w[e]);              /* a rejection shows next round */
        atomic_inc(&count[0]);
    }
}

/* The answer from the women's best ranks: husband[w], and wife[m] for every married man
   (wife is filled with -1 before; each married man is one woman's husband, so no race). */
__kernel void marriage_husbands(__global const offset_t *wptr, __global const index_t *wlist,
                                index_t n_women, __global const int *srank,
                                __global index_t *husband, __global index_t *wife)
{
    FOR_EACH_VERTEX(w, n_women) {
        const int r = srank[w];
        const index_t m = r == NO_RANK ? -1 : wlist[wptr[w] + r];
        husband[w] = m;
        if (m >= 0) wife[m] = w;
    }
}

/* ------------------------------------------------------- stable marriage: instance on the device
   The cross-references rank_w / pos_m are derived on the device from the four lists (int32,
   range-checked and converted by pyopencl elementwise kernels before these run). Men's entry e
   (man m, woman w) is found from woman w's entry (w, m) by a scan of m's list when it is short
   (MARRIAGE_SHORT entries or fewer: the easy instances never need more) and through a hash
   table of the long lists' entries otherwise (open addressing, linear probing, load <= 1/2,
   slots hold entry indices: the key (m, w) is read back from mptr/mlist). */
#define MARRIAGE_SHORT 64

inline uint marriage_slot(index_t m, index_t w, uint cap)
{
    ulong x = ((ulong)(uint)m << 32) | (uint)w;             /* murmur3's 64-bit finalizer */
    x ^= x >> 33; x *= 0xff51afd7ed558ccdUL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53UL;
    x ^= x >> 33;
    return (uint)(((x & 0xffffffffUL) * (ulong)cap) >> 32);  /* uniform in [0, cap) */
}

/* Insert the entries of every long men's list into the table (slots filled with -1 before). */
__kernel void marriage_hash_men(__global const offset_t *mptr, __global const index_t *mlist,
                                index_t n_men, __global offset_t *table, uint cap)
{
    FOR_EACH_VERTEX(m, n_men) {
        const offset_t s = mptr[m], t = mptr[m + 1];
        if (t - s <= MARRIAGE_SHORT) continue;
        for (offset_t e = s; e < t; ++e) {
            uint slot = marriage_slot(m, mlist[e], cap);
            while (OFFSET_ATOMIC(cmpxchg)(&table[slot], -1, e) != -1)
                if (++slot == cap) slot = 0;
        }
    }
}

/* The first entry of man m's list that holds woman w, -1 if none. */
inline offset_t marriage_find(__global const offset_t *mptr, __global const index_t *mlist,
                              __global const offset_t *table, uint cap, index_t m, index_t w)
{
    const offset_t s = mptr[m], t = mptr[m + 1];
    if (t - s <= MARRIAGE_SHORT) {
        /* the whole list, without an early exit: the loop's branch then depends on the
           offsets alone, not on the loads of mlist (CPU devices overlap the next entries'
           cache misses instead of stalling on a mispredicted exit: 2x on PoCL) */
        for (offset_t e = s; e < t; ++e)
            if (mlist[e] == w) return e;
        return -1;
    }
    uint slot = marriage_slot(m, w, cap);
    for (;;) {
        const offset_t e = table[slot];
        if (e < 0) return -1;
        if (e >= s && e < t && mlist[e] == w) return e;
        if (++slot == cap) slot = 0;
    }
}

/* One work-item per woman: her entry f = (w, m) finds the men's entry e = (m, w) and sets
   rank_w[e] = f - wptr[w], pos_m[f] = e (rank_w filled with -1 before). Only woman w's
   work-item looks up entries holding w, so a second claim of e (it is -1 no more) is seen
   without atomics. bad[0] = 1 when some entry finds nothing or claims an e twice; with no such
   entry and equally many entries on both sides, f -> e is a bijection preserving (m, w): the
   lists are consistent and repeat no id. */
__kernel void marriage_cross(__global const offset_t *wptr, __global const index_t *wlist,
                             index_t n_women, __global const offset_t *mptr,
                             __global const index_t *mlist, __global const offset_t *table,
                             uint cap, __global int *rank_w, __global offset_t *pos_m,
                             __global int *bad)
{
    FOR_EACH_VERTEX(w, n_women) {
        const offset_t s = wptr[w], t = wptr[w + 1];
        for (offset_t f = s; f < t; ++f) {
            const offset_t e = marriage_find(mptr, mlist, table, cap, wlist[f], w);
            if (e < 0 || rank_w[e] != -1) {
                bad[0] = 1;
                pos_m[f] = -1;
                continue;
            }
            rank_w[e] = (int)(f - s);
            pos_m[f] = e;
        }
    }
}

/* marriage_cross for GPUs: TPV lanes per woman, each lane takes every TPV-th entry f of her
   list (consecutive lanes read consecutive wlist entries, and a woman's lookups run side by
   side instead of one after another in one work-item). Two entries of one woman naming the
   same man now run in different work-items, so the claim of e is a compare-and-swap on
   rank_w[e] (filled with -1 before); otherwise the same checks and results as marriage_cross. */
__kernel void marriage_cross_lanes(__global const offset_t *wptr, __global const index_t *wlist,
                                   index_t n_women, __global const offset_t *mptr,
                                   __global const index_t *mlist,
                                   __global const offset_t *table, uint cap,
                                   __global int *rank_w, __global offset_t *pos_m,
                                   __global int *bad)
{
    const index_t lane = (index_t)(get_local_id(0) % TPV);
    const index_t stride = (index_t)(get_global_size(0) / TPV);
    for (index_t w = (index_t)(get_global_id(0) / TPV); w < n_women; w += stride) {
        const offset_t s = wptr[w], t = wptr[w + 1];
        for (offset_t f = s + lane; f < t; f += TPV) {
            const offset_t e = marriage_find(mptr, mlist, table, cap, wlist[f], w);
            if (e < 0 || atomic_cmpxchg(&rank_w[e], -1, (int)(f - s)) != -1) {
                bad[0] = 1;
                pos_m[f] = -1;
                continue;
            }
            pos_m[f] = e;
        }
    }
}

/* ------------------------------------------------------- stable marriage: verification
   Independent of the algorithm's kernels: from the answer (wife, husband) and the instance
   alone. err[] holds the smallest offender of each kind (filled with NO_RANK before):
   err[0] an invalid id (a man or woman), err[1] wife/husband not inverse, err[2] a married
   pair not on each other's lists, err[3] the first men's entry (m, w) that blocks. */

/* hrank[w] = the rank of w's husband in her list (NO_RANK: unmarried, anyone is better). */
__kernel void marriage_verify_women(__global const offset_t *wptr, __global const index_t *wlist,
                                    index_t n_women, index_t n_men,
                                    __global const index_t *husband,
                                    __global const index_t *wife, __global int *hrank,
                                    __global int *err)
{
    FOR_EACH_VERTEX(w, n_women) {
        const index_t h = husband[w];
        int r = NO_RANK;
        if (h < -1 || h >= n_men) {
            atomic_min(&err[0], w);
        } else if (h >= 0) {
            if (wife[h] != w) atomic_min(&err[1], w);
            const offset_t s = wptr[w], t = wptr[w + 1];
            offset_t f = s;
            while (f < t && wlist[f] != h) ++f;
            if (f < t) r = (int)(f - s);
            else atomic_min(&err[2], w);
        }
        hrank[w] = r;
    }
}

/* Man m blocks with every woman before his wife in his list (all of them if he is single) who
   ranks him above her husband. */
__kernel void marriage_verify_men(__global const offset_t *mptr, __global const index_t *mlist,
                                  __global const int *rank_w, index_t n_men, index_t n_women,
                                  __global const index_t *wife, __global const index_t *husband,
                                  __global const int *hrank, __global int *err)
{
    FOR_EACH_VERTEX(m, n_men) {
        const index_t wm = wife[m];
        if (wm < -1 || wm >= n_women) {
            atomic_min(&err[0], m);
            continue;
        }
        const offset_t s = mptr[m], t = mptr[m + 1];
        offset_t end = t;
        if (wm >= 0) {
            if (husband[wm] != m) atomic_min(&err[1], m);
            end = s;
            while (end < t && mlist[end] != wm) ++end;
            if (end == t) atomic_min(&err[2], m);
        }
        for (offset_t e = s; e < end; ++e)
            if (rank_w[e] < hrank[mlist[e]]) {
                atomic_min(&err[3], (int)e);
                break;
            }
    }
}
