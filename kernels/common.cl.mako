<%doc>
  Shared pieces of every pyclmatch kernel (OpenCL C 1.2, no vendor extensions).
  Template values used here:
    index_t   vertex-id type ("int")
    offset_t  edge-offset type ("int", or "long" above 2**31-1 edges: then the 64-bit atomics
              of cl_khr_int64_base_atomics / cl_khr_int64_extended_atomics are enabled and
              OFFSET_ATOMIC(op) names them, see below)
    weight_t  (optional) the weight type a family compares ("float" or "double"): defines
              weight_t, wbits_t and the WEIGHT_BITS helpers below
    mode      "ct": constant grid, each work-item strides over several vertices (coalesced);
              "mt": one vertex per work-item (the grid covers all vertices)
    heavy_degree  (optional, default -1 = off) degree-aware work distribution: a vertex of
              degree > heavy_degree (>= 0) is "heavy" and processed by a whole work-group
              (see HEAVY TIER below); -1 renders the kernels exactly as without it.
</%doc>
<% heavy_degree = int(context.get('heavy_degree', -1)) %>\
typedef ${index_t} index_t;
typedef ${offset_t} offset_t;
/* OFFSET_ATOMIC(op): the atomic function op (cmpxchg, inc, add, min, max) on an offset_t in
   global memory: OpenCL 1.2 names the 32-bit ones atomic_op and the 64-bit ones atom_op. */
% if offset_t == "long":
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#define OFFSET_ATOMIC(op) atom_##op
% else:
#define OFFSET_ATOMIC(op) atomic_##op
% endif
<% weight_t = context.get('weight_t', None) %>\
% if weight_t == "double":
/* Weights (weight_t, when the template value weight_t is given: "float" or "double", the
   precision the family compares). Positive IEEE numbers order like their bit patterns read as
   signed integers, so a maximum or minimum of weights is one integer atomic on wbits_t:
   WEIGHT_BITS(x) the bits, WEIGHT_OF_BITS(b) back, WBITS_ATOMIC(op) the atomic on wbits_t
   (64-bit atomics of cl_khr_int64_* for double), WBITS_NONE above every weight's bits. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
typedef double weight_t;
typedef long wbits_t;
#define WEIGHT_BITS(x) as_long(x)
#define WEIGHT_OF_BITS(b) as_double(b)
#define WBITS_ATOMIC(op) atom_##op
#define WBITS_NONE LONG_MAX
% elif weight_t:
/* Weights: see the double case above (float: 32-bit bits and atomics). */
typedef float weight_t;
typedef int wbits_t;
#define WEIGHT_BITS(x) as_int(x)
#define WEIGHT_OF_BITS(b) as_float(b)
#define WBITS_ATOMIC(op) atomic_##op
#define WBITS_NONE INT_MAX
% endif

/* The list holding entry e of a compressed structure (CSR/CSC offsets ptr[0..n]): the largest
   i < n with ptr[i] <= e, by binary search, so that edge-parallel passes give every work-item
   the same O(log n) work however skewed the degrees (the offsets' upper levels stay cached). */
inline index_t major_of(offset_t e, index_t n, __global const offset_t *ptr)
{
    index_t lo = 0, hi = n - 1;
    while (lo < hi) {
        index_t mid = lo + (hi - lo + 1) / 2;
        if (ptr[mid] <= e) lo = mid; else hi = mid - 1;
    }
    return lo;
}

/* The position of x in the increasing list ind[lo..hi) (binary search), or -1. */
inline offset_t sorted_list_find(__global const index_t *ind, offset_t lo, offset_t hi,
                                 index_t x)
{
    const offset_t end = hi;
    while (lo < hi) {
        offset_t mid = lo + (hi - lo) / 2;
        if (ind[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo < end && ind[lo] == x ? lo : -1;
}

/* Whether the increasing list ind[lo..hi) holds x. */
inline int sorted_list_has(__global const index_t *ind, offset_t lo, offset_t hi, index_t x)
{
    return sorted_list_find(ind, lo, hi, x) >= 0;
}

/* Whether the list ind[lo..hi) in any order holds x (a scan). */
inline int list_has(__global const index_t *ind, offset_t lo, offset_t hi, index_t x)
{
    for (offset_t e = lo; e < hi; ++e)
        if (ind[e] == x) return 1;
    return 0;
}

/* FOR_EACH_VERTEX(v, n): the vertices a work-item owns. In CT mode work-item tid handles
   tid, tid + T, tid + 2T, ... (T = total work-items), which is getProcessCount() of paper 000
   with strided, coalesced accesses; in MT mode each work-item owns at most one vertex. */
% if mode == "ct":
#define FOR_EACH_VERTEX(v, n) \
    for (index_t v = (index_t)get_global_id(0); v < (n); v += (index_t)get_global_size(0))
% else:
#define FOR_EACH_VERTEX(v, n) \
    for (index_t v = (index_t)get_global_id(0); v < (n); v = (n))
% endif
% if heavy_degree >= 0:

/* ---------------------------------------------------------------- HEAVY TIER
   Degree-aware work distribution (as ECL-MM assigns a work-item or a whole group to a vertex
   by its degree). A vertex of degree > HEAVY_DEGREE is heavy; the host lists the heavy
   vertices of each side once per device graph (DeviceBipartite.heavy, a copy_if scan) and
   every degree-aware kernel takes, after its own arguments, HEAVY_PARAMS:
     heavy[0..n_heavy)   the heavy vertices of the side the kernel walks;
     heavy_groups        the first heavy_groups work-groups of the grid form the heavy tier;
     heavy_batch         heavy vertices a heavy group takes per round (<= work-group size);
     scratch             local memory, 3 * work-group size + 1 index_t.
   The heavy tier: group g takes heavy[g*B .. g*B+B), then strides by heavy_groups*B
   (B = heavy_batch). A round first filters its B candidates (one work-item each) into a
   local list of the active ones, then the whole group processes them one after the other,
   strided over each adjacency list, combining per-work-item results by local-memory
   reductions; claims are made by one work-item (lid 0) and broadcast. Every branch around
   a barrier depends only on values read from local memory after a barrier, so it is uniform
   over the group.
   The light tier: the remaining work-items run the kernel's FOR_EACH_VERTEX loop as without
   heavy tier (FOR_EACH_LIGHT_VERTEX: the same CT/MT distribution over the grid minus the
   heavy groups) and skip heavy vertices (IS_HEAVY). Both tiers are one launch, so a graph
   with heavy vertices costs no extra launch and the light groups run beside the heavy ones. */
#define HEAVY_DEGREE ${heavy_degree}
#define IS_HEAVY(deg) ((deg) > HEAVY_DEGREE)
#define HEAVY_PARAMS , __global const index_t *heavy, index_t n_heavy, index_t heavy_groups, \
    index_t heavy_batch, __local index_t *scratch
#define IN_HEAVY_TIER() ((index_t)get_group_id(0) < heavy_groups)
#define LIGHT_ID() ((index_t)(get_global_id(0) - (size_t)heavy_groups * get_local_size(0)))
#define LIGHT_SIZE() ((index_t)(get_global_size(0) - (size_t)heavy_groups * get_local_size(0)))
%   if mode == "ct":
#define FOR_EACH_LIGHT_VERTEX(v, n) \
    for (index_t v = LIGHT_ID(); v < (n); v += LIGHT_SIZE())
%   else:
#define FOR_EACH_LIGHT_VERTEX(v, n) \
    for (index_t v = LIGHT_ID(); v < (n); v = (n))
%   endif

/* Work-group collectives over local memory s[0..get_local_size(0)); every work-item of the
   group must call them (they hold barriers). Any group size, not only powers of two. */
index_t group_broadcast(index_t x, __local index_t *s)      /* lid 0's x to all */
{
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) s[0] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    return s[0];
}

index_t group_sum(index_t x, __local index_t *s)
{
    index_t lid = (index_t)get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    s[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (index_t m = (index_t)get_local_size(0); m > 1; ) {
        index_t hm = (m + 1) >> 1;
        if (lid + hm < m) s[lid] += s[lid + hm];
        barrier(CLK_LOCAL_MEM_FENCE);
        m = hm;
    }
    return s[0];
}

index_t group_min(index_t x, __local index_t *s)
{
    index_t lid = (index_t)get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    s[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (index_t m = (index_t)get_local_size(0); m > 1; ) {
        index_t hm = (m + 1) >> 1;
        if (lid + hm < m) s[lid] = min(s[lid], s[lid + hm]);
        barrier(CLK_LOCAL_MEM_FENCE);
        m = hm;
    }
    return s[0];
}

/* The least (key, id) pair in lexicographic order over the group; id < 0 means "none" and
   loses to any pair with id >= 0. Returns the id (the key in *key); sk, si: local arrays. */
index_t group_argmin(index_t key, index_t id, index_t *out_key,
                     __local index_t *sk, __local index_t *si)
{
    index_t lid = (index_t)get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    sk[lid] = key; si[lid] = id;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (index_t m = (index_t)get_local_size(0); m > 1; ) {
        index_t hm = (m + 1) >> 1;
        if (lid + hm < m) {
            index_t k2 = sk[lid + hm], i2 = si[lid + hm], i1 = si[lid];
            if (i2 >= 0 && (i1 < 0 || k2 < sk[lid] || (k2 == sk[lid] && i2 < i1))) {
                sk[lid] = k2; si[lid] = i2;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        m = hm;
    }
    *out_key = sk[0];
    return si[0];
}
% endif
<%doc>
  heavy_vertices(v, active, inactive=""): the heavy-tier loop of a degree-aware kernel (see
  HEAVY TIER above). For each heavy vertex `v` of this group whose condition `active` holds
  (evaluated once, by one work-item, when the round starts) the caller's body runs with every
  work-item of the group; `inactive` is a statement run (by that one work-item) for the
  others. Inside the body: lid, lsz (local id and size) and red (local memory for the
  collectives, 2 * lsz entries).
</%doc>
<%def name="heavy_vertices(v, active, inactive='')">
    {
        const index_t lid = (index_t)get_local_id(0), lsz = (index_t)get_local_size(0);
        __local index_t *s_list = scratch;              /* the round's active heavy vertices */
        __local index_t *s_count = scratch + lsz;
        __local index_t *red = scratch + lsz + 1;       /* collectives: 2 * lsz entries */
        (void)red;                                      /* (GPUBFS needs none) */
        for (index_t base = (index_t)get_group_id(0) * heavy_batch; base < n_heavy;
             base += heavy_groups * heavy_batch) {
            if (lid == 0) *s_count = 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            int take = 0;
            index_t cand = 0;
            if (lid < heavy_batch && base + lid < n_heavy) {
                const index_t ${v} = cand = heavy[base + lid];
                take = ${active};
% if inactive:
                if (!take) { ${inactive} }
% endif
            }
            /* every work-item adds (0 or 1): PoCL 3.1 miscompiles a local atomic_inc under a
               work-item-dependent branch in a loop with barriers (the count stays 0) */
            const index_t slot = atomic_add((volatile __local int *)s_count, take);
            if (take) s_list[slot] = cand;
            barrier(CLK_LOCAL_MEM_FENCE);
            const index_t n_active = *s_count;
            for (index_t k = 0; k < n_active; ++k) {
                const index_t ${v} = s_list[k];
                ${caller.body()}
            }
            barrier(CLK_LOCAL_MEM_FENCE);     /* s_count and s_list are rewritten next round */
        }
    }
</%def>
<%doc>
  entries(e, i, by_rows): the loop of a pass over the entries of a compressed structure
  (offsets ptr[0..n], nnz entries): the caller's body runs for each entry e with i, the list
  holding it. by_rows (CPU devices): each work-item takes whole lists (FOR_EACH_VERTEX) and
  walks their entries in order: no search, sequential reads. Otherwise (GPUs) the entries are
  strided over the grid and each finds its list by binary search (major_of): the same work
  per work-item however skewed the degrees. `continue` in the body goes to the next entry;
  offsets out of order cannot make the by_rows loop read outside 0 .. nnz-1.
</%doc>
<%def name="entries(e, i, by_rows, n='n', nnz='nnz', ptr='ptr')">
% if by_rows:
    FOR_EACH_VERTEX(${i}, ${n}) {
        const offset_t ${e}_end = min(${ptr}[${i} + 1], ${nnz});
        for (offset_t ${e} = max(${ptr}[${i}], (offset_t)0); ${e} < ${e}_end; ++${e}) {
            ${caller.body()}
        }
    }
% else:
    for (offset_t ${e} = get_global_id(0); ${e} < ${nnz}; ${e} += get_global_size(0)) {
        const index_t ${i} = major_of(${e}, ${n}, ${ptr});
        ${caller.body()}
    }
% endif
</%def>
