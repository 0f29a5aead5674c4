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
  With heavy_degree >= 0 (common.cl.mako, HEAVY TIER) every kernel is degree-aware: a vertex of
  degree > heavy_degree is owned by a whole work-group, which scans its adjacency strided,
  combines the work-items' findings by a local reduction (first free neighbour, residual-degree
  sum, least (residual degree, id)) and claims with one work-item, retrying as the light path
  does; the choices are the light path's, so the result is the same kind of matching.
</%doc>
<%namespace name="common" file="common.cl.mako"/>
<%include file="common.cl.mako"/>
<%
    heavy = int(context.get('heavy_degree', -1)) >= 0
    HEAVY_PARAMS = " HEAVY_PARAMS" if heavy else ""      # the heavy tier's arguments
    EACH = "FOR_EACH_LIGHT_VERTEX" if heavy else "FOR_EACH_VERTEX"
%>\

<%doc>
  The light loop of each kernel (FOR_EACH_VERTEX / FOR_EACH_LIGHT_VERTEX over the vertices a
  work-item owns) is a def, called by its kernel and by apfb_one_group
  (apfb.cl.mako), which runs the same rounds in one work-group.
</%doc>
<%def name="cheap_match_loop(each)">
    ${each}(c, nc) {
        if (cmatch[c] != -1) continue;
% if int(context.get('heavy_degree', -1)) >= 0:
        if (IS_HEAVY(cxadj[c + 1] - cxadj[c])) continue;         /* the heavy tier's */
% endif
        for (offset_t j = cxadj[c]; j < cxadj[c + 1]; ++j) {
            index_t r = cadj[j];
            if (rmatch[r] == -1 && atomic_cmpxchg(&rmatch[r], -1, c) == -1) {
                cmatch[c] = r;
                break;
            }
        }
    }
</%def>
<%def name="ks_degrees_loop(each)">
    ${each}(v, n) {
% if int(context.get('heavy_degree', -1)) >= 0:
        if (IS_HEAVY(xadj[v + 1] - xadj[v])) continue;           /* the heavy tier's */
% endif
        index_t d = 0;
        if (mine[v] == -1)
            for (offset_t j = xadj[v]; j < xadj[v + 1]; ++j)
                d += other[adj[j]] == -1;
        deg[v] = d;
    }
</%def>
<%def name="ks_degrees_first_loop(each)">
    ${each}(v, n) deg[v] = (index_t)(xadj[v + 1] - xadj[v]);
</%def>
<%def name="ks_match_deg1_loop(each)">
    ${each}(v, n) {
        if (deg[v] != 1 || mine[v] != -1) continue;
% if int(context.get('heavy_degree', -1)) >= 0:
        if (IS_HEAVY(xadj[v + 1] - xadj[v])) continue;           /* the heavy tier's */
% endif
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
</%def>
<%def name="ks_match_mindeg_loop(each)">
    ${each}(c, nc) {
        if (cmatch[c] != -1) continue;
% if int(context.get('heavy_degree', -1)) >= 0:
        if (IS_HEAVY(cxadj[c + 1] - cxadj[c])) continue;         /* the heavy tier's */
% endif
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
</%def>

__kernel void cheap_match(__global const offset_t *cxadj, __global const index_t *cadj,
                          index_t nc, __global index_t *rmatch,
                          __global index_t *cmatch${HEAVY_PARAMS})
{
% if heavy:
    if (IN_HEAVY_TIER()) {
        /* a heavy column: the first free row in adjacency order, found by the group
           (group_min of each work-item's first free position), claimed by lid 0; a lost
           CAS goes on after that position, as the light loop's next j */
        <%common:heavy_vertices v="c" active="cmatch[c] == -1">
        const offset_t start = cxadj[c];
        const index_t deg = (index_t)(cxadj[c + 1] - start);
        for (index_t from = 0; ; ) {
            index_t first = deg;
            for (index_t i = from + lid; i < deg; i += lsz)
                if (rmatch[cadj[start + i]] == -1) { first = i; break; }
            first = group_min(first, red);
            if (first >= deg) break;                           /* every neighbour is taken */
            index_t won = 0;
            if (lid == 0) {
                index_t r = cadj[start + first];
                won = atomic_cmpxchg(&rmatch[r], -1, c) == -1;
                if (won) cmatch[c] = r;
            }
            if (group_broadcast(won, red)) break;
            from = first + 1;
        }
        </%common:heavy_vertices>
        return;
    }
% endif
${cheap_match_loop(EACH)}
}

/* Residual degree: free neighbours of each free vertex (0 for matched vertices). */
__kernel void ks_degrees(__global const offset_t *xadj, __global const index_t *adj,
                         index_t n, __global const index_t *mine,
                         __global const index_t *other, __global index_t *deg${HEAVY_PARAMS})
{
% if heavy:
    if (IN_HEAVY_TIER()) {                     /* a heavy free vertex: group_sum of its counts */
        <%common:heavy_vertices v="v" active="mine[v] == -1" inactive="deg[v] = 0;">
        index_t d = 0;
        for (offset_t j = xadj[v] + lid; j < xadj[v + 1]; j += lsz)
            d += other[adj[j]] == -1;
        d = group_sum(d, red);
        if (lid == 0) deg[v] = d;
        </%common:heavy_vertices>
        return;
    }
% endif
${ks_degrees_loop(EACH)}
}

/* The first round's residual degrees: Karp-Sipser starts from empty mates, so every vertex is
   free and its residual degree is its degree, read from xadj alone (ks_degrees reads every
   edge and its end's mate). */
__kernel void ks_degrees_first(__global const offset_t *xadj, index_t n,
                               __global index_t *deg)
{
${ks_degrees_first_loop("FOR_EACH_VERTEX")}
}

/* Rule 1 for the vertices of one side: a free vertex with one free neighbour takes it.
   ``mine`` is this side's mate array (written only by the owner), ``other`` the other side's
   (claimed by CAS). flags[0] counts the matches of the round. */
__kernel void ks_match_deg1(__global const offset_t *xadj, __global const index_t *adj,
                            index_t n, __global index_t *mine, __global index_t *other,
                            __global const index_t *deg, __global int *flags${HEAVY_PARAMS})
{
% if heavy:
    if (IN_HEAVY_TIER()) {
        /* a heavy vertex of residual degree 1: its first free neighbour (group_min of the
           positions), one CAS by lid 0, no retry (as the light loop's break) */
        <%common:heavy_vertices v="v" active="deg[v] == 1 && mine[v] == -1">
        const offset_t start = xadj[v];
        const index_t d = (index_t)(xadj[v + 1] - start);
        index_t first = d;
        for (index_t i = lid; i < d; i += lsz)
            if (other[adj[start + i]] == -1) { first = i; break; }
        first = group_min(first, red);
        if (lid == 0 && first < d) {
            index_t u = adj[start + first];
            if (atomic_cmpxchg(&other[u], -1, v) == -1) {
                mine[v] = u;
                atomic_inc(&flags[0]);
            }
        }
        </%common:heavy_vertices>
        return;
    }
% endif
${ks_match_deg1_loop(EACH)}
}

/* Rule 2 (min-degree form): a free column claims its free row of least residual degree
   (ties to the lower id); a lost CAS moves on to the next best. */
__kernel void ks_match_mindeg(__global const offset_t *cxadj, __global const index_t *cadj,
                              index_t nc, __global index_t *cmatch, __global index_t *rmatch,
                              __global const index_t *rdeg, __global int *flags${HEAVY_PARAMS})
{
% if heavy:
    if (IN_HEAVY_TIER()) {
        /* a heavy free column: the least (residual degree, row id) over the group
           (group_argmin), claimed by lid 0, at most 4 attempts as the light loop */
        <%common:heavy_vertices v="c" active="cmatch[c] == -1">
        for (int attempt = 0; attempt < 4; ++attempt) {
            index_t best = -1, best_deg = 0;
            for (offset_t j = cxadj[c] + lid; j < cxadj[c + 1]; j += lsz) {
                index_t r = cadj[j];
                if (rmatch[r] != -1) continue;
                index_t d = rdeg[r];
                if (best < 0 || d < best_deg || (d == best_deg && r < best)) {
                    best = r; best_deg = d;
                }
            }
            best = group_argmin(best_deg, best, &best_deg, red, red + lsz);
            if (best < 0) break;
            index_t won = 0;
            if (lid == 0 && atomic_cmpxchg(&rmatch[best], -1, c) == -1) {
                cmatch[c] = best;
                atomic_inc(&flags[0]);
                won = 1;
            }
            if (group_broadcast(won, red)) break;
        }
        </%common:heavy_vertices>
        return;
    }
% endif
${ks_match_mindeg_loop(EACH)}
}
