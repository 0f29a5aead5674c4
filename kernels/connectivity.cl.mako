<%doc>
  The connectivity certificate of a partition (pyclmatch/community/connectivity.py): the
  connected components of every community's induced subgraph, on the input graph as uploaded
  (CSR "vertices"/"edges", every stored entry an edge), by hooking and pointer jumping
  (Shiloach-Vishkin style) over the edges whose two ends share a community. Nothing here is
  shared with the algorithms that produce the partition. Template values: those of
  common.cl.mako (index_t, offset_t, mode).

  L[v] is a vertex of v's component with L[v] <= v. components_jump makes every L[v] a root
  (L[root] = root); components_hook hooks the root of v under the smaller root of a neighbour
  u in v's community (atomic_min). When a hook pass changes nothing, the two ends of every
  edge inside a community have the same root, so each component has exactly one root.
</%doc>
<%include file="common.cl.mako"/>

__kernel void components_init(index_t n, __global index_t *L)
{
    FOR_EACH_VERTEX(v, n) L[v] = v;
}

__kernel void components_hook(index_t n, __global const offset_t *vertices,
                              __global const index_t *edges, __global const int *memb,
                              volatile __global index_t *L, __global int *out)
{
    int changed = 0;
    FOR_EACH_VERTEX(v, n) {
        const int cv = memb[v];
        for (offset_t e = vertices[v]; e < vertices[v + 1]; ++e) {
            const index_t u = edges[e];
            if (u < 0 || u >= n || memb[u] != cv) continue;
            const index_t lv = L[v], lu = L[u];
            if (lu < lv) {
                atomic_min(&L[lv], lu);
                changed = 1;
            }
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
