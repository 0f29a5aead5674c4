<%doc>
  Dulmage-Mendelsohn decomposition on the device (pyclmatch/bipartite/dmperm.py).

  Coarse decomposition (Dulmage & Mendelsohn 1958; the sets and their order as CSparse's
  cs_dmperm, Davis, "Direct Methods for Sparse Linear Systems", SIAM 2006, ch. 7): from a maximum
  matching and the two alternating BFS of the matching's certificate (bfs_c: from the unmatched
  columns over the column lists; bfs_r: from the unmatched rows over the row lists; values >= L0
  are reached vertices and their BFS levels) every column falls in C0 (unmatched), C1 (matched,
  reached from C0), C3 (matched to a row reached from the unmatched rows) or C2 (the rest,
  the square part); every row in R1, R2, R3 (the mates of C1, C2, C3) or R0 (unmatched).

  Fine decomposition: the strongly connected components of the square part's column graph
  through the matching (u -> v when the mate row of u has an entry in column v), by the
  Multistep method of Slota, Rajamanickam and Madduri ("BFS and coloring-based parallel
  algorithms for strongly connected components and related problems", IPDPS 2014): rounds of
  trimming (McLendon, Hendrickson, Plimpton, Rauchwerger, J. Parallel Distrib. Comput. 2005: a
  vertex without an in- or out-neighbour in its part is an SCC of its own), in the first round
  one forward-backward step from the vertex of largest degree product (Fleischer, Hendrickson,
  Pinar 2000: the giant component of a mesh or small-world graph at the cost of two queue BFS),
  then coloring (Orzan, PhD thesis 2004: every vertex takes the largest id that reaches it, by
  max-label propagation; a vertex c keeping its own colour is a root and SCC(c) is what reaches
  c within colour c, by a backward propagation; the other vertices of colour c form a part of
  the next round). Each round works on a list of the columns still unassigned (compacted by a
  scan after trimming). Colouring, backward marking, block levels and re-trimming are push-
  based with pass stamps (stamp[c]: the pass of c's last change; only columns changed in the
  previous pass or in this one walk their edges, the rest cost one check) and relax
  chaotically (the `sweeps` def below: short lists in one work-group until converged); the
  host repeats a relaxation until a launch changes nothing, reading the flag (the number of
  the last pass that changed something) by non-blocking copies while it keeps enqueuing
  (Scheduler.converge). Once the unassigned list fits one work-group, scc_small runs all the
  remaining rounds in one launch. The queue BFS (alternating reachability, FW-BW) keep their
  frontier bounds on the device (`frontier_levels`).

  Block order: the longest-path level of each SCC in the condensation (lev[comp] = 1 + the
  largest level of an SCC with an edge into it), by the same chaotic relaxation (atomic_max);
  sorting the columns by (coarse set, level, component) gives A[p][:, q] block upper
  triangular, because every edge between two components goes to a strictly larger level.

  Template values: those of common.cl.mako (mode "ct").
  Arrays: cp/ci column lists (CSC: rows of each column), rp/ri row lists (CSR), rmatch[nr],
  cmatch[nc]; part[nc] (coarse set of each column: 0..3 = C0..C3); comp[nc] (-2: not in C2,
  -1: C2 and not yet assigned, >= 0: the id of the component's root column); group[nc] (the
  part of the current round), color[nc], mark[nc] (uchar), lev[nc] (indexed by component id),
  flags[2] (int, set by kernels, zeroed and read by the host); list[n]: the columns a kernel
  works on (the square part's, or the round's unassigned ones); sweeps: the most sweeps of a
  work-group's tile per launch.
</%doc>
<%include file="common.cl.mako"/>
#define L0 2
#define UNASSIGNED (-1)
#define OUTSIDE (-2)

/* Coarse set of each column (C0 = 0, C1 = 1, C2 = 2, C3 = 3) and the SCC state of C2;
   counts[p] += 1 per column of set p. counts[5] = 1 when a column lies in both C1 and C3,
   which no maximum matching allows. */
__kernel void coarse_parts(index_t nc, __global const index_t *cmatch,
                           __global const int *bfs_c, __global const int *bfs_r,
                           __global uchar *part, __global index_t *comp,
                           __global index_t *group, __global int *counts)
{
    FOR_EACH_VERTEX(c, nc) {
        const index_t r = cmatch[c];
        uchar p;
        if (r < 0) p = 0;
        else {
            const int h = bfs_c[c] >= L0, v = bfs_r[r] >= L0;
            if (h && v) counts[5] = 1;
            p = h ? 1 : v ? 3 : 2;
        }
        part[c] = p;
        comp[c] = p == 2 ? UNASSIGNED : OUTSIDE;
        group[c] = 0;
        atomic_inc(&counts[p]);
    }
}

<%def name="sweeps(k, n)">
    /* Chaotic relaxation (asynchronous, Gauss-Seidel-like iteration of a monotone fixpoint:
       Bertsekas & Tsitsiklis, "Parallel and Distributed Computation", 1989, ch. 6): work-group
       g owns the contiguous tile [t0, t1) of the list and sweeps it, work-items strided
       (coalesced), in alternating directions, until a sweep of the tile changes nothing or
       `sweeps` sweeps ran; every update reads the newest values, so a label travels along a
       path inside the tile in one launch instead of one hop per launch. The host still
       repeats launches until one leaves flags[0] below its pass number (a launch that
       changed something stores its `pass`, so the flag needs no clearing between launches):
       a launch that changed nothing anywhere, or a single work-group (small lists) whose last
       sweep changed nothing, which is then the fixpoint of the whole list. */
    __local int wg_changed;
    int any_change = 0, unfinished = 1;
    const index_t tile = (${n} + (index_t)get_num_groups(0) - 1) / (index_t)get_num_groups(0);
    const index_t t0 = min((index_t)get_group_id(0) * tile, (index_t)${n});
    const index_t t1 = min(t0 + tile, (index_t)${n});
    for (int sweep = 0; sweep < sweeps; ++sweep) {
        if (get_local_id(0) == 0) wg_changed = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        int changed = 0;
        for (index_t at = t0 + (index_t)get_local_id(0); at < t1;
             at += (index_t)get_local_size(0)) {
            const index_t ${k} = (sweep & 1) ? t1 - 1 - (at - t0) : at;
            ${caller.body()}
        }
        if (changed) wg_changed = 1;
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        const int more = wg_changed;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!more) { unfinished = 0; break; }
        any_change = 1;
    }
    if (any_change && (unfinished || get_num_groups(0) > 1) && get_local_id(0) == 0)
        flags[0] = pass;
</%def>

/* Trimming over the list of active columns: an unassigned column without an unassigned in-
   or out-neighbour of its group is a component of its own. Out-neighbours of c: the columns
   of row cmatch[c]; in-neighbours: the mates of the rows of column c. A trimmed column stamps
   its neighbours (stamp = pass): after the first pass (pass == first) only columns next to one
   trimmed in the previous pass or in this one are checked again. */
__kernel void scc_trim(index_t n, __global const index_t *list, int sweeps, int pass,
                       int first, __global const offset_t *cp, __global const index_t *ci,
                       __global const offset_t *rp, __global const index_t *ri,
                       __global const index_t *rmatch, __global const index_t *cmatch,
                       __global index_t *comp, __global const index_t *group,
                       __global int *stamp, __global int *flags)
{
<%self:sweeps k="k" n="n">
            const index_t c = list[k];
            if (comp[c] != UNASSIGNED || (pass != first && stamp[c] < pass - 1)) continue;
            const index_t g = group[c], r = cmatch[c];
            int has_in = 0, has_out = 0;
            for (offset_t e = cp[c]; e < cp[c + 1] && !has_in; ++e) {
                const index_t u = rmatch[ci[e]];
                has_in = u >= 0 && u != c && comp[u] == UNASSIGNED && group[u] == g;
            }
            if (has_in) {
                for (offset_t e = rp[r]; e < rp[r + 1] && !has_out; ++e) {
                    const index_t v = ri[e];
                    has_out = v != c && comp[v] == UNASSIGNED && group[v] == g;
                }
            }
            if (!has_in || !has_out) {
                comp[c] = c; changed = 1;
                for (offset_t e = cp[c]; e < cp[c + 1]; ++e) {
                    const index_t u = rmatch[ci[e]];
                    if (u >= 0 && comp[u] == UNASSIGNED) stamp[u] = pass;
                }
                for (offset_t e = rp[r]; e < rp[r + 1]; ++e) {
                    const index_t v = ri[e];
                    if (comp[v] == UNASSIGNED) stamp[v] = pass;
                }
            }
</%self:sweeps>
}

/* Coloring, start: every listed unassigned column takes its own id and pushes it in the next
   pass (stamp = pass0). */
__kernel void scc_color_init(index_t n, __global const index_t *list,
                             __global const index_t *comp, __global index_t *color,
                             __global int *stamp, int pass0)
{
    FOR_EACH_VERTEX(k, n) {
        const index_t c = list[k];
        if (comp[c] == UNASSIGNED) { color[c] = c; stamp[c] = pass0; }
    }
}

/* Coloring, forward max-label propagation (push): a column whose colour rose in the previous
   pass or in this one (stamp >= pass - 1) raises the colour of its unassigned out-neighbours
   of the same group; the others are skipped after one check, so a pass costs the edges of
   what changed. */
__kernel void scc_color(index_t n, __global const index_t *list, int sweeps, int pass,
                        __global const offset_t *rp, __global const index_t *ri,
                        __global const index_t *cmatch, __global const index_t *comp,
                        __global const index_t *group, __global index_t *color,
                        __global int *stamp, __global int *flags)
{
<%self:sweeps k="k" n="n">
            const index_t c = list[k];
            if (stamp[c] < pass - 1 || comp[c] != UNASSIGNED) continue;
            const index_t g = group[c], col = color[c], r = cmatch[c];
            for (offset_t e = rp[r]; e < rp[r + 1]; ++e) {
                const index_t w = ri[e];
                if (comp[w] != UNASSIGNED || group[w] != g || color[w] >= col) continue;
                if (atomic_max(&color[w], col) < col) { stamp[w] = pass; changed = 1; }
            }
</%self:sweeps>
}

/* Coloring, the roots: mark[c] = (c keeps its own colour); roots push in the next pass. */
__kernel void scc_roots(index_t n, __global const index_t *list,
                        __global const index_t *comp, __global const index_t *color,
                        __global uchar *mark, __global int *stamp, int pass0)
{
    FOR_EACH_VERTEX(k, n) {
        const index_t c = list[k];
        const uchar m = comp[c] == UNASSIGNED && color[c] == c;
        mark[c] = m;
        if (m) stamp[c] = pass0;
    }
}

/* Coloring, backward propagation from the roots within each colour (push over the
   in-neighbours): a column marked in the previous pass or in this one marks the unassigned
   in-neighbours of its colour (they reach the root). */
__kernel void scc_back(index_t n, __global const index_t *list, int sweeps, int pass,
                       __global const offset_t *cp, __global const index_t *ci,
                       __global const index_t *rmatch, __global const index_t *comp,
                       __global const index_t *color, __global uchar *mark,
                       __global int *stamp, __global int *flags)
{
<%self:sweeps k="k" n="n">
            const index_t c = list[k];
            if (!mark[c] || stamp[c] < pass - 1 || comp[c] != UNASSIGNED) continue;
            const index_t col = color[c];
            for (offset_t e = cp[c]; e < cp[c + 1]; ++e) {
                const index_t u = rmatch[ci[e]];
                if (u < 0 || mark[u] || comp[u] != UNASSIGNED || color[u] != col) continue;
                mark[u] = 1; stamp[u] = pass; changed = 1;
            }
</%self:sweeps>
}

/* Coloring, end of a round: the marked columns form the component of their colour's root;
   the others form the part of their colour for the next round. */
__kernel void scc_assign(index_t n, __global const index_t *list, __global index_t *comp,
                         __global index_t *group, __global const index_t *color,
                         __global const uchar *mark)
{
    FOR_EACH_VERTEX(k, n) {
        const index_t c = list[k];
        if (comp[c] != UNASSIGNED) continue;
        if (mark[c]) comp[c] = color[c];
        else group[c] = color[c];
    }
}

<%def name="fixpoint()">
    /* One step of scc_small swept over list[:n] by the work-group until a sweep changes
       nothing (the body sets `changed`); barriers make every sweep see the last one's
       writes. */
    for (;;) {
        if (get_local_id(0) == 0) wg_changed = 0;
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        int changed = 0;
        for (index_t k = (index_t)get_local_id(0); k < n; k += (index_t)get_local_size(0)) {
            const index_t c = list[k];
            if (comp[c] != UNASSIGNED) continue;
            ${caller.body()}
        }
        if (changed) wg_changed = 1;
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        const int more = wg_changed;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!more) break;
    }
</%def>

/* The last rounds of Multistep in one work-group (the list fits ONE_GROUP_MAX): trimming,
   coloring, backward marking from the roots and assignment, as scc_trim, scc_color_init,
   scc_color, scc_roots, scc_back and scc_assign do over the grid, repeated over list[:n]
   until every listed column is assigned; each step is swept to its fixpoint with barriers
   between sweeps (every pass checks all listed columns: no stamps), so the rounds cost no
   launch and no read-back each. */
__kernel void scc_small(index_t n, __global const index_t *list,
                        __global const offset_t *cp, __global const index_t *ci,
                        __global const offset_t *rp, __global const index_t *ri,
                        __global const index_t *rmatch, __global const index_t *cmatch,
                        __global index_t *comp, __global index_t *group,
                        __global index_t *color, __global uchar *mark)
{
    __local int wg_changed, wg_left;
    for (;;) {
        /* trimming */
<%self:fixpoint>
            const index_t g = group[c], r = cmatch[c];
            int has_in = 0, has_out = 0;
            for (offset_t e = cp[c]; e < cp[c + 1] && !has_in; ++e) {
                const index_t u = rmatch[ci[e]];
                has_in = u >= 0 && u != c && comp[u] == UNASSIGNED && group[u] == g;
            }
            for (offset_t e = rp[r]; has_in && e < rp[r + 1] && !has_out; ++e) {
                const index_t v = ri[e];
                has_out = v != c && comp[v] == UNASSIGNED && group[v] == g;
            }
            if (!has_in || !has_out) { comp[c] = c; changed = 1; }
</%self:fixpoint>
        /* colour init: every unassigned column takes its own id */
        if (get_local_id(0) == 0) wg_left = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        int left = 0;
        for (index_t k = (index_t)get_local_id(0); k < n; k += (index_t)get_local_size(0)) {
            const index_t c = list[k];
            if (comp[c] == UNASSIGNED) { color[c] = c; left = 1; }
        }
        if (left) wg_left = 1;
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        const int any_left = wg_left;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!any_left) break;
        /* forward max-label propagation within each group */
<%self:fixpoint>
            const index_t g = group[c], col = color[c], r = cmatch[c];
            for (offset_t e = rp[r]; e < rp[r + 1]; ++e) {
                const index_t w = ri[e];
                if (comp[w] != UNASSIGNED || group[w] != g || color[w] >= col) continue;
                if (atomic_max(&color[w], col) < col) changed = 1;
            }
</%self:fixpoint>
        /* roots keep their own colour */
        for (index_t k = (index_t)get_local_id(0); k < n; k += (index_t)get_local_size(0)) {
            const index_t c = list[k];
            mark[c] = comp[c] == UNASSIGNED && color[c] == c;
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        /* backward marking from the roots within each colour */
<%self:fixpoint>
            if (!mark[c]) continue;
            const index_t col = color[c];
            for (offset_t e = cp[c]; e < cp[c + 1]; ++e) {
                const index_t u = rmatch[ci[e]];
                if (u < 0 || mark[u] || comp[u] != UNASSIGNED || color[u] != col) continue;
                mark[u] = 1; changed = 1;
            }
</%self:fixpoint>
        /* the marked columns are their root's component, the others the next round's parts */
        for (index_t k = (index_t)get_local_id(0); k < n; k += (index_t)get_local_size(0)) {
            const index_t c = list[k];
            if (comp[c] != UNASSIGNED) continue;
            if (mark[c]) comp[c] = color[c];
            else group[c] = color[c];
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}

<%def name="frontier_levels()">
    /* BFS levels over the queue: the frontier is [bnd[4 + 2s], bnd[5 + 2s]) in slot s =
       pass & 1 (the launches of one search have consecutive pass numbers), entries are
       appended at the tail bnd[2], and the next frontier goes to the other slot, so no
       work-group ever reads a frontier bound that this launch rewrites.
       levels == 0 (GPUs: one level a launch over the grid): only the work-groups the
       frontier needs (`need`, one a work-group's worth of entries) take part, the others
       return at once; the last participant to finish (counted in bnd[3], after a fence)
       writes the next frontier and stores the launch's `pass` in flags[0] when it is not
       empty. A small frontier thus costs a few work-groups and a short chain of atomics, not
       the whole grid's. levels > 0 (CPU devices: one work-group): up to that many levels in
       this launch, a barrier between levels, flags[0] = pass only when the search is not
       finished. A launch on an empty frontier only passes the empty frontier on (the host
       may enqueue a few past the end). */
    __local int last;
    __local index_t frontier[2];
    const int cur = pass & 1, nxt = 1 - (pass & 1);
    const index_t lsz = (index_t)get_local_size(0);
    if (levels == 0) {
        const index_t lo = bnd[4 + 2 * cur], hi = bnd[5 + 2 * cur];
        const index_t need = min((index_t)get_num_groups(0), (hi - lo + lsz - 1) / lsz);
        if (need == 0) {
            if (get_global_id(0) == 0) { bnd[4 + 2 * nxt] = hi; bnd[5 + 2 * nxt] = hi; }
            return;
        }
        if ((index_t)get_group_id(0) >= need) return;
        for (index_t i = lo + (index_t)get_group_id(0) * lsz + (index_t)get_local_id(0);
             i < hi; i += need * lsz) {
            ${caller.body()}
        }
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        if (get_local_id(0) == 0) last = atomic_inc(&bnd[3]) == need - 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (last && get_local_id(0) == 0) {
            const index_t tail = atomic_add(&bnd[2], 0);
            bnd[4 + 2 * nxt] = hi;
            bnd[5 + 2 * nxt] = tail;
            bnd[3] = 0;
            if (tail > hi) flags[0] = pass;
        }
        return;
    }
    if (get_local_id(0) == 0) { frontier[0] = bnd[4 + 2 * cur]; frontier[1] = bnd[5 + 2 * cur]; }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int level_no = 0;; ++level_no) {
        const index_t lo = frontier[0], hi = frontier[1];
        for (index_t i = lo + (index_t)get_local_id(0); i < hi; i += lsz) {
            ${caller.body()}
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        const index_t tail = bnd[2];
        const int more = tail > hi;
        const int stop = !more || level_no + 1 >= levels;
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        if (get_local_id(0) == 0) {
            frontier[0] = hi;
            frontier[1] = tail;
            if (stop) {
                bnd[4 + 2 * nxt] = hi;
                bnd[5 + 2 * nxt] = tail;
                if (more) flags[0] = pass;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
        if (stop) break;
    }
</%def>

/* ------------------------------------------------------------------ alternating reachability
   The horizontal and vertical parts: level-synchronous queue BFS along alternating paths from
   the unmatched columns (over the column lists: column c -> row r of c -> its mate column) or,
   on the transposed lists, from the unmatched rows; level[v] = L0 + the BFS depth of v (0:
   not reached), the witness the certificate's check_reach reads. Queue bounds as in FW-BW.
   An unmatched vertex of the other side next to a reached one (an augmenting path: the
   matching is not maximum) sets flags[1]. */
__kernel void reach_roots(index_t n, __global const index_t *mate, __global int *level,
                          __global index_t *queue, __global index_t *bnd)
{
    FOR_EACH_VERTEX(v, n) {
        if (mate[v] < 0) { level[v] = L0; queue[atomic_inc(&bnd[2])] = v; }
        else level[v] = 0;
    }
}

/* The roots are the first frontier (both slots: see frontier_levels) */
__kernel void reach_start(__global index_t *bnd)
{
    if (get_global_id(0) == 0) {
        bnd[4] = bnd[6] = 0; bnd[5] = bnd[7] = bnd[2]; bnd[3] = 0;
    }
}

__kernel void reach_visit(int levels, int pass, __global const offset_t *ptr,
                          __global const index_t *ind, __global const index_t *mate_of,
                          __global int *level, __global index_t *queue, __global index_t *bnd,
                          __global int *flags)
{
<%self:frontier_levels>
            const index_t v = queue[i];
            const int next = level[v] + 1;
            for (offset_t e = ptr[v]; e < ptr[v + 1]; ++e) {
                const index_t u = mate_of[ind[e]];
                if (u < 0) { flags[1] = 1; continue; }    /* an augmenting path */
                if (level[u] != 0) continue;
                if (atomic_cmpxchg(&level[u], 0, next) == 0)
                    queue[atomic_inc(&bnd[2])] = u;
            }
</%self:frontier_levels>
}

/* ------------------------------------------------------------------ FW-BW step
   Forward-backward (Fleischer, Hendrickson and Pinar, "On identifying strongly connected
   components in parallel", IPPS 2000; the giant-SCC step of Multistep, Slota et al. 2014, and
   of Hong et al., "On fast parallel detection of strongly connected components (SCC) in
   small-world graphs", SC 2013): the SCC of a pivot is the intersection of the columns it
   reaches and those that reach it. Both searches are level-synchronous queue BFS (each level
   touches only its frontier); the queue bounds live on the device (bnd: the frontier in one
   of two slots, tail bnd[2], finished work-groups bnd[3]), so the host enqueues levels without
   reading anything back and checks flags[0] (a non-empty frontier) once per batch. reach[c]
   bit 1: reached forward, bit 2: backward. The pivot: the largest in-degree x out-degree
   (Slota et al.), from a max-reduction of (degree product << 32 | column). */
__kernel void fwbw_start(__global const long *key, int bit, __global index_t *queue,
                         __global index_t *bnd, __global int *reach)
{
    if (get_global_id(0) == 0) {
        const index_t p = (index_t)(key[0] & 0xffffffffL);
        queue[0] = p;
        bnd[4] = bnd[6] = 0; bnd[5] = bnd[7] = 1; bnd[2] = 1; bnd[3] = 0;
        reach[p] |= bit;
    }
}

/* One BFS level: the unassigned columns of the pivot's group adjacent to the frontier
   (forward: the columns of the mate row of v; backward: the mates of the rows of v) are
   claimed by atomic_or on reach and appended to the queue (levels: frontier_levels). */
__kernel void fwbw_visit(int levels, int pass, int bit, int forward, __global const offset_t *ptr,
                         __global const index_t *ind, __global const index_t *rmatch,
                         __global const index_t *cmatch, __global const index_t *comp,
                         __global const index_t *group, __global int *reach,
                         __global index_t *queue, __global index_t *bnd, __global int *flags)
{
<%self:frontier_levels>
            const index_t v = queue[i], g = group[v];
            const index_t x = forward ? cmatch[v] : v;
            for (offset_t e = ptr[x]; e < ptr[x + 1]; ++e) {
                const index_t w = forward ? ind[e] : rmatch[ind[e]];
                if (w < 0 || (reach[w] & bit) || comp[w] != UNASSIGNED || group[w] != g)
                    continue;
                if (!(atomic_or(&reach[w], bit) & bit))
                    queue[atomic_inc(&bnd[2])] = w;
            }
</%self:frontier_levels>
}

/* End of the step: FW n BW is the pivot's component; FW \ BW, BW \ FW and the rest are
   three parts for the next rounds (disjoint groups; colours are >= 0). */
__kernel void fwbw_assign(index_t n, __global const index_t *list, __global const long *key,
                          __global const int *reach, __global index_t *comp,
                          __global index_t *group)
{
    const index_t p = (index_t)(key[0] & 0xffffffffL);
    FOR_EACH_VERTEX(k, n) {
        const index_t c = list[k];
        if (comp[c] != UNASSIGNED) continue;
        const int b = reach[c];
        if (b == 3) comp[c] = p;
        else if (b == 1) group[c] = -3;
        else if (b == 2) group[c] = -4;
    }
}

/* Longest-path levels of the condensation (push, over the list of the square part's
   columns): lev[comp[w]] >= 1 + lev[comp[c]] for every out-neighbour w of c in another
   component. Only the columns of components whose level rose in the previous pass or in this
   one (stamp[k] >= pass - 1; all of them in pass 1, stamp filled with 0) push again, so a pass
   reads the edges of what changed and one byte-sized check of the rest. */
__kernel void block_levels(index_t n, __global const index_t *list, int sweeps, int pass,
                           __global const offset_t *rp, __global const index_t *ri,
                           __global const index_t *cmatch, __global const index_t *comp,
                           __global int *lev, __global int *stamp, __global int *flags,
                           __global int *stats)
{
<%self:sweeps k="i" n="n">
            const index_t c = list[i];
            const index_t k = comp[c];
            if (stamp[k] < pass - 1) continue;
            const int up = lev[k] + 1;
            const index_t r = cmatch[c];
            for (offset_t e = rp[r]; e < rp[r + 1]; ++e) {
                const index_t kw = comp[ri[e]];
                if (kw < 0 || kw == k || lev[kw] >= up) continue;
                if (atomic_max(&lev[kw], up) < up) {
                    stamp[kw] = pass;
                    atomic_max(&stats[4], up);      /* the largest level */
                    changed = 1;
                }
            }
</%self:sweeps>
}

/* Sort keys of the columns: (coarse set, level, component), packed as
   part * (levels * nc) + level * nc + component (C0, C1, C3: part only; the stable sort
   keeps them in increasing order). */
__kernel void column_keys(index_t nc, __global const uchar *part,
                          __global const index_t *comp, __global const int *lev,
                          long levels, __global ulong *keys, __global index_t *ids)
{
    FOR_EACH_VERTEX(c, nc) {
        const uchar p = part[c];
        ulong key = (ulong)p * (ulong)levels * (ulong)nc;
        if (p == 2) {
            const index_t k = comp[c];
            key += (ulong)lev[k] * (ulong)nc + (ulong)k;
        }
        keys[c] = key;
        ids[c] = c;
    }
}

/* Row order: the mates of the matched columns in their order q[start..start+n), then the
   unmatched rows (listed by the caller). */
__kernel void mate_rows(index_t n, index_t start, __global const index_t *q,
                        __global const index_t *cmatch, __global index_t *p)
{
    FOR_EACH_VERTEX(k, n)
        p[k] = cmatch[q[start + k]];
}

/* flags of the unmatched rows (R0) */
__kernel void unmatched(index_t n, __global const index_t *mate, __global uchar *flags)
{
    FOR_EACH_VERTEX(v, n)
        flags[v] = mate[v] < 0;
}

/* Fine block starts of the square part: flags[k] for position cc2 + k where the component
   changes. */
__kernel void block_starts(index_t n, index_t start, __global const index_t *q,
                           __global const index_t *comp, __global uchar *starts)
{
    FOR_EACH_VERTEX(k, n)
        starts[k] = k == 0 || comp[q[start + k]] != comp[q[start + k - 1]];
}

/* ------------------------------------------------------------------ certificate
   Checks of the answer (p, q and the block boundaries) against the input and the matching,
   independent of how it was computed; bits or-ed into bad[0]. */
#define BAD_PERM 1        /* p or q is not a permutation */
#define BAD_DIAG 2        /* a matched pair is not on the diagonal of its part */
#define BAD_LOWER 4       /* an entry below the block diagonal */
#define BAD_REACH 8       /* a vertex of the horizontal/vertical part without a witness */

/* Block of every position k of p (or q): 0 for the horizontal part (h = 1 when it exists)
   before lo, the fine block holding k (starts[] relative to lo, by binary search) in
   [lo, hi), the vertical part after. */
__kernel void position_blocks(index_t n, index_t lo, index_t hi, int h,
                              __global const index_t *starts, index_t nstarts,
                              __global int *block_at)
{
    FOR_EACH_VERTEX(k, n) {
        int b;
        if (k < lo) b = 0;
        else if (k >= hi) b = h + nstarts;
        else {
            index_t a = 0, z = nstarts;      /* first start > k - lo */
            while (a < z) {
                const index_t mid = a + (z - a) / 2;
                if (starts[mid] <= k - lo) a = mid + 1; else z = mid;
            }
            b = h + a - 1;
        }
        block_at[k] = b;
    }
}

/* Inverse permutation and block of every row or column from its position: blk_of[perm[k]] =
   block_at[k], seen[perm[k]] counts hits (each must be hit once). */
__kernel void scatter_blocks(index_t n, __global const index_t *perm,
                             __global const int *block_at, __global int *blk_of,
                             __global int *seen, __global int *bad)
{
    FOR_EACH_VERTEX(k, n) {
        const index_t v = perm[k];
        if (v < 0 || v >= n) { atomic_or(bad, BAD_PERM); continue; }
        if (atomic_inc(&seen[v]) != 0) atomic_or(bad, BAD_PERM);
        blk_of[v] = block_at[k];
    }
}

/* Every entry (i, j) has block(row i) <= block(column j): A[p][:, q] is block upper
   triangular. */
__kernel void check_upper(index_t nr, __global const offset_t *rp, __global const index_t *ri,
                          __global const int *rblk, __global const int *cblk,
                          __global int *bad)
{
    int b = 0;
    FOR_EACH_VERTEX(i, nr) {
        const int bi = rblk[i];
        for (offset_t e = rp[i]; e < rp[i + 1]; ++e)
            if (cblk[ri[e]] < bi) b = BAD_LOWER;
    }
    if (b) atomic_or(bad, b);
}

/* The matched columns q[k], k >= first, sit on the diagonal: p[k - first] = cmatch[q[k]] (and
   rmatch agrees); the first columns are unmatched, the rows after the matched ones too. */
__kernel void check_diagonal(index_t nc, index_t nr, index_t first, index_t card,
                             __global const index_t *p, __global const index_t *q,
                             __global const index_t *rmatch, __global const index_t *cmatch,
                             __global int *bad)
{
    int b = 0;
    FOR_EACH_VERTEX(k, nc) {
        const index_t c = q[k], r = cmatch[c];
        if (k < first) { if (r >= 0) b = BAD_DIAG; }
        else if (r < 0 || p[k - first] != r || rmatch[r] != c) b = BAD_DIAG;
    }
    FOR_EACH_VERTEX(k, nr - card)
        if (rmatch[p[card + k]] >= 0) b = BAD_DIAG;
    if (b) atomic_or(bad, b);
}

/* Reachability witness of the horizontal part (or, on the transposed lists, the vertical
   part): the columns at positions [lo, hi) of q are exactly those with level[c] >= L0, and
   every matched one has, in its mate row's list, a column with a smaller level >= L0, so that
   it is reached from an unmatched column by an alternating path. */
__kernel void check_reach(index_t nc, index_t lo, index_t hi, __global const index_t *q,
                          __global const int *level, __global const index_t *cmatch,
                          __global const offset_t *rp, __global const index_t *ri,
                          __global int *bad)
{
    int b = 0;
    FOR_EACH_VERTEX(k, nc) {
        const index_t c = q[k];
        const int lc = level[c];
        const int inside = k >= lo && k < hi;
        if (inside != (lc >= L0)) { b = BAD_REACH; continue; }
        if (!inside || cmatch[c] < 0) continue;
        const index_t r = cmatch[c];
        int ok = 0;
        for (offset_t e = rp[r]; e < rp[r + 1] && !ok; ++e) {
            const int l = level[ri[e]];
            ok = l >= L0 && l < lc;
        }
        if (!ok) b = BAD_REACH;
    }
    if (b) atomic_or(bad, b);
}
