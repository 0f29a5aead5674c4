<%doc>
  The certificate of an optimal assignment: linear-programming duality, checked on the
  device by kernels that share nothing with the auction. For the minimisation form (costs
  c, row potentials u, column potentials v), the matching is optimal when every stored entry
  has a reduced cost c_ij - u_i - v_j >= -tol, every matched entry a reduced cost in
  [-tol, tol], and the side conditions of the problem hold: a side whose vertices may stay
  unmatched (the larger side of a full problem; both sides of a partial one) has potentials
  <= tol, and = 0 (within tol) at its unmatched vertices.
  Template values: those of common.cl.mako (mode "ct": strided loops), by_rows (the entry
  pass walks whole rows per work-item: CPU devices).
  Arrays: ptr/ind/c the problem's rows (sorted lists, canonical), u[nr], v[nc] (double),
  rmatch[nr], cmatch[nc] (-1 unmatched), out[3] (int, zeroed by the host, read back once).
</%doc>
<%include file="common.cl.mako"/>
<%namespace name="common" file="common.cl.mako"/>
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* out[] slots */
#define OUT_BAD 0
#define OUT_MATCHED_ROWS 1
#define OUT_MATCHED_COLS 2

/* OUT_BAD bits */
#define BAD_MATE 1        /* a mate outside -1 .. n_other-1 */
#define BAD_PAIR 2        /* rmatch and cmatch disagree */
#define NOT_EDGE 4        /* a matched pair that is not a stored entry */
#define NOT_TIGHT 8       /* a matched entry with a reduced cost outside [-tol, tol] */
#define NEGATIVE 16       /* a stored entry with a reduced cost < -tol */
#define BAD_SIDE 32       /* a potential > tol on a side that may stay unmatched, or != 0
                             at an unmatched vertex of it */

/* One side's mates and potentials: each mate in range and mutual; the side's matched
   vertices counted. On the rows (ptr != 0: rows = 1) each matched entry is found in its
   sorted row and must be tight. side = 1: the side may stay unmatched. */
__kernel void slackness_side(index_t n, index_t n_other, __global const index_t *mate,
                             __global const index_t *other_mate, __global const double *pot,
                             int side, int rows, __global const offset_t *ptr,
                             __global const index_t *ind, __global const double *c,
                             __global const double *v, double tol, __global int *out,
                             int slot)
{
    int bad = 0, matched = 0;
    FOR_EACH_VERTEX(x, n) {
        const index_t m = mate[x];
        const double p = pot[x];
        if (!(p == p) || (side && (p > tol || (m == -1 && p < -tol)))) bad |= BAD_SIDE;
        if (m == -1) continue;
        if (m < -1 || m >= n_other) { bad |= BAD_MATE; continue; }
        ++matched;
        if (other_mate[m] != x) bad |= BAD_PAIR;
        if (rows) {
            const offset_t e = sorted_list_find(ind, ptr[x], ptr[x + 1], m);
            if (e < 0) bad |= NOT_EDGE;
            else if (!(fabs(c[e] - p - v[m]) <= tol)) bad |= NOT_TIGHT;
        }
    }
    if (bad) atomic_or(&out[OUT_BAD], bad);
    if (matched) atomic_add(&out[slot], matched);
}

/* Dual feasibility: every stored entry has a reduced cost >= -tol (a pass over the entries). */
__kernel void slackness_entries(index_t n, offset_t nnz, __global const offset_t *ptr,
                                __global const index_t *ind, __global const double *c,
                                __global const double *u, __global const double *v,
                                double tol, __global int *out)
{
    int bad = 0;
    <%common:entries e="e" i="i" by_rows="${by_rows}">
        if (!(c[e] - u[i] - v[ind[e]] >= -tol)) bad = NEGATIVE;
    </%common:entries>
    if (bad) atomic_or(&out[OUT_BAD], bad);
}
