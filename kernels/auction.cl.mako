<%doc>
  Bertsekas' auction algorithm for the assignment problem, Jacobi (parallel) bidding, on a
  square sparse problem of n rows (bidders) and n columns (objects) with integer benefits:
  row i may take column col[e] for e in ptr[i] .. ptr[i+1]-1 with benefit a[e] (long), and
  maximises the total benefit. Prices price[j] (long) only rise. One bidding round is three
  launches: auction_bid (the rows bid), auction_tie (the highest bid of a column is kept,
  ties to the smaller row), auction_assign (the columns take their bids). The host runs the
  rounds of one epsilon-scaling phase until every row is assigned (flags[2] = 0).
  Template values: those of common.cl.mako (mode "ct": strided loops), ptx_fence
  (grid.cl.mako), grid_wide (auction_grid's bidding: a work-group per row).
  Arrays: row_match[n] (-1 unassigned), owner[n] (the row a column is assigned to, -1),
  bid_col[n], bid[n] (a row's bid of the round), col_bid[n] (LONG_MIN: none),
  col_winner[n] (INT_MAX: none), flags[6] (flags[0]: the last pass in which a row bid;
  flags[1]: a price passed PRICE_LIMIT; flags[2]: the unassigned rows, kept by the kernels
  from the count the host sets at the start of a phase; flags[3]: the rounds of the last
  auction_tail or auction_grid; flags[4], flags[5]: auction_grid's barrier arrivals and
  whether one gave up).
</%doc>
<%include file="common.cl.mako"/>
<%include file="grid.cl.mako"/>
<% grid_wide = bool(context.get('grid_wide', False)) %>\
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#define NO_BID LONG_MIN
#define NO_WINNER INT_MAX
/* prices above this may overflow a later bid: the host stops and says so */
#define PRICE_LIMIT (LONG_MAX / 4)

/* Best and second-best values a_ij - p_j (and the best's column bj) of row i's entries
   start, start + step, ... (the caller declares best, second, bj): four entries a loop
   trip, their loads issued together (a scan is a chain of dependent loads otherwise). */
<%def name="best_of_row(start, step)">{
    offset_t e = ${start};
    const offset_t end = ptr[i + 1];
    for (; end - e > 3 * (${step}); e += 4 * (${step})) {
        const index_t j0 = col[e], j1 = col[e + (${step})], j2 = col[e + 2 * (${step})],
                      j3 = col[e + 3 * (${step})];
        const long v0 = a[e] - price[j0], v1 = a[e + (${step})] - price[j1],
                   v2 = a[e + 2 * (${step})] - price[j2], v3 = a[e + 3 * (${step})] - price[j3];
        CONSIDER(v0, j0); CONSIDER(v1, j1); CONSIDER(v2, j2); CONSIDER(v3, j3);
    }
    for (; e < end; e += ${step}) {
        const index_t j = col[e];
        CONSIDER(a[e] - price[j], j);
    }
}</%def>
#define CONSIDER(val, j) do { const long v_ = (val); \
    if (v_ > best) { second = best; best = v_; bj = (j); } \
    else if (v_ > second) second = v_; } while (0)

/* The benefits a[e] of the costs c[e] (pyclmatch.assignment.auction.BenefitMap, whose
   apply() is the host's same map, operation for operation): mode 0 (integral) (cmax - c) *
   mult, mode 1 (rounded) rint((cmax / 2 - c / 2) / hspan * top), mode 2 0. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
__kernel void benefits(offset_t nnz, __global const double *c, __global long *a, int mode,
                       double cmax, double hspan, double top, double mult)
{
    for (offset_t e = get_global_id(0); e < nnz; e += get_global_size(0)) {
        double t = c[e] * -0.5;
        t += cmax / 2;
        t /= hspan;
        t *= top;
        a[e] = mode == 0 ? (long)((cmax - c[e]) * mult) : mode == 1 ? (long)rint(t) : 0;
    }
}

/* Bidding (Bertsekas' forward auction, step 1): every unassigned row i finds its best value
   best = a_ij - p_j over its entries, its column j, and the second-best value second; its
   bid for j is p_j + (best - second) + eps (a row with one entry bids p_j + lonely + eps).
   The column keeps the highest bid (one 64-bit atomic maximum per bid). */
<%def name="bid_step(mark='')">
    FOR_EACH_VERTEX(i, n) {
        if (row_match[i] >= 0) continue;
        long best = NO_BID, second = NO_BID;
        index_t bj = -1;
        ${best_of_row('ptr[i]', '1')}
        if (bj < 0) continue;
        const long b = price[bj] + (second == NO_BID ? lonely : best - second) + eps;
        bid_col[i] = bj;
        bid[i] = b;
        atom_max(&col_bid[bj], b);
        ${mark}
    }
</%def>
__kernel void auction_bid(index_t n, __global const offset_t *ptr,
                          __global const index_t *col, __global const long *a,
                          __global const long *price, __global const index_t *row_match,
                          __global index_t *bid_col, __global long *bid,
                          __global long *col_bid, long eps, long lonely, int pass,
                          __global int *flags)
{
    int bids = 0;
${bid_step("bids = 1;")}
    if (bids) flags[0] = pass;
}

/* Bidding for long rows (degree-aware: dense and heavy problems): one work-group per
   unassigned row, its work-items strided over the row's entries, their best and second-best
   values merged in local memory; then the same bid as auction_bid. */
inline void merge_best(__local long *sb, __local long *ss, __local index_t *sj, int a, int b)
{
    const long b1 = sb[a], b2 = sb[b];
    if (b2 > b1) { ss[a] = max(b1, max(ss[a], ss[b])); sb[a] = b2; sj[a] = sj[b]; }
    else ss[a] = max(b2, max(ss[a], ss[b]));
}

/* (row i's bid by the whole group; `mark`: what the bidder does besides) */
<%def name="bid_row_wide(mark='')">
        long best = NO_BID, second = NO_BID;
        index_t bj = -1;
        ${best_of_row('ptr[i] + lid', 'lsz')}
        sb[lid] = best; ss[lid] = second; sj[lid] = bj;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int step = lsz / 2; step > 0; step /= 2) {
            if (lid < step) merge_best(sb, ss, sj, lid, lid + step);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0 && sj[0] >= 0) {
            const index_t j = sj[0];
            const long b = price[j] + (ss[0] == NO_BID ? lonely : sb[0] - ss[0]) + eps;
            bid_col[i] = j;
            bid[i] = b;
            atom_max(&col_bid[j], b);
            ${mark}
        }
        barrier(CLK_LOCAL_MEM_FENCE);             /* (sb, ss, sj are rewritten next row) */
</%def>
__kernel void auction_bid_wide(index_t n, __global const offset_t *ptr,
                               __global const index_t *col, __global const long *a,
                               __global const long *price, __global const index_t *row_match,
                               __global index_t *bid_col, __global long *bid,
                               __global long *col_bid, long eps, long lonely, int pass,
                               __global int *flags, __local long *sb, __local long *ss,
                               __local index_t *sj)
{
    const int lid = get_local_id(0), lsz = get_local_size(0);
    for (index_t i = get_group_id(0); i < n; i += get_num_groups(0)) {
        if (row_match[i] >= 0) continue;             /* (uniform over the group) */
${bid_row_wide("flags[0] = pass;")}
    }
}

/* Bidding, ties: of the rows whose bid equals their column's highest, the smallest wins. */
<%def name="tie_step()">
    FOR_EACH_VERTEX(i, n) {
        if (row_match[i] >= 0) continue;
        const index_t j = bid_col[i];
        if (bid[i] == col_bid[j]) atomic_min(&col_winner[j], i);
    }
</%def>
__kernel void auction_tie(index_t n, __global const index_t *row_match,
                          __global const index_t *bid_col, __global const long *bid,
                          __global const long *col_bid, __global index_t *col_winner)
{
${tie_step()}
}

/* Assignment (step 2): every column that received bids takes the highest, raises its price
   to it and is assigned to its bidder; the row it was assigned to becomes unassigned. */
<%def name="assign_step()">
    int filled = 0;
    FOR_EACH_VERTEX(j, n) {
        const index_t w = col_winner[j];
        if (w == NO_WINNER) continue;
        const index_t old = owner[j];
        if (old >= 0) row_match[old] = -1;
        else ++filled;
        owner[j] = w;
        row_match[w] = j;
        price[j] = col_bid[j];
        if (col_bid[j] > PRICE_LIMIT) flags[1] = 1;
        col_bid[j] = NO_BID;
        col_winner[j] = NO_WINNER;
    }
    if (filled) atomic_sub(&flags[2], filled);
</%def>
__kernel void auction_assign(index_t n, __global index_t *row_match, __global index_t *owner,
                             __global long *price, __global long *col_bid,
                             __global index_t *col_winner, __global int *flags)
{
${assign_step()}
}

/* The bidding rounds in ONE launch of one work-group per compute unit (pyclmatch.engine.grid:
   NVIDIA's GPUs), a barrier over the groups (grid.cl.mako) after each of a round's three
   steps: auction_bid's (or, template value grid_wide, auction_bid_wide's: a group per
   row), auction_tie's and auction_assign's, the same code (their Mako defs) on arrays read
   volatile (other groups write them during the launch). Up to max_rounds rounds, until at
   most `stop` rows are unassigned: every group reads that count (flags[2]) after the
   round's last barrier, before anyone changes it again (the next round's assignment
   step). A round then costs three barriers instead of three launches and, every few
   rounds, a read-back. Barrier arrivals count at
   flags[4] (the host zeroes flags[4] and flags[5]); a barrier that gives up sets flags[5]
   and the groups return (the host then repairs the state: pyclmatch.assignment.auction).
   flags[3]: the rounds run. */
__kernel void auction_grid(index_t n, __global const offset_t *ptr,
                           __global const index_t *col, __global const long *a,
                           volatile __global long *price, volatile __global index_t *row_match,
                           volatile __global index_t *owner, volatile __global index_t *bid_col,
                           volatile __global long *bid, volatile __global long *col_bid,
                           volatile __global index_t *col_winner, long eps, long lonely,
                           int max_rounds, int stop, int spin_limit,
                           volatile __global int *flags, __local long *sb,
                           __local long *ss, __local index_t *sj, __local index_t *todo)
{
    __local int ok, listed;
    const int lid = get_local_id(0), lsz = get_local_size(0), groups = get_num_groups(0);
    int rounds = 0, arrived = 0;
    for (; rounds < max_rounds && flags[2] > stop; ++rounds) {
% if grid_wide:
        /* (auction_bid_wide's, a group per row: the group's rows g, g + groups, ... are
           listed lsz at a time, each work-item checking one, then bid for one by one) */
        for (index_t base = get_group_id(0); base < n; base += (index_t)groups * lsz) {
            if (lid == 0) listed = 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            const index_t mine = base + (index_t)lid * groups;
            const int take = mine < n && row_match[mine] < 0;
            const int k = atomic_add(&listed, take);    /* (every work-item adds 0 or 1) */
            if (take) todo[k] = mine;
            barrier(CLK_LOCAL_MEM_FENCE);
            const int count = listed;
            for (int t = 0; t < count; ++t) {
                const index_t i = todo[t];
${bid_row_wide()}
            }
        }
% else:
        {
${bid_step()}
        }
% endif
        if (!grid_barrier(flags + 4, ++arrived * groups, spin_limit, &ok)) break;
        {
${tie_step()}
        }
        if (!grid_barrier(flags + 4, ++arrived * groups, spin_limit, &ok)) break;
        {
${assign_step()}
        }
        if (!grid_barrier(flags + 4, ++arrived * groups, spin_limit, &ok)) break;
    }
    if (arrived % 3) { if (lid == 0) flags[5] = 1; }       /* (a barrier gave up) */
    else if (get_global_id(0) == 0) flags[3] = rounds;
}

/* Epsilon-scaling, start of a phase: the rows whose assignment is not eps-optimal at the
   current prices (a_im - p_m < max_k (a_ik - p_k) - eps) are unassigned, and their columns. */
__kernel void auction_release(index_t n, __global const offset_t *ptr,
                              __global const index_t *col, __global const long *a,
                              __global const long *price, __global index_t *row_match,
                              __global index_t *owner, long eps, __global int *flags)
{
    int released = 0;
    FOR_EACH_VERTEX(i, n) {
        const index_t m = row_match[i];
        if (m < 0) continue;
        long best = NO_BID, mine = NO_BID;
        for (offset_t e = ptr[i]; e < ptr[i + 1]; ++e) {
            const long val = a[e] - price[col[e]];
            best = max(best, val);
            if (col[e] == m) mine = val;
        }
        if (mine < best - eps) { row_match[i] = -1; owner[m] = -1; ++released; }
    }
    if (released) atomic_add(&flags[2], released);
}

/* The same release for long rows (dense problems): a work-group per assigned row, its
   work-items strided over the row's entries, the best value's maximum in local memory. */
__kernel void auction_release_wide(index_t n, __global const offset_t *ptr,
                                   __global const index_t *col, __global const long *a,
                                   __global const long *price, __global index_t *row_match,
                                   __global index_t *owner, long eps, __global int *flags,
                                   __local long *most)
{
    __local long mine;
    const int lid = get_local_id(0), lsz = get_local_size(0);
    for (index_t i = get_group_id(0); i < n; i += get_num_groups(0)) {
        const index_t m = row_match[i];
        if (m < 0) continue;                  /* (uniform: only this group writes row i) */
        long best = NO_BID;
        for (offset_t e = ptr[i] + lid; e < ptr[i + 1]; e += lsz) {
            const long val = a[e] - price[col[e]];
            best = max(best, val);
            if (col[e] == m) mine = val;
        }
        most[lid] = best;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int step = lsz / 2; step > 0; step /= 2) {
            if (lid < step) most[lid] = max(most[lid], most[lid + step]);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0 && mine < most[0] - eps) {
            row_match[i] = -1;
            owner[m] = -1;
            atomic_inc(&flags[2]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The auction's tail in one work-group: when at most get_local_size(0) rows are unassigned,
   the bidding rounds (the same three steps, a barrier between steps) run inside one launch
   instead of three launches a round, for up to max_rounds rounds, or until fewer than
   min_rows are left (a smaller group then takes them: on CPU devices a round costs the
   group's size). The unassigned rows are kept in a local list: the losers of a round and the
   rows its winners displaced. A row is bid for by a team of work-items (the largest power of
   two up to team_max that the group holds once per row), strided over its entries, their
   best and second-best values merged in local memory: a row's scan costs a few dependent
   loads instead of one per entry. flags[2] ends as the rows still unassigned, flags[3] as
   the rounds run. */
__kernel void auction_tail(index_t n, __global const offset_t *ptr,
                           __global const index_t *col, __global const long *a,
                           __global long *price, __global index_t *row_match,
                           __global index_t *owner, __global long *col_bid,
                           __global index_t *col_winner, long eps, long lonely,
                           int max_rounds, int min_rows, int team_max, __global int *flags,
                           __local index_t *lists, __local long *sb, __local long *ss,
                           __local index_t *sj)
{
    __local int count, next;
    const int lid = get_local_id(0), lsz = get_local_size(0);
    __local index_t *now = lists, *later = lists + lsz;
    if (lid == 0) count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* (every work-item adds 0 or 1, outside any branch: see common.cl.mako's heavy tier on
       PoCL's local atomics) */
    for (index_t base = 0; base < n; base += lsz) {
        const index_t i = base + lid;
        const int take = i < n && row_match[i] < 0;
        const int k = atomic_add(&count, take);
        if (take && k < lsz) now[k] = i;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (count > lsz) return;                  /* (the host asks only with <= lsz rows) */
    int rounds = 0;
    for (; rounds < max_rounds && count > 0 && count >= min_rows; ++rounds) {
        int team = 1;                         /* (uniform: count is the group's) */
        while (2 * team <= team_max && 2 * team * count <= lsz) team *= 2;
        const int slot = lid / team, lane = lid % team;
        long best = NO_BID, second = NO_BID;
        index_t bj = -1;
        if (slot < count) {
            const index_t i = now[slot];
            ${best_of_row('ptr[i] + lane', 'team')}
        }
        sb[lid] = best; ss[lid] = second; sj[lid] = bj;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int step = team / 2; step > 0; step /= 2) {
            if (lane < step) merge_best(sb, ss, sj, lid, lid + step);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (slot < count && lane == 0) {     /* (the bid replaces the second best) */
            const index_t j = sj[lid];
            const long b = j < 0 ? NO_BID
                           : price[j] + (ss[lid] == NO_BID ? lonely : sb[lid] - ss[lid]) + eps;
            ss[lid] = b;
            if (j >= 0) atom_max(&col_bid[j], b);
        }
        if (lid == 0) next = 0;
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        /* (row now[lid]'s column and bid are read from local memory after each barrier:
           values kept in private variables across barriers came back wrong on PoCL) */
        const int me = lid * team, mine = lid < count;
        if (mine && sj[me] >= 0 && ss[me] == col_bid[sj[me]])
            atomic_min(&col_winner[sj[me]], now[lid]);
        barrier(CLK_GLOBAL_MEM_FENCE);
        const int won = mine && sj[me] >= 0 && col_winner[sj[me]] == now[lid];
        barrier(CLK_GLOBAL_MEM_FENCE);
        index_t old = -1;
        const index_t i = mine ? now[lid] : 0;
        if (won) {
            const index_t j = sj[me];
            const long b = ss[me];
            old = owner[j];
            owner[j] = i;
            row_match[i] = j;
            price[j] = b;
            if (b > PRICE_LIMIT) flags[1] = 1;
            col_bid[j] = NO_BID;
            col_winner[j] = NO_WINNER;
            if (old >= 0) row_match[old] = -1;
        }
        /* the next round's rows: the losers and the rows the winners displaced */
        const int take = won ? old >= 0 : mine;
        const int k = atomic_add(&next, take);
        if (take) later[k] = won ? old : i;
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        if (lid == 0) count = next;
        __local index_t *t = now; now = later; later = t;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) { flags[2] = count; flags[3] = rounds; }
}

/* ------------------------------------------------------------------- GLOBAL PRICE UPDATE
   The global update of Goldberg and Kennedy's cost-scaling assignment (CSA), in the
   auction's terms: each column's distance dist[j], in units of eps, to an unassigned column
   along the paths that a bid for it would start (j, its row i, a column k of i, k's row, ...),
   the step from i to k costing floor(s_ik / eps) with s_ik = (a_im - p_m) - (a_ik - p_k) + eps
   >= 0 (m = i's column; eps-complementary slackness); then every price rises by eps times its
   column's distance. A rise keeps eps-complementary slackness wherever
   dist[m] <= floor(s_ik / eps) + dist[k], and an unassigned row's bids then lead straight to
   the nearest unassigned columns, instead of a war of thousands of rounds.
   The distances are computed from below (value iteration from 0, capped at cap): every pass
   only raises them, and a value is computed from values that can only have grown since, so
   the inequality holds after any number of passes, not only at the fixed point: the host
   may stop early, with distances exact up to as many steps. */
__kernel void relabel_init(index_t n, __global const offset_t *ptr,
                           __global const index_t *col, __global const long *a,
                           __global const long *price, __global const index_t *row_match,
                           __global int *dist, __global long *profit, int rows)
{
    FOR_EACH_VERTEX(x, n) {
        dist[x] = 0;                                            /* (column x) */
        const index_t m = row_match[x];                         /* (row x: a_xm - p_m) */
        if (rows && m >= 0)
            for (offset_t e = ptr[x]; e < ptr[x + 1]; ++e)
                if (col[e] == m) profit[x] = a[e] - price[m];
    }
}

/* The steps of a bid from row i (its a_im - p_m + eps: mine) to column k: floor(s_ik / eps),
   0 where s_ik < 0 (an admissible column). */
inline long relabel_step(long mine, long a_ik, long p_k, long eps)
{
    const long s = mine - (a_ik - p_k);
    return s <= 0 ? 0 : s / eps;
}

/* One pass: each assigned row's column m takes min(cap, min over its other entries k of
   steps_ik + dist[k]) (chaotic: a column is written by its row only). flags[0]: the last
   pass that raised one. The row keeps the column of its least term (least_col, -1 before
   its first pass: the host fills it) and that column's distance then (least_dist): every
   distance only rises, so while that one has not moved the row's minimum has not either,
   and a later pass skips its entries (a read of one distance instead of a row's). */
__kernel void relabel_pass(index_t n, __global const offset_t *ptr,
                           __global const index_t *col, __global const long *a,
                           __global const long *price, __global const index_t *row_match,
                           __global const long *profit, __global int *dist, long eps,
                           int cap, int pass, __global int *flags,
                           __global index_t *least_col, __global int *least_dist)
{
    int raised = 0;
    FOR_EACH_VERTEX(i, n) {
        const index_t m = row_match[i];
        if (m < 0) continue;
        const int dm = dist[m];
        if (dm >= cap) continue;
        const index_t lc = least_col[i];
        if (lc >= 0 && dist[lc] == least_dist[i]) continue;    /* (its minimum unchanged) */
        const long mine = profit[i] + eps;
        long best = cap;
        index_t arg = -1;
        int at = 0;
        for (offset_t e = ptr[i]; e < ptr[i + 1]; ++e) {
            const index_t k = col[e];
            const int dk = dist[k];
            if (k == m || dk >= best) continue;            /* (a step costs >= 0) */
            const long t = relabel_step(mine, a[e], price[k], eps) + dk;
            if (t < best) { best = t; arg = k; at = dk; }
        }
        least_col[i] = arg;
        least_dist[i] = at;
        if (best > dm) { dist[m] = (int)best; raised = 1; }
    }
    if (raised) flags[0] = pass;
}

/* The same pass for long rows (dense problems): a work-group per assigned row, its
   work-items strided over the row's entries (first the matched entry's value, then the
   steps), their minima (and the columns of the least terms) merged in local memory; a row
   whose least term has not moved is skipped as in relabel_pass (decided by one work-item:
   another group may be raising that distance while the group reads it). */
__kernel void relabel_pass_wide(index_t n, __global const offset_t *ptr,
                                __global const index_t *col, __global const long *a,
                                __global const long *price,
                                __global const index_t *row_match, __global int *dist,
                                long eps, int cap, int pass, __global int *flags,
                                __local long *least, __global index_t *least_col,
                                __global int *least_dist, __local index_t *least_k,
                                __local int *least_d)
{
    __local long mine;
    __local int skip;
    const int lid = get_local_id(0), lsz = get_local_size(0);
    for (index_t i = get_group_id(0); i < n; i += get_num_groups(0)) {
        const index_t m = row_match[i];
        if (m < 0) continue;                  /* (uniform over the group; so is dist[m]:
                                                 only this row's group writes it) */
        const int dm = dist[m];
        if (dm >= cap) continue;
        if (lid == 0) {
            const index_t lc = least_col[i];
            skip = lc >= 0 && dist[lc] == least_dist[i];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const int skipped = skip;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (skipped) continue;                              /* (its minimum unchanged) */
        for (offset_t e = ptr[i] + lid; e < ptr[i + 1]; e += lsz)
            if (col[e] == m) mine = a[e] - price[m] + eps;
        barrier(CLK_LOCAL_MEM_FENCE);
        long best = cap;
        index_t arg = -1;
        int at = 0;
        for (offset_t e = ptr[i] + lid; e < ptr[i + 1]; e += lsz) {
            const index_t k = col[e];
            const int dk = dist[k];
            if (k == m || dk >= best) continue;            /* (a step costs >= 0) */
            const long t = relabel_step(mine, a[e], price[k], eps) + dk;
            if (t < best) { best = t; arg = k; at = dk; }
        }
        least[lid] = best;
        least_k[lid] = arg;
        least_d[lid] = at;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int step = lsz / 2; step > 0; step /= 2) {
            if (lid < step && least[lid + step] < least[lid]) {
                least[lid] = least[lid + step];
                least_k[lid] = least_k[lid + step];
                least_d[lid] = least_d[lid + step];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) {
            least_col[i] = least_k[0];
            least_dist[i] = least_d[0];
            if (least[0] > dm) { dist[m] = (int)least[0]; flags[0] = pass; }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The largest distance below the cap, top[0] (0 before): the columns at the cap (computed
   there: every step from them leads to the cap or past it) need only one more than it,
   which spreads the prices less. */
__kernel void relabel_top(index_t n, __global const int *dist, int cap, __global int *top)
{
    int most = 0;
    FOR_EACH_VERTEX(j, n) if (dist[j] < cap) most = max(most, dist[j]);
    if (most) atomic_max(&top[0], most);
}

__kernel void relabel_apply(index_t n, __global long *price, __global const int *dist,
                            long eps, int cap, __global const int *top, __global int *flags)
{
    const long over = top[0] + 1;
    FOR_EACH_VERTEX(j, n) {
        const long p = price[j] + eps * (dist[j] < cap ? (long)dist[j] : over);
        price[j] = p;
        if (p > PRICE_LIMIT) flags[1] = 1;
    }
}

/* ---------------------------------------------------------------- EXACT FINISHING, STEP 1
   The tightening of pyclmatch.assignment.finish on the device: the minimisation form's
   costs c (double), the column potentials as ordered keys vkey (DKEY: a double's bits with
   the magnitude flipped for negatives, so that one 64-bit atomic minimum takes the smaller
   double), the position of each row's matched entry mpos. A row stamped with the pass
   number makes its matched entry tight (u_i = c_im - v_m) and lowers v_k to c_ik - u_i where
   that is smaller by more than tol; the row owning a lowered column is stamped for the next
   pass. flags[0]: the last pass that lowered a potential. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
inline long dkey(double x) { const long b = as_long(x); return b >= 0 ? b : b ^ LONG_MAX; }
inline double dval(long k) { return as_double(k >= 0 ? k : k ^ LONG_MAX); }

__kernel void tighten_init(index_t n, __global const offset_t *ptr, __global const index_t *col,
                           __global const index_t *row_match, __global const long *price,
                           double unit, int whole, __global offset_t *mpos,
                           __global long *vkey, __global int *stamp)
{
    FOR_EACH_VERTEX(i, n) {
        const index_t m = row_match[i];
        for (offset_t e = ptr[i]; e < ptr[i + 1]; ++e)
            if (col[e] == m) mpos[i] = e;
        const double v = -((double)price[i] * unit);      /* (column i's potential; whole: */
        vkey[i] = dkey(whole ? rint(v) : v);              /*  rounded, for integer costs) */
        stamp[i] = 1;
    }
}

__kernel void tighten_pass(index_t n, __global const offset_t *ptr, __global const index_t *col,
                           __global const double *c, __global const offset_t *mpos,
                           __global const index_t *row_match, __global const index_t *owner,
                           __global long *vkey, __global int *stamp, double tol, int pass,
                           __global int *flags)
{
    int lowered = 0;
    FOR_EACH_VERTEX(i, n) {
        if (stamp[i] != pass) continue;
        const double u = c[mpos[i]] - dval(vkey[row_match[i]]);
        for (offset_t e = ptr[i]; e < ptr[i + 1]; ++e) {
            const index_t k = col[e];
            const double cand = c[e] - u;
            if (cand < dval(vkey[k]) - tol) {
                atom_min(&vkey[k], dkey(cand));
                stamp[owner[k]] = pass + 1;
                lowered = 1;
            }
        }
    }
    if (lowered) flags[0] = pass;
}

/* The same pass for long rows (dense problems): a work-group per stamped row, its
   work-items strided over the row's entries. A row restamped during the pass (its column
   lowered by another row) may be seen stamped by some work-items and not by others: it is
   stamped for the next pass, which takes it whole. */
__kernel void tighten_pass_wide(index_t n, __global const offset_t *ptr,
                                __global const index_t *col, __global const double *c,
                                __global const offset_t *mpos,
                                __global const index_t *row_match,
                                __global const index_t *owner, __global long *vkey,
                                __global int *stamp, double tol, int pass,
                                __global int *flags)
{
    int lowered = 0;
    for (index_t i = get_group_id(0); i < n; i += get_num_groups(0)) {
        if (stamp[i] != pass) continue;
        const double u = c[mpos[i]] - dval(vkey[row_match[i]]);
        for (offset_t e = ptr[i] + get_local_id(0); e < ptr[i + 1]; e += get_local_size(0)) {
            const index_t k = col[e];
            const double cand = c[e] - u;
            if (cand < dval(vkey[k]) - tol) {
                atom_min(&vkey[k], dkey(cand));
                stamp[owner[k]] = pass + 1;
                lowered = 1;
            }
        }
    }
    if (lowered) flags[0] = pass;
}
