<%doc>
  GPU Louvain community detection: Naim, Manne, Halappanavar, Tumeo, "Community Detection on the
  GPU" (IPDPS 2017) = Paper III of shared/papers/004 (Algorithms 1-3, Eq. 1-2, Section 4.1).
  Template values (besides those of common.cl.mako):
    wtype          "float": weights/e_{i->c}/a_c as float, float atomic add by atomic_cmpxchg on
                   the int bits (the paper's atomicAdd); "int": 31-bit fixed point, native
                   atomic_add, every sum exact and order-independent (deterministic mode)
    wg             work-group size (the paper's thread block of 128 on GPUs)
    move_buckets   ((lo, hi, threads, local_table), ...) of computeMove (hi None: global table)
    merge_buckets  the same for mergeCommunity (Algorithm 3 lines 20-23)
    row_lanes      work-items per row in the input kernels (1 on CPUs, 8 on GPUs: hubs of
                   R-MAT graphs would otherwise serialize one work-item)
    giant_batch    most giant communities one merge_giant_add/emit launch takes
  Graph: CSR "vertices" (offsets), "edges" (neighbours), "weights" as in Section 4.1, with the
  weight of a self-loop stored doubled so that k_i = sum of row i and 2m = sum of all entries.
  Scores of Eq. (2) are computed in double, multiplied by 2m^2, with FP_CONTRACT OFF so that
  every device rounds them the same way:  score(c) = 2m * e_{i->c} - resolution * k_i * a_c.
  a_c (ac) is kept as a 31-bit fixed-point int in both modes: a_c = ac * ac_unit with
  ac_unit = 2^-s (1 for unweighted and deterministic runs), kq[i] = k_i / ac_unit rounded, so
  its updates are native integer atomics, exact and free of the CAS-loop contention that many
  vertices joining one community would cause (the hash-table weights keep the paper's float
  atomic add).
</%doc>
<%!
from pyclmatch.community.hashing import TABLE_PRIMES, table_size
from pyclmatch.community.dtypes import RAW_TYPES
from pyclmatch.community.louvain import (FLAG_ASYM, FLAG_BAD, FLAG_LOOPS, FLAG_MAXDEG,
                                         FLAG_MOVES, SLOT_EIN, SLOT_M2, SLOT_M2Q, SLOT_SQ,
                                         SMALL_HEAD, SMALL_TRACE)
%>
<%include file="common.cl.mako"/>
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#pragma OPENCL FP_CONTRACT OFF

#define EMPTY (-1)
#define WG ${wg}

<%include file="community.cl.mako"/>

/* Sub-rounds (a pyclmatch extension of Alg. 1 line 6, in the spirit of the colouring of Lu et
   al. that Section 3 cites): with nsub > 1 only the vertices whose hashed id falls in sub-round
   sub move in a launch, so fewer neighbours move at once on small graphs. */
inline uint subround_hash(index_t i)
{
    uint x = (uint)i * 2654435761u;
    return x ^ (x >> 16);
}

inline int in_subround(index_t i, uint nsub, uint sub)
{
    if (nsub <= 1u) return 1;
    return subround_hash(i) % nsub == sub;
}

/* ---------------------------------------------------------------- per-vertex helpers */

/* ------------------------------------------------------------- input (level 0, on the device)
   The host uploads the CSR arrays as they are (the weights in their own dtype, self-loops not
   doubled) and checks nothing that costs a pass over the entries: these kernels do.
   input_stats: per row (row_lanes work-items each), the row index of every entry (src, used by
   the modularity reduction of Eq. 1 and check_symmetric), the row sum in double with the
   self-loop doubled (k64), and the input flags: indices out of range, rows not strictly
   increasing (unsorted or duplicates), NaN, infinite, negative, zero and non-integral weights,
   the number of self-loops and the largest degree (one atomic per work-group each).
   input_convert: the device weights (weight_t, self-loops doubled, times `scale`: float32 or
   31-bit fixed point), k_i (Alg. 1 line 2) and kq_i = k_i in a_c's fixed point. */
#define F_BAD ${FLAG_BAD}
#define F_LOOPS ${FLAG_LOOPS}
#define F_MAXDEG ${FLAG_MAXDEG}
#define BAD_RANGE 1
#define BAD_UNSORTED 2
#define BAD_NAN 4
#define BAD_INF 8
#define BAD_NEG 16
#define BAD_ZERO 32
#define BAD_NONINT 64
#define RL ${row_lanes}

/* sum of a double over the RL work-items of a row (lane 0 gets it); every work-item calls */
inline double row_sum_d(double x, __local double *red, int lid, int lane)
{
% if row_lanes > 1:
    red[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
%   for s in [1 << p for p in range(row_lanes.bit_length() - 2, -1, -1)]:
    if (lane < ${s}) red[lid] += red[lid + ${s}];
    barrier(CLK_LOCAL_MEM_FENCE);
%   endfor
    x = red[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
% endif
    return x;
}

inline long row_sum_l(long x, __local long *red, int lid, int lane)
{
% if row_lanes > 1:
    red[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
%   for s in [1 << p for p in range(row_lanes.bit_length() - 2, -1, -1)]:
    if (lane < ${s}) red[lid] += red[lid + ${s}];
    barrier(CLK_LOCAL_MEM_FENCE);
%   endfor
    x = red[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
% endif
    return x;
}

% for rt, is_float in RAW_TYPES:
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void input_stats_${rt}(index_t n, offset_t nnz, __global const offset_t *vertices,
                       __global const index_t *edges, __global const ${rt} *raw,
                       __global index_t *src, __global index_t *memb, __global double *part,
                       __global int *flags)
{
    const int lid = get_local_id(0), lane = lid % RL;
    __local double red[WG];
    __local int red_i[3 * WG];
    int bad = 0, loops = 0, maxdeg = 0;
    double total = 0.0;     /* this work-item's rows' k_i (part[group]: the group's) */
    for (index_t base = (index_t)get_group_id(0) * (WG / RL); base < n;
         base += (index_t)get_num_groups(0) * (WG / RL)) {
        const index_t i = base + lid / RL;
        const int active = i < n;
        offset_t start = active ? vertices[i] : 0;
        offset_t end = active ? vertices[i + 1] : 0;
        /* offsets out of order or outside 0..nnz: flagged, and the row is skipped, so that
           no read or write leaves the arrays before the host sees the flag */
        if (end < start || start < 0 || end > nnz) { bad |= BAD_RANGE; start = end = 0; }
        if (lane == 0 && end - start > maxdeg) maxdeg = (int)(end - start);
        double s = 0.0;
        for (offset_t e = start + lane; e < end; e += RL) {
            const index_t j = edges[e];
            if (j < 0 || j >= n) { bad |= BAD_RANGE; continue; }
            if (e > start && edges[e - 1] >= j) bad |= BAD_UNSORTED;
            double x = (double)raw[e];
            if (j == i) { x += x; ++loops; }
%   if is_float:
            if (isnan(x)) bad |= BAD_NAN;
            else if (isinf(x)) bad |= BAD_INF;
            else if (x != rint(x)) bad |= BAD_NONINT;
%   endif
            if (x < 0.0) bad |= BAD_NEG;
            if (x == 0.0) bad |= BAD_ZERO;
            s += x;
            src[e] = i;
        }
        s = row_sum_d(s, red, lid, lane);
        if (active && lane == 0) {
            total += s;
            memb[i] = i;          /* the level-0 membership: the identity */
        }
    }
    red[lid] = total;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) red[lid] += red[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) part[get_group_id(0)] = red[0];
    /* one atomic per work-group and flag */
    red_i[lid] = bad;
    red_i[WG + lid] = loops;
    red_i[2 * WG + lid] = maxdeg;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            red_i[lid] |= red_i[lid + s];
            red_i[WG + lid] += red_i[WG + lid + s];
            red_i[2 * WG + lid] = max(red_i[2 * WG + lid], red_i[2 * WG + lid + s]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        if (red_i[0]) atomic_or(&flags[F_BAD], red_i[0]);
        if (red_i[WG]) atomic_add(&flags[F_LOOPS], red_i[WG]);
        atomic_max(&flags[F_MAXDEG], red_i[2 * WG]);
    }
}

/* write: 1 = store the converted weights in w (another buffer); 0 = raw already holds them
   (same type, scale 1, no self-loops: w is raw and is only read) */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void input_convert_${rt}(index_t n, __global const offset_t *vertices,
                         __global const index_t *edges, __global const ${rt} *raw,
                         __global weight_t *w, int write, double scale,
                         __global weight_t *k, __global int *kq, double ac_scale,
                         __global long *part)
{
    const int lid = get_local_id(0), lane = lid % RL;
% if wtype == "float":
    __local double red[WG];
% else:
    __local long red[WG];
% endif
    __local long red_t[WG];
    long total = 0;         /* this work-item's rows' k_i as integers (part[group]) */
    for (index_t base = (index_t)get_group_id(0) * (WG / RL); base < n;
         base += (index_t)get_num_groups(0) * (WG / RL)) {
        const index_t i = base + lid / RL;
        const int active = i < n;
        const offset_t start = active ? vertices[i] : 0;
        const offset_t end = active ? vertices[i + 1] : 0;
% if wtype == "float":
        double s = 0.0;
% else:
        long s = 0;
% endif
        for (offset_t e = start + lane; e < end; e += RL) {
            double x = (double)raw[e];
            if (edges[e] == i) x += x;
% if wtype == "float":
            const float v = (float)(x * scale);
% else:
            const int v = (int)rint(x * scale);
% endif
            if (write) w[e] = v;
            s += v;
        }
% if wtype == "float":
        s = row_sum_d(s, red, lid, lane);
        if (active && lane == 0) {
            k[i] = (float)s;
            kq[i] = (int)rint(s * ac_scale);
            total += (long)(float)s;
        }
% else:
        s = row_sum_l(s, red, lid, lane);
        if (active && lane == 0) {
            k[i] = (int)s;
            kq[i] = (int)s;     /* ac_scale is 1 in fixed point */
            total += (long)(int)s;
        }
% endif
    }
    red_t[lid] = total;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) red_t[lid] += red_t[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) part[get_group_id(0)] = red_t[0];
}
% endfor

/* The input totals, stage 2 (one work-group; the input kernels wrote one partial sum per
   work-group, so the summation order is the same on every run): which = 0, the doubles of
   part_d (2m of the input, input_stats) into the 8-byte slot SLOT_M2 of the flags buffer;
   which = 1, the longs of part_l (2m of the converted weights, input_convert) into SLOT_M2Q. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void input_total(int groups, __global const double *part_d, __global const long *part_l,
                 int which, __global int *flags)
{
    const int lid = get_local_id(0);
    __local double rd[WG];
    __local long rl[WG];
    double d = 0.0;
    long l = 0;
    for (int g = lid; g < groups; g += WG) {
        if (which) l += part_l[g]; else d += part_d[g];
    }
    rd[lid] = d;
    rl[lid] = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            rd[lid] += rd[lid + s];
            rl[lid] += rl[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        if (which) *(__global long *)(flags + ${SLOT_M2Q}) = rl[0];
        else *(__global double *)(flags + ${SLOT_M2}) = rd[0];
    }
}

/* Input check on the device (before any move): the graph must be undirected, i.e. entry
   (i, j, w) has a twin (j, i, w) (converted weights compared). Rows are sorted (input_stats
   checked it), so each entry binary-searches its twin; any failure sets flags[bad_at] (the
   host raises InputError). */
__kernel void check_symmetric(offset_t nnz, __global const offset_t *vertices,
                              __global const index_t *edges, __global const weight_t *weights,
                              __global const index_t *src, __global int *flags, int bad_at)
{
    for (offset_t e = get_global_id(0); e < nnz; e += get_global_size(0)) {
        const index_t i = src[e], j = edges[e];
        offset_t lo = vertices[j], hi = vertices[j + 1];
        while (lo < hi) {
            offset_t mid = lo + (hi - lo) / 2;
            if (edges[mid] < i) lo = mid + 1; else hi = mid;
        }
        if (lo >= vertices[j + 1] || edges[lo] != i || weights[lo] != weights[e])
            flags[bad_at] = 1;
    }
}

/* Eq. (1) by a two-stage reduction on a fixed grid (the same summation order on every run):
   e_in = sum of the weights of the entries inside a community, sq = sum of squared a_c (in
   fixed point). Stage 1 writes one partial pair per work-group, stage 2 (one work-group) sums
   them into the flags buffer (8-byte slots SLOT_EIN, SLOT_SQ) for the host's next read. */
% if wtype == "float":
typedef double acc_t;
% else:
typedef long acc_t;
% endif
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void modularity_partial(offset_t nnz, index_t n, __global const index_t *C,
                        __global const index_t *src, __global const index_t *edges,
                        __global const weight_t *w, __global const int *ac,
                        __global acc_t *part_ein, __global long *part_sq)
{
    const int lid = get_local_id(0);
    __local acc_t le[WG];
    __local long lq[WG];
    acc_t e = 0;
    long sq = 0;
    for (offset_t i = get_global_id(0); i < nnz; i += get_global_size(0))
        if (C[src[i]] == C[edges[i]]) e += (acc_t)w[i];
    for (index_t c = get_global_id(0); c < n; c += get_global_size(0))
        sq += (long)ac[c] * (long)ac[c];
    le[lid] = e;
    lq[lid] = sq;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            le[lid] += le[lid + s];
            lq[lid] += lq[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        part_ein[get_group_id(0)] = le[0];
        part_sq[get_group_id(0)] = lq[0];
    }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void modularity_final(int groups, __global const acc_t *part_ein,
                      __global const long *part_sq, __global int *flags)
{
    const int lid = get_local_id(0);
    __local acc_t le[WG];
    __local long lq[WG];
    acc_t e = 0;
    long sq = 0;
    for (int g = lid; g < groups; g += WG) {
        e += part_ein[g];
        sq += part_sq[g];
    }
    le[lid] = e;
    lq[lid] = sq;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            le[lid] += le[lid + s];
            lq[lid] += lq[lid + s];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        *(__global acc_t *)(flags + ${SLOT_EIN}) = le[0];
        *(__global long *)(flags + ${SLOT_SQ}) = lq[0];
    }
}

/* Start of a modularity optimization phase: C[i] = i, a_C(i) = k_i, every community of size 1. */
__kernel void init_communities(index_t n, __global index_t *C, __global const int *kq,
                               __global int *ac, __global index_t *csize)
{
    FOR_EACH_VERTEX(i, n) {
        C[i] = i;
        ac[i] = kq[i];
        csize[i] = 1;
    }
}

/* Alg. 1 line 11 (compute a_c), from scratch: ac and csize are zero-filled before. */
__kernel void accumulate_communities(index_t n, __global const index_t *C,
                                     __global const int *kq, __global int *ac,
                                     __global index_t *csize)
{
    FOR_EACH_VERTEX(i, n) {
        index_t c = C[i];
        atomic_add(&ac[c], kq[i]);
        atomic_inc(&csize[c]);
    }
}

/* The sort key of degree d: its bin among the bucket bounds (the first b with d <= bounds[b];
   the last bound, KEY_MAX, takes every larger degree too) times 16, plus the degree's octave
   (floor(log2 d), at most 15), so that a bin's vertices come about in degree order. */
inline int degree_key(offset_t d, __global const int *bounds, int nbounds)
{
    int b = 0;
    while (b < nbounds - 1 && d > bounds[b]) ++b;
    const int octave = d > 0 ? 31 - (int)clz((uint)d) : 0;
    return (b << 4) | min(octave, 15);
}

/* Alg. 1 lines 4-5 (partition by degree): the sort key of each vertex (degree_key; the host
   sorts by it with pyopencl's radix sort, eight bits instead of the degree's sixteen). */
__kernel void degree_keys(index_t n, __global const offset_t *vertices, __global int *ids,
                          __global int *keys, __global const int *bounds, int nbounds)
{
    FOR_EACH_VERTEX(i, n) {
        ids[i] = i;
        keys[i] = degree_key(vertices[i + 1] - vertices[i], bounds, nbounds);
    }
}

/* Bucket boundaries in an array of sorted keys (degree_key): ends[b] = number of keys in
   bins <= b. */
__kernel void bucket_ends(index_t n, __global const int *sorted_keys, int nbounds,
                          __global int *ends)
{
    int b = get_global_id(0);
    if (b >= nbounds) return;
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if ((sorted_keys[mid] >> 4) <= b) lo = mid + 1; else hi = mid;
    }
    ends[b] = lo;
}

/* Alg. 1 lines 8-9 (C[i] = newComm[i] for the bucket) and line 11 (a_c), incrementally: a moved
   vertex takes k_i from its old community to its new one. */
__kernel void update_communities(__global const index_t *vset, int set_begin, int set_end,
                                 __global index_t *C, __global const index_t *newComm,
                                 __global const int *kq, __global int *ac,
                                 __global index_t *csize, uint nsub, uint sub,
                                 __global int *flags)
{
    int moved = 0;
    for (int idx = set_begin + get_global_id(0); idx < set_end; idx += get_global_size(0)) {
        index_t i = vset[idx];
        if (!in_subround(i, nsub, sub)) continue;
        index_t o = C[i], c = newComm[i];
        if (o != c) {
            C[i] = c;
            atomic_sub(&ac[o], kq[i]);
            atomic_add(&ac[c], kq[i]);
            atomic_dec(&csize[o]);
            atomic_inc(&csize[c]);
            ++moved;
        }
    }
    /* moves counted for the host's trace (wraps around; the host takes differences) */
    if (moved) atomic_add(&flags[${FLAG_MOVES}], moved);
}

/* ------------------------------------------------------- computeMove, one kernel per bucket */
<%def name="compute_move_vertex(T, sp, red_score, red_comm)">\
<%doc> computeMove (Algorithm 2) of vertex i by the ${T} work-items of its slot (lane = index
  among them), with hashComm/hashWeight its table in ${sp} memory: lines 2-13 (hashing), 14
  (argmax of Eq. 2, parallel reduction in the local arrays red_score/red_comm) and 15-18
  (newComm[i]). Used by the per-bucket kernels compute_move_b* and by the one-group level
  kernel; every work-item of the work-group must reach it (active = 0: no vertex). </%doc>\
        const offset_t start = active ? vertices[i] : 0;
        const offset_t end = active ? vertices[i + 1] : 0;
        const int size = table_size((int)(end - start));
        for (int s = lane; s < size; s += ${T}) {
            hashComm[s] = EMPTY;
            hashWeight[s] = (weight_t)0;
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        const index_t ci = active ? C[i] : 0;
        /* lines 2-13: the neighbours of i, interleaved over the ${T} work-items */
        /* Edges into i's own community are summed in a register and added once per
           work-item after the loop: late in a phase most edges of a vertex lead there, and
           one table slot taking them all would serialize the (CAS-loop) atomic adds. */
        weight_t own_part = (weight_t)0;
        for (offset_t e = start + lane; e < end; e += ${T}) {
            const index_t j = edges[e];
            const index_t cj = C[j];
            /* a self-loop counts in every community of i: it adds nothing */
            const weight_t wj = j != i ? weights[e] : (weight_t)0;
            if (cj == ci)
                own_part += wj;
            else
                hash_add${sp}(hashComm, hashWeight, size, cj, wj);
        }
        hash_add${sp}(hashComm, hashWeight, size, ci, own_part);
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        /* line 14, per work-item: the best community among its slots by Eq. (2) */
        const double ki = active ? (double)k[i] : 0.0;
        const double kiq = active ? (double)kq[i] * ac_unit : 0.0;
        double best = 0.0;
        int bestc = EMPTY;
        for (int s = lane; s < size; s += ${T}) {
            const int c = hashComm[s];
            const int cand = c != EMPTY && c != ci;
            const double score = cand ? m2 * (double)hashWeight[s]
                                        - resolution * ki * ((double)ac[c] * ac_unit)
                                      : 0.0;
            if (cand && better(score, c, best, bestc)) { best = score; bestc = c; }
        }
        ${red_score}[lid] = best;
        ${red_comm}[lid] = bestc;
        barrier(CLK_LOCAL_MEM_FENCE);
        /* line 14: parallel reduction over the ${T} work-items of the vertex */
% if isinstance(T, int):
%   for s in [1 << p for p in range(T.bit_length() - 2, -1, -1)]:
        {
            const int s = ${s};
            const int up = lane < s;
            const double os = up ? ${red_score}[lid + s] : 0.0;
            const int oc = up ? ${red_comm}[lid + s] : EMPTY;
            const int take = better(os, oc, ${red_score}[lid], ${red_comm}[lid]);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (take) {
                ${red_score}[lid] = os;
                ${red_comm}[lid] = oc;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
%   endfor
% else:
        for (int s = ${T} / 2; s > 0; s >>= 1) {
            const int up = lane < s;
            const double os = up ? ${red_score}[lid + s] : 0.0;
            const int oc = up ? ${red_comm}[lid + s] : EMPTY;
            const int take = better(os, oc, ${red_score}[lid], ${red_comm}[lid]);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (take) {
                ${red_score}[lid] = os;
                ${red_comm}[lid] = oc;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
% endif
        /* (every work-item looks up e_{i->C(i)}: no loop inside a divergent branch before a
           barrier, which PoCL's work-item loops mishandle) */
        const double e_own = (double)hash_get${sp}(hashComm, hashWeight, size, ci);
        if (active && lane == 0) {
            /* lines 15-18: move only for a positive gain of Eq. (2), i.e. if the best score
               beats staying: 2m e_{i->C(i)\{i}} - resolution k_i a_{C(i)\{i}} */
            index_t target = ci;
            int bc = ${red_comm}[lid];
            if (bc != EMPTY) {
                double own = m2 * e_own - resolution * ki * ((double)ac[ci] * ac_unit - kiq);
                if (${red_score}[lid] > own) {
                    /* singleton rule (Section 4, after Lu et al.): a vertex alone in its
                       community joins another singleton only if C[j] < C[i] (the host turns
                       it off with sub-rounds, where few neighbours move at once, and with
                       the up/down rule). Up/down rule (pyclmatch's default, as cuGraph's):
                       updown 1 = the best community is taken only if its id is lower than
                       C[i], 2 = only if higher (the host alternates them by iteration), so
                       two vertices never swap communities in one launch. */
                    if (!(singleton_rule && csize[ci] == 1 && csize[bc] == 1 && bc > ci)
                        && (updown != 1 || bc < ci) && (updown != 2 || bc > ci))
                        target = bc;
                }
            }
            newComm[i] = target;
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
</%def>

% for b, (lo, hi, T, L) in enumerate(move_buckets):
<% VPG = wg // T %>
<% where = ("local memory (%d slots per vertex)" % L) if L else \
       "global memory (g_cap slots per work-group, vertices interleaved over work-groups)" %>
<% top = hi if hi is not None else "inf" %>
/* computeMove (Algorithm 2) for bucket ${b + 1}: degrees [${lo}, ${top}], ${T} work-items per
   vertex (${VPG} vertices per work-group), hash table in ${where}. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void compute_move_b${b}(__global const index_t *vset, int set_begin, int set_end,
                        __global const offset_t *vertices, __global const index_t *edges,
                        __global const weight_t *weights, __global const index_t *C,
                        __global const weight_t *k, __global const int *kq,
                        __global const int *ac, double ac_unit,
                        __global const index_t *csize, __global index_t *newComm,
                        double m2, double resolution,
                        __global int *g_keys, __global weight_t *g_vals, int g_cap,
                        uint nsub, uint sub, int singleton_rule, int updown)
{
    const int lid = get_local_id(0);
    const int lane = lid % ${T}, slot = lid / ${T};
% if L:
    __local int l_keys${b}[${VPG * L}];
    __local weight_t l_vals${b}[${VPG * L}];
    volatile __local int *hashComm = l_keys${b} + slot * ${L};
    volatile __local weight_t *hashWeight = l_vals${b} + slot * ${L};
<% sp = "__local" %>
% else:
    volatile __global int *hashComm = g_keys + (size_t)get_group_id(0) * (size_t)g_cap;
    volatile __global weight_t *hashWeight = g_vals + (size_t)get_group_id(0) * (size_t)g_cap;
<% sp = "__global" %>
% endif
    __local double red_score${b}[WG];
    __local int red_comm${b}[WG];
    for (int base = set_begin + (int)get_group_id(0) * ${VPG}; base < set_end;
         base += (int)get_num_groups(0) * ${VPG}) {
        const int idx = base + slot;
        const index_t vi = idx < set_end ? vset[idx] : 0;
        const int active = idx < set_end && in_subround(vi, nsub, sub);
        const index_t i = active ? vi : 0;
${compute_move_vertex(T, sp, "red_score%d" % b, "red_comm%d" % b)}    }
}
% endfor

/* ------------------------------------------------- small graphs: a whole level in one work-group
   The modularity optimization phase of one level (Algorithm 1: every iteration, every degree
   bucket and sub-round, until the stop rule holds) in ONE launch of one work-group, looping with
   barriers instead of a launch per bucket and a read-back per iteration: on a graph that fits
   the launches (about 30 per iteration) and round trips cost more than the work. Same moves,
   same order of buckets and sub-rounds, same stop rule and the same arithmetic as the
   per-bucket path (DeviceLouvain.iterate's host loop), so deterministic runs give the same answer
   on either path. The degree partition (Alg. 1 lines 4-5) is a counting sort in local memory
   by (bucket, bit-reversed low 5 bits of subround_hash): every sub-round of a power-of-two
   count up to 32 is then one contiguous range of vset; other counts filter the whole bucket. */
<% NB = len(move_buckets) %>
% if wg == 1:
/* one work-item (the one-group kernels on CPU devices): a barrier orders nothing, and
   without barriers the kernel compiler forms no work-item loops (PoCL specializes each kernel
   for its local size at the first launch; its loops over barrier regions cost tens of
   seconds on these two kernels) */
#define barrier(flags) ((void)0)
% endif
<% LOCAL_NEED = max([(wg // T) * L for (lo, hi, T, L) in move_buckets if L] or [1]) %>
#define NB ${NB}
#define NCLS (NB * 32)
#define SMALL_HEAD ${SMALL_HEAD}
#define SMALL_TRACE ${SMALL_TRACE}

/* the degree bucket of a vertex of degree d (the bucket_ends bounds; -1: no edges, no move) */
inline int move_bucket(offset_t d)
{
    if (d < 1) return -1;
% for b, (lo, hi, T, L) in enumerate(move_buckets[:-1]):
    if (d <= ${hi}) return ${b};
% endfor
    return ${NB - 1};
}

__constant int bucket_threads[NB] = {${", ".join(str(T) for (lo, hi, T, L) in move_buckets)}};
__constant int bucket_local[NB] = {${", ".join(str(L) for (lo, hi, T, L) in move_buckets)}};

inline uint bitrev(uint x, int bits)
{
    uint r = 0;
    for (int b = 0; b < bits; ++b) { r = (r << 1) | (x & 1u); x >>= 1; }
    return r;
}

<%def name="group_modularity(q)">\
<%doc> Eq. (1) of the partition C by the work-group alone (the sums of modularity_partial and
  modularity_final, then the host formula of DeviceLouvain._host_modularity, in the same
  order): every work-item gets q. </%doc>\
        {
            acc_t e = 0;
            long sq = 0;
            for (offset_t x = lid; x < nnz; x += WG)
                if (C[src[x]] == C[edges[x]]) e += (acc_t)weights[x];
            for (index_t c = lid; c < n; c += WG)
                sq += (long)ac[c] * (long)ac[c];
            red_e[lid] = e;
            red_q[lid] = sq;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int s = WG / 2; s > 0; s >>= 1) {
                if (lid < s) {
                    red_e[lid] += red_e[lid + s];
                    red_q[lid] += red_q[lid + s];
                }
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            const double sqd = (double)red_q[0] * ac_unit * ac_unit;
            ${q} = (double)red_e[0] / m2 - resolution * sqd / (m2 * m2);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
</%def>

/* One level's modularity optimization in one work-group. Starts every vertex alone (the
   init_communities of the level), stops by the host's rule: relative = 1: two iterations in a
   row each gaining at most max(thr x the first gain, floor_q x |Q|) (paper_moves: a gain <= 0
   at once); relative = 0: a gain <= thr. An iteration losing modularity is undone (C_prev,
   a_c recounted) and the sub-rounds doubled, up to max_subrounds. q_in: the partition's
   modularity when the host knows it (have_q), else computed here. out (doubles): [0] final
   Q, [1] starting Q, [2] iterations, [3] sub-round doublings, [4] 1 if it_bound iterations ran
   out, [5] the final sub-round count, [6] trace length, [7] flags[FLAG_ASYM] (the level is
   skipped when set: the input is not symmetric), then SMALL_TRACE modularities (the start
   and after every iteration) and SMALL_TRACE counts of vertices moved per iteration. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void optimize_level_one_group(index_t n, offset_t nnz, __global const offset_t *vertices,
                              __global const index_t *edges, __global const weight_t *weights,
                              __global const index_t *src, __global const weight_t *k,
                              __global const int *kq, double ac_unit, double m2,
                              double resolution, __global index_t *C, __global index_t *C_prev,
                              __global index_t *newComm, __global int *ac,
                              __global index_t *csize, __global index_t *vset,
                              __global int *g_keys, __global weight_t *g_vals, int g_cap,
                              uint nsub, uint max_subrounds, int paper_moves, int relative,
                              double thr, double floor_q, double q_in, int have_q, int it_bound,
                              int given_start, __global const int *flags,
                              __global double *out)
{
    const int lid = get_local_id(0);
    __local int l_keys[${LOCAL_NEED}];
    __local weight_t l_vals[${LOCAL_NEED}];
    __local double red_score[WG];
    __local int red_comm[WG];
    __local acc_t red_e[WG];
    __local long red_q[WG];
    __local int cls_start[NCLS + 1];
    __local int cls_cur[NCLS];
    __local int moved_l;
    if (flags[${FLAG_ASYM}]) {
        if (lid == 0) out[7] = 1.0;
        return;
    }
    /* init_communities, and the counting sort of the vertices by (bucket, sub-round class) */
    for (int x = lid; x < NCLS; x += WG) cls_cur[x] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (index_t i = lid; i < n; i += WG) {
        /* (given_start: C holds the starting partition; its a_c and sizes are summed below) */
        if (!given_start) C[i] = i;
        ac[i] = given_start ? 0 : kq[i];
        csize[i] = given_start ? 0 : 1;
        const int b = move_bucket(vertices[i + 1] - vertices[i]);
        if (b >= 0) atomic_inc(&cls_cur[b * 32 + (int)bitrev(subround_hash(i) & 31u, 5)]);
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (given_start) {       /* accumulate_communities of the starting partition */
        for (index_t i = lid; i < n; i += WG) {
            atomic_add(&ac[C[i]], kq[i]);
            atomic_inc(&csize[C[i]]);
        }
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (lid == 0) {
        int acc = 0;
        for (int x = 0; x < NCLS; ++x) {
            cls_start[x] = acc;
            acc += cls_cur[x];
            cls_cur[x] = cls_start[x];
        }
        cls_start[NCLS] = acc;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (index_t i = lid; i < n; i += WG) {
        const int b = move_bucket(vertices[i + 1] - vertices[i]);
        if (b >= 0)
            vset[atomic_inc(&cls_cur[b * 32 + (int)bitrev(subround_hash(i) & 31u, 5)])] = i;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

    double q_old = q_in;
    for (int pass = have_q; pass < 1; ++pass) {     /* (a loop: no barrier inside a branch) */
${group_modularity("q_old")}
    }
    if (lid == 0) out[SMALL_HEAD] = q_old;
    const double q_start = q_old;
    int iters = 0, low = 0, doublings = 0, status = 0, ntrace = 1, have_first = 0;
    double first_gain = 0.0;
    for (;;) {
        if (iters >= it_bound) { status = 1; break; }
        ++iters;
        const int updown = paper_moves ? 0 : 2 - iters % 2;     /* down, up, down, ... */
        const int singleton_rule = nsub == 1u && paper_moves;
        /* sub-round classes: power-of-two counts up to 32 take a contiguous range */
        int kb = -1;
        if (nsub <= 32u && (nsub & (nsub - 1u)) == 0u) kb = 31 - clz(nsub);
        for (index_t i = lid; i < n; i += WG) C_prev[i] = C[i];
        if (lid == 0) moved_l = 0;
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        for (int b = 0; b < NB; ++b) {
            /* bucket b + 1 (bucket_hi), T work-items per vertex, table of L slots per vertex in
               local memory (L = 0: in global memory, g_cap slots) */
            const int T = bucket_threads[b], L = bucket_local[b], VPG = WG / T;
            const int lane = lid % T, slot = lid / T;
            for (uint sub = 0; sub < nsub; ++sub) {
                int c0 = b * 32, c1 = b * 32 + 32;
                if (kb >= 0) {
                    c0 += (int)bitrev(sub, kb) << (5 - kb);
                    c1 = c0 + (1 << (5 - kb));
                }
                const int p0 = cls_start[c0], p1 = cls_start[c1];
                /* (two loops, one of them empty, rather than a barrier inside a branch: PoCL
                   duplicates the code after such a branch) */
                {
                    volatile __local int *hashComm = l_keys + slot * L;
                    volatile __local weight_t *hashWeight = l_vals + slot * L;
                    for (int base = p0; base < (L ? p1 : p0); base += VPG) {
                        const int idx = base + slot;
                        const index_t vi = idx < p1 ? vset[idx] : 0;
                        const int active = idx < p1 && in_subround(vi, nsub, sub);
                        const index_t i = active ? vi : 0;
${compute_move_vertex("T", "__local", "red_score", "red_comm")}
                    }
                }
                {
                    volatile __global int *hashComm = g_keys;
                    volatile __global weight_t *hashWeight = g_vals;
                    for (int base = p0; base < (L ? p0 : p1); base += VPG) {
                        const int idx = base + slot;
                        const index_t vi = idx < p1 ? vset[idx] : 0;
                        const int active = idx < p1 && in_subround(vi, nsub, sub);
                        const index_t i = active ? vi : 0;
${compute_move_vertex("T", "__global", "red_score", "red_comm")}
                    }
                }
                /* Alg. 1 lines 8-11 (update_communities) */
                int moved = 0;
                for (int idx = p0 + lid; idx < p1; idx += WG) {
                    const index_t i = vset[idx];
                    if (!in_subround(i, nsub, sub)) continue;
                    const index_t o = C[i], c = newComm[i];
                    if (o != c) {
                        C[i] = c;
                        atomic_sub(&ac[o], kq[i]);
                        atomic_add(&ac[c], kq[i]);
                        atomic_dec(&csize[o]);
                        atomic_inc(&csize[c]);
                        ++moved;
                    }
                }
                atomic_add(&moved_l, moved);
                barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
            }
        }
        double q_new;
${group_modularity("q_new")}
        if (lid == 0 && ntrace < SMALL_TRACE) {
            out[SMALL_HEAD + ntrace] = q_new;
            out[SMALL_HEAD + SMALL_TRACE + ntrace - 1] = (double)moved_l;
        }
        ++ntrace;
        /* the parallel moves lost modularity: the previous partition back, a_c recounted
           (accumulate_communities), twice the sub-rounds (empty loops otherwise: no barrier
           inside a branch) */
        const int lost = q_new < q_old;
        const index_t n_lost = lost ? n : 0;
        for (index_t i = lid; i < n_lost; i += WG) {
            C[i] = C_prev[i];
            ac[i] = 0;
            csize[i] = 0;
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        for (index_t i = lid; i < n_lost; i += WG) {
            atomic_add(&ac[C[i]], kq[i]);
            atomic_inc(&csize[C[i]]);
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (lost) {
            if (nsub >= max_subrounds) break;
            nsub = min(2u * nsub, max_subrounds);
            ++doublings;
            continue;
        }
        const double gain = q_new - q_old;
        q_old = q_new;
        if (!relative) {
            if (gain <= thr) break;
            continue;
        }
        if (!have_first) { first_gain = gain; have_first = 1; }
        if (gain <= 0.0 && paper_moves) break;
        low = gain <= fmax(thr * first_gain, floor_q * fabs(q_new)) ? low + 1 : 0;
        if (low >= 2) break;
    }
    if (lid == 0) {
        out[0] = q_old;
        out[1] = q_start;
        out[2] = (double)iters;
        out[3] = (double)doublings;
        out[4] = (double)status;
        out[5] = (double)nsub;
        out[6] = (double)min(ntrace, SMALL_TRACE);
        out[7] = 0.0;
    }
}

/* ---------------------------------------------------------------- aggregation (Algorithm 3) */

<%def name="inclusive_scan(arr, pos, width)">\
<%doc> Inclusive prefix sum (Hillis-Steele) of the local ints arr[lid] over groups of
  ``width`` consecutive work-items (pos = the work-item's index within its group); every
  work-item of the work-group must reach it. </%doc>\
% for s in [1 << p for p in range(0, width.bit_length() - 1)]:
        {
            int add = ${pos} >= ${s} ? ${arr}[lid - ${s}] : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            ${arr}[lid] += add;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
% endfor
</%def>

/* Algorithm 3 for a small level in ONE work-group (after optimize_level_one_group, whose out[]
   it reads: the level's gain decides whether the method goes on, as DeviceLouvain.aggregate
   does). Lines 2-6 (comSize, comDegree by atomics), 7-16 (the prefix sums newID, edgePos,
   vertexStart, here one work-group scan), the membership mapped (map_membership), then
   mergeCommunity for all communities at once: every community's hash table gets its own
   region of the scratch tables (2 x edgePos[c] + 16 c: a table of table_size(d) <= 2d + 16
   slots), so the edges are hashed in one parallel pass (Alg. 2 lines 3-13 keyed by the
   neighbour's community), the non-empty slots counted per new vertex, prefix-summed into the
   new CSR offsets, and written there directly (no compaction pass). Writes at out[at..]:
   n_new, nnz_new, the new graph's largest degree, 1 if the method stops here (the level's
   gain at most lthr, stop_now, nothing merged, or the optimization did not run). */
inline int owner_of_slot(__global const offset_t *tpos, index_t n, offset_t x)
{
    /* the last community c with tpos[c] <= x (tables are laid out in community order) */
    index_t lo = 0, hi = n - 1;
    while (lo < hi) {
        index_t mid = lo + (hi - lo + 1) / 2;
        if (tpos[mid] <= x) lo = mid; else hi = mid - 1;
    }
    return lo;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void aggregate_level_one_group(index_t n, offset_t nnz, __global const offset_t *vertices,
                               __global const index_t *edges, __global const weight_t *weights,
                               __global const index_t *C, __global const int *ac,
                               double ac_unit, index_t n0, __global index_t *memb,
                               __global index_t *comSize, __global offset_t *comDegree,
                               __global index_t *newID, __global offset_t *tpos,
                               __global offset_t *cursor, __global int *g_keys,
                               __global weight_t *g_vals,
                               __global offset_t *new_vertices, __global index_t *new_edges,
                               __global weight_t *new_weights, __global index_t *new_src,
                               __global weight_t *k_new, __global int *kq_new,
                               double lthr_abs, double lthr_rel, int stop_now,
                               __global double *out, int at)
{
    const int lid = get_local_id(0);
    __local int s0[WG], s1[WG];
    __local int carry[3];
    __local int maxdeg_l;
    const int skip = out[7] != 0.0;             /* the optimization did not run */
    const index_t nn = skip ? 0 : n;
    /* lines 2-6 */
    for (index_t c = lid; c < nn; c += WG) { comSize[c] = 0; comDegree[c] = 0; }
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (index_t i = lid; i < nn; i += WG) {
        atomic_inc(&comSize[C[i]]);
        atomic_add(&comDegree[C[i]], (offset_t)(vertices[i + 1] - vertices[i]));
    }
    if (lid == 0) { carry[0] = 0; carry[1] = 0; carry[2] = 0; maxdeg_l = 0; }
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    /* lines 7-16: newID = exclusive scan of (comSize > 0), tpos = exclusive scan of
       2 comDegree + 16 (the table regions; edgePos is (tpos - 16 c) / 2) */
    for (index_t base = 0; base < nn; base += WG) {
        const index_t c = base + lid;
        const int a = c < nn && comSize[c] > 0;
        const int t = c < nn ? 2 * (int)comDegree[c] + 16 : 0;
        s0[lid] = a;
        s1[lid] = t;
        barrier(CLK_LOCAL_MEM_FENCE);
${inclusive_scan("s0", "lid", wg)}
${inclusive_scan("s1", "lid", wg)}
        if (c < nn) {
            newID[c] = carry[0] + s0[lid] - a;
            tpos[c] = carry[1] + s1[lid] - t;
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        if (lid == 0) { carry[0] += s0[WG - 1]; carry[1] += s1[WG - 1]; }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const index_t n_new = carry[0];
    const offset_t tspace = carry[1];
    /* map_membership (memb: the input's membership, or the host's short map of the first
       small level's vertices when the input is much larger than this level) */
    for (index_t v = lid; v < (skip ? 0 : n0); v += WG)
        memb[v] = newID[C[memb[v]]];
    /* does the method go on? (as DeviceLouvain.aggregate: the level's gain against lthr) */
    const double gain = out[0] - out[1];
    const double lthr = lthr_rel > 0.0 ? lthr_rel * fabs(out[0]) : lthr_abs;
    const int stop = skip || stop_now || gain <= lthr || n_new == n;
    const offset_t ts = stop ? 0 : tspace;
    const index_t ns = stop ? 0 : n;
    /* mergeCommunity, all communities at once: clear the tables, hash every edge */
    for (offset_t x = lid; x < ts; x += WG) { g_keys[x] = EMPTY; g_vals[x] = (weight_t)0; }
    for (index_t c = lid; c < ns; c += WG) cursor[c] = 0;
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (index_t i = lid; i < ns; i += WG) {
        /* new vertex of each non-empty community: k (= a_c) */
        if (comSize[i] > 0) {
            k_new[newID[i]] = (weight_t)((double)ac[i] * ac_unit);
            kq_new[newID[i]] = ac[i];
        }
    }
    for (offset_t e = lid; e < (stop ? 0 : nnz); e += WG) {
        /* the row of entry e: the last vertex i with vertices[i] <= e (rows with entries) */
        index_t lo = 0, hi = n - 1;
        while (lo < hi) {
            index_t mid = lo + (hi - lo + 1) / 2;
            if (vertices[mid] <= e) lo = mid; else hi = mid - 1;
        }
        const index_t c = C[lo];
        const offset_t cd = comDegree[c];
        const int size = table_size((int)(cd < (offset_t)n ? cd : (offset_t)n));
        hash_add__global(g_keys + tpos[c], g_vals + tpos[c], size, C[edges[e]], weights[e]);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    /* the degree of every new vertex: its table's non-empty slots (no zero self-loops) */
    for (offset_t x = lid; x < ts; x += WG)
        if (g_keys[x] != EMPTY && g_vals[x] != (weight_t)0)
            atomic_inc(&cursor[newID[owner_of_slot(tpos, n, x)]]);
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    /* the new CSR offsets: exclusive scan of the degrees; cursor[u] becomes the next write
       position of new vertex u */
    for (index_t base = 0; base < (stop ? 0 : n_new); base += WG) {
        const index_t u = base + lid;
        const int d = u < n_new ? (int)cursor[u] : 0;
        s0[lid] = d;
        atomic_max(&maxdeg_l, d);       /* (unconditional: PoCL, see common.cl.mako) */
        barrier(CLK_LOCAL_MEM_FENCE);
${inclusive_scan("s0", "lid", wg)}
        if (u < n_new) {
            new_vertices[u] = (offset_t)(carry[2] + s0[lid] - d);
            cursor[u] = (offset_t)(carry[2] + s0[lid] - d);
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        if (lid == 0) carry[2] += s0[WG - 1];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const offset_t nnz_new = carry[2];
    if (lid == 0 && !stop) new_vertices[n_new] = nnz_new;
    /* the edges, renamed newID[nc] (Alg. 3 mergeCommunity's emission) */
    for (offset_t x = lid; x < ts; x += WG) {
        const int nc = g_keys[x];
        const weight_t wv = g_vals[x];
        if (nc != EMPTY && wv != (weight_t)0) {
            const index_t u = newID[owner_of_slot(tpos, n, x)];
            const offset_t p = atomic_inc(&cursor[u]);
            new_edges[p] = newID[nc];
            new_weights[p] = wv;
            new_src[p] = u;
        }
    }
    if (lid == 0) {
        out[at] = (double)n_new;
        out[at + 1] = (double)nnz_new;
        out[at + 2] = (double)maxdeg_l;
        out[at + 3] = (double)stop;
    }
}

% if wg == 1:
#undef barrier
% endif
/* Alg. 3 lines 2-6: comSize and comDegree by atomics (both zero-filled before). */
__kernel void community_sizes(index_t n, __global const index_t *C,
                              __global const offset_t *vertices, __global index_t *comSize,
                              __global offset_t *comDegree)
{
    FOR_EACH_VERTEX(i, n) {
        index_t c = C[i];
        atomic_inc(&comSize[c]);
        atomic_add(&comDegree[c], (offset_t)(vertices[i + 1] - vertices[i]));
    }
}

/* Alg. 3 lines 17-19: com[atomicAdd(vertexStart[c[i]], 1)] = i (vpos starts as vertexStart). */
__kernel void order_vertices(index_t n, __global const index_t *C, __global index_t *vpos,
                             __global index_t *com)
{
    FOR_EACH_VERTEX(i, n) {
        index_t p = atomic_inc(&vpos[C[i]]);
        com[p] = i;
    }
}

/* The new vertex of every non-empty community: its old id, its k (= a_c) and the sort key of
   the aggregation buckets (comDegree, clamped; empty communities get key 0 = no work). */
__kernel void new_vertices(index_t n, __global const index_t *comSize,
                           __global const offset_t *comDegree, __global const index_t *newID,
                           __global const int *ac, double ac_unit,
                           __global index_t *old_of_new, __global weight_t *k_new,
                           __global int *kq_new, __global int *ids, __global int *keys,
                           __global const int *bounds, int nbounds)
{
    FOR_EACH_VERTEX(c, n) {
        ids[c] = c;
        keys[c] = degree_key(comSize[c] > 0 ? comDegree[c] : 0, bounds, nbounds);
        if (comSize[c] > 0) {
            old_of_new[newID[c]] = c;
            k_new[newID[c]] = (weight_t)((double)ac[c] * ac_unit);
            kq_new[newID[c]] = ac[c];
        }
    }
}

% for b, (lo, hi, T, L) in enumerate(merge_buckets):
<% VPG = wg // T %>
<% where = ("local memory (%d slots)" % L) if L else "global memory" %>
<% top = hi if hi is not None else "inf" %>
/* mergeCommunity (Section 4, Alg. 3 line 23) for bucket ${b + 1}: comDegree in [${lo}, ${top}],
   ${T} work-items per community, hash table in ${where}.
   Members are processed one after another, all ${T} work-items on the edges of each; the edges
   claimed in the table are then written to the new edge list at edgePos[c] by a prefix sum of
   the per-work-item counts, with neighbour community nc renamed newID[nc]. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void merge_community_b${b}(__global const index_t *cset, int set_begin, int set_end,
                           __global const index_t *vertexStart, __global const index_t *comSize,
                           __global const offset_t *comDegree, __global const index_t *com,
                           __global const offset_t *vertices, __global const index_t *edges,
                           __global const weight_t *weights, __global const index_t *C,
                           __global const index_t *newID, __global const offset_t *edgePos,
                           __global index_t *tmp_edges, __global weight_t *tmp_weights,
                           __global offset_t *newDeg, index_t n_cur,
                           __global int *g_keys, __global weight_t *g_vals, int g_cap)
{
    const int lid = get_local_id(0);
    const int lane = lid % ${T}, slot = lid / ${T};
% if L:
    __local int l_keys${b}[${VPG * L}];
    __local weight_t l_vals${b}[${VPG * L}];
    volatile __local int *hashComm = l_keys${b} + slot * ${L};
    volatile __local weight_t *hashWeight = l_vals${b} + slot * ${L};
<% sp = "__local" %>
% else:
    volatile __global int *hashComm = g_keys + (size_t)get_group_id(0) * (size_t)g_cap;
    volatile __global weight_t *hashWeight = g_vals + (size_t)get_group_id(0) * (size_t)g_cap;
<% sp = "__global" %>
% endif
    __local int scan${b}[WG];
    for (int base = set_begin + (int)get_group_id(0) * ${VPG}; base < set_end;
         base += (int)get_num_groups(0) * ${VPG}) {
        const int idx = base + slot;
        const int active = idx < set_end;
        const index_t c = active ? cset[idx] : 0;
        const offset_t cd = active ? comDegree[c] : 0;
        const int size = table_size((int)(cd < (offset_t)n_cur ? cd : (offset_t)n_cur));
        for (int s = lane; s < size; s += ${T}) {
            hashComm[s] = EMPTY;
            hashWeight[s] = (weight_t)0;
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        const index_t first = active ? vertexStart[c] : 0;
        const index_t last = active ? first + comSize[c] : 0;
        /* edges inside c (most of them) are summed in a register and added once per
           work-item: the self-loop slot would otherwise take every one of them */
        weight_t own_part = (weight_t)0;
        for (index_t p = first; p < last; ++p) {
            const index_t v = com[p];
            const offset_t vend = vertices[v + 1];
            for (offset_t e = vertices[v] + lane; e < vend; e += ${T}) {
                const index_t ce = C[edges[e]];
                if (ce == c)
                    own_part += weights[e];
                else
                    hash_add${sp}(hashComm, hashWeight, size, ce, weights[e]);
            }
        }
        hash_add${sp}(hashComm, hashWeight, size, c, own_part);
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        int cnt = 0;
        for (int s = lane; s < size; s += ${T})
            cnt += hashComm[s] != EMPTY && hashWeight[s] != (weight_t)0;   /* no zero self-loops */
        scan${b}[lid] = cnt;
        barrier(CLK_LOCAL_MEM_FENCE);
        /* inclusive prefix sum over the ${T} work-items of the community (Hillis-Steele) */
${inclusive_scan("scan%d" % b, "lane", T)}
        if (active) {
            offset_t out = edgePos[c] + (offset_t)(scan${b}[lid] - cnt);
            for (int s = lane; s < size; s += ${T}) {
                int nc = hashComm[s];
                if (nc != EMPTY && hashWeight[s] != (weight_t)0) {
                    tmp_edges[out] = newID[nc];
                    tmp_weights[out] = hashWeight[s];
                    ++out;
                }
            }
            if (lane == ${T - 1})
                newDeg[newID[c]] = (offset_t)scan${b}[lid];
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    }
}
% endfor

/* mergeCommunity for giant communities (comDegree above the last GLOBAL_SPLITS bound): a
   pyclmatch extension of Alg. 3 line 23. One work-group per community (above) leaves the
   device idle while it sums a community of millions of edges (R-MAT graphs collapse into a
   few of them: kron-21's second level merges 6e7 edges into ~100 communities), so here every
   work-group of the launch works on every community of the batch cset[set_begin, set_end)
   (at most GIANT_BATCH), each with its own global table region r = index - set_begin.
   The edges of community c are numbered flat, 0..comDegree[c]-1, in member order: member p
   (com[p], p in [vertexStart[c], vertexStart[c] + comSize[c])) owns flat positions
   memberEdge[p] - edgePos[c] .. memberEdge[p + 1] - edgePos[c] - 1 (memberEdge = exclusive
   scan of the degrees of com[], so memberEdge[vertexStart[c]] = edgePos[c]). The batch is cut
   into chunks of WG x GIANT_RUN flat edges; a work-group takes chunks g, g + groups, ...; a
   work-item finds the member of its first flat edge by binary search and walks on. Edges
   inside c are summed in registers and added once per chunk after a local reduction. */
#define GIANT_BATCH ${giant_batch}
#define GIANT_RUN 8

inline int giant_chunks(__global const index_t *cset, int set_begin, int count,
                        __global const offset_t *comDegree, index_t n_cur, int table,
                        __local int *chunk_end)
{
    /* chunk_end[r] = chunks of communities 0..r of the batch (flat edges, or table slots) */
    if (get_local_id(0) == 0) {
        int acc = 0;
        for (int r = 0; r < count; ++r) {
            offset_t cd = comDegree[cset[set_begin + r]];
            long work = table ? (long)table_size((int)(cd < (offset_t)n_cur ? cd : (offset_t)n_cur))
                              : (long)cd;
            acc += (int)((work + WG * GIANT_RUN - 1) / (WG * GIANT_RUN));
            chunk_end[r] = acc;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return chunk_end[count - 1];
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void merge_giant_add(__global const index_t *cset, int set_begin, int set_end,
                     __global const index_t *vertexStart, __global const index_t *comSize,
                     __global const offset_t *comDegree, __global const index_t *com,
                     __global const offset_t *memberEdge, __global const offset_t *edgePos,
                     __global const offset_t *vertices, __global const index_t *edges,
                     __global const weight_t *weights, __global const index_t *C,
                     index_t n_cur, __global int *g_keys, __global weight_t *g_vals, int g_cap)
{
    __local int chunk_end[GIANT_BATCH];
    __local weight_t own[WG];
    const int lid = get_local_id(0);
    const int total = giant_chunks(cset, set_begin, set_end - set_begin, comDegree, n_cur, 0,
                                   chunk_end);
    int r = 0;
    for (int k = (int)get_group_id(0); k < total; k += (int)get_num_groups(0)) {
        while (chunk_end[r] <= k) ++r;                  /* uniform over the work-group */
        const index_t c = cset[set_begin + r];
        const offset_t cd = comDegree[c];
        const int size = table_size((int)(cd < (offset_t)n_cur ? cd : (offset_t)n_cur));
        volatile __global int *hashComm = g_keys + (size_t)r * (size_t)g_cap;
        volatile __global weight_t *hashWeight = g_vals + (size_t)r * (size_t)g_cap;
        const offset_t j0 = (offset_t)(k - (r ? chunk_end[r - 1] : 0)) * (WG * GIANT_RUN)
                            + (offset_t)lid * GIANT_RUN;
        const offset_t j1 = j0 + GIANT_RUN < cd ? j0 + GIANT_RUN : cd;
        weight_t own_part = (weight_t)0;
        if (j0 < j1) {
            offset_t J = edgePos[c] + j0;
            /* the member owning flat edge J: the last p with memberEdge[p] <= J */
            index_t lo = vertexStart[c], hi = lo + comSize[c] - 1;
            while (lo < hi) {
                index_t mid = lo + (hi - lo + 1) / 2;
                if (memberEdge[mid] <= J) lo = mid; else hi = mid - 1;
            }
            index_t p = lo;
            offset_t pend = memberEdge[p + 1];
            offset_t shift = vertices[com[p]] - memberEdge[p];   /* e = J + shift */
            for (offset_t j = j0; j < j1; ++j, ++J) {
                if (J >= pend) {                         /* next member with edges */
                    do { ++p; pend = memberEdge[p + 1]; } while (J >= pend);
                    shift = vertices[com[p]] - memberEdge[p];
                }
                const offset_t e = J + shift;
                const index_t ce = C[edges[e]];
                if (ce == c)
                    own_part += weights[e];
                else
                    hash_add__global(hashComm, hashWeight, size, ce, weights[e]);
            }
        }
        own[lid] = own_part;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = WG / 2; s > 0; s >>= 1) {
            if (lid < s)
                own[lid] += own[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            hash_add__global(hashComm, hashWeight, size, c, own[0]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Emission of the giant communities' tables: every work-group takes chunks of WG x GIANT_RUN
   slots (work-item lid reads slots lid, lid + WG, ...: coalesced), counts the non-empty ones,
   and reserves room for them at the end of the community's new edge list by one atomic add
   on newDeg[newID[c]] (zero before the merge; no other kernel writes a giant's entry). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void merge_giant_emit(__global const index_t *cset, int set_begin, int set_end,
                      __global const offset_t *comDegree, __global const index_t *newID,
                      __global const offset_t *edgePos, __global index_t *tmp_edges,
                      __global weight_t *tmp_weights, __global offset_t *newDeg,
                      index_t n_cur, __global const int *g_keys,
                      __global const weight_t *g_vals, int g_cap)
{
    __local int chunk_end[GIANT_BATCH];
    __local int scan[WG];
    __local int wbase;
    const int lid = get_local_id(0);
    const int total = giant_chunks(cset, set_begin, set_end - set_begin, comDegree, n_cur, 1,
                                   chunk_end);
    int r = 0;
    for (int k = (int)get_group_id(0); k < total; k += (int)get_num_groups(0)) {
        while (chunk_end[r] <= k) ++r;
        const index_t c = cset[set_begin + r];
        const offset_t cd = comDegree[c];
        const int size = table_size((int)(cd < (offset_t)n_cur ? cd : (offset_t)n_cur));
        __global const int *keys = g_keys + (size_t)r * (size_t)g_cap;
        __global const weight_t *vals = g_vals + (size_t)r * (size_t)g_cap;
        const int s0 = (k - (r ? chunk_end[r - 1] : 0)) * (WG * GIANT_RUN) + lid;
        int cnt = 0;
        for (int m = 0; m < GIANT_RUN; ++m) {
            const int s = s0 + m * WG;
            cnt += s < size && keys[s] != EMPTY && vals[s] != (weight_t)0;
        }
        scan[lid] = cnt;
        barrier(CLK_LOCAL_MEM_FENCE);
${inclusive_scan("scan", "lid", wg)}
        if (lid == WG - 1)
            wbase = scan[WG - 1] ? atomic_add(&newDeg[newID[c]], scan[WG - 1]) : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        offset_t out = edgePos[c] + (offset_t)(wbase + scan[lid] - cnt);
        for (int m = 0; m < GIANT_RUN && cnt; ++m) {
            const int s = s0 + m * WG;
            if (s < size) {
                const int nc = keys[s];
                const weight_t wv = vals[s];
                if (nc != EMPTY && wv != (weight_t)0) {
                    tmp_edges[out] = newID[nc];
                    tmp_weights[out] = wv;
                    ++out;
                    --cnt;
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Compaction of the edge lists (Section 4, after Algorithm 3): the edges of new vertex u move
   from edgePos[old_of_new[u]] to newVertices[u]; 32 work-items per vertex. */
__kernel void compact_edges(index_t n_new, __global const index_t *old_of_new,
                            __global const offset_t *edgePos, __global const offset_t *newVertices,
                            __global const index_t *tmp_edges, __global const weight_t *tmp_weights,
                            __global index_t *new_edges, __global weight_t *new_weights,
                            __global index_t *new_src)
{
    const int lane = get_global_id(0) % 32;
    for (index_t u = get_global_id(0) / 32; u < n_new; u += get_global_size(0) / 32) {
        offset_t from = edgePos[old_of_new[u]], to = newVertices[u];
        offset_t len = newVertices[u + 1] - to;
        for (offset_t e = lane; e < len; e += 32) {
            new_edges[to + e] = tmp_edges[from + e];
            new_weights[to + e] = tmp_weights[from + e];
            new_src[to + e] = u;
        }
    }
}

/* The community of each input vertex after this level: memb[v] = newID[C[memb[v]]]. */
__kernel void map_membership(index_t n0, __global index_t *memb, __global const index_t *C,
                             __global const index_t *newID)
{
    FOR_EACH_VERTEX(v, n0) {
        memb[v] = newID[C[memb[v]]];
    }
}
