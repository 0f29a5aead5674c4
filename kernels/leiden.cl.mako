<%doc>
  The refinement phase of the Leiden algorithm (Traag, Waltman, van Eck, "From Louvain to
  Leiden: guaranteeing well-connected communities", Sci. Rep. 9, 5233 (2019), supplementary
  Algorithm A.2: RefinePartition and MergeNodesSubset), in parallel rounds, and the starting
  partition of the aggregate graph. Local moving and aggregation are Louvain's kernels
  (louvain.cl.mako); the shared pieces (weight_t, hash tables, the argmax order) come from
  community.cl.mako. Template values: those of louvain.cl.mako (index_t, offset_t, mode, wg,
  wtype).

  Arithmetic as in louvain.cl.mako: weights and k_i in weight_t, community totals in a_c's
  31-bit fixed point (ac, aR; kq = k_i in its units, a_c = ac * ac_unit), scores in double
  multiplied by 2m: score(v -> T) = 2m w(v, T) - gamma k_v K_T is 2m times the quality gain
  dH = w(v, T) - gamma k_v K_T / 2m of MergeNodesSubset (in the kernels' weight units).

  Refined partition R inside the partition P (= C, the result of local moving): R starts as
  singletons. In a round, a vertex v is a "mover" when its hashed bit of the round is 1. A
  mover that is still a singleton of R and well connected to its community S = P(v)
  (A.2 line 12: E(v, S - v) >= gamma k_v (K_S - k_v) / 2m) may join a refined community T of
  S that it has an edge to, is well connected to S (line 14: E(T, S - T) >= gamma K_T (K_S -
  K_T) / 2m) and is not itself moving this round (T has more than one vertex, or its one
  vertex is not a mover), among those with dH >= 0 (line 15): greedily the largest dH (ties to
  the lowest id), or with randomness theta by the Gumbel-max trick (the probability of T is
  proportional to exp(dH / theta), line 16). Only singletons move and only into communities
  that do not move, so every refined community stays connected: a vertex joins a community it
  has an edge to, and nothing leaves a community that received a vertex.
</%doc>
<%include file="common.cl.mako"/>
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#pragma OPENCL FP_CONTRACT OFF

#define EMPTY (-1)
#define WG ${wg}

<%include file="community.cl.mako"/>

/* 32-bit finalizer (a bijection of uint): the hashed bits of vertices and rounds. */
inline uint mix32(uint x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* Whether vertex v moves in round r: with nvisit > 0 rounds of one visit each (the visiting
   order of MergeNodesSubset, line 11, by buckets of hashed ids), when v's bucket is r; with
   nvisit = 0 (rounds until nothing moves), when its hashed bit of the round is 1. */
inline int mover(index_t v, uint key, uint nvisit, uint r)
{
    const uint h = mix32((uint)v ^ key);
    return nvisit ? (int)(h % nvisit == r) : (int)(h & 1u);
}

/* Whether a set of weight K_T (a_c units times ac_unit) and E(T, S - T) = ext edges to the
   rest of its community S of weight K_S is well connected to S (A.2 lines 12 and 14):
   E(T, S - T) >= gamma K_T (K_S - K_T) / 2m, here multiplied by 2m. */
inline int well_connected(double ext, double KT, double KS, double m2, double resolution)
{
    return m2 * ext >= resolution * KT * (KS - KT);
}

/* A Gumbel(0, 1) variate from the hash of (v, T, round): argmax of dH / theta + G over the
   candidates draws T with probability proportional to exp(dH / theta). */
inline double gumbel(index_t v, index_t t, uint round_key)
{
    const uint h = mix32(mix32((uint)v ^ round_key) ^ ((uint)t * 0x9e3779b9u));
    const double u = ((double)h + 0.5) / 4294967296.0;
    return -log(-log(u));
}

/* RefinePartition line 1 (R = singletons), the hash-table sizes of MergeNodesSubset's
   candidates per vertex, and the number of non-empty communities of P (rflags[2]). */
__kernel void refine_init(index_t n, __global const offset_t *vertices,
                          __global const index_t *csize, __global const int *kq,
                          __global index_t *R, __global int *aR, __global index_t *rsize,
                          __global int *tsz, __global int *rflags)
{
    int communities = 0;
    FOR_EACH_VERTEX(v, n) {
        R[v] = v;
        aR[v] = kq[v];
        rsize[v] = 1;
        tsz[v] = table_size((int)(vertices[v + 1] - vertices[v]));
        communities += csize[v] > 0;
    }
    if (communities) atomic_add(&rflags[2], communities);
}

/* refine_init and the exclusive scan of the table sizes into tpos (tpos[n] and rflags[3]:
   the total) in one work-group, for a small level: each work-item takes a contiguous range
   of vertices, and work-item 0 scans the ranges' sums. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void refine_init_one_group(index_t n, __global const offset_t *vertices,
                           __global const index_t *csize, __global const int *kq,
                           __global index_t *R, __global int *aR, __global index_t *rsize,
                           __global int *tsz, __global int *tpos, __global int *rflags)
{
    const int lid = get_local_id(0);
    __local int part[WG];
    __local int comm[WG];
    const index_t per = n / WG + (n % WG != 0);
    const index_t lo = min((index_t)lid * per, n), hi = min(lo + per, n);
    int sum = 0, communities = 0;
    for (index_t v = lo; v < hi; ++v) {
        R[v] = v;
        aR[v] = kq[v];
        rsize[v] = 1;
        const int t = table_size((int)(vertices[v + 1] - vertices[v]));
        tsz[v] = t;
        tpos[v] = sum;
        sum += t;
        communities += csize[v] > 0;
    }
    part[lid] = sum;
    comm[lid] = communities;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        int acc = 0, c = 0;
        for (int x = 0; x < WG; ++x) {
            const int s = part[x];
            part[x] = acc;
            acc += s;
            c += comm[x];
        }
        tpos[n] = acc;
        rflags[2] = c;
        rflags[3] = acc;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int off = part[lid];
    for (index_t v = lo; v < hi; ++v) tpos[v] += off;
}

/* The first round's pass over the edges (the sums MergeNodesSubset needs): extR[T] = E(T,
   S - T) for every refined community T (edges inside S = P(T), out of T; extR zero-filled
   before), and for every singleton v of R the weights w(v, T) to the refined communities T
   of its community (v's hash table: keys[tpos[v] ..], tsz[v] slots). Later rounds keep extR
   up to date in refine_apply and rebuild the singletons' tables alone (refine_tables). */
<%def name="edges_params()">offset_t nnz, __global const index_t *src,
                           __global const index_t *edges, __global const weight_t *w,
                           __global const index_t *C, __global const index_t *R,
                           __global const index_t *rsize, __global weight_t *extR,
                           __global const int *tpos, __global const int *tsz,
                           __global int *keys, __global weight_t *vals</%def>
<%def name="edges_names()">nnz, src, edges, w, C, R, rsize, extR, tpos, tsz, keys, vals</%def>
inline void refine_edges_body(${edges_params()})
{
    for (offset_t e = get_global_id(0); e < nnz; e += get_global_size(0)) {
        const index_t v = src[e], u = edges[e];
        if (u == v || C[u] != C[v]) continue;
        const index_t rv = R[v], ru = R[u];
        if (ru == rv) continue;
        atomic_add_w__global(&extR[rv], w[e]);
        if (rv == v && rsize[v] == 1)
            hash_add__global(keys + tpos[v], vals + tpos[v], tsz[v], ru, w[e]);
    }
}

__kernel void refine_edges(${edges_params()})
{
    refine_edges_body(${edges_names()});
}

/* Rounds run in batches between the host's reads: round r counts its moves and waiting
   singletons in rcount[at], rcount[at + 1]; a round whose previous one (at prev >= 0) moved
   nothing and left nothing waiting does nothing (neither does any round after it: nothing
   can move any more). */
inline int settled(__global const int *rcount, int prev)
{
    return prev >= 0 && rcount[prev] == 0 && rcount[prev + 1] == 0;
}

/* A later round's pass: the hash tables of the singletons of R alone (as refine_edges fills
   them; no extR, which refine_apply keeps). */
<%def name="tables_params()">offset_t nnz, __global const index_t *src,
                            __global const index_t *edges, __global const weight_t *w,
                            __global const index_t *C, __global const index_t *R,
                            __global const index_t *rsize, __global const int *tpos,
                            __global const int *tsz, __global int *keys,
                            __global weight_t *vals</%def>
inline void refine_tables_body(${tables_params()})
{
    for (offset_t e = get_global_id(0); e < nnz; e += get_global_size(0)) {
        const index_t v = src[e];
        if (R[v] != v || rsize[v] != 1) continue;
        const index_t u = edges[e];
        if (u == v || C[u] != C[v]) continue;
        hash_add__global(keys + tpos[v], vals + tpos[v], tsz[v], R[u], w[e]);
    }
}

__kernel void refine_tables(${tables_params()}, __global const int *rcount, int prev)
{
    if (settled(rcount, prev)) return;
    refine_tables_body(nnz, src, edges, w, C, R, rsize, tpos, tsz, keys, vals);
}

/* MergeNodesSubset lines 13-16 for slot s of singleton v's table: the slot read and cleared
   for the next round; its community t a candidate when v is well connected (line 12), t is
   well connected (line 14) and the gain is not negative (line 15); taken into (best, bestc,
   bestw) when v moves and t does not, else *waiting set. */
inline void choose_slot(index_t v, __global int *hk, __global weight_t *hv, int s, int well,
                        int moves, double kv, double KS, __global const index_t *rsize,
                        __global const int *aR, __global const weight_t *extR, double ac_unit,
                        double m2, double resolution, double inv_theta, uint round_key,
                        uint nvisit, uint rnd, double *best, int *bestc, weight_t *bestw,
                        int *waiting)
{
    const int t = hk[s];
    if (t == EMPTY) return;
    const weight_t wst = hv[s];
    hk[s] = EMPTY;
    hv[s] = (weight_t)0;
    if (!well) return;
    const double KT = (double)aR[t] * ac_unit;
    if (!well_connected((double)extR[t], KT, KS, m2, resolution)) return;       /* line 14 */
    const double score = m2 * (double)wst - resolution * kv * KT;
    if (score < 0.0) return;                                                    /* line 15 */
% if claims:
    /* (claims: every singleton moves, and refine_claim settles who may) */
% else:
    if (!moves || (rsize[t] == 1 && mover(t, round_key, nvisit, rnd))) {
        *waiting = 1;
        return;
    }
% endif
    const double key = inv_theta > 0.0 ? score * inv_theta + gumbel(v, t, round_key) : score;
    if (better(key, t, *best, *bestc)) {
        *best = key;
        *bestc = t;
        *bestw = wst;
    }
}

<%def name="choose_params()">__global const index_t *C, __global const index_t *R,
        __global const index_t *rsize, __global const weight_t *k, __global const int *kq,
        __global const int *ac, __global const int *aR, __global const weight_t *extR,
        __global const int *tpos, __global const int *tsz, __global int *keys,
        __global weight_t *vals, double ac_unit, double m2, double resolution,
        double inv_theta, uint round_key, uint nvisit, uint rnd, __global index_t *prop,
        __global weight_t *propw</%def>
<%def name="choose_names()">C, R, rsize, k, kq, ac, aR, extR, tpos, tsz, keys, vals, ac_unit,
        m2, resolution, inv_theta, round_key, nvisit, rnd, prop, propw</%def>
<%def name="choose_args()">${choose_params()}, __global int *rcount, int at, int prev</%def>
<%def name="choose_setup()">
        const double kv = (double)k[v], kvq = (double)kq[v] * ac_unit;
        const double KS = (double)ac[C[v]] * ac_unit;
        /* line 12: v well connected to S (k_v as the scores take it, K_S - k_v in a_c's
           units) */
        const int well = m2 * (double)extR[v] >= resolution * kv * (KS - kvq);
        const int moves = ${"1" if claims else "mover(v, round_key, nvisit, rnd)"};
        __global int *hk = keys + tpos[v];
        __global weight_t *hv = vals + tpos[v];
        double best = 0.0;
        weight_t bestw = (weight_t)0;
        int bestc = EMPTY, waiting = 0;
</%def>
<%def name="slot_args()">well, moves, kv, KS, rsize, aR, extR, ac_unit, m2, resolution,
                        inv_theta, round_key, nvisit, rnd, &best, &bestc, &bestw, &waiting</%def>

/* MergeNodesSubset lines 11-17 for the singletons of R: the target of each mover (prop, EMPTY
   for none; propw its weight w(v, T)), every table cleared for the next round. rcount[at + 1]
   counts the singletons left with an admissible target (well connected, dH >= 0) that they
   could not take this round (they or the target were movers): the host runs rounds until
   none is left and none moved. Vertices of at least heavy_degree entries are left to
   refine_choose_heavy (their prop EMPTY here). */
inline int refine_choose_body(index_t n, ${choose_params()},
                              __global const offset_t *vertices, int heavy_degree)
{
    int pending = 0;
    FOR_EACH_VERTEX(v, n) {
        prop[v] = EMPTY;
        if (R[v] != v || rsize[v] != 1 || vertices[v + 1] - vertices[v] >= heavy_degree)
            continue;
${choose_setup()}
        for (int s = 0; s < tsz[v]; ++s)
            choose_slot(v, hk, hv, s, ${slot_args()});
        prop[v] = bestc;
        propw[v] = bestw;
        pending += bestc == EMPTY && waiting;
    }
    return pending;
}

__kernel void refine_choose(index_t n, ${choose_args()}, __global const offset_t *vertices,
                            int heavy_degree)
{
    if (settled(rcount, prev)) return;
    const int pending = refine_choose_body(n, ${choose_names()}, vertices, heavy_degree);
    if (pending) atomic_add(&rcount[at + 1], pending);
}

/* refine_choose for the vertices vset[h0 .. h0 + nheavy) (those of degree at least its
   heavy_degree in local moving's degree order): one work-group per vertex, its table's slots
   shared out and the candidates reduced in the argmax order (the same target as one
   work-item's scan). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void refine_choose_heavy(int h0, int nheavy, __global const index_t *vset, ${choose_args()})
{
    const int lid = get_local_id(0);
    __local double l_best[WG];
    __local int l_c[WG];
    __local weight_t l_w[WG];
    __local int l_wait[WG];
    if (settled(rcount, prev)) return;
    int pending = 0;
    for (int g = get_group_id(0); g < nheavy; g += get_num_groups(0)) {
        const index_t v = vset[h0 + g];
        const int single = R[v] == v && rsize[v] == 1;
${choose_setup()}
        const int slots = single ? tsz[v] : 0;
        for (int s = lid; s < slots; s += WG)
            choose_slot(v, hk, hv, s, ${slot_args()});
        l_best[lid] = best;
        l_c[lid] = bestc;
        l_w[lid] = bestw;
        l_wait[lid] = waiting;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int h = WG / 2; h > 0; h >>= 1) {
            if (lid < h) {
                if (better(l_best[lid + h], l_c[lid + h], l_best[lid], l_c[lid])) {
                    l_best[lid] = l_best[lid + h];
                    l_c[lid] = l_c[lid + h];
                    l_w[lid] = l_w[lid + h];
                }
                l_wait[lid] |= l_wait[lid + h];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0 && single) {
            prop[v] = l_c[0];
            propw[v] = l_w[0];
            pending += l_c[0] == EMPTY && l_wait[0];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0 && pending) atomic_add(&rcount[at + 1], pending);
}

/* MergeNodesSubset line 17 (R(v) = T) with K_T, the sizes and the moves counted (rcount[at]),
   and E(T, S - T) kept: the movers M into T (singletons; a mover is nobody's target) make
   E(T + M, S - T - M) = E(T, S - T) + sum over v in M of (E(v, S - v) - 2 w(v, T)) - 2 w
   inside M, each mover adding its part (propw[v] = w(v, T) from refine_choose; its edges to
   other movers into T, counted from both ends: by refine_apply_heavy for the movers of at
   least heavy_degree entries). */
/* Claims mode (template value claims): every singleton with a target moves in the round,
   unless another move conflicts with it: a singleton that moves must not receive a vertex,
   nor move into a singleton that moves. Conflicts are settled by priorities: each vertex's
   hashed id of the round, pri = mix32(v ^ round_key) (a bijection: no two alike).
   refine_claim_top keeps, for each singleton that some mover targets, the highest priority
   among them (top[t], tagged with the round in its high 32 bits: zeroed once a level);
   refine_claim keeps a move v -> t when v outranks every mover that targets v (so none of
   them moves into v) and t is larger than one vertex or does not outrank its own suitors
   (so t does not move); the other moves are dropped (prop EMPTY) and counted as waiting.
   Both rules of the hashed movers hold, so every refined community stays connected; the
   mover of highest priority always moves (no round is lost to a cycle of claims), the
   outcome does not depend on the order of the atomics, and the priorities change with the
   round. */
inline ulong claim_tag(uint rnd, uint pri) { return ((ulong)(rnd + 1u) << 32) | (ulong)pri; }

inline int claim_outranks(index_t v, __global const ulong *top, uint rnd, uint round_key)
{
    const ulong tv = top[v];
    return (uint)(tv >> 32) != rnd + 1u || mix32((uint)v ^ round_key) > (uint)tv;
}

inline void refine_claim_top_body(index_t n, __global const index_t *prop,
                                  __global const index_t *rsize, __global ulong *top,
                                  uint rnd, uint round_key)
{
    FOR_EACH_VERTEX(v, n) {
        const index_t t = prop[v];
        if (t != EMPTY && rsize[t] == 1)
            atom_max(&top[t], claim_tag(rnd, mix32((uint)v ^ round_key)));
    }
}

inline int refine_claim_body(index_t n, __global index_t *prop, __global const index_t *rsize,
                             __global const ulong *top, uint rnd, uint round_key)
{
    int pending = 0;
    FOR_EACH_VERTEX(v, n) {
        const index_t t = prop[v];
        if (t == EMPTY) continue;
        const int ok = claim_outranks(v, top, rnd, round_key) &&
                       (rsize[t] > 1 || !claim_outranks(t, top, rnd, round_key));
        if (!ok) {
            prop[v] = EMPTY;
            ++pending;
        }
    }
    return pending;
}

__kernel void refine_claim_top(index_t n, __global const index_t *prop,
                               __global const index_t *rsize, __global ulong *top, uint rnd,
                               uint round_key, __global const int *rcount, int prev)
{
    if (settled(rcount, prev)) return;
    refine_claim_top_body(n, prop, rsize, top, rnd, round_key);
}

__kernel void refine_claim(index_t n, __global index_t *prop, __global const index_t *rsize,
                           __global const ulong *top, uint rnd, uint round_key,
                           __global int *rcount, int at, int prev)
{
    if (settled(rcount, prev)) return;
    const int pending = refine_claim_body(n, prop, rsize, top, rnd, round_key);
    if (pending) atomic_add(&rcount[at + 1], pending);
}

<%def name="apply_params()">index_t n, __global const index_t *prop,
                           __global const weight_t *propw, __global const offset_t *vertices,
                           __global const index_t *edges, __global const weight_t *w,
                           __global index_t *R, __global const int *kq, __global int *aR,
                           __global index_t *rsize, __global weight_t *extR</%def>
inline int refine_apply_body(${apply_params()}, int heavy_degree)
{
    int moved = 0;
    FOR_EACH_VERTEX(v, n) {
        const index_t t = prop[v];
        if (t == EMPTY) continue;
        R[v] = t;
        atomic_add(&aR[t], kq[v]);
        atomic_sub(&aR[v], kq[v]);
        atomic_inc(&rsize[t]);
        atomic_dec(&rsize[v]);
        weight_t d = extR[v] - propw[v] - propw[v];
        if (vertices[v + 1] - vertices[v] < heavy_degree) {
            for (offset_t e = vertices[v]; e < vertices[v + 1]; ++e) {
                const index_t u = edges[e];
                if (u != v && prop[u] == t) d -= w[e];
            }
        }
        atomic_add_w__global(&extR[t], d);
        ++moved;
    }
    return moved;
}

__kernel void refine_apply(${apply_params()}, __global int *rcount, int at, int prev,
                           int heavy_degree)
{
    if (settled(rcount, prev)) return;
    const int moved = refine_apply_body(n, prop, propw, vertices, edges, w, R, kq, aR, rsize,
                                        extR, heavy_degree);
    if (moved) atomic_add(&rcount[at], moved);
}

/* refine_apply's sum over the edges to other movers into the same T, for the movers among
   vset[h0 .. h0 + nheavy) (local moving's vertices of at least heavy_degree entries): one
   work-group per vertex, its edges shared out. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void refine_apply_heavy(int h0, int nheavy, __global const index_t *vset,
                        __global const index_t *prop, __global const offset_t *vertices,
                        __global const index_t *edges, __global const weight_t *w,
                        __global weight_t *extR, __global const int *rcount, int prev)
{
    const int lid = get_local_id(0);
    __local weight_t l_sum[WG];
    if (settled(rcount, prev)) return;
    for (int g = get_group_id(0); g < nheavy; g += get_num_groups(0)) {
        const index_t v = vset[h0 + g], t = prop[v];
        weight_t sum = (weight_t)0;
        if (t != EMPTY) {
            for (offset_t e = vertices[v] + lid; e < vertices[v + 1]; e += WG) {
                const index_t u = edges[e];
                if (u != v && prop[u] == t) sum += w[e];
            }
        }
        l_sum[lid] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int h = WG / 2; h > 0; h >>= 1) {
            if (lid < h) l_sum[lid] += l_sum[lid + h];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0 && t != EMPTY && l_sum[0] != (weight_t)0)
            atomic_add_w__global(&extR[t], -l_sum[0]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* RefinePartition's rounds of a small level (refine_init_one_group before) in one launch of
   one work-group: each round refine_edges (the first) or refine_tables, refine_choose, the
   claims (claims mode) and refine_apply for every vertex, a barrier between them, the
   round's counts in local memory; the rounds stop as the host's do (MAX_ROUNDS or the
   visits, or a round that moved nothing and left nothing waiting), with the same round keys
   (key_base: the host's round key of the level but the round's term) and the same
   arithmetic, so the refinement is the same as the rounds launched one by one (for a
   deterministic run, the same answer). out[0]: the vertices moved, out[1]: the rounds. */
% if wg == 1:
#define barrier(flags) ((void)0)
% endif
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void refine_one_group(index_t n, offset_t nnz, __global const index_t *src,
                      __global const index_t *edges, __global const weight_t *w,
                      __global const offset_t *vertices, __global const index_t *C,
                      __global index_t *R, __global index_t *rsize, __global const weight_t *k,
                      __global const int *kq, __global const int *ac, __global int *aR,
                      __global weight_t *extR, __global const int *tpos,
                      __global const int *tsz, __global int *keys, __global weight_t *vals,
                      double ac_unit, double m2, double resolution, double inv_theta,
                      uint key_base, uint nvisit, int max_rounds, __global index_t *prop,
                      __global weight_t *propw, __global ulong *top, __global int *out)
{
    __local int l_moved, l_pending;
    int total = 0, rounds = 0, go = 1;
    while (go) {
        if (get_local_id(0) == 0) { l_moved = 0; l_pending = 0; }
        if (rounds == 0)
            refine_edges_body(${edges_names()});
        else
            refine_tables_body(nnz, src, edges, w, C, R, rsize, tpos, tsz, keys, vals);
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        const uint rnd = (uint)rounds;
        const uint x = key_base + (nvisit ? 0u : rnd) * 0xC2B2AE3Du;
        const uint round_key = x ^ (x >> 15);
        const int pending = refine_choose_body(n, ${choose_names()}, vertices, INT_MAX);
        if (pending) atomic_add(&l_pending, pending);
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
% if claims:
        refine_claim_top_body(n, prop, rsize, top, rnd, round_key);
        barrier(CLK_GLOBAL_MEM_FENCE);
        const int lost = refine_claim_body(n, prop, rsize, top, rnd, round_key);
        if (lost) atomic_add(&l_pending, lost);
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
% endif
        const int moved = refine_apply_body(n, prop, propw, vertices, edges, w, R, kq, aR,
                                            rsize, extR, INT_MAX);
        if (moved) atomic_add(&l_moved, moved);
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        const int m = l_moved, p = l_pending;
        barrier(CLK_LOCAL_MEM_FENCE);
        total += m;
        ++rounds;
        go = rounds < max_rounds && (nvisit || m || p);
    }
    if (get_local_id(0) == 0) {
        out[0] = total;
        out[1] = rounds;
    }
}
% if wg == 1:
#undef barrier
% endif

/* Aggregation on R, with P as the aggregate graph's starting partition (Algorithm A.1 line 6),
   where a refined community T that is not well connected to its community S of P (extR[T] =
   E(T, S - T) of the final R, ac = P's a_c) starts alone instead: leaving S then gains
   quality (the move to an empty community that local moving does not make). rep[S] = the
   smallest new id of the refined communities of S that stay (rep filled with INT_MAX
   before), then start[new id of T] = rep[S] or T's own new id; rflags[0] counts the
   refined communities started alone. */
__kernel void start_representatives(index_t n, __global const index_t *R,
                                    __global const index_t *C, __global const index_t *newID,
                                    __global const int *ac, __global const int *aR,
                                    __global const weight_t *extR, double ac_unit, double m2,
                                    double resolution, __global index_t *rep)
{
    FOR_EACH_VERTEX(v, n) {
        const index_t t = R[v];
        if (well_connected((double)extR[t], (double)aR[t] * ac_unit,
                           (double)ac[C[v]] * ac_unit, m2, resolution))
            atomic_min(&rep[C[v]], newID[t]);
    }
}

__kernel void start_partition(index_t n, __global const index_t *R, __global const index_t *C,
                              __global const index_t *newID, __global const int *ac,
                              __global const int *aR, __global const weight_t *extR,
                              double ac_unit, double m2, double resolution,
                              __global const index_t *rep, __global index_t *start,
                              __global int *rflags)
{
    int alone = 0;
    FOR_EACH_VERTEX(v, n) {
        if (R[v] != v) continue;
        const int stays = well_connected((double)extR[v], (double)aR[v] * ac_unit,
                                         (double)ac[C[v]] * ac_unit, m2, resolution);
        start[newID[v]] = stays ? rep[C[v]] : newID[v];
        alone += !stays;
    }
    if (alone) atomic_add(&rflags[0], alone);
}
