<%doc>
  G-PR: lock-free push-relabel maximum-cardinality bipartite matching on the device
  (Deveci, Kaya, Ucar, Catalyurek, "GPU accelerated maximum cardinality matching algorithms
  for bipartite graphs" = shared/papers/003, Algorithms 3-9).

  Template values (besides those of common.cl.mako):
    (none)  every kernel takes its sizes as arguments; "mode" selects the CT/MT loop of the
            kernels that sweep all vertices (init_relabel, gr_level, gpr_first, fix_*).

  Arrays, in the paper's names (mu is split by side, psi likewise):
    rmatch[u] = mu(u) for a row u: -1 unmatched, else the column it is matched to. A row is
                never unmatched again once matched, and rmatch is always the truth for rows.
    cmatch[v] = mu(v) for a column v: -1 unmatched, -2 "cannot reach an unmatched row"
                (inactive), else a row; v is matched iff cmatch[v] = u >= 0 and rmatch[u] = v
                (concurrent pushes may leave cmatch[v] stale, see Section III-B; FIXMATCHING
                repairs it at the end).
    psi_r, psi_c = psi on rows and columns; INF = m + n ("unreachable").
    Ac, Ap      = the current and previous active-column lists (Algorithms 7-9), iA = the loop
                  stamp of each column active in the current loop.
    flags[0]    = (last GR level that added a row) + 2, flags[1] = last loop that had an active
                  column, flags[2] = number of unmatched columns that can still reach an
                  unmatched row (final check); flags are stamps so the host can enqueue several
                  levels or loops before one read-back.
    act_count[loop] = number of active columns of each push-relabel launch (counters).
</%doc>
<%include file="common.cl.mako"/>
#define L0 2

/* Active column test of Algorithm 6 line 3 / Algorithm 8 line 5: mu(v) = -1 or mu(mu(v)) != v
   (mu(v) = -2 marks an inactive, unmatchable column). */
inline int is_active(index_t v, __global const index_t *rmatch, __global const index_t *cmatch)
{
    index_t mv = cmatch[v];
    return mv == -1 || (mv >= 0 && rmatch[mv] != v);
}

/* INITRELABEL (Algorithm 4 line 1): psi(u) = 0 for unmatched rows, m + n for every other
   vertex. Work-items sweep rows then columns. */
__kernel void init_relabel(__global const index_t *rmatch, __global int *psi_r,
                           __global int *psi_c, index_t nr, index_t nc, int INF)
{
    FOR_EACH_VERTEX(i, nr + nc) {
        if (i < nr) psi_r[i] = rmatch[i] == -1 ? 0 : INF;
        else psi_c[i - nr] = INF;
    }
}

/* G-GR-KRNL (Algorithm 5): one BFS level from the rows with psi(u) = cLevel. All writers of a
   location write the same value, so the level needs no atomics. uAdded is flags[0] = cLevel+2. */
__kernel void gr_level(int cLevel, __global const offset_t *rxadj, __global const index_t *radj,
                       index_t nr, __global const index_t *rmatch,
                       __global const index_t *cmatch, __global int *psi_r,
                       __global int *psi_c, int INF, __global int *flags)
{
    FOR_EACH_VERTEX(u, nr) {                                           /* line 1 */
        if (psi_r[u] != cLevel) continue;                              /* line 2 */
        for (offset_t j = rxadj[u]; j < rxadj[u + 1]; ++j) {          /* line 3 */
            index_t v = radj[j];
            if (psi_c[v] == INF) {                                     /* line 4 */
                psi_c[v] = cLevel + 1;                                 /* line 5 */
                index_t w = cmatch[v];
                if (w > -1 && rmatch[w] == v) {                        /* line 6 */
                    psi_r[w] = cLevel + 2;                             /* line 7 */
                    flags[0] = cLevel + 2;                             /* line 8: uAdded */
                }
            }
        }
    }
}

/* The push and relabel of one active column v (Algorithm 6 lines 5-19 / Algorithm 9 lines
   4-22): find the row u of minimum psi in Gamma(v), stopping early at psi(v) - 1. Returns
   psi_min and sets *u_out. */
inline int min_neighbor(index_t v, __global const offset_t *cxadj, __global const index_t *cadj,
                        __global const int *psi_r, __global const int *psi_c, int INF,
                        index_t *u_out)
{
    int psi_min = INF;                                                 /* line 5 / 4 */
    index_t u = -1;                                                    /* line 6 / 5 */
    int bound = psi_c[v] - 1;
    for (offset_t j = cxadj[v]; j < cxadj[v + 1]; ++j) {              /* line 7 / 6 */
        index_t up = cadj[j];
        int p = psi_r[up];
        if (p < psi_min) {                                             /* line 8 / 7 */
            psi_min = p;                                               /* line 9 / 8 */
            u = up;                                                    /* line 10 / 9 */
            if (psi_min == bound) break;                               /* lines 11-12 / 10-11 */
        }
    }
    *u_out = u;
    return psi_min;
}

/* Adds this work-group's count of active columns to act_count[loop] (one atomic per group);
   the kernel declares `__local int group_active` at its outermost scope (OpenCL 1.2 rule). */
#define COUNT_ACTIVE(mine)                                                            \
    do {                                                                              \
        if (get_local_id(0) == 0) group_active = 0;                                   \
        barrier(CLK_LOCAL_MEM_FENCE);                                                 \
        if (mine) atomic_add(&group_active, (mine));                                  \
        barrier(CLK_LOCAL_MEM_FENCE);                                                 \
        if (get_local_id(0) == 0 && group_active && loop < act_cap)                   \
            atomic_add(&act_count[loop], group_active);                               \
    } while (0)

/* G-PR-KRNL (Algorithm 6), the kernel of G-PR-First: every column is examined; the active ones
   push. actExists is flags[1] = loop. */
__kernel void gpr_first(__global const offset_t *cxadj, __global const index_t *cadj,
                        index_t nc, __global index_t *rmatch, __global index_t *cmatch,
                        __global int *psi_r, __global int *psi_c, int INF, int loop,
                        __global int *flags, __global int *act_count, int act_cap)
{
    __local int group_active;
    int mine = 0;
    FOR_EACH_VERTEX(v, nc) {                                           /* line 2 */
        if (!is_active(v, rmatch, cmatch)) continue;                   /* line 3 */
        ++mine;
        flags[1] = loop;                                               /* line 4 */
        index_t u;
        int psi_min = min_neighbor(v, cxadj, cadj, psi_r, psi_c, INF, &u);  /* lines 5-12 */
        if (psi_min < INF) {                                           /* line 13 */
            rmatch[u] = v;                                             /* line 14 */
            cmatch[v] = u;                                             /* line 15 */
            psi_c[v] = psi_min + 1;                                    /* line 16 */
            psi_r[u] = psi_min + 2;                                    /* line 17 */
        } else {
            cmatch[v] = -2;                                            /* line 19 */
        }
    }
    COUNT_ACTIVE(mine);
}

/* G-PR-INITKRNL (Algorithm 8): Ap(i) holds the column thread i processed in the previous loop
   (after the swap) and Ac(i) the column its push displaced. If the push was overwritten by a
   concurrent one (the column is still active) it is rolled back: Ac(i) <- Ap(i). The active
   columns of this loop are stamped iA(v) = loop. */
__kernel void gpr_init(__global index_t *Ac, __global const index_t *Ap, int nA,
                       __global const index_t *rmatch, __global const index_t *cmatch,
                       __global int *iA, int loop, __global int *flags,
                       __global int *act_count, int act_cap)
{
    __local int group_active;
    int i = get_global_id(0);                                          /* line 2 */
    int mine = 0;
    if (i < nA) {
        index_t v = Ap[i];                                             /* line 3 */
        if (v != -1 && is_active(v, rmatch, cmatch))                   /* lines 4-5 */
            Ac[i] = v;                                                 /* line 6: roll back */
        else
            v = Ac[i];                                                 /* line 8 */
        if (v != -1) {                                                 /* line 9 */
            iA[v] = loop;                                              /* line 10 */
            flags[1] = loop;                                           /* line 11: actExists */
            mine = 1;
        }
    }
    COUNT_ACTIVE(mine);
}

/* G-PR-PUSHKRNL (Algorithm 9). A row is pushed only if its mate is not itself active in this
   loop (line 13), so that a column can never be listed twice. */
__kernel void gpr_push(__global const offset_t *cxadj, __global const index_t *cadj,
                       __global index_t *Ac, __global index_t *Ap, int nA,
                       __global index_t *rmatch, __global index_t *cmatch,
                       __global int *psi_r, __global int *psi_c, int INF,
                       __global const int *iA, int loop)
{
    int i = get_global_id(0);                                          /* line 1 */
    if (i >= nA) return;
    index_t v = Ac[i];                                                 /* line 2 */
    if (v == -1) { Ap[i] = -1; return; }                               /* lines 3, 23-24 */
    index_t u;
    int psi_min = min_neighbor(v, cxadj, cadj, psi_r, psi_c, INF, &u); /* lines 4-11 */
    if (psi_min < INF) {                                               /* line 12 */
        index_t w = rmatch[u];
        if (w == -1 || iA[w] != loop) {                                /* line 13 */
            rmatch[u] = v;                                             /* line 14 */
            cmatch[v] = u;                                             /* line 15 */
            psi_c[v] = psi_min + 1;                                    /* line 16 */
            psi_r[u] = psi_min + 2;                                    /* line 17 */
            Ap[i] = w;                                                 /* line 18 */
        }
        /* else: v stays active and G-PR-INITKRNL puts it back into its slot */
    } else {
        cmatch[v] = -2;                                                /* line 20 */
        Ac[i] = -1;                                                    /* line 21 */
        Ap[i] = -1;                                                    /* line 22 */
    }
}

/* FIXMATCHING (Algorithm 3 line 11 / Algorithm 7 line 20), rows first: a row whose column does
   not point back is unmatched (cannot happen when every column is processed by one work-item
   per loop, kept as a guard), then mu(v) <- -1 for every column with mu(mu(v)) != v. */
__kernel void fix_matching_rows(__global index_t *rmatch, __global const index_t *cmatch,
                                index_t nr)
{
    FOR_EACH_VERTEX(r, nr) {
        index_t c = rmatch[r];
        if (c < 0) { if (c != -1) rmatch[r] = -1; }
        else if (cmatch[c] != r) rmatch[r] = -1;
    }
}

__kernel void fix_matching_cols(__global index_t *cmatch, __global const index_t *rmatch,
                                index_t nc)
{
    FOR_EACH_VERTEX(c, nc) {
        index_t r = cmatch[c];
        if (r < 0) { if (r != -1) cmatch[c] = -1; }
        else if (rmatch[r] != c) cmatch[c] = -1;
    }
}

/* Final check and certificate after FIXMATCHING and an exact global relabel (our addition, not
   in the paper): an unmatched column with psi < INF still has an augmenting path (it is counted
   in flags[2] and made active again); otherwise the matching is maximum and the set Z of
   vertices with finite psi (reachable from unmatched rows) gives the Koenig cover
   (columns in Z) + (matched rows not in Z). It is written in the API's convention of a BFS from
   the unmatched columns: bfs_array[c] >= L0 marks the matched columns NOT in Z. */
__kernel void labels_to_cover(__global const int *psi_c, __global const index_t *cmatch,
                              index_t nc, int INF, __global int *bfs_array,
                              __global int *flags)
{
    FOR_EACH_VERTEX(c, nc) {
        int reach = psi_c[c] < INF;
        bfs_array[c] = reach ? L0 - 1 : L0;
        if (reach && cmatch[c] < 0) atomic_inc(&flags[2]);
    }
}
