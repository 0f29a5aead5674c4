<%doc>
  The certificate of the Suitor family's answers (pyclmatch/weighted/blocking.py): a matching
  is the greedy one iff no edge blocks it (the unique stable matching, shared/papers/004,
  Paper IV, Section 3; b-matchings likewise). Checked on the device by kernels that share
  nothing with the kernels that computed them.
  Template values: those of common.cl.mako (mode "ct") and by_rows (the edge passes walk whole
  lists per work-item: CPU devices; see entries in common.cl.mako).
  Template value weight_t ("float" or "double", common.cl.mako): the precision of the weights.
  The graph: a symmetric CSR ptr/ind with sorted lists and positive weights w (the
  device's weights, compared in the precision the algorithm compared; the order is the key
  (w, id), see pyclmatch/weighted/reference.py). An undirected edge is judged once, from its copy (u, p)
  with u < p. out[] (int, filled by the host: 0, but the example slots INT_MAX) is read back
  once.
</%doc>
<%include file="common.cl.mako"/>
<%namespace name="common" file="common.cl.mako"/>

/* out[] slots */
#define OUT_BAD 0
#define OUT_COUNT 1       /* matched vertices (matching) / matched pairs found (b-matching) */
#define OUT_EX_VERTEX 2   /* least vertex of a failed vertex check */
#define OUT_EX_EDGE 3     /* least tail u of a blocking edge */

/* OUT_BAD bits */
#define BAD_ID 1          /* a mate or pair end outside 0 .. n-1 (or -1 for a mate) */
#define BAD_PAIR 2        /* mate[mate[v]] != v */
#define SELF 4            /* a vertex matched to itself */
#define NOT_EDGE 8        /* a matched pair that is not an edge */
#define BLOCKING 16       /* an edge both of whose ends prefer it */
#define TWICE 32          /* a pair listed twice (b-matching) */
#define OVER_B 64         /* more matched edges than b (b-matching) */
#define DEGREE 128        /* the result's degree differs from the pairs' (b-matching) */

/* the key order (w, id): is (w1, id1) above (w2, id2)? */
#define ABOVE(w1, id1, w2, id2) ((w1) > (w2) || ((w1) == (w2) && (id1) > (id2)))

/* Matching: each mate in range and mutual, each matched pair an edge; mw[v] = the weight of
   v's mate edge (0 when unmatched: every edge is above it). out[OUT_COUNT] += matched
   vertices. */
__kernel void wv_mates(index_t n, __global const offset_t *ptr, __global const index_t *ind,
                       __global const weight_t *w, __global const long *mate, __global weight_t *mw,
                       __global int *out)
{
    int bad = 0, matched = 0;
    index_t ex = INT_MAX;
    FOR_EACH_VERTEX(v, n) {
        const long m = mate[v];
        weight_t x = 0;
        int b = 0;
        if (m < -1 || m >= n) b = BAD_ID;
        else if (m == v) b = SELF;
        else if (m >= 0) {
            ++matched;
            const offset_t at = sorted_list_find(ind, ptr[v], ptr[v + 1], (index_t)m);
            if (mate[m] != v) b = BAD_PAIR;
            else if (at < 0) b = NOT_EDGE;
            else x = w[at];
        }
        mw[v] = x;
        if (b) { bad |= b; ex = min(ex, v); }
    }
    if (bad) { atomic_or(&out[OUT_BAD], bad); atomic_min(&out[OUT_EX_VERTEX], ex); }
    if (matched) atomic_add(&out[OUT_COUNT], matched);
}

/* Matching: no edge (u, p) above both u's and p's mate edges, each end's mate ranked by the
   key (w, id) (the greedy matching is the one stable matching under that order). */
__kernel void wv_blocking(index_t n, offset_t nnz, __global const offset_t *ptr,
                          __global const index_t *ind, __global const weight_t *w,
                          __global const long *mate, __global const weight_t *mw,
                          __global int *out)
{
    index_t ex = INT_MAX;
    <%common:entries e="e" i="u" by_rows="${by_rows}">
        const index_t p = ind[e];
        if (p <= u) continue;
        const weight_t x = w[e];
        if (ABOVE(x, p, mw[u], mate[u]) && ABOVE(x, u, mw[p], mate[p])) ex = min(ex, u);
    </%common:entries>
    if (ex != INT_MAX) { atomic_or(&out[OUT_BAD], BLOCKING); atomic_min(&out[OUT_EX_EDGE], ex); }
}

/* b-matching, over the k pairs (pairs[2i], pairs[2i+1]) in either order: ends in range and
   distinct, an edge (pos[i] = its position in the smaller end's list, in_m[pos] counts the
   times it is listed), deg[] += 1 at both ends, worst[] = the least weight bits of the
   matched edges at each end (positive floats order like their bits: WEIGHT_BITS; WBITS_NONE: none). */
__kernel void bv_pairs(index_t n, index_t k, __global const offset_t *ptr,
                       __global const index_t *ind, __global const weight_t *w,
                       __global const long *pairs, __global offset_t *pos,
                       __global int *in_m, __global int *deg, __global wbits_t *worst,
                       __global int *out)
{
    int bad = 0;
    index_t ex = INT_MAX;
    FOR_EACH_VERTEX(i, k) {
        const long x = pairs[2 * (long)i], y = pairs[2 * (long)i + 1];
        pos[i] = -1;
        if (x < 0 || x >= n || y < 0 || y >= n) { bad |= BAD_ID; continue; }
        const index_t a = (index_t)min(x, y), c = (index_t)max(x, y);
        if (a == c) { bad |= SELF; ex = min(ex, a); continue; }
        const offset_t at = sorted_list_find(ind, ptr[a], ptr[a + 1], c);
        if (at < 0) { bad |= NOT_EDGE; ex = min(ex, a); continue; }
        pos[i] = at;
        if (atomic_inc(&in_m[at])) { bad |= TWICE; ex = min(ex, a); }
        atomic_inc(&deg[a]);
        atomic_inc(&deg[c]);
        const wbits_t bits = WEIGHT_BITS(w[at]);
        WBITS_ATOMIC(min)(&worst[a], bits);
        WBITS_ATOMIC(min)(&worst[c], bits);
    }
    if (bad) { atomic_or(&out[OUT_BAD], bad); atomic_min(&out[OUT_EX_VERTEX], ex); }
}

/* b-matching: worst_p[] = the least partner among the matched edges of weight worst[] at
   each end (the worst matched partner under the key (w, id)). */
__kernel void bv_partners(index_t n, index_t k, __global const index_t *ind,
                          __global const weight_t *w, __global const long *pairs,
                          __global const offset_t *pos, __global const wbits_t *worst,
                          __global int *worst_p)
{
    FOR_EACH_VERTEX(i, k) {
        const offset_t at = pos[i];
        if (at < 0) continue;
        const long x = pairs[2 * (long)i], y = pairs[2 * (long)i + 1];
        const index_t a = (index_t)min(x, y), c = (index_t)max(x, y);
        const wbits_t bits = WEIGHT_BITS(w[at]);
        if (bits == worst[a]) atomic_min(&worst_p[a], c);
        if (bits == worst[c]) atomic_min(&worst_p[c], a);
    }
}

/* b-matching: each vertex has at most b matched edges, as many as the result's degree says;
   no edge outside the b-matching would be taken by both ends (an end takes it when it has
   room, or when the edge is above its worst matched edge in the key order). */
__kernel void bv_check(index_t n, offset_t nnz, __global const offset_t *ptr,
                       __global const index_t *ind, __global const weight_t *w,
                       __global const int *b, __global const long *degree,
                       __global const int *deg, __global const wbits_t *worst,
                       __global const int *worst_p, __global const int *in_m,
                       __global int *out)
{
    int bad = 0;
    index_t ex = INT_MAX, ex_e = INT_MAX;
    FOR_EACH_VERTEX(v, n) {
        int x = 0;
        if (deg[v] > b[v]) x = OVER_B;
        else if (deg[v] != degree[v]) x = DEGREE;
        if (x) { bad |= x; ex = min(ex, v); }
    }
    <%common:entries e="e" i="u" by_rows="${by_rows}">
        const index_t p = ind[e];
        if (p <= u || in_m[e]) continue;
        const wbits_t x = WEIGHT_BITS(w[e]);
        const int want_u = deg[u] < b[u] || ABOVE(x, p, worst[u], worst_p[u]);
        const int want_p = deg[p] < b[p] || ABOVE(x, u, worst[p], worst_p[p]);
        if (want_u && want_p) ex_e = min(ex_e, u);
    </%common:entries>
    if (ex_e != INT_MAX) bad |= BLOCKING;
    if (bad) {
        atomic_or(&out[OUT_BAD], bad);
        if (ex != INT_MAX) atomic_min(&out[OUT_EX_VERTEX], ex);
        if (ex_e != INT_MAX) atomic_min(&out[OUT_EX_EDGE], ex_e);
    }
}
