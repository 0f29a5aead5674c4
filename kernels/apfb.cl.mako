<%doc>
  Exact maximum-cardinality bipartite matching by augmenting paths on the GPU
  (Deveci, Kaya, Ucar, Catalyurek, Euro-Par 2013 = shared/papers/000).
  Template values (besides those of common.cl.mako):
    wr     True: GPUBFS-WR (Algorithm 4, with root[]); False: GPUBFS (Algorithm 2)
    apsb   True: APsB (Algorithm 1, stop the BFS at the first level that finds a path);
           False: APFB (lines 9-10 of Algorithm 1 removed)
  Arrays: cxadj/cadj = column adjacency (CSC: rows of each column), rmatch/cmatch as in the
  paper (-1 unmatched, -2 = end row of an augmenting path found by the BFS).
  bfs_array uses L0 = 2: unmatched columns start at L0, matched ones at L0-1 (unvisited); for
  GPUBFS-WR a root whose path was found is set to L0-2 = 0 (APFB) or -(end row) (APsB, so that
  ALTERNATE starts one path per root); every such value is < L0-1.
  flags[0] = (last level that inserted a vertex) + 1   -- "vertex_inserted", per level
  flags[1] = the level that found an augmenting path   -- "augmenting_path_found"
  heavy_degree (optional, common.cl.mako): degree-aware GPUBFS / GPUBFS-WR (heavy columns
  expanded by a work-group); the other kernels do not walk adjacency lists and are unchanged.
  The host enqueues several levels before it reads flags: a level whose frontier is empty is a
  no-op, and in APsB a level after the one that found a path returns at once.
</%doc>
<%namespace name="common" file="common.cl.mako"/>
<%namespace name="initial" file="karp_sipser.cl.mako"/>
<%include file="common.cl.mako"/>
<%
    heavy = int(context.get('heavy_degree', -1)) >= 0
    HEAVY_PARAMS = " HEAVY_PARAMS" if heavy else ""      # the heavy tier's arguments
    EACH = "FOR_EACH_LIGHT_VERTEX" if heavy else "FOR_EACH_VERTEX"
%>\
#define L0 2

<%doc>
  Each step's loop over its vertices is a def (FOR_EACH_VERTEX: the vertices this work-item
  owns), called by the step's own kernel (one launch per step, the large-graph path) and by
  apfb_one_group (the whole algorithm in one work-group, the small-graph path), so that each
  paper line is written once.
</%doc>
<%def name="init_bfs_array_loop()">
    FOR_EACH_VERTEX(c, nc) {
        int unmatched = cmatch[c] < 0;
        bfs_array[c] = unmatched ? L0 : L0 - 1;
% if wr:
        root[c] = unmatched ? c : 0;
% endif
    }
</%def>

/* INITBFSARRAY (Algorithm 1 line 4); GPUBFS-WR also sets root[c] = c for unmatched columns. */
__kernel void init_bfs_array(__global int *bfs_array, __global const index_t *cmatch,
                             index_t nc
% if wr:
                             , __global index_t *root
% endif
                             )
{
${init_bfs_array_loop()}
}

<%doc>
  visit_edge(j): lines 6-17 of Algorithm 2 / lines 9-22 of Algorithm 4 for the edge at
  position j of col_vertex's adjacency (myRoot in scope for GPUBFS-WR): the one body of both
  the light loop (a work-item walks the whole list) and the heavy tier (a work-group strides
  over it), so that both tiers do the same per-edge work.
</%doc>
<%def name="visit_edge(j)">
            index_t neighbor_row = cadj[${j}];
            index_t col_match = rmatch[neighbor_row];
            if (col_match > -1) {
                if (bfs_array[col_match] == L0 - 1) {
                    flags[0] = bfs_level + 1;                         /* vertex_inserted */
                    bfs_array[col_match] = bfs_level + 1;
% if wr:
                    root[col_match] = myRoot;
% endif
                    predecessor[neighbor_row] = col_vertex;
                }
            } else if (col_match == -1) {
% if wr:
%   if apsb:
                bfs_array[myRoot] = -neighbor_row;     /* Alg. 4 line 19, end-of-path encoding */
%   else:
                bfs_array[myRoot] = L0 - 2;            /* Alg. 4 line 19 */
%   endif
% endif
                rmatch[neighbor_row] = -2;
                predecessor[neighbor_row] = col_vertex;
                flags[1] = bfs_level;                                /* augmenting_path_found */
            }
</%def>

<%def name="gpubfs_loop(each)">
    ${each}(col_vertex, nc) {                                 /* Alg. 2/4 lines 1-3 */
        if (bfs_array[col_vertex] != bfs_level) continue;             /* line 4 */
% if int(context.get('heavy_degree', -1)) >= 0:
        if (IS_HEAVY(cxadj[col_vertex + 1] - cxadj[col_vertex])) continue;   /* heavy tier's */
% endif
% if wr:
        index_t myRoot = root[col_vertex];                            /* Alg. 4 line 5 */
        if (bfs_array[myRoot] < L0 - 1) continue;                     /* lines 6-7: early exit */
% endif
        for (offset_t j = cxadj[col_vertex]; j < cxadj[col_vertex + 1]; ++j) {
${visit_edge("j")}
        }
    }
</%def>

/* One BFS level: GPUBFS (Algorithm 2) or GPUBFS-WR (Algorithm 4), lines cited per variant.
   With heavy_degree >= 0 a column of degree > heavy_degree is expanded by a whole work-group
   (HEAVY TIER of common.cl.mako): the group tests lines 4-7 once, by one work-item, then its
   work-items take the edges j = start + lid, start + lid + lsz, ... (lines 5/8 strided); the
   per-edge work needs no reduction (its writes race as those of different columns do). */
__kernel void gpubfs(int bfs_level, __global int *bfs_array,
                     __global const offset_t *cxadj, __global const index_t *cadj,
                     index_t nc, __global index_t *rmatch, __global index_t *predecessor,
                     __global int *flags
% if wr:
                     , __global index_t *root
% endif
                     ${HEAVY_PARAMS})
{
% if apsb:
    /* Alg. 1 lines 9-10: an earlier level found a path (work-items of this level go on) */
    if (flags[1] != 0 && flags[1] < bfs_level) return;
% endif
% if heavy:
    if (IN_HEAVY_TIER()) {
<%
    active = "bfs_array[col_vertex] == bfs_level"                            # line 4
    if wr:
        active += " && bfs_array[root[col_vertex]] >= L0 - 1"                # lines 5-7
%>\
        <%common:heavy_vertices v="col_vertex" active="${active}">
% if wr:
        const index_t myRoot = root[col_vertex];                      /* Alg. 4 line 5 */
% endif
        for (offset_t j = cxadj[col_vertex] + lid; j < cxadj[col_vertex + 1]; j += lsz) {
${visit_edge("j")}
        }
        </%common:heavy_vertices>
        return;
    }
% endif
${gpubfs_loop(EACH)}
}

#define ROOT_TAKEN (L0 - 1)     /* bfs_array[root] once ALTERNATE took one of its paths */
<%def name="alternate_loop()">
    FOR_EACH_VERTEX(r0, nr) {                                          /* lines 1-3 */
        if (rmatch[r0] != -2) continue;                                /* line 4 */
        index_t row_vertex = r0;
% if wr and apsb:
        {                                               /* one path per root (APsB-WR) */
            const index_t my_root = root[predecessor[r0]];
            const int mark = bfs_array[my_root];
            if (mark >= L0 - 1 || atomic_cmpxchg(&bfs_array[my_root], mark, ROOT_TAKEN) != mark)
                continue;
        }
% endif
        for (index_t steps = 0; row_vertex != -1 && steps <= nc; ++steps) {  /* line 5 */
            index_t matched_col = predecessor[row_vertex];             /* line 6 */
            index_t matched_row = cmatch[matched_col];                 /* line 7 */
            if (matched_row >= 0 && predecessor[matched_row] == matched_col)
                break;                                                 /* lines 8-9 */
            cmatch[matched_col] = row_vertex;                          /* line 10 */
            rmatch[row_vertex] = matched_col;                          /* line 11 */
            row_vertex = matched_row;                                  /* line 12 */
        }
    }
</%def>

/* ALTERNATE (Algorithm 3). A path is followed from its end row back to its root column;
   line 8's check stops at a column already taken by another path. The loop is bounded by nc
   steps (a path never repeats a column) so that no race can make it spin. The mate arrays are
   volatile: line 7 must see another work-item's line-10 write, not a stale cached copy.
   Every path that starts changes no matched column into an unmatched one, and of the paths
   that start, the first to reach each column goes on, so at least one reaches its root: a
   phase whose BFS found a path always gains a match, provided one path starts.
   APsB-WR starts one path per root (section IV of paper 000). The BFS marks a root with the
   end row of its path (bfs_array[root] = -row), but that mark and predecessor[row] are each
   the last of racing writes: two roots can mark each other's rows (bfs_array[X] = -a,
   bfs_array[Y] = -b while predecessor[a] leads to Y and predecessor[b] to X), and then no
   row passes the test "bfs_array[root[predecessor[r]]] == -r" and the phase changes nothing,
   again and again when the GPU repeats the same interleaving (the heavy tier, whose
   work-items write a column's rows in no fixed order, does so even on K_{2,2}). So a row
   instead claims its root: the first end row r whose predecessor's root R is still marked
   (bfs_array[R] < L0 - 1) swaps the mark for ROOT_TAKEN and starts; every root that found a
   path gets exactly one, and every end row has such a root (its predecessor's column marked
   it in the same BFS step). */
__kernel void alternate(volatile __global index_t *cmatch, volatile __global index_t *rmatch,
                        index_t nr,
                        index_t nc, __global const index_t *predecessor
% if wr and apsb:
                        , volatile __global int *bfs_array, __global const index_t *root
% endif
                        )
{
${alternate_loop()}
}

<%def name="fix_matching_rows_loop()">
    FOR_EACH_VERTEX(r, nr) {
        index_t c = rmatch[r];
        if (c < 0) { if (c != -1) rmatch[r] = -1; }
        else if (cmatch[c] != r) rmatch[r] = -1;
    }
</%def>
<%def name="fix_matching_cols_loop()">
    FOR_EACH_VERTEX(c, nc) {
        index_t r = cmatch[c];
        if (r >= 0 && rmatch[r] != c) cmatch[c] = -1;
    }
</%def>

/* FIXMATCHING: rmatch[r] <- -1 for any r with cmatch[rmatch[r]] != r (and leftover -2 ends). */
__kernel void fix_matching_rows(__global index_t *rmatch, __global const index_t *cmatch,
                                index_t nr)
{
${fix_matching_rows_loop()}
}

/* The symmetric half of FIXMATCHING: a column whose row does not point back is unmatched, so
   that rmatch and cmatch always describe the same matching. */
__kernel void fix_matching_cols(__global index_t *cmatch, __global const index_t *rmatch,
                                index_t nc)
{
${fix_matching_cols_loop()}
}

% if mode == "ct" and not heavy:
<%doc>
  The small-graph path: Algorithm 1 whole (phases of INITBFSARRAY, BFS levels until no vertex
  is inserted, ALTERNATE, FIXMATCHING) in ONE work-group, launched once with global size =
  local size, so FOR_EACH_VERTEX strides over the group. The steps are the loops of the
  kernels above; a barrier (global and local fence: visibility inside the group) stands where
  the large path ends a launch, and the flags the host reads there live in local memory.
  Every branch around a barrier depends on values all work-items read from local memory
  between two barriers, so it is uniform over the group.
  It starts with the initial matching (init_kind), likewise from karp_sipser.cl.mako's loops.
  out[0] = phases, out[1] = BFS levels used, out[2] = deepest BFS, out[3] = 1 if a bound
  was exceeded (the host raises IterationLimitError), out[4] = the initial cardinality.
</%doc>
__kernel void apfb_one_group(__global int *bfs_array, __global const offset_t *cxadj,
                             __global const index_t *cadj, index_t nr, index_t nc,
                             volatile __global index_t *rmatch,
                             volatile __global index_t *cmatch,
                             __global index_t *predecessor, __global int *out,
                             int init_kind, int ks_rounds,
                             __global const offset_t *rxadj, __global const index_t *radj,
                             __global index_t *cdeg, __global index_t *rdeg
% if wr:
                             , __global index_t *root
% endif
                             )
{
    __local int flags[2];
    const index_t max_phases = min(nr, nc) + 2;
    int phases = 0, levels = 0, max_depth = 0, exceeded = 0;
    /* The initial matching (karp_sipser.cl.mako's loops, a barrier per launch of the
       large path): init_kind 2 = Karp-Sipser rounds then the cheap pass, 1 = the cheap pass,
       0 = none. rxadj/radj/cdeg/rdeg are read by Karp-Sipser only. The mates start empty,
       so the first round's residual degrees are the degrees (ks_degrees_first's loop). */
    for (int round = 0; init_kind == 2 && round < ks_rounds; ++round) {
        if (get_local_id(0) == 0) flags[0] = 0;
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        {   __global const offset_t *xadj = cxadj; __global const index_t *adj = cadj;
            const index_t n = nc; volatile __global index_t *mine = cmatch;
            volatile __global index_t *other = rmatch; __global index_t *deg = cdeg;
            if (round == 0) {
${initial.ks_degrees_first_loop("FOR_EACH_VERTEX")}
            } else {
${initial.ks_degrees_loop("FOR_EACH_VERTEX")}
            }
        }
        {   __global const offset_t *xadj = rxadj; __global const index_t *adj = radj;
            const index_t n = nr; volatile __global index_t *mine = rmatch;
            volatile __global index_t *other = cmatch; __global index_t *deg = rdeg;
            if (round == 0) {
${initial.ks_degrees_first_loop("FOR_EACH_VERTEX")}
            } else {
${initial.ks_degrees_loop("FOR_EACH_VERTEX")}
            }
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        {   __global const offset_t *xadj = cxadj; __global const index_t *adj = cadj;
            const index_t n = nc; volatile __global index_t *mine = cmatch;
            volatile __global index_t *other = rmatch; __global const index_t *deg = cdeg;
${initial.ks_match_deg1_loop("FOR_EACH_VERTEX")}
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        {   __global const offset_t *xadj = rxadj; __global const index_t *adj = radj;
            const index_t n = nr; volatile __global index_t *mine = rmatch;
            volatile __global index_t *other = cmatch; __global const index_t *deg = rdeg;
${initial.ks_match_deg1_loop("FOR_EACH_VERTEX")}
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
${initial.ks_match_mindeg_loop("FOR_EACH_VERTEX")}
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        const int made = flags[0];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (made == 0) break;
    }
    if (init_kind > 0) {
${initial.cheap_match_loop("FOR_EACH_VERTEX")}
    }
    if (get_local_id(0) == 0) flags[1] = 0;
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    FOR_EACH_VERTEX(c, nc)                        /* the initial matching's cardinality */
        if (cmatch[c] >= 0) atomic_inc(&flags[1]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) out[4] = flags[1];
    for (;;) {
        if (get_local_id(0) == 0) { flags[0] = 0; flags[1] = 0; }
${init_bfs_array_loop()}
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        int bfs_level = L0, inserted, found;
        for (;;) {
${gpubfs_loop("FOR_EACH_VERTEX")}
            barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
            inserted = flags[0];
            found = flags[1];
            barrier(CLK_LOCAL_MEM_FENCE);
            if (inserted != bfs_level + 1) break;                /* no vertex inserted */
% if apsb:
            if (found) break;                                    /* Alg. 1 lines 9-10 */
% endif
            if (bfs_level - L0 > nc + 1) { exceeded = 1; break; }   /* at most nc levels */
            ++bfs_level;
        }
        const int depth = inserted ? inserted - L0 + 1 : 1;
        levels += depth;
        max_depth = max(max_depth, depth);
        if (!found || exceeded) break;
        if (++phases > max_phases) { exceeded = 1; break; }
${alternate_loop()}
        barrier(CLK_GLOBAL_MEM_FENCE);
${fix_matching_rows_loop()}
        barrier(CLK_GLOBAL_MEM_FENCE);
${fix_matching_cols_loop()}
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
    if (get_local_id(0) == 0) {
        out[0] = phases; out[1] = levels; out[2] = max_depth; out[3] = exceeded;
    }
}
% endif
