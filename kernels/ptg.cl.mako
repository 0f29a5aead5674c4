<%doc>
  PTG: parallel tree grafting, MS-BFS-Graft (Azad, Buluc, Pothen, "A parallel tree grafting
  algorithm for maximum cardinality matching in bipartite graphs", IPDPS 2015; IEEE TPDS
  2017), as summarised in shared/papers/001 Section 3.2. X = columns (the searching side: every
  unmatched column roots an alternating tree), Y = rows; cmatch[x] / rmatch[y] are the mates
  (-1 unmatched). The paper's steps, each a kernel below:
    Step 1  the alternating BFS forest, level-synchronous from the frontier of the active trees:
            TopDown (frontier columns claim unvisited rows) or BottomUp (unvisited rows look for
            a neighbour in an active tree), chosen per level by the host (the alpha rule);
    Step 2  Augment every tree that found an augmenting path (vertex-disjoint: one per tree);
    Step 3  Graft: the rows of augmented (renewable) trees are unvisited again, and those next
            to an active tree join it (BottomUp from them; their mates are the next frontier),
            or, when the active trees are small next to the renewable rows, the forest is
            rebuilt from the unmatched columns (RebuildForest).
  Arrays (index_t, -1 = NONE):
    rroot[y]   the root of row y's tree; visited(y) <=> rroot[y] != NONE (the claim of a row
               writes its root with one atomic_cmpxchg, so "visited" and "root" never disagree);
               RELEASED between count_forest and graft: a row of an augmented tree (below)
    parent[y]  the column through which y joined its tree
    croot[x]   the root of column x's tree
    clevel[x]  the BFS level at which x joined the frontier (levels are never reused in a run,
               so a stale value never equals the current level)
    leaf[r]    per root column r: the unmatched row that ends its augmenting path, NONE while
               the tree is active; an augmented root keeps its leaf, so its tree's leftover
               columns stay renewable (never active again). Set once, by atomic_cmpxchg: when
               several work-items of a tree claim free rows in one launch (a GPU does, a
               sequential CPU loop never), the first is the leaf and the others stay in the
               tree as plain rows (free rows of a renewable tree after the augment).
  A tree r is active iff leaf[r] == NONE (IN_ACTIVE_TREE below).
  Disjoint paths: a tree's rows and its columns' mates never leave it until it has augmented
  (only unvisited rows are claimed, a column changes tree only when its mate does), so the
  path from leaf[r] to r is r's alone. The one kernel that takes rows out of trees, Graft,
  must not decide "renewable" from leaf[] in the launch that also writes leaf[] (a released
  free row grafted onto tree r ends r's path and makes r "renewable" mid-launch: r's later
  rows were then released too, re-grafted or claimed elsewhere, and r's path ran into another
  tree that augmented in the same launch: row_match and col_match disagreed on GPUs). The
  augmented trees are fixed before Graft: count_forest marks their rows RELEASED.
  flags[] (int, zeroed by the host): F_NEXT columns put in the next frontier, F_LEAVES unmatched
  rows claimed (paths found), F_PATHS paths augmented, C_* the forest's counts for Step 3,
  F_GRAFTED set when Graft ran (Step 3 decided on the device, RENEWAL_GUARD), F_F0 and F_U0
  the next BFS's first frontier and unvisited rows (phase_start); from F_BATCH on, the same
  two counts per level of a batch of BFS levels (LEVEL_GUARD).
  heavy_degree (optional, common.cl.mako): TopDown expands heavy columns by a work-group.
</%doc>
<%namespace name="common" file="common.cl.mako"/>
<%include file="common.cl.mako"/>
<%include file="grid.cl.mako"/>
<%
    heavy = int(context.get('heavy_degree', -1)) >= 0
    queue = bool(context.get('queue', False))
    lanes = int(context.get('lanes', 1))
    sparse = bool(context.get('sparse_counts', False))
    HEAVY_PARAMS = " HEAVY_PARAMS" if heavy else ""
    EACH = "FOR_EACH_LIGHT_VERTEX" if heavy else "FOR_EACH_VERTEX"
%>\
#define NONE (-1)
#define RELEASED (-2)
#define L0 2
#define F_NEXT 0
#define F_LEAVES 1
#define F_PATHS 2
#define C_ACTIVE_COLS 3
#define C_RENEWABLE_ROWS 4
#define C_ACTIVE_ROWS 5
#define F_GRAFTED 6
#define F_F0 7
#define F_U0 8
#define F_BATCH 9
#define IN_ACTIVE_TREE(r) ((r) != NONE && leaf[r] == NONE)

/* A batch's first frontier: frontier0, or the one phase_start wrote (F_F0) when the batch
   starts a phase whose Step 3 ran on the device (frontier0 < 0). */
inline int first_frontier(int frontier0, __global const int *flags)
{
    return frontier0 < 0 ? flags[F_F0] : frontier0;
}
/* The frontier and the unvisited rows after the first i levels of a batch that began with
   frontier0 columns and unvisited0 unvisited rows (frontier0 < 0: at F_F0, F_U0), from the
   levels' counts at F_BATCH + 2j: level i's state, as the device sees it. */
inline void batch_state(int i, int frontier0, int unvisited0, __global const int *flags,
                        int *frontier, int *unvisited)
{
    *frontier = first_frontier(frontier0, flags);
    *unvisited = frontier0 < 0 ? flags[F_U0] : unvisited0;
    for (int j = 0; j < i; ++j) {
        *frontier = flags[F_BATCH + 2 * j];
        *unvisited -= flags[F_BATCH + 2 * j] + flags[F_BATCH + 2 * j + 1];
    }
}
/* LEVEL_GUARD(TOP_DOWN): whether this launch is the level's direction, decided on the device
   so that the host can enqueue a batch of levels between two read-backs. decide == 0: run
   (a single level, the direction chosen by the host). Else this is level i of a batch whose
   levels count into flags[F_BATCH + 2j] (next frontier, free rows claimed) and that began
   with frontier0 columns and unvisited0 unvisited rows: the level's frontier is the last
   level's count (none: the BFS has ended, both kernels return), and it runs top-down iff
   |F| * alpha < |unvisited rows| (the paper's rule; the bottom-up kernel takes the other
   case), or top-down whatever the rule says with decide == 2 (the host launched no
   bottom-up: it expects the frontier to stay small). frontier0 < 0: the batch starts a
   phase whose Step 3 ran on the device, its frontier and unvisited rows at F_F0, F_U0.
   Every input was written by an earlier launch: the choice is uniform over the grid (no
   barrier is skipped by part of a group). */
inline int level_runs(int top_down, int decide, int i, int frontier0, int unvisited0,
                      float alpha, __global const int *flags)
{
    if (!decide) return 1;
    int frontier, unvisited;
    batch_state(i, frontier0, unvisited0, flags, &frontier, &unvisited);
    if (frontier == 0) return 0;
    if (decide == 2) return top_down;
    const int td = (float)frontier * alpha < (float)unvisited;
    return top_down ? td : !td;
}
#define LEVEL_ARGS int decide, int batch_i, int frontier0, int unvisited0, float alpha, \
    int slot
/* The frontier queues (queue mode): fq[0 .. qn) holds the columns of the frontier of the
   even levels, fq[qn .. 2 qn) of the odd ones; a column joining the frontier of level L is
   appended to L's queue (QUEUE_FLUSH: a work-item's columns together, their places reserved
   by one atomic addition to the count slot nslot, which then holds that frontier's size).
   TopDown then visits its queue instead of every column. */
#define QUEUE_ARGS __global index_t *fq, index_t qn
/* The heavy list of the levels of top_down_group and top_down_grid (with a heavy tier): a
   level's heavy columns at hq[0 .. flags[hslot0 + i]) for level i of the launch. */
#define HEAVY_LIST_ARGS volatile __global index_t *hq, int hslot0
#define LEVEL_GUARD(TD) \
    if (!level_runs(TD, decide, batch_i, frontier0, unvisited0, alpha, flags)) return

/* dst[0..k) += this work-group's counts (c0, c1, c2 of each work-item), summed in local memory
   first: one global atomic per group and count. Every work-item of the group must call it (it
   holds barriers). The local adds are unconditional (PoCL 3.1 miscompiles a local atomic
   under a work-item-dependent branch next to barriers, see common.cl.mako). */
inline void add_group_counts(int k, int c0, int c1, int c2, __global int *dst,
                             volatile __local int *s)
{
    if (get_local_id(0) == 0) { s[0] = 0; s[1] = 0; s[2] = 0; }
    barrier(CLK_LOCAL_MEM_FENCE);
% if sparse:
    if (c0) atomic_add(&s[0], c0);
    if (k > 1 && c1) atomic_add(&s[1], c1);
    if (k > 2 && c2) atomic_add(&s[2], c2);
% else:
    atomic_add(&s[0], c0);
    if (k > 1) atomic_add(&s[1], c1);
    if (k > 2) atomic_add(&s[2], c2);
% endif
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        for (int i = 0; i < k; ++i)
            if (s[i]) atomic_add(&dst[i], s[i]);
    }
}

/* QUEUE_FLUSH (queue mode): a work-item's columns for the frontier of `level`, kept in
   qbuf (up to QBUF), appended to that level's queue with one atomic addition to its count
   (nslot) instead of one per column (a full qbuf, mid-kernel). */
#define QBUF 16
<%def name="queue_flush(level)">{
                            const int at_ = atomic_add(&flags[nslot], qcnt);
                            __global index_t *dst_ = fq + (size_t)((${level}) & 1) * qn + at_;
                            for (int i_ = 0; i_ < qcnt; ++i_) dst_[i_] = qbuf[i_];
                            qcnt = 0;
                        }</%def>
/* The work-group's last columns for the frontier of `level` (every work-item's qbuf) go to
   that level's queue with one atomic addition per work-group: places within the group from
   a local count, then the group's base from the global one (a GPU launch of millions of
   work-items would otherwise contend on one counter). Every work-item of the group must
   call it (barriers); the local add is unconditional (see add_group_counts). */
inline void append_group(int level, const index_t *qbuf, int qcnt, __global int *count,
                         __global index_t *fq, index_t qn, volatile __local int *s)
{
    if (get_local_id(0) == 0) s[0] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
% if sparse:
    const int at = qcnt ? atomic_add(&s[0], qcnt) : 0;
% else:
    const int at = atomic_add(&s[0], qcnt);
% endif
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) s[1] = s[0] ? atomic_add(count, s[0]) : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    __global index_t *dst = fq + (size_t)(level & 1) * qn + s[1] + at;
    for (int i = 0; i < qcnt; ++i) dst[i] = qbuf[i];
    barrier(CLK_LOCAL_MEM_FENCE);             /* (s is reused by the caller) */
}
<%def name="queue_end(level)">
% if context.get('queue', False):
    append_group(${level}, qbuf, qcnt, &flags[nslot], fq, qn, sums);
    qcnt = 0;
% endif
</%def>
/* ATTACH: row y joins tree r through column x (updatePointers of MS-BFS-Graft's TopDown and
   BottomUp): parent[y] <- x; an unmatched y ends the tree's augmenting path (leaf[r] <- y if
   the tree has none yet, one compare-and-swap: the tree stops growing); a matched y brings
   its mate into the tree and the next frontier. The caller has made y's root r (the claim).
   n_leaves counts the free rows claimed (winners or not). */
<%def name="attach(y, x, r, level)">
                parent[${y}] = ${x};
                {
                    const index_t m = rmatch[${y}];
                    if (m == NONE) { atomic_cmpxchg(&leaf[${r}], NONE, ${y}); ++n_leaves; }
                    else {
                        croot[m] = ${r};
                        clevel[m] = ${level};
% if context.get('queue', False):
                        qbuf[qcnt++] = m;
                        if (qcnt == QBUF) ${queue_flush(level)}
% else:
                        ++n_next;
% endif
                    }
                }
</%def>

/* RENEWAL_GUARD(GRAFT): Step 3's rule decided on the device from count_forest's counts (an
   earlier launch: uniform over the grid): Graft runs iff |active columns| * alpha >
   |renewable rows|, RebuildForest iff not; guard == 0: run (the host decided). */
#define RENEWAL_ARGS int guard, float alpha
#define RENEWAL_GUARD(GRAFT) \
    if (guard && ((float)flags[C_ACTIVE_COLS] * alpha > (float)flags[C_RENEWABLE_ROWS]) \
            != (GRAFT)) return

<%def name="rebuild_body(end=True)">
    FOR_EACH_VERTEX(x, nc) {
        const int unmatched = cmatch[x] == NONE;
        croot[x] = unmatched ? x : NONE;
        clevel[x] = unmatched ? level : -1;
        leaf[x] = NONE;
% if queue:
        if (unmatched) {
            qbuf[qcnt++] = x;
            if (qcnt == QBUF) ${queue_flush("level")}
        }
% endif
    }
% if end:
${queue_end("level")}
% endif
    FOR_EACH_VERTEX(y, nr) rroot[y] = NONE;
</%def>
/* RebuildForest (Step 3's rebuild, and the initial forest of MS-BFS-Graft): every unmatched
   column is the root of a tree of its own in the frontier of `level`, every other vertex is
   in no tree and every row unvisited. */
__kernel void rebuild_forest(index_t nr, index_t nc, __global const index_t *cmatch,
                             __global index_t *croot, __global int *clevel,
                             __global index_t *leaf, __global index_t *rroot, int level,
                             QUEUE_ARGS, __global int *flags, int nslot, RENEWAL_ARGS)
{
    RENEWAL_GUARD(0);
% if queue:
    __local int sums[3];
    index_t qbuf[QBUF];
    int qcnt = 0;
% endif
${rebuild_body()}
}

<%def name="claim_edge(j)">
            {
                const index_t y = cadj[${j}];
                /* TopDown: test, then claim (visited[y] and root[y] in one compare-and-swap) */
                if (rroot[y] == NONE && atomic_cmpxchg(&rroot[y], NONE, r) == NONE) {
${attach("y", "x", "r", "level + 1")}
                }
            }
</%def>

/* TopDown's work for frontier column x of `level`: unless its tree is renewable, it claims
   its unvisited rows until the tree has found an augmenting path (leaf[r] set, tested per
   edge). */
<%def name="expand_column()">
        const index_t r = croot[x];
        if (leaf[r] != NONE) continue;                          /* a renewable tree */
        for (offset_t j = cxadj[x]; j < cxadj[x + 1] && leaf[r] == NONE; ++j)
${claim_edge("j")}
</%def>
/* The size of level i's frontier in a batch (queue mode): the count of the level before,
   or the batch's first frontier. */
inline int batch_frontier(int i, int frontier0, __global const int *flags)
{
    return i > 0 ? flags[F_BATCH + 2 * (i - 1)] : first_frontier(frontier0, flags);
}

/* With a heavy tier, a heavy column in a frontier queue is not a light work-item's: TopDown's
   launch leaves it to the heavy tier's groups (which find it by its level), the levels of
   top_down_group and top_down_grid append it to the level's heavy list (`hlist`: hq, counted
   at flags[hslot]; by one work-item of its team, `first`) for their heavy pass. */
<%def name="skip_heavy(hlist, first)">
% if heavy:
            if (IS_HEAVY(cxadj[x + 1] - cxadj[x])) {
%   if hlist:
                if (${first}) hq[atomic_add(&flags[hslot], 1)] = x;
%   endif
                continue;
            }
% endif
</%def>
/* The columns of a frontier queue (`frontier`, qlen of them) expanded by work-items id of
   size (of the launch or of the group): with LANES > 1, a team of up to LANES work-items
   per column while the frontier is small against them, its rows claimed in parallel (a
   shorter chain of dependent reads per level), else one work-item per column. */
<%def name="visit_frontier(id, size, hlist=False)">
% if lanes > 1:
        int team = 1;
        while (team < ${lanes} && 2 * team * qlen <= (int)${size}) team *= 2;
        const int lane = (int)${id} % team;
        for (int k = (int)${id} / team; k < qlen; k += (int)${size} / team) {
            const index_t x = frontier[k];
            if (clevel[x] != level) continue;
${skip_heavy(hlist, "lane == 0")}
            const index_t r = croot[x];
            if (leaf[r] != NONE) continue;                      /* a renewable tree */
            for (offset_t j = cxadj[x] + lane; j < cxadj[x + 1] && leaf[r] == NONE; j += team)
${claim_edge("j")}
        }
% else:
        for (int k = ${id}; k < qlen; k += ${size}) {
            const index_t x = frontier[k];
            if (clevel[x] != level) continue;
${skip_heavy(hlist, "1")}
${expand_column()}
        }
% endif
</%def>
/* TopDown (Step 1, MS-BFS-Graft's top-down BFS step): every column x of the frontier
   (clevel[x] == level) whose tree is still active claims its unvisited rows; the tree stops
   growing once it has found an augmenting path (leaf[r] set, tested per edge). With a heavy
   tier a column of degree > HEAVY_DEGREE is expanded by a whole work-group (its work-items
   claim rows j = start + lid, start + lid + lsz, ...). */
__kernel void top_down(int level, __global const offset_t *cxadj,
                       __global const index_t *cadj, index_t nc,
                       __global const index_t *rmatch, __global index_t *croot,
                       __global int *clevel, volatile __global index_t *leaf,
                       volatile __global index_t *rroot, __global index_t *parent,
                       __global int *flags, LEVEL_ARGS, QUEUE_ARGS ${HEAVY_PARAMS})
{
    __local int sums[3];
    int n_next = 0, n_leaves = 0;
    const int nslot = slot;
    LEVEL_GUARD(1);
% if queue:
    index_t qbuf[QBUF];
    int qcnt = 0;
% endif
% if heavy:
    if (IN_HEAVY_TIER()) {
        <%common:heavy_vertices v="x" active="clevel[x] == level && IN_ACTIVE_TREE(croot[x])">
        const index_t r = croot[x];
        for (offset_t j = cxadj[x] + lid; j < cxadj[x + 1] && leaf[r] == NONE; j += lsz)
${claim_edge("j")}
        </%common:heavy_vertices>
    } else
% endif
% if queue:
    /* the frontier's size: the count of the level before (or the host's) */
    {
        const int qlen = batch_frontier(decide ? batch_i : 0, frontier0, flags);
        __global const index_t *frontier = fq + (size_t)(level & 1) * qn;
%   if heavy:
${visit_frontier("LIGHT_ID()", "LIGHT_SIZE()")}
%   else:
${visit_frontier("get_global_id(0)", "get_global_size(0)")}
%   endif
    }
% else:
    ${EACH}(x, nc) {
        if (clevel[x] != level) continue;                      /* x in the frontier */
%   if heavy:
        if (IS_HEAVY(cxadj[x + 1] - cxadj[x])) continue;      /* the heavy tier's */
%   endif
${expand_column()}
    }
% endif
${queue_end("level + 1")}
    add_group_counts(2, n_next, n_leaves, 0, flags + slot, sums);
}

% if queue:
/* TopDown's work in one work-group: the group's work-items take the columns of `level`'s
   queue (`frontier`, qlen of them) in turn. */
<%def name="visit_queue()">
${visit_frontier("get_local_id(0)", "get_local_size(0)", hlist=True)}
</%def>
/* The heavy pass of a level of top_down_levels: the level's heavy columns (hq, nh of them),
   each expanded by a whole work-group (group g takes g, g + groups, ...), as the heavy tier
   of TopDown's launch expands them. */
<%def name="heavy_pass()">
        {
            const int nh = ((volatile __global const int *)flags)[hslot];
            for (int h = (int)get_group_id(0); h < nh; h += (int)get_num_groups(0)) {
                const index_t x = hq[h];
                const index_t r = croot[x];
                for (offset_t j = cxadj[x] + get_local_id(0);
                     j < cxadj[x + 1] && leaf[r] == NONE; j += get_local_size(0))
${claim_edge("j")}
            }
        }
</%def>
/* The level loop of top_down_group (one work-group, a group barrier between levels) and
   top_down_grid (grid: every group of the launch, grid_barrier between levels). With a heavy
   tier a level has two passes: the light columns by work-items or teams (the heavy ones
   listed), a barrier, then the heavy columns by whole groups (heavy_pass). */
<%def name="top_down_levels(grid)">
    __local int sums[3];
% if grid:
    __local int ok;
% endif
    index_t qbuf[QBUF];
    int qcnt = 0, i = 0, qlen, unvisited;
    /* (the state after the `after` levels of a batch launched just before it) */
    batch_state(after, frontier0, unvisited0, flags, &qlen, &unvisited);
    /* grid barriers per level: with a heavy tier, one more between the light and the heavy
       pass (the heavy list complete) */
    const int per_level = ${2 if heavy else 1};
    for (; i < levels; ++i) {
        /* the alpha rule (as LEVEL_GUARD's) on the counts of the level before, read after
           the barrier below (volatile: not a stale cached copy): uniform over the group */
        if (!qlen || qlen > most || !((float)qlen * alpha < (float)unvisited)) break;
        const int level = level0 + i, nslot = F_BATCH + 2 * (after + i), hslot = hslot0 + i;
        int n_next = 0, n_leaves = 0;
% if grid:
        volatile __global const index_t *frontier = fq + (size_t)(level & 1) * qn;
${visit_frontier("get_global_id(0)", "get_global_size(0)", hlist=True)}
% else:
        __global const index_t *frontier = fq + (size_t)(level & 1) * qn;
${visit_queue()}
% endif
% if heavy and grid:
        if (!grid_barrier(flags + bar_slot, (per_level * i + 1) * (int)get_num_groups(0),
                          spin_limit, &ok)) {
            if (get_local_id(0) == 0) flags[bar_slot + 1] = 1;
            break;
        }
${heavy_pass()}
% elif heavy:
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
${heavy_pass()}
% endif
${queue_end("level + 1")}
        add_group_counts(2, n_next, n_leaves, 0, flags + nslot, sums);
% if grid:
        if (!grid_barrier(flags + bar_slot, per_level * (i + 1) * (int)get_num_groups(0),
                          spin_limit, &ok)) {
            if (get_local_id(0) == 0) flags[bar_slot + 1] = 1;
            break;
        }
% else:
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
% endif
        volatile __global const int *counts = flags + nslot;
        qlen = counts[0];
        unvisited -= counts[0] + counts[1];
    }
    if (${"get_global_id" if grid else "get_local_id"}(0) == 0) flags[done_slot] = i;
</%def>
/* TopDown for up to `levels` BFS levels in one work-group (queue mode), from level level0:
   while the alpha rule picks top-down and the frontier holds at most `most` columns, the
   group takes a level's queue, then, after a barrier, the next one; counts at F_BATCH + 2i
   as a batch of launches has them, and the levels run at flags[done_slot]. Levels of a few
   columns, hundreds of them on meshes, then cost a launch between them all instead of two
   each. after > 0: the launch goes on from the `after` levels of a batch launched just
   before it (frontier0 and unvisited0 as that batch's), from their counts, and its own
   counts follow theirs (F_BATCH + 2 (after + i)): the host reads both at once. */
__kernel void top_down_group(int level0, __global const offset_t *cxadj,
                             __global const index_t *cadj, index_t nc,
                             __global const index_t *rmatch, __global index_t *croot,
                             __global int *clevel, volatile __global index_t *leaf,
                             volatile __global index_t *rroot, __global index_t *parent,
                             __global int *flags, int levels, int after, int frontier0,
                             int unvisited0, float alpha, int most, int done_slot, QUEUE_ARGS,
                             HEAVY_LIST_ARGS)
{
${top_down_levels(grid=False)}
}
% endif

% if queue:
/* TopDown for up to `levels` BFS levels in ONE launch of `groups` work-groups (GPUs; queue
   mode), from level level0, while the alpha rule picks top-down and the frontier holds at
   most `most` columns: the work-items stride over a level's queue (teams, visit_frontier),
   then a barrier over the groups (grid_barrier, arrivals at flags[bar_slot]) and every
   group reads the level's counts. Counts at F_BATCH + 2i as a batch of launches has them
   (after a batch's `after` levels, as top_down_group's), the levels run at
   flags[done_slot], 1 at flags[bar_slot + 1] if a barrier gave up. The arrays other groups
   write during the launch (croot, clevel, leaf, rroot, the queues, the counts, the heavy
   list) are read volatile: not from a compute unit's stale cache. Meshes' and power-law
   graphs' levels of a few thousand columns then cost a barrier each (two with a heavy
   tier) instead of a launch and a host round trip per batch. */
__kernel void top_down_grid(int level0, __global const offset_t *cxadj,
                            __global const index_t *cadj, index_t nc,
                            __global const index_t *rmatch, volatile __global index_t *croot,
                            volatile __global int *clevel, volatile __global index_t *leaf,
                            volatile __global index_t *rroot, __global index_t *parent,
                            __global int *flags, int levels, int after, int frontier0,
                            int unvisited0, float alpha, int most, int done_slot, int bar_slot,
                            int spin_limit, QUEUE_ARGS, HEAVY_LIST_ARGS)
{
${top_down_levels(grid=True)}
}
% endif

<%def name="find_active_neighbour(level)">
        for (offset_t j = rxadj[y]; j < rxadj[y + 1]; ++j) {
            const index_t x = radj[j];
            const index_t r = croot[x];
            if (!IN_ACTIVE_TREE(r)) continue;
            rroot[y] = r;                          /* only y's work-item writes y: no claim */
${attach("y", "x", "r", level)}
            break;
        }
</%def>

<%def name="bottom_up_body(end=True)">
    FOR_EACH_VERTEX(y, nr) {
        if (rroot[y] != NONE) continue;                         /* visited */
${find_active_neighbour("level + 1")}
    }
% if end:
${queue_end("level + 1")}
% endif
</%def>
/* BottomUp (Step 1, MS-BFS-Graft's bottom-up BFS step): every unvisited row looks for a
   neighbour column in an active tree and joins the first it finds. Each row is written by its
   own work-item only; a column that joins a tree in this launch may or may not be seen (either
   is a valid alternating tree: the BFS goes on until a level adds no column). */
__kernel void bottom_up(int level, __global const offset_t *rxadj,
                        __global const index_t *radj, index_t nr,
                        __global const index_t *rmatch, volatile __global index_t *croot,
                        __global int *clevel, volatile __global index_t *leaf,
                        __global index_t *rroot, __global index_t *parent,
                        __global int *flags, LEVEL_ARGS, QUEUE_ARGS)
{
    __local int sums[3];
    int n_next = 0, n_leaves = 0;
    const int nslot = slot;
    LEVEL_GUARD(0);
% if queue:
    index_t qbuf[QBUF];
    int qcnt = 0;
% endif
${bottom_up_body()}
    add_group_counts(2, n_next, n_leaves, 0, flags + slot, sums);
}

<%def name="augment_body()">
    FOR_EACH_VERTEX(x0, nc) {
        if (cmatch[x0] != NONE) continue;                       /* a root is unmatched */
        index_t y = leaf[x0];
        if (y == NONE) continue;                                /* an active tree */
        for (index_t steps = 0; steps <= nc; ++steps) {
            const index_t x = parent[y];
            const index_t next = cmatch[x];
            cmatch[x] = y;
            rmatch[y] = x;
            if (next == NONE) break;                            /* x == x0 */
            y = next;
        }
        ++n_paths;
    }
</%def>
/* Augment (Step 2 of MS-BFS-Graft): every tree that found an augmenting path (its root x0 is
   still unmatched and leaf[x0] set) flips the path from its leaf back to x0 along parent[] and
   the mates. Trees are vertex-disjoint, so the paths are; the walk is bounded by nc steps. */
__kernel void augment(index_t nc, __global index_t *cmatch, __global index_t *rmatch,
                      __global const index_t *leaf, __global const index_t *parent,
                      __global int *flags)
{
    __local int sums[3];
    int n_paths = 0;
${augment_body()}
    add_group_counts(1, n_paths, 0, 0, flags + F_PATHS, sums);
}

<%def name="count_body()">
    FOR_EACH_VERTEX(x, nc) active_cols += IN_ACTIVE_TREE(croot[x]);
    FOR_EACH_VERTEX(y, nr) {
        const index_t r = rroot[y];
        if (r >= 0) {
            if (leaf[r] == NONE) ++active_rows;
            else {
                ++renewable_rows;
                if (release) rroot[y] = RELEASED;
            }
        }
    }
</%def>
/* The counts of Step 3's rule (MS-BFS-Graft's Graft): columns in active trees (activeX), rows
   in renewable trees (renewableY) and rows in active trees (activeY). With release != 0 (after
   Augment) the rows of renewable trees are also marked RELEASED: the renewable set is fixed
   here, in a launch that writes no leaf[], for Graft (which does write leaf[]) to take. */
__kernel void count_forest(index_t nr, index_t nc, __global const index_t *croot,
                           __global index_t *rroot, __global const index_t *leaf,
                           int release, __global int *flags)
{
    __local int sums[3];
    int active_cols = 0, renewable_rows = 0, active_rows = 0;
${count_body()}
    add_group_counts(3, active_cols, renewable_rows, active_rows, flags + C_ACTIVE_COLS, sums);
}

<%def name="graft_body(end=True)">
    FOR_EACH_VERTEX(y, nr) {
        if (rroot[y] != RELEASED) continue;                     /* not renewable */
        rroot[y] = NONE;                                        /* visited[y] <- 0 */
${find_active_neighbour("level")}
    }
% if end:
${queue_end("level")}
% endif
</%def>
/* Graft (Step 3 of MS-BFS-Graft, when the active trees are large enough): every row of a
   renewable tree (RELEASED by count_forest) becomes unvisited (root NONE), then joins an
   active tree next to it if there is one, as in BottomUp (its mate joins the frontier of
   `level`). Only the released rows change: a row of an active tree keeps its place, also
   when its tree finds a leaf in this launch (a released free row grafted onto it). */
__kernel void graft(int level, __global const offset_t *rxadj, __global const index_t *radj,
                    index_t nr, __global const index_t *rmatch,
                    volatile __global index_t *croot, __global int *clevel,
                    volatile __global index_t *leaf, __global index_t *rroot,
                    __global index_t *parent, __global int *flags, QUEUE_ARGS,
                    RENEWAL_ARGS)
{
    __local int sums[3];
    int n_next = 0, n_leaves = 0;
    const int nslot = F_NEXT;
    RENEWAL_GUARD(1);
    if (get_global_id(0) == 0) flags[F_GRAFTED] = 1;
% if queue:
    index_t qbuf[QBUF];
    int qcnt = 0;
% endif
${graft_body()}
    add_group_counts(2, n_next, n_leaves, 0, flags + F_NEXT, sums);
}

% if queue and not heavy and mode == "ct":
/* MS-BFS-Graft whole in ONE work-group (small graphs; rendered in CT mode, which the driver
   asks for on every device): the phases of the kernels above, a barrier (global and local
   fence: visibility inside the group) where the large path ends a launch, launched once
   with global size = local size (FOR_EACH_VERTEX strides over the group). Every branch
   around a barrier depends on counts all work-items read after a barrier: uniform over the
   group. From the initial forest at level 1 to the final one;
   out[0..6) = phases, BFS levels, top-down levels, grafts, paths, and 1 if a bound was
   exceeded (phases or a BFS's levels: the host raises IterationLimitError). No barrier is
   inside a branch (the branches' queues are appended after them): PoCL 5.0's work-item loops
   abort the build on barriers in both arms of an if. */
__kernel void ptg_one_group(__global const offset_t *cxadj, __global const index_t *cadj,
                            __global const offset_t *rxadj, __global const index_t *radj,
                            index_t nr, index_t nc, __global index_t *rmatch,
                            __global index_t *cmatch, volatile __global index_t *croot,
                            __global int *clevel, volatile __global index_t *leaf,
                            volatile __global index_t *rroot, __global index_t *parent,
                            __global int *flags, QUEUE_ARGS, float alpha,
                            __global int *out)
{
    __local int sums[3];
    index_t qbuf[QBUF];
    int qcnt = 0, n_next = 0, n_leaves = 0, n_paths = 0;
    int active_cols = 0, renewable_rows = 0, active_rows = 0;
    const int nslot = F_NEXT, release = 1;
    int level = 1, phases = 0, levels = 0, down = 0, grafts = 0, paths = 0, exceeded = 0;
    int unmatched, nfront, unvisited = nr, found = 0;
    if (get_local_id(0) == 0) flags[F_NEXT] = 0;
    barrier(CLK_GLOBAL_MEM_FENCE);
${rebuild_body()}
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    unmatched = nfront = flags[F_NEXT];
    for (;;) {
        for (int depth = 0; nfront; ++depth) {              /* Step 1: the BFS levels */
            if (depth > nr + 2) { exceeded = 1; break; }
            barrier(CLK_GLOBAL_MEM_FENCE);                  /* (all have read the counts) */
            if (get_local_id(0) == 0) { flags[F_NEXT] = 0; flags[F_LEAVES] = 0; }
            barrier(CLK_GLOBAL_MEM_FENCE);
            n_next = n_leaves = 0;
            const int td = (float)nfront * alpha < (float)unvisited;
            if (td) {                                            /* TopDown */
                const int qlen = nfront;
                __global const index_t *frontier = fq + (size_t)(level & 1) * qn;
${visit_queue()}
            } else {                                             /* BottomUp */
${bottom_up_body(end=False)}
            }
${queue_end("level + 1")}
            down += td;
            add_group_counts(2, n_next, n_leaves, 0, flags + F_NEXT, sums);
            barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
            const int nxt = flags[F_NEXT], claimed = flags[F_LEAVES];
            nfront = nxt;
            unvisited -= nxt + claimed;
            found += claimed;
            ++level;
            ++levels;
        }
        if (!found || exceeded) break;
        if (++phases > min(nr, nc) + 2) { exceeded = 1; break; }
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (get_local_id(0) == 0)
            for (int i = F_PATHS; i <= C_ACTIVE_ROWS; ++i) flags[i] = 0;
        barrier(CLK_GLOBAL_MEM_FENCE);
        n_paths = 0;                                             /* Step 2: Augment */
${augment_body()}
        add_group_counts(1, n_paths, 0, 0, flags + F_PATHS, sums);
        barrier(CLK_GLOBAL_MEM_FENCE);
        active_cols = renewable_rows = active_rows = 0;          /* Step 3's counts */
${count_body()}
        add_group_counts(3, active_cols, renewable_rows, active_rows,
                         flags + C_ACTIVE_COLS, sums);
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        const int made = flags[F_PATHS], cols = flags[C_ACTIVE_COLS];
        const int renewable = flags[C_RENEWABLE_ROWS], rows = flags[C_ACTIVE_ROWS];
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (get_local_id(0) == 0) { flags[F_NEXT] = 0; flags[F_LEAVES] = 0; }
        barrier(CLK_GLOBAL_MEM_FENCE);
        paths += made;
        unmatched -= made;
        /* (a rebuild rewrites every level stamp: before the level counter could wrap) */
        const int wrap = level > 2147483647 - 4 * (nr + 4);
        level = wrap ? 1 : level + 1;
        n_next = n_leaves = 0;
        const int graft = !wrap && (float)cols * alpha > (float)renewable;
        if (graft) {                                             /* Graft */
${graft_body(end=False)}
        } else {                                                 /* RebuildForest */
${rebuild_body(end=False)}
        }
${queue_end("level")}
        add_group_counts(2, n_next, n_leaves, 0, flags + F_NEXT, sums);
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        nfront = graft ? flags[F_NEXT] : unmatched;
        found = graft ? flags[F_LEAVES] : 0;
        unvisited = graft ? nr - rows - nfront - found : nr;
        grafts += graft;
    }
    if (get_local_id(0) == 0) {
        out[0] = phases; out[1] = levels; out[2] = down; out[3] = grafts; out[4] = paths;
        out[5] = exceeded;
    }
}
% endif

/* The next BFS's first frontier and unvisited rows (F_F0, F_U0) after a Step 3 decided on
   the device (one work-item): Graft's frontier and the rows outside active trees, or, after
   RebuildForest, every unmatched column (`unmatched` before Augment, less the paths) and
   every row. */
__kernel void phase_start(index_t nr, int unmatched, __global int *flags)
{
    const int grafted = flags[F_GRAFTED];
    flags[F_F0] = grafted ? flags[F_NEXT] : unmatched - flags[F_PATHS];
    flags[F_U0] = grafted ? nr - flags[C_ACTIVE_ROWS] - flags[F_NEXT] - flags[F_LEAVES] : nr;
}

/* The König cover's BFS array (the API's convention, values >= L0 = reached from an unmatched
   column) from the final forest: after a phase that found no augmenting path every tree is
   active and complete, and its columns are exactly those reachable from unmatched columns. */
__kernel void cover_bfs_array(index_t nc, __global const index_t *croot,
                              __global const index_t *leaf, __global int *bfs_array)
{
    FOR_EACH_VERTEX(x, nc) bfs_array[x] = IN_ACTIVE_TREE(croot[x]) ? L0 : L0 - 1;
}
