<%doc>
  The connectivity certificate of a partition (pyclmatch/community/connectivity.py): the
  connected components of every community's induced subgraph, on the input graph as uploaded
  (CSR "vertices"/"edges", every stored entry an edge), by hooking and pointer jumping
  (Shiloach-Vishkin style) over the edges whose two ends share a community. Nothing here is
  shared with the algorithms that produce the partition. Template values: those of
  common.cl.mako (index_t, offset_t, mode).

  L[v] is a vertex of v's component with L[v] <= v. components_link unites the two ends of
  every edge inside a community (union-find: roots found with path halving, the larger root
  hooked under the smaller by compare-and-swap), so that one pass usually joins every
  component; components_jump makes every L[v] a root (L[root] = root); components_hook then
  checks every edge, hooking the root of v under the smaller root of a neighbour u in v's
  community (atomic_min) where they still differ. When a hook pass changes nothing, the two
  ends of every edge inside a community have the same root, so each component has exactly
  one root: its smallest vertex. The edge passes take CHUNK consecutive entries per work-item
  (its first row by binary search), so a vertex of high degree is shared out.
</%doc>
<%include file="common.cl.mako"/>

__kernel void components_init(index_t n, __global index_t *L)
{
    FOR_EACH_VERTEX(v, n) L[v] = v;
}

#define CHUNK 16         /* (connectivity.CHUNK) */

/* The row holding entry e (the largest v with vertices[v] <= e; rows may be empty). */
inline index_t row_of(__global const offset_t *vertices, index_t n, offset_t e)
{
    index_t lo = 0, hi = n;          /* vertices[lo] <= e < vertices[hi] */
    while (hi - lo > 1) {
        const index_t mid = lo + (hi - lo) / 2;
        if (vertices[mid] <= e) lo = mid; else hi = mid;
    }
    return lo;
}

inline offset_t next_row(__global const offset_t *vertices, index_t n, offset_t v, offset_t e)
{
    while (v + 1 < n && vertices[v + 1] <= e) ++v;
    return v;
}

/* FOR_EACH_ENTRY(v, e, n, vertices, nnz): entry e of row v, for the entries of the
   work-item's chunks (CHUNK consecutive entries each, strided by the grid). */
#define FOR_EACH_ENTRY(v, e, n, vertices, nnz) \
    for (offset_t c_ = get_global_id(0); c_ <= ((nnz) - 1) / CHUNK; \
         c_ += get_global_size(0)) \
        for (offset_t e = c_ * CHUNK, end_ = (nnz) - e < CHUNK ? (nnz) : e + CHUNK, \
             v = row_of(vertices, n, e); e < end_; ++e, v = next_row(vertices, n, v, e))

/* The root of x's tree, halving the path on the way (L only ever moves towards a root). */
inline index_t find_root(volatile __global index_t *L, index_t x)
{
    index_t p = L[x];
    while (p != x) {
        const index_t g = L[p];
        if (g != p) L[x] = g;
        x = p;
        p = L[x];
    }
    return x;
}

__kernel void components_link(index_t n, __global const offset_t *vertices,
                              __global const index_t *edges, __global const int *memb,
                              volatile __global index_t *L)
{
    const offset_t nnz = vertices[n];
    FOR_EACH_ENTRY(v, e, n, vertices, nnz) {
        const index_t u = edges[e];
        if (u < 0 || u >= n || u == (index_t)v || memb[u] != memb[v]) continue;
        index_t a = find_root(L, (index_t)v), b = find_root(L, u);
        while (a != b) {
            const index_t hi = max(a, b), lo = min(a, b);
            const index_t old = atomic_cmpxchg(&L[hi], hi, lo);
            if (old == hi) break;                /* hi hooked under lo */
            a = find_root(L, old);               /* hi was hooked meanwhile: go on from it */
            b = find_root(L, lo);
        }
    }
}

__kernel void components_hook(index_t n, __global const offset_t *vertices,
                              __global const index_t *edges, __global const int *memb,
                              volatile __global index_t *L, __global int *out)
{
    int changed = 0;
    const offset_t nnz = vertices[n];
    FOR_EACH_ENTRY(v, e, n, vertices, nnz) {
        const index_t u = edges[e];
        if (u < 0 || u >= n || memb[u] != memb[v]) continue;
        const index_t lv = L[v], lu = L[u];
        if (lu < lv) {
            atomic_min(&L[lv], lu);
            changed = 1;
        }
    }
    if (changed) out[0] = 1;
}

__kernel void components_jump(index_t n, volatile __global index_t *L)
{
    FOR_EACH_VERTEX(v, n) {
        index_t l = L[v];
        while (L[l] != l) l = L[l];
        L[v] = l;
    }
}

/* Per community c (labels 0..k-1; others flag out[3]): roots[c] = its components (zero-filled
   before); out[1] = communities of more than one component, out[2] = components. */
__kernel void components_count(index_t n, int k, __global const int *memb,
                               __global const index_t *L, __global int *roots,
                               __global int *out)
{
    int split = 0, comps = 0, bad = 0;
    FOR_EACH_VERTEX(v, n) {
        const int c = memb[v];
        if (c < 0 || c >= k) { bad = 1; continue; }
        if (L[v] != v) continue;
        ++comps;
        if (atomic_inc(&roots[c]) == 1) ++split;
    }
    if (split) atomic_add(&out[1], split);
    if (comps) atomic_add(&out[2], comps);
    if (bad) out[3] = 1;
}
