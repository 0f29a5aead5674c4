<%doc>
  Verification of a Louvain answer on the device (pyclmatch/community/modularity.py): Eq. (1) of
  Paper III recomputed from the input graph as the user gave it (level-0 CSR, raw weights,
  self-loops not doubled) and the final membership, independently of the algorithm's kernels
  (louvain.cl.mako): nothing here reads the algorithm's converted weights, degrees, row
  indices or a_c.
    Q = e_in / 2m - resolution * sum_c a_c^2 / (2m)^2
  with networkx's conventions: a diagonal entry is a self-loop, counted twice in 2m, in its
  vertex's degree k_i and in e_in.
  Template values (besides those of common.cl.mako):
    wg         work-group size
    row_lanes  work-items per row (hubs of R-MAT graphs would serialize one work-item)
  Accumulator type acc ("long" or "double", one kernel per raw weight type and acc):
  "long" sums integer weights exactly (int64); "double" sums the others (and is exact for
  integer values while the sums stay below 2**53). a_c is accumulated in 64-bit fixed point by
  two 32-bit atomics (exact, order-independent, no extension needed): unit 1 with "long";
  with "double" k_i is rounded to the unit 2**-s, s = 60 - floor(log2 2m), so the total stays
  below 2**61 and each a_c is off by at most (its vertex count) x 2m x 2**-61, which bounds
  the error of sum_c (a_c / 2m)^2 by n x 2**-59 (2e-12 for n = 1e6).
  Output buffer `out` (int32 slots, 8-byte values at even slots): 0 e_in (acc), 2 2m (acc),
  4 sum of squared a_c in fixed-point units (double), 6 the unit's scale 2**s (double),
  8 problem bits (V_*), 9 largest label + 1.
</%doc>
<%!
from pyclmatch.community.dtypes import RAW_TYPES
%>
<%include file="common.cl.mako"/>
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF

#define WG ${wg}
#define RL ${row_lanes}
#define V_LABEL 1       /* a label < 0 or >= n */
#define V_EMPTY 2       /* a community id below the largest label has no vertex */
#define V_GRAPH 4       /* a column index out of range */
#define OUT_EIN 0
#define OUT_M2 2
#define OUT_SQ 4
#define OUT_SCALE 6
#define OUT_BAD 8
#define OUT_K 9

/* 64-bit atomic add by two 32-bit atomics (p[0] low word, p[1] high word): the carry out of
   every low-word add goes to the high word, so once the kernel ends the pair holds the exact
   sum modulo 2**64 (nothing reads it before). */
inline void atomic_add_u64(volatile __global uint *p, ulong v)
{
    uint lo = (uint)v, hi = (uint)(v >> 32);
    if (lo) {
        uint old = atomic_add(&p[0], lo);
        if (old + lo < old) hi += 1u;
    }
    if (hi) atomic_add(&p[1], hi);
}

% for acc in ("long", "double"):
/* sum over the RL work-items of a row (every work-item gets it; every work-item calls) */
inline ${acc} lanes_sum_${acc}(${acc} x, __local ${acc} *red, int lid, int lane)
{
%   if row_lanes > 1:
    red[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
%     for s in [1 << p for p in range(row_lanes.bit_length() - 2, -1, -1)]:
    if (lane < ${s}) red[lid] += red[lid + ${s}];
    barrier(CLK_LOCAL_MEM_FENCE);
%     endfor
    x = red[lid - lane];
    barrier(CLK_LOCAL_MEM_FENCE);
%   endif
    return x;
}

/* sum over the work-group (lid 0 gets it; every work-item calls) */
inline ${acc} group_sum_${acc}(${acc} x, __local ${acc} *red, int lid)
{
    red[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) red[lid] += red[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    x = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return x;
}
% endfor

inline int group_or_max(int x, int op_max, __local int *red, int lid)
{
    red[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s) red[lid] = op_max ? max(red[lid], red[lid + s]) : (red[lid] | red[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    x = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return x;
}

% for acc in ("long", "double"):
/* Pass 1, per row (RL work-items each): k_i (self-loop doubled) into kv, and per work-group
   the partial sums of e_in (entries whose ends share a label, self-loops doubled) and of 2m
   into part[g], part[groups + g]. */
%   for rt, is_float in [t for t in RAW_TYPES if not (acc == "long" and t[1])]:
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void verify_rows_${rt}_${acc}(index_t n, __global const offset_t *vertices,
                              __global const index_t *edges, __global const ${rt} *raw,
                              __global const index_t *memb, __global ${acc} *kv,
                              __global ${acc} *part, __global int *out)
{
    const int lid = get_local_id(0), lane = lid % RL;
    __local ${acc} red[WG];
    __local int red_i[WG];
    ${acc} ein = 0, tot = 0;
    int bad = 0;
    for (index_t base = (index_t)get_group_id(0) * (WG / RL); base < n;
         base += (index_t)get_num_groups(0) * (WG / RL)) {
        const index_t i = base + lid / RL;
        const int active = i < n;
        const offset_t start = active ? vertices[i] : 0;
        const offset_t end = active ? vertices[i + 1] : 0;
        const index_t ci = active ? memb[i] : 0;
        ${acc} k = 0;
        for (offset_t e = start + lane; e < end; e += RL) {
            const index_t j = edges[e];
            if (j < 0 || j >= n) { bad = V_GRAPH; continue; }
            ${acc} x = (${acc})raw[e];
            if (j == i) x += x;
            k += x;
            if (memb[j] == ci) ein += x;
        }
        tot += k;
        k = lanes_sum_${acc}(k, red, lid, lane);
        if (active && lane == 0) kv[i] = k;
    }
    ein = group_sum_${acc}(ein, red, lid);
    tot = group_sum_${acc}(tot, red, lid);
    bad = group_or_max(bad, 0, red_i, lid);
    if (lid == 0) {
        part[get_group_id(0)] = ein;
        part[get_num_groups(0) + get_group_id(0)] = tot;
        if (bad) atomic_or(&out[OUT_BAD], bad);
    }
}
%   endfor

/* Pass 2 (one work-group): e_in and 2m from the partials, and the fixed-point scale of a_c. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void verify_totals_${acc}(int groups, __global const ${acc} *part, __global int *out)
{
    const int lid = get_local_id(0);
    __local ${acc} red[WG];
    ${acc} ein = 0, tot = 0;
    for (int g = lid; g < groups; g += WG) {
        ein += part[g];
        tot += part[groups + g];
    }
    ein = group_sum_${acc}(ein, red, lid);
    tot = group_sum_${acc}(tot, red, lid);
    if (lid == 0) {
        *(__global ${acc} *)(out + OUT_EIN) = ein;
        *(__global ${acc} *)(out + OUT_M2) = tot;
%   if acc == "long":
        *(__global double *)(out + OUT_SCALE) = 1.0;
%   else:
        *(__global double *)(out + OUT_SCALE) = tot > 0.0 ? ldexp(1.0, 60 - ilogb(tot)) : 1.0;
%   endif
    }
}

/* Pass 3, per vertex: the label in 0..n-1 (else V_LABEL), the community's vertex count, a_c
   += k_i in fixed point (acw: low and high words per community), the largest label + 1. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void verify_labels_${acc}(index_t n, __global const index_t *memb,
                          __global const ${acc} *kv, __global int *out,
                          __global uint *acw, __global int *cnt)
{
    const int lid = get_local_id(0);
    __local int red_i[WG];
%   if acc == "double":
    const double scale = *(__global const double *)(out + OUT_SCALE);
%   endif
    int bad = 0, top = 0;
    FOR_EACH_VERTEX(i, n) {
        const index_t c = memb[i];
        if (c < 0 || c >= n) { bad = V_LABEL; continue; }
        top = max(top, c + 1);
        atomic_inc(&cnt[c]);
%   if acc == "long":
        atomic_add_u64(acw + 2 * (size_t)c, (ulong)kv[i]);
%   else:
        atomic_add_u64(acw + 2 * (size_t)c, (ulong)rint(kv[i] * scale));
%   endif
    }
    bad = group_or_max(bad, 0, red_i, lid);
    top = group_or_max(top, 1, red_i, lid);
    if (lid == 0) {
        if (bad) atomic_or(&out[OUT_BAD], bad);
        atomic_max(&out[OUT_K], top);
    }
}
% endfor

/* Pass 4, per community id: every id below the largest label + 1 used (else V_EMPTY), and per
   work-group the partial sum of squared a_c (fixed-point units, in double). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void verify_communities(index_t n, __global const uint *acw, __global const int *cnt,
                        __global int *out, __global double *part)
{
    const int lid = get_local_id(0);
    __local double red[WG];
    __local int red_i[WG];
    const index_t k = out[OUT_K];
    double sq = 0.0;
    int bad = 0;
    FOR_EACH_VERTEX(c, n) {
        if (c < k && cnt[c] == 0) bad = V_EMPTY;
        const double a = (double)((ulong)acw[2 * (size_t)c] |
                                  ((ulong)acw[2 * (size_t)c + 1] << 32));
        sq += a * a;
    }
    sq = group_sum_double(sq, red, lid);
    bad = group_or_max(bad, 0, red_i, lid);
    if (lid == 0) {
        part[get_group_id(0)] = sq;
        if (bad) atomic_or(&out[OUT_BAD], bad);
    }
}

/* Pass 5 (one work-group): the sum of squared a_c from the partials. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void verify_sq(int groups, __global const double *part, __global int *out)
{
    const int lid = get_local_id(0);
    __local double red[WG];
    double sq = 0.0;
    for (int g = lid; g < groups; g += WG)
        sq += part[g];
    sq = group_sum_double(sq, red, lid);
    if (lid == 0)
        *(__global double *)(out + OUT_SQ) = sq;
}
