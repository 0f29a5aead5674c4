<%doc>
  Initial matchings for the exact bipartite algorithms (device side).
  * cheap_match: the "cheap matching" of paper 000 (Duff, Kaya, Ucar): every unmatched column
    claims its first unmatched row; claims are atomic compare-and-swap on rmatch, so the result
    is a consistent, maximal matching after one pass (a column gives up only when every
    neighbour is taken).
  * Karp-Sipser (paper 001's initial matching), in parallel rounds: residual degrees
    (ks_degrees_*), then every degree-1 vertex is matched to its only free neighbour (rule 1,
    ks_match_deg1_cols / ks_match_deg1_rows), then the remaining columns claim their free
    neighbour of minimum residual degree (ks_match_mindeg, the min-degree form of rule 2).
  Each kernel only writes the mate of the vertices it owns and claims the other side by CAS, so
  no two kernels of a round race on the same array.
</%doc>
<%include file="common.cl.mako"/>

__kernel void cheap_match(__global const offset_t *cxadj, __global const index_t *cadj,
                          index_t nc, __global index_t *rmatch, __global index_t *cmatch)
{
    FOR_EACH_VERTEX(c, nc) {
        if (cmatch[c] != -1) continue;
        for (offset_t j = cxadj[c]; j < cxadj[c + 1]; ++j) {
            index_t r = cadj[j];
            if (rmatch[r] == -1 && atomic_cmpxchg(&rmatch[r], -1, c) == -1) {
                cmatch[c] = r;
                break;
            }
        }
    }
}

/* Residual degree: free neighbours of each free vertex (0 for matched vertices). */
__kernel void ks_degrees(__global const offset_t *xadj, __global const index_t *adj,
                         index_t n, __global const index_t *mine,
                         __global const index_t *other, __global index_t *deg)
{
    FOR_EACH_VERTEX(v, n) {
        index_t d = 0;
        if (mine[v] == -1)
            for (offset_t j = xadj[v]; j < xadj[v + 1]; ++j)
                d += other[adj[j]] == -1;
        deg[v] = d;
    }
}

/* Rule 1 for the vertices of one side: a free vertex with one free neighbour takes it.
   ``mine`` is this side's mate array (written only by the owner), ``other`` the other side's
   (claimed by CAS). flags[0] counts the matches of the round. */
__kernel void ks_match_deg1(__global const offset_t *xadj, __global const index_t *adj,
                            index_t n, __global index_t *mine, __global index_t *other,
                            __global const index_t *deg, __global int *flags)
{
    FOR_EACH_VERTEX(v, n) {
        if (deg[v] != 1 || mine[v] != -1) continue;
        for (offset_t j = xadj[v]; j < xadj[v + 1]; ++j) {
            index_t u = adj[j];
            if (other[u] == -1) {
                if (atomic_cmpxchg(&other[u], -1, v) == -1) {
                    mine[v] = u;
                    atomic_inc(&flags[0]);
                }
                break;
            }
        }
    }
}

/* Rule 2 (min-degree form): a free column claims its free row of least residual degree
   (ties to the lower id); a lost CAS moves on to the next best. */
__kernel void ks_match_mindeg(__global const offset_t *cxadj, __global const index_t *cadj,
                              index_t nc, __global index_t *cmatch, __global index_t *rmatch,
                              __global const index_t *rdeg, __global int *flags)
{
    FOR_EACH_VERTEX(c, nc) {
        if (cmatch[c] != -1) continue;
        for (int attempt = 0; attempt < 4; ++attempt) {
            index_t best = -1, best_deg = 0;
            for (offset_t j = cxadj[c]; j < cxadj[c + 1]; ++j) {
                index_t r = cadj[j];
                if (rmatch[r] != -1) continue;
                index_t d = rdeg[r];
                if (best < 0 || d < best_deg || (d == best_deg && r < best)) {
                    best = r; best_deg = d;
                }
            }
            if (best < 0) break;
            if (atomic_cmpxchg(&rmatch[best], -1, c) == -1) {
                cmatch[c] = best;
                atomic_inc(&flags[0]);
                break;
            }
        }
    }
}
