<%doc>
  The certificate of a maximum bipartite matching, assembled and checked on the device by
  kernels that share nothing with the algorithms that computed the matching.
  Template values: those of common.cl.mako (mode "ct": strided loops), and by_rows (the edge
  pass walks whole lists per work-item: CPU devices; common.cl.mako's entries).
  The sorted lists (ptr/ind) are the user's side, checked at intake: the rows' for a CSR, the
  columns' for a CSC. Arrays: rmatch[nr], cmatch[nc] (-1 unmatched), bfs_array[nc] of the last alternating BFS
  (values >= L0: the column was reached from an unmatched column), cover_r[nr], cover_c[nc]
  (uchar flags), out[OUT_SLOTS] (int, zeroed by the host, read back once).
</%doc>
<%include file="common.cl.mako"/>
<%namespace name="common" file="common.cl.mako"/>
#define L0 2

/* out[] slots */
#define OUT_BAD 0
#define OUT_MATCHED_ROWS 1
#define OUT_COVER_ROWS 2
#define OUT_MATCHED_COLS 3
#define OUT_COVER_COLS 4

/* OUT_BAD bits */
#define BAD_MATE 1        /* a mate outside -1 .. n_other-1 */
#define BAD_PAIR 2        /* rmatch and cmatch disagree */
#define NOT_EDGE 4        /* a matched pair that is not an edge */
#define UNCOVERED 8       /* an edge with neither end in the cover */

/* The König cover from the last alternating BFS (no augmenting path left): with Z the
   vertices reached from unmatched columns, the cover is (matched columns not in Z) + (rows in
   Z), and the rows in Z are the mates of the reached matched columns. */
__kernel void konig_cover(index_t nr, index_t nc, __global const index_t *rmatch,
                          __global const index_t *cmatch, __global const int *bfs_array,
                          __global uchar *cover_r, __global uchar *cover_c)
{
    FOR_EACH_VERTEX(c, nc)
        cover_c[c] = cmatch[c] >= 0 && bfs_array[c] < L0;
    FOR_EACH_VERTEX(r, nr) {
        const index_t c = rmatch[r];
        cover_r[r] = c >= 0 && c < nc && bfs_array[c] >= L0;
    }
}

/* Adds the work-group's counts to out[slot_a], out[slot_b] (one global atomic each per
   group); every work-item calls it, outside any branch. */
inline void group_add2(int a, int b, __global int *out, int slot_a, int slot_b,
                       __local int *s)
{
    if (get_local_id(0) == 0) { s[0] = 0; s[1] = 0; }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (a) atomic_add(&s[0], a);
    if (b) atomic_add(&s[1], b);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        if (s[0]) atomic_add(&out[slot_a], s[0]);
        if (s[1]) atomic_add(&out[slot_b], s[1]);
    }
}

/* One side's mates: each mate in range and mutual; counts the matched vertices and the cover
   vertices of the side. On the user's side each matched pair is looked up in its list, which
   must hold it: check_edges = 1 for sorted lists (binary search), 2 for lists in any order
   (a scan: input a CPU device keeps as given), 0 on the other side. */
__kernel void verify_side(index_t n, index_t n_other, __global const index_t *mate,
                          __global const index_t *other_mate, __global const uchar *cover,
                          __global const offset_t *ptr, __global const index_t *ind,
                          int check_edges, __global int *out, int slot_matched,
                          int slot_cover)
{
    __local int s[2];
    int bad = 0, matched = 0, covered = 0;
    FOR_EACH_VERTEX(v, n) {
        const index_t m = mate[v];
        covered += cover[v] != 0;
        if (m == -1) continue;
        if (m < -1 || m >= n_other) { bad |= BAD_MATE; continue; }
        ++matched;
        if (other_mate[m] != v) bad |= BAD_PAIR;
        if (check_edges == 1 ? !sorted_list_has(ind, ptr[v], ptr[v + 1], m)
                : check_edges == 2 && !list_has(ind, ptr[v], ptr[v + 1], m)) bad |= NOT_EDGE;
    }
    if (bad) atomic_or(&out[OUT_BAD], bad);
    group_add2(matched, covered, out, slot_matched, slot_cover, s);
}

/* Every edge has an end in the cover: a pass over the entries of the sorted lists. */
__kernel void verify_cover(index_t n, offset_t nnz, __global const offset_t *ptr,
                           __global const index_t *ind, __global const uchar *cover_major,
                           __global const uchar *cover_minor, __global int *out)
{
    int bad = 0;
    <%common:entries e="e" i="i" by_rows="${by_rows}">
        if (!cover_minor[ind[e]] && !cover_major[i]) bad = UNCOVERED;
    </%common:entries>
    if (bad) atomic_or(&out[OUT_BAD], bad);
}
