<%doc>
  The Suitor family (shared/papers/004: Paper I GPU-Suitor and the locally-dominant baseline,
  Paper II b-Suitor; stable marriage, Paper IV, is in marriage.cl.mako). One idea throughout:
  every vertex proposes to its best partner that would accept it; a displaced suitor proposes
  again.

  Template values (besides index_t, offset_t, mode of common.cl.mako):
    threads_per_vertex  lanes of a "group" (the paper's warp) scanning one neighbour list
    vertices_per_group  the chunk of vertices a group owns (the paper's vertices-per-warp)
    work_group_size     work-items per work-group (the paper's threads-per-block)
    weight_t            "float" or "double": the precision in which weights are compared
                        (common.cl.mako; the user's float64 weights stay exact with "double")
  threads_per_vertex must be a power of two dividing work_group_size.

  Weighted graphs: symmetric CSR xadj/adj with positive weights wt (weight_t) and src[e] (the
  vertex whose list holds edge e). Preferences are the keys (w, id): u prefers neighbour p to
  p' iff (w(u,p), p) > (w(u,p'), p') lexicographically. For a fixed u this order equals the
  global edge order (w, max(u,p), min(u,p)), so the Suitor result is exactly the sequential
  greedy matching with that tie breaking (Paper IV, Section 3).

  Suitor state of vertex p: suitor_e[p] = the edge (s -> p) of its current suitor s, as an
  index into s's list (-1: none), so that the suitor id src[e] and the offer wt[e] are one
  word (offset_t) and one compare-and-swap changes both (no locks: NVIDIA and PoCL have no
  independent forward progress guarantee inside a work-group). ws[p] holds the bits of
  the best offer p has accepted (WEIGHT_BITS), raised with an integer atomic max (positive
  floats order like their bit patterns); it lags the truth at most, so it only prunes the scan.
</%doc>
<%include file="common.cl.mako"/>
#define TPV ${threads_per_vertex}
#define VPG ${vertices_per_group}
#define WGS ${work_group_size}
#define GROUPS (WGS / TPV)
#define NO_RANK 0x7fffffff

/* (w1, id1) > (w2, id2): the consistent tie breaking by vertex id (Paper I, Section 2.1). */
#define BETTER(w1, id1, w2, id2) ((w1) > (w2) || ((w1) == (w2) && (id1) > (id2)))

/* Would p accept u's offer w now? Line 14 of Algorithm 3 with ties broken by id. */
/* ws and suitor_e are read through volatile pointers: another work-group may have changed
   them, and a stale copy in a non-coherent L1 cache would make a vertex retry a CAS it keeps
   losing. */
inline int suitor_eligible(weight_t w, index_t u, index_t p, volatile __global const wbits_t *ws,
                           volatile __global const offset_t *suitor_e, __global const weight_t *wt,
                           __global const index_t *src)
{
    weight_t h = WEIGHT_OF_BITS(ws[p]);
    if (w > h) return 1;          /* tentative: ws may lag, the CAS below decides */
    if (w < h) return 0;
    offset_t k = suitor_e[p];
    if (k < 0) return 1;
    weight_t wk = wt[k];
    return BETTER(w, u, wk, src[k]);
}

/* Lines 19-29 of Algorithm 3 without the lock: become p's suitor through the edge e = (u -> p)
   by compare-and-swap. Returns the vertex that must propose next: the displaced suitor, u
   itself when p already holds a better offer (continue the search), or -1. */
inline index_t suitor_propose(index_t u, offset_t e, __global const index_t *adj,
                              __global const weight_t *wt, __global const index_t *src,
                              __global offset_t *suitor_e, __global wbits_t *ws)
{
    index_t p = adj[e];
    weight_t w = wt[e];
    offset_t cur = ((volatile __global offset_t *)suitor_e)[p];
    for (;;) {
        if (cur >= 0) {
            weight_t wc = wt[cur];
            if (!BETTER(w, u, wc, src[cur])) return u;      /* lines 26-28 */
        }
        offset_t old = OFFSET_ATOMIC(cmpxchg)(&suitor_e[p], cur, e);
        if (old == cur) {                                   /* lines 21-25 */
            WBITS_ATOMIC(max)(&ws[p], WEIGHT_BITS(w));
            return cur >= 0 ? src[cur] : -1;
        }
        cur = old;                                          /* somebody else won: re-check */
    }
}

/* GPU-Suitor (Algorithm 4 of Paper I). A group of TPV work-items owns a chunk of up to VPG
   vertices (line 2) held in local memory; for each vertex of the chunk in turn the group scans
   its neighbour list in parallel (line 6) and reduces to the best candidate in local memory
   with ties by vertex id (line 7); then each lane sets the suitor of one candidate by CAS
   (line 8) and the unsuccessful or displaced vertices are gathered in the chunk's local
   memory for the next iteration (line 9, the recurrent phase).
     work/n_work/identity: the vertices to process; in "slots" layout (slots_in = 1) group G
       owns work[G*VPG ..] with in_counts[G] entries, otherwise the list is dense and group G
       owns entries G*VPG .. G*VPG+VPG-1 (identity: the vertex ids themselves).
     max_rounds: recurrent iterations before the group stops (NoSync: "until done"; the
       Sync variants: 1, so that the host synchronizes all groups between iterations).
     lb_local: redistribute the pending vertices among the groups of the work-group after
       each iteration (intra-block load balancing of SyncLB/Hybrid).
     leftovers: dense (slots_out = 0, appended through out_count[0], which is what
       global load balancing re-chunks) or per group slots (slots_out = 1).
   counters[0] += proposals (CAS attempts), counters[1] += recurrent iterations. */
__kernel __attribute__((reqd_work_group_size(WGS, 1, 1)))
void gpu_suitor(__global const offset_t *xadj, __global const index_t *adj,
                __global const weight_t *wt, __global const index_t *src,
                __global offset_t *suitor_e, __global wbits_t *ws,
                __global const index_t *work, index_t n_work, int identity, int slots_in,
                __global const int *in_counts,
                __global index_t *out, __global int *out_counts, int slots_out,
                __global int *out_count, int max_rounds, int lb_local,
                __global int *counters)
{
    __local index_t queue[GROUPS * VPG];
    __local index_t next[GROUPS * VPG];
    __local offset_t cand[GROUPS * VPG];
    __local int qlen[GROUPS];
    __local weight_t red_w[WGS];
    __local index_t red_p[WGS];
    __local offset_t red_e[WGS];
    __local int shared_max;

    const int lid = get_local_id(0);
    const int g = lid / TPV;
    const int lane = lid % TPV;
    const long G = (long)get_group_id(0) * GROUPS + g;
    const long base = G * VPG;

    /* line 2: load the chunk's vertex ids into local memory */
    if (lane == 0) {
        int c;
        if (slots_in) c = (base < (long)n_work) ? in_counts[G] : 0;
        else c = (int)clamp((long)n_work - base, 0L, (long)VPG);
        qlen[g] = c;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lane; i < qlen[g]; i += TPV)
        queue[g * VPG + i] = identity ? (index_t)(base + i) : work[base + i];
    barrier(CLK_LOCAL_MEM_FENCE);

    int proposals = 0, rounds = 0;
    for (int round = 0; round < max_rounds; ++round) {
        /* line 3: while there are vertices to process (uniform over the work-group, as the
           local reductions below need work-group barriers in OpenCL 1.2) */
        if (lid == 0) {
            int m = 0;
            for (int k = 0; k < GROUPS; ++k) m = max(m, qlen[k]);
            shared_max = m;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        const int maxlen = shared_max;
        if (maxlen == 0) break;
        ++rounds;
        /* lines 5-7: each vertex of the chunk in turn, its neighbours in parallel */
        for (int i = 0; i < maxlen; ++i) {
            const index_t u = (i < qlen[g]) ? queue[g * VPG + i] : -1;
            weight_t bw = 0;
            index_t bp = -1;
            offset_t be = -1;
            if (u >= 0) {
                const offset_t end = xadj[u + 1];
                for (offset_t j = xadj[u] + lane; j < end; j += TPV) {
                    const index_t p = adj[j];
                    const weight_t w = wt[j];
                    if (BETTER(w, p, bw, bp) && suitor_eligible(w, u, p, ws, suitor_e, wt, src)) {
                        bw = w; bp = p; be = j;
                    }
                }
            }
            red_w[lid] = bw; red_p[lid] = bp; red_e[lid] = be;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (int s = TPV / 2; s > 0; s >>= 1) {      /* local max-reduction, ties by id */
                if (lane < s && BETTER(red_w[lid + s], red_p[lid + s], red_w[lid], red_p[lid])) {
                    red_w[lid] = red_w[lid + s]; red_p[lid] = red_p[lid + s];
                    red_e[lid] = red_e[lid + s];
                }
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            if (lane == 0) cand[g * VPG + i] = red_e[lid];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* line 8: each lane sets the suitor of one candidate */
        for (int i = lane; i < qlen[g]; i += TPV) {
            const index_t u = queue[g * VPG + i];
            const offset_t e = cand[g * VPG + i];
            index_t nx = -1;
            if (e >= 0) {
                nx = suitor_propose(u, e, adj, wt, src, suitor_e, ws);
                ++proposals;
            }
            next[g * VPG + i] = nx;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* line 9: gather the unsuccessful and displaced vertices (serial prefix of <= VPG) */
        if (lane == 0) {
            int k = 0;
            for (int i = 0; i < qlen[g]; ++i) {
                const index_t x = next[g * VPG + i];
                if (x >= 0) queue[g * VPG + k++] = x;
            }
            qlen[g] = k;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* line 10 (optional): intra-block load balancing, deal the pending vertices evenly */
        if (lb_local && lid == 0) {
            int total = 0;
            for (int k = 0; k < GROUPS; ++k)
                for (int i = 0; i < qlen[k]; ++i) next[total++] = queue[k * VPG + i];
            for (int k = 0; k < GROUPS; ++k) qlen[k] = 0;
            for (int t = 0; t < total; ++t) {
                const int k = t % GROUPS;
                queue[k * VPG + qlen[k]++] = next[t];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    /* leftovers for the next (host-synchronized) iteration: per-group slots, or a dense list
       at a position reserved with one atomic per group (no barrier inside a branch: PoCL) */
    if (lane == 0)
        cand[g * VPG] = (!slots_out && qlen[g]) ? (offset_t)atomic_add(&out_count[0], qlen[g]) : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (slots_out) {
        if (lane == 0 && base < (long)n_work) out_counts[G] = qlen[g];
        if (lane == 0 && qlen[g]) atomic_add(&out_count[0], qlen[g]);
        for (int i = lane; i < qlen[g]; i += TPV) out[base + i] = queue[g * VPG + i];
    } else {
        const offset_t at = cand[g * VPG];
        for (int i = lane; i < qlen[g]; i += TPV) out[at + i] = queue[g * VPG + i];
    }
    if (proposals) atomic_add(&counters[0], proposals);
    if (lid == 0 && rounds) atomic_add(&counters[1], rounds);
}

/* src[e] = the vertex whose neighbour list holds edge e (the edge's tail). */
__kernel void edge_sources(__global const offset_t *xadj, index_t n, __global index_t *src)
{
    FOR_EACH_VERTEX(v, n) {
        for (offset_t j = xadj[v]; j < xadj[v + 1]; ++j) src[j] = v;
    }
}

/* mate[v] = the suitor of v when the suitor relation is mutual (it is at termination), written
   as the 64-bit ids the result holds (no host conversion); pair_e[v] = the edge (v -> mate[v])
   of v's own list when v < mate[v], else -1, so that the host gets each matched pair once, in
   increasing v, with its position in the CSR (the weight is w64[pair_e], no search);
   counters[2] += the matched pairs (the cardinality, read back with the counters). */
__kernel void suitor_mates(__global const offset_t *suitor_e, __global const index_t *src,
                           index_t n, __global long *mate, __global offset_t *pair_e,
                           __global int *counters)
{
    int pairs = 0;
    FOR_EACH_VERTEX(v, n) {
        const offset_t k = suitor_e[v];
        const index_t m = k >= 0 ? src[k] : -1;
        mate[v] = m;
        offset_t pe = -1;
        if (m > v) {
            const offset_t k2 = suitor_e[m];          /* m's suitor: v, along v's edge to m */
            if (k2 >= 0 && src[k2] == v) pe = k2;
        }
        pair_e[v] = pe;
        pairs += pe >= 0;
    }
    if (pairs) atomic_add(&counters[2], pairs);     /* counters[2] = matched pairs */
}

/* The same from a mate array of 32-bit ids (locally dominant): 64-bit mate, and the edge
   (v -> mate[v]) of v's sorted list (binary search) when v < mate[v], else -1. */
__kernel void mate_pairs(__global const offset_t *xadj, __global const index_t *adj, index_t n,
                         __global const index_t *mate_in, __global long *mate,
                         __global offset_t *pair_e, __global int *count)
{
    int pairs = 0;
    FOR_EACH_VERTEX(v, n) {
        const index_t m = mate_in[v];
        mate[v] = m;
        offset_t pe = -1;
        if (m > v) {
            offset_t lo = xadj[v], hi = xadj[v + 1];
            while (lo < hi) {
                const offset_t mid = lo + (hi - lo) / 2;
                if (adj[mid] < m) lo = mid + 1; else hi = mid;
            }
            if (lo < xadj[v + 1] && adj[lo] == m) pe = lo;
        }
        pair_e[v] = pe;
        pairs += pe >= 0;
    }
    if (pairs) atomic_add(&count[0], pairs);
}

/* ------------------------------------------------------------------ locally dominant (LD)
   Algorithms 1-2 of Paper I, one work-item per vertex; the queues Q_C/Q_N are flag arrays
   (dirty = "process in this step", newly = "matched in this step"). */

/* ProcessVertex (Algorithm 2, lines 2-8): candidate[s] = heaviest unmatched neighbour. */
__kernel void ld_process_vertex(__global const offset_t *xadj, __global const index_t *adj,
                                __global const weight_t *wt, index_t n,
                                __global const index_t *mate, __global index_t *candidate,
                                __global int *dirty)
{
    FOR_EACH_VERTEX(s, n) {
        if (!dirty[s]) continue;
        dirty[s] = 0;
        if (mate[s] >= 0) continue;
        weight_t max_wt = 0;
        index_t max_wt_id = -1;
        for (offset_t j = xadj[s]; j < xadj[s + 1]; ++j) {
            const index_t t = adj[j];
            const weight_t w = wt[j];
            if (mate[t] < 0 && BETTER(w, t, max_wt, max_wt_id)) {   /* line 5, ties by id */
                max_wt = w; max_wt_id = t;
            }
        }
        candidate[s] = max_wt_id;
    }
}

/* Algorithm 2, lines 9-12: a locally-dominant edge (candidate[candidate[s]] = s) is matched;
   each end writes its own mate, so no atomics are needed. */
__kernel void ld_match(index_t n, __global const index_t *candidate, __global index_t *mate,
                       __global int *newly, __global int *count)
{
    FOR_EACH_VERTEX(s, n) {
        if (mate[s] >= 0) continue;
        const index_t c = candidate[s];
        if (c >= 0 && candidate[c] == s) {
            mate[s] = c;
            newly[s] = 1;
            atomic_inc(&count[0]);
        }
    }
}

/* Algorithm 1, lines 9-12: neighbours v of a newly matched u with candidate[v] = u are
   processed again in the next step. */
__kernel void ld_mark(__global const offset_t *xadj, __global const index_t *adj, index_t n,
                      __global const index_t *mate, __global const index_t *candidate,
                      __global int *newly, __global int *dirty)
{
    FOR_EACH_VERTEX(u, n) {
        if (!newly[u]) continue;
        newly[u] = 0;
        for (offset_t j = xadj[u]; j < xadj[u + 1]; ++j) {
            const index_t v = adj[j];
            if (mate[v] < 0 && candidate[v] == u) dirty[v] = 1;
        }
    }
}

/* ------------------------------------------------------------------ b-Suitor (Paper II)
   Each vertex p keeps up to b(p) suitors in a small list sorted by decreasing key in global
   memory: slist[bptr[p] .. bptr[p] + ssize[p]) holds edges f = (p -> u) of p's own list (so
   the suitor u = adj[f] and its offer wt[f] are one word). A proposal of u along e = (u -> p)
   is prop[e]: 0 none, 1 accepted (u in S(p)), 2 pending. rev[e] is the reverse edge. The
   algorithm runs in rounds (the "delayed" rematching of Paper IV, Section 4): bs_propose lets
   every vertex with a deficit propose to its best eligible partners, bs_accept lets every
   proposed-to vertex keep its b(p) best offers and reject the others, whose proposers get
   their deficit back. The fixpoint is the greedy b-matching (Paper IV, Section 3). */

/* reverse edge of every edge by binary search in the (sorted) neighbour list of the head; each
   undirected edge is searched once, from its copy with u < p, which writes both directions */
__kernel void reverse_edges(__global const offset_t *xadj, __global const index_t *adj,
                            __global const index_t *src, offset_t m, __global offset_t *rev)
{
    for (offset_t e = get_global_id(0); e < m; e += get_global_size(0)) {
        const index_t u = src[e], p = adj[e];
        if (p < u) continue;
        offset_t lo = xadj[p], hi = xadj[p + 1] - 1;
        while (lo < hi) {
            const offset_t mid = lo + (hi - lo) / 2;
            if (adj[mid] < u) lo = mid + 1; else hi = mid;
        }
        rev[e] = lo;
        rev[lo] = e;
    }
}

/* Initial state: deficit = b, every vertex active (one with b = 0 proposes nothing and goes
   inactive in its first round, like never being active), empty suitor lists, nothing touched. */
__kernel void bs_init(index_t n, __global const int *b, __global int *deficit,
                      __global int *active, __global int *ssize, __global int *touched)
{
    FOR_EACH_VERTEX(v, n) {
        deficit[v] = b[v];
        active[v] = 1;
        ssize[v] = 0;
        touched[v] = 0;
    }
}

/* After the fixpoint: an entry f = (p -> u) of S(p) is a matched edge when the relation is
   mutual there, i.e. p's own offer along f was accepted (prop[f] == 1: p in S(u)).
   degree[p] = p's matched edges (64-bit, as the result holds it), own[p] = those with p < u
   (each pair is written once, by its smaller end), info[1] += the entries that are not mutual
   (none at the fixpoint; verification reports them). */
__kernel void bs_degree(index_t n, __global const offset_t *bptr,
                        __global const offset_t *slist, __global const int *ssize,
                        __global const index_t *adj, __global const int *prop,
                        __global long *degree, __global int *own, __global int *info)
{
    FOR_EACH_VERTEX(p, n) {
        const offset_t s0 = bptr[p];
        const int sz = ssize[p];
        int d = 0, o = 0, nm = 0;
        for (int k = 0; k < sz; ++k) {
            const offset_t f = slist[s0 + k];
            if (prop[f] == 1) {
                ++d;
                if (adj[f] > p) ++o;
            } else {
                ++nm;
            }
        }
        degree[p] = d;
        own[p] = o;
        if (nm) atomic_add(&info[1], nm);
    }
}

/* The matched pairs (p, u), p < u, from position at[p] (exclusive scan of own): sorted by the
   edge index f = (p -> u), which orders them by u (sorted lists), so the output is in
   lexicographic order; edges[2i], edges[2i+1] = p, u (64-bit), pair_e[i] = f. */
__kernel void bs_pairs(index_t n, __global const offset_t *bptr,
                       __global const offset_t *slist, __global const int *ssize,
                       __global const index_t *adj, __global const int *prop,
                       __global const int *own, __global const int *at,
                       __global long *edges, __global offset_t *pair_e)
{
    FOR_EACH_VERTEX(p, n) {
        const int c = own[p];
        if (c == 0) continue;
        const offset_t s0 = bptr[p];
        const int sz = ssize[p];
        const int pos = at[p];
        int cnt = 0;
        for (int k = 0; k < sz && cnt < c; ++k) {
            const offset_t f = slist[s0 + k];
            if (prop[f] != 1 || adj[f] < p) continue;
            int j = cnt++;                           /* insertion by edge index */
            while (j > 0 && pair_e[pos + j - 1] > f) {
                pair_e[pos + j] = pair_e[pos + j - 1];
                --j;
            }
            pair_e[pos + j] = f;
        }
        for (int j = 0; j < cnt; ++j) {
            edges[2 * (long)(pos + j)] = p;
            edges[2 * (long)(pos + j) + 1] = adj[pair_e[pos + j]];
        }
    }
}

/* Proposals of one round: every vertex u with a deficit d proposes to its d best eligible
   partners (not yet proposed to, and u beats the worst of a full suitor list), chosen in one
   scan of its list with a small sorted buffer of up to BS_CHUNK candidates (several scans only
   when d > BS_CHUNK). */
#define BS_CHUNK 8
__kernel void bs_propose(__global const offset_t *xadj, __global const index_t *adj,
                         __global const weight_t *wt, index_t n, __global const int *b,
                         __global const offset_t *bptr, __global const offset_t *slist,
                         __global const int *ssize, __global int *deficit,
                         __global int *active, __global int *prop, __global int *touched,
                         __global int *count)
{
    FOR_EACH_VERTEX(u, n) {
        if (!active[u]) continue;
        int d = deficit[u];
        int made = 0;
        while (d > 0) {
            const int want = min(d, BS_CHUNK);
            weight_t cw[BS_CHUNK];
            index_t cp[BS_CHUNK];
            offset_t ce[BS_CHUNK];
            int cnt = 0;
            for (offset_t j = xadj[u]; j < xadj[u + 1]; ++j) {
                if (prop[j]) continue;
                const index_t p = adj[j];
                const weight_t w = wt[j];
                if (cnt == want && !BETTER(w, p, cw[cnt - 1], cp[cnt - 1])) continue;
                const int bsz = b[p];
                if (bsz <= 0) continue;
                if (ssize[p] >= bsz) {         /* p is full: u must beat its worst suitor */
                    const offset_t f = slist[bptr[p] + bsz - 1];
                    if (!BETTER(w, u, wt[f], adj[f])) continue;
                }
                int k = (cnt < want) ? cnt++ : cnt - 1;   /* insert, dropping the last */
                while (k > 0 && BETTER(w, p, cw[k - 1], cp[k - 1])) {
                    cw[k] = cw[k - 1]; cp[k] = cp[k - 1]; ce[k] = ce[k - 1];
                    --k;
                }
                cw[k] = w; cp[k] = p; ce[k] = j;
            }
            for (int k = 0; k < cnt; ++k) {
                prop[ce[k]] = 2;
                touched[cp[k]] = 1;
            }
            d -= cnt;
            made += cnt;
            if (cnt < want) break;          /* no further eligible partner */
        }
        deficit[u] = d;
        active[u] = 0;        /* until a rejection gives a deficit back */
        if (made) atomic_add(&count[0], made);
    }
}

__kernel void bs_accept(__global const offset_t *xadj, __global const index_t *adj,
                        __global const weight_t *wt, index_t n, __global const int *b,
                        __global const offset_t *bptr, __global offset_t *slist,
                        __global int *ssize, __global int *deficit, __global int *active,
                        __global int *prop, __global int *touched, __global const offset_t *rev)
{
    FOR_EACH_VERTEX(p, n) {
        if (!touched[p]) continue;
        touched[p] = 0;
        const int bsz = b[p];
        const offset_t s0 = bptr[p];
        int sz = ssize[p];
        for (offset_t f = xadj[p]; f < xadj[p + 1]; ++f) {
            const offset_t e = rev[f];
            if (prop[e] != 2) continue;
            const index_t u = adj[f];
            const weight_t w = wt[f];
            offset_t rejected = -1;       /* edge (p -> x) of the offer that drops out */
            if (sz == bsz) {
                const offset_t worst = slist[s0 + sz - 1];
                if (!BETTER(w, u, wt[worst], adj[worst])) rejected = f;
                else { rejected = worst; --sz; }
            }
            if (rejected != f) {          /* insert f, keeping the list sorted */
                int k = sz;
                while (k > 0) {
                    const offset_t q = slist[s0 + k - 1];
                    if (!BETTER(w, u, wt[q], adj[q])) break;
                    slist[s0 + k] = q;
                    --k;
                }
                slist[s0 + k] = f;
                ++sz;
                prop[e] = 1;
            }
            if (rejected >= 0) {
                const index_t x = adj[rejected];
                prop[rev[rejected]] = 0;
                atomic_inc(&deficit[x]);
                active[x] = 1;
            }
        }
        ssize[p] = sz;
    }
}
