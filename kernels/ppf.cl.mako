<%doc>
  PPF: parallel Pothen-Fan (Azad et al.; the optimized form of shared/papers/001, Meier,
  Roesch, Roffler, Ueltschi: Algorithms 1, 2 and 4). X = columns (the searching side, one DFS
  per unmatched column), Y = rows. Only the row mates M[y] = rmatch[y] are written during the
  search; the column side is completed at the end (Algorithm 1 line 22).
  Work-items are persistent: each takes the next unmatched column from a global counter
  (flags[0]) and runs FIND_AND_AUGMENT as an iterative DFS with an explicit stack of edge
  offsets (stack_pool, depth_cap entries per work-item; no recursion in OpenCL C).
  flags[0] = next list index, flags[1] = paths found this iteration, flags[2] = stack overflow.
</%doc>
<%include file="common.cl.mako"/>
#define L0 2

/* CLAIM_TTAS (Algorithm 4): visited[y] holds the iteration that last claimed y, so it is
   never reset between iterations. */
inline int claim(volatile __global int *visited, index_t y, int iter)
{
    if (visited[y] < iter)                                   /* line 2: test */
        return atomic_xchg(&visited[y], iter) < iter;        /* lines 3-4: test-and-set */
    return 0;                                                /* line 6 */
}

/* Lookahead step of FIND_AND_AUGMENT (Algorithm 2 lines 3-11): the first unmatched row from
   lookahead[x] on that this work-item can claim; returns its edge offset or -1. */
inline offset_t lookahead_step(index_t x, __global const offset_t *cxadj,
                               __global const index_t *cadj, __global const index_t *rmatch,
                               volatile __global int *visited, int iter,
                               __global offset_t *lookahead)
{
    offset_t end = cxadj[x + 1];
    for (offset_t j = lookahead[x]; j < end; ++j) {
        index_t y = cadj[j];
        if (rmatch[y] == -1 && claim(visited, y, iter)) {   /* lines 5-6 */
            lookahead[x] = j + 1;                            /* line 4 */
            return j;                                        /* lines 7-8 */
        }
    }
    lookahead[x] = end;
    return -1;
}

/* One iteration of Algorithm 1 (lines 9-19): every unmatched column runs FIND_AND_AUGMENT. */
__kernel void ppf_iteration(__global const offset_t *cxadj, __global const index_t *cadj,
                            __global index_t *unmatched, int n_un, __global index_t *rmatch,
                            volatile __global int *visited, int iter,
                            __global offset_t *lookahead, __global offset_t *stack_pool,
                            int depth_cap, __global int *flags)
{
    __global offset_t *stack = stack_pool + (size_t)get_global_id(0) * (size_t)depth_cap;
    for (;;) {
        int i = atomic_inc(&flags[0]);                       /* line 11: next x */
        if (i >= n_un) break;
        index_t x0 = unmatched[i];
        if (x0 < 0) continue;                                /* lines 12-13 */
        int k = 0, found = 0;
        index_t x = x0;
        offset_t l = lookahead_step(x, cxadj, cadj, rmatch, visited, iter, lookahead);
        if (l >= 0) { stack[0] = l; found = 1; }
        else {
            /* fairness (Pothen-Fan+, Duff, Kaya and Ucar): odd iterations scan adjacency lists
               forwards, even ones backwards, so consecutive iterations do not run into the
               same blocked vertices (it cuts the iterations several-fold on random graphs) */
            const offset_t step = (iter & 1) ? 1 : -1;
            offset_t j = step > 0 ? cxadj[x] : cxadj[x + 1] - 1;
            offset_t stop = step > 0 ? cxadj[x + 1] : cxadj[x] - 1;
            for (;;) {                                       /* Algorithm 2 lines 13-21 */
                if (j != stop) {
                    index_t y = cadj[j];
                    if (claim(visited, y, iter)) {           /* line 14 */
                        index_t x2 = rmatch[y];
                        stack[k] = j;
                        if (x2 < 0) { found = 1; break; }    /* a row freed since lookahead */
                        if (k + 1 >= depth_cap) { flags[2] = 1; break; }   /* no overflow */
                        ++k;                                 /* line 15: "recursive" call */
                        x = x2;
                        l = lookahead_step(x, cxadj, cadj, rmatch, visited, iter, lookahead);
                        if (l >= 0) { stack[k] = l; found = 1; break; }
                        j = step > 0 ? cxadj[x] : cxadj[x + 1] - 1;
                        stop = step > 0 ? cxadj[x + 1] : cxadj[x] - 1;
                        continue;
                    }
                    j += step;
                } else {                                     /* x exhausted: return false */
                    if (k == 0) break;
                    --k;
                    j = stack[k] + step;
                    x = (k == 0) ? x0 : rmatch[cadj[stack[k - 1]]];
                    stop = step > 0 ? cxadj[x + 1] : cxadj[x] - 1;
                }
            }
        }
        if (found) {                   /* lines 16-18 / 7: M[y] <- x along the path */
            index_t cur = x0;
            for (int d = 0; d <= k; ++d) {
                index_t y = cadj[stack[d]];
                index_t nxt = rmatch[y];
                rmatch[y] = cur;
                cur = nxt;
            }
            unmatched[i] = -1;
            atomic_inc(&flags[1]);                           /* line 17: path_found */
        }
    }
}

/* Algorithm 1 lines 22-24: complete the matching, M[M[y]] <- y. */
__kernel void complete_matching(__global const index_t *rmatch, __global index_t *cmatch,
                                index_t nr)
{
    FOR_EACH_VERTEX(y, nr) {
        index_t x = rmatch[y];
        if (x >= 0) cmatch[x] = y;
    }
}

/* Koenig cover from the last iteration (no path found, no overflow): the rows it claimed are
   exactly those reachable from unmatched columns; reached columns = unmatched columns plus the
   mates of claimed rows, marked >= L0 as in the API's BFS convention. */
__kernel void cover_cols(__global const index_t *cmatch, index_t nc, __global int *bfs_array)
{
    FOR_EACH_VERTEX(c, nc) bfs_array[c] = cmatch[c] < 0 ? L0 : L0 - 1;
}

__kernel void cover_rows(__global const index_t *rmatch, __global const int *visited,
                         index_t nr, int iter, __global int *bfs_array)
{
    FOR_EACH_VERTEX(y, nr) {
        if (visited[y] == iter && rmatch[y] >= 0) bfs_array[rmatch[y]] = L0;
    }
}
