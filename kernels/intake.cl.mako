<%doc>
  Ingestion of a compressed sparse structure (CSR, or CSC read as the CSR of the transpose)
  on the device, shared by every family (pyclmatch/engine/intake.py).
  Template values:
    index_t, offset_t   the device's vertex-id and edge-offset types (mode: "ct", the
                        strided grid of common.cl.mako)
    in_index_t          the type of the user's indices as uploaded ("int" or "long"); when it
                        differs from index_t, intake_check writes the converted ids
    with_perm           intake_scatter also writes, for each transposed entry, the position of
                        its entry in the input (to carry values such as weights across)
    with_counts         (default true) intake_check counts the entries of each minor vertex
                        (the transpose's degrees); off when no transpose is built
    by_rows             (default false) the entry passes walk whole lists per work-item
                        (CPU devices) instead of striding entries (common.cl.mako: entries)
  One pass checks and counts (intake_check), pyopencl's scan turns the counts into the
  transpose's offsets, and one pass scatters (intake_scatter): the transpose of a checked CSR
  in two edge passes and no host work proportional to the edges. CPU devices build it in
  chunks without atomics instead (intake_chunk_*, below).
</%doc>
<%include file="common.cl.mako"/>
<%namespace name="common" file="common.cl.mako"/>
<% with_counts = context.get('with_counts', True); by_rows = context.get('by_rows', False) %>\
typedef ${in_index_t} in_index_t;

/* flags[0] bits, read back once by the host (engine/intake.py names them) */
#define BAD_PTR 1         /* indptr decreases somewhere */
#define BAD_RANGE 2       /* an index < 0 or >= the number of minor vertices */
#define UNSORTED 4        /* a major list is not increasing */
#define DUPLICATE 8       /* a major list repeats an index */

/* Check the structure and count the entries of each minor vertex (the transpose's degrees).
   Edge-parallel over a strided grid; the offsets' monotonicity in the same launch. cnt must
   be zero on entry. The host checks ptr[0] == 0 and ptr[n] == nnz. */
__kernel void intake_check(index_t n, index_t n_minor, offset_t nnz,
                           __global const offset_t *ptr, __global const in_index_t *ind,
                           __global index_t *ind_out, __global int *cnt,
                           __global int *flags)
{
    int bad = 0;
    for (index_t i = (index_t)get_global_id(0); i < n; i += (index_t)get_global_size(0))
        if (ptr[i] > ptr[i + 1]) bad |= BAD_PTR;
    <%common:entries e="e" i="i" by_rows="${by_rows}">
        const in_index_t j = ind[e];
        if (j < 0 || j >= n_minor) { bad |= BAD_RANGE; continue; }
        if (e > ptr[i]) {
            const in_index_t prev = ind[e - 1];
            if (prev == j) bad |= DUPLICATE;
            else if (prev > j) bad |= UNSORTED;
        }
% if in_index_t != index_t:
        ind_out[e] = (index_t)j;
% endif
% if with_counts:
        atomic_inc(&cnt[j]);
% endif
    </%common:entries>
    if (bad) atomic_or(&flags[0], bad);
}

/* The transpose: entry (i, j) of the input goes to list j at a position claimed with one
   atomic increment: cursor[j] starts at t_ptr[j] (the scanned counts) with 32-bit offsets;
   with 64-bit offsets cursor[j] counts from 0 (an int: no list is longer than 2**31-1) and the
   position is t_ptr[j] + cursor[j]. Within a list the order is the order in which work-items
   claim positions; the lists hold the right entries whatever that order. */
__kernel void intake_scatter(index_t n, index_t n_minor, offset_t nnz, __global const offset_t *ptr,
                             __global const index_t *ind, __global const offset_t *t_ptr,
% if offset_t == "long":
                             __global int *cursor,
% else:
                             __global offset_t *cursor,
% endif
                             __global index_t *t_ind
% if with_perm:
                             , __global offset_t *t_perm
% endif
                             )
{
    <%common:entries e="e" i="i" by_rows="${by_rows}">
        const index_t j = ind[e];
        if (j < 0 || j >= n_minor) continue;    /* (flagged by intake_check; not counted) */
% if offset_t == "long":
        const offset_t pos = t_ptr[j] + atomic_inc(&cursor[j]);
% else:
        const offset_t pos = atomic_inc(&cursor[j]);
% endif
        t_ind[pos] = i;
% if with_perm:
        t_perm[pos] = e;
% endif
    </%common:entries>
}

/* ---- The transpose in chunks, without atomics (CPU devices: engine/intake.py chooses it; the
   "ScanTrans" of Wang, Liu, Hou and Feng, "Parallel transposition of sparse data structures",
   ICS 2016). Work-item p of P (one per work-group) owns chunk p: the lists
   chunk_begin(p) .. chunk_begin(p + 1) - 1, about nnz / P entries, walked in order.
   hist[p * n_minor + j] (offset_t) first counts the entries of index j in chunk p
   (intake_chunk_count, which zeroes its chunk's counters first); intake_chunk_sum adds
   them up per j (the transpose's degrees, which the host scans into t_ptr);
   intake_chunk_cursors turns each count into the position of list j where chunk p's
   entries start (t_ptr[j] + the entries of index j in the chunks before p);
   intake_chunk_scatter writes each chunk's entries at its own cursors. Against
   intake_check's counts and intake_scatter's claims, no atomics, and no two work-items write
   next to each other in a list (on CPUs, a heavy list's positions claimed by every core in
   turn move its cache lines from core to core at every entry); each transposed list comes
   out increasing (chunks in order, lists in order within a chunk). Entries out of range are
   skipped as in intake_scatter; offsets out of order (flagged by intake_check) can make
   chunks overlap, never a pass read or write outside its arrays. */
inline index_t chunk_begin(index_t n, offset_t nnz, __global const offset_t *ptr, int p, int P)
{
    if (p <= 0) return 0;
    if (p >= P) return n;
    const offset_t target = (offset_t)(((long)nnz * p) / P);
    index_t lo = 0, hi = n;                  /* the least i with ptr[i] >= target */
    while (lo < hi) {
        const index_t mid = lo + (hi - lo) / 2;
        if (ptr[mid] < target) lo = mid + 1; else hi = mid;
    }
    return lo;
}

<%def name="chunk_entries(e, i)">
    const int p = (int)get_global_id(0), P = (int)get_global_size(0);
    const index_t ${i}_end = chunk_begin(n, nnz, ptr, p + 1, P);
    for (index_t ${i} = chunk_begin(n, nnz, ptr, p, P); ${i} < ${i}_end; ++${i}) {
        const offset_t ${e}_end = min(ptr[${i} + 1], nnz);
        for (offset_t ${e} = max(ptr[${i}], (offset_t)0); ${e} < ${e}_end; ++${e}) {
            ${caller.body()}
        }
    }
</%def>

__kernel void intake_chunk_count(index_t n, index_t n_minor, offset_t nnz,
                                 __global const offset_t *ptr, __global const index_t *ind,
                                 __global offset_t *hist)
{
    {   /* this chunk's counters from zero (each work-item its own: a fill would be one
           thread's memset on CPU devices) */
        __global offset_t *mine = hist + (size_t)get_global_id(0) * n_minor;
        for (index_t j = 0; j < n_minor; ++j) mine[j] = 0;
    }
    <%self:chunk_entries e="e" i="i">
        const index_t j = ind[e];
        if (j < 0 || j >= n_minor) continue;
        ++hist[(size_t)p * n_minor + j];
    </%self:chunk_entries>
}

__kernel void intake_chunk_sum(index_t n_minor, int P, __global const offset_t *hist,
                               __global int *cnt)
{
    FOR_EACH_VERTEX(j, n_minor) {
        offset_t s = 0;
        for (int p = 0; p < P; ++p) s += hist[(size_t)p * n_minor + j];
        cnt[j] = (int)s;
    }
}

__kernel void intake_chunk_cursors(index_t n_minor, int P, __global const offset_t *t_ptr,
                                   __global offset_t *hist)
{
    FOR_EACH_VERTEX(j, n_minor) {
        offset_t at = t_ptr[j];
        for (int p = 0; p < P; ++p) {
            const size_t k = (size_t)p * n_minor + j;
            const offset_t c = hist[k];
            hist[k] = at;
            at += c;
        }
    }
}

__kernel void intake_chunk_scatter(index_t n, index_t n_minor, offset_t nnz,
                                   __global const offset_t *ptr, __global const index_t *ind,
                                   __global offset_t *hist, __global index_t *t_ind
% if with_perm:
                                   , __global offset_t *t_perm
% endif
                                   )
{
    <%self:chunk_entries e="e" i="i">
        const index_t j = ind[e];
        if (j < 0 || j >= n_minor) continue;
        const offset_t pos = hist[(size_t)p * n_minor + j]++;
        if (pos < 0 || pos >= nnz) continue;   /* (only with offsets out of order) */
        t_ind[pos] = i;
% if with_perm:
        t_perm[pos] = e;
% endif
    </%self:chunk_entries>
}

/* Canonical order on the device (input the check found unsorted or with repeated entries):
   each entry becomes the key (major << minor_bits) | minor, pyopencl's radix sort orders the
   keys, pyopencl's unique drops repeats, and intake_split turns the keys back into lists. */
__kernel void intake_keys(index_t n, offset_t nnz, __global const offset_t *ptr,
                          __global const index_t *ind, int minor_bits, __global ulong *keys)
{
    <%common:entries e="e" i="i" by_rows="${by_rows}">
        keys[e] = ((ulong)i << minor_bits) | (ulong)(uint)ind[e];
    </%common:entries>
}

__kernel void intake_split(offset_t nnz, __global const ulong *keys, int minor_bits,
                           __global index_t *ind, __global int *cnt)
{
    const ulong mask = (1UL << minor_bits) - 1;
    for (offset_t e = get_global_id(0); e < nnz; e += get_global_size(0)) {
        const ulong k = keys[e];
        ind[e] = (index_t)(k & mask);
        atomic_inc(&cnt[(index_t)(k >> minor_bits)]);
    }
}

<%doc>
  Values of a square structure (template values besides those above: in_value_t, the C type
  of the stored values as uploaded, value_is_float; weight_t, the type the family compares
  ("float" or "double", default "float"); check_exact: count the values that weight_t does
  not hold exactly (64-bit integers above 2**53 in a double); and with_twins: write each
  entry's twin position, the reverse edge of a symmetric graph). Rendered only when
  in_value_t is given, as a program of its own, so that the structure kernels above are
  built once whatever the value type.
</%doc>
<% in_value_t = context.get('in_value_t', None); value_is_float = context.get('value_is_float', False); with_twins = context.get('with_twins', False); check_exact = context.get('check_exact', False) %>\
% if in_value_t == "double":
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
% endif
% if context.get('weight_t', None) is None:
typedef float weight_t;    /* (common.cl.mako defines it when weight_t is given) */
% endif
% if in_value_t:
typedef ${in_value_t} in_value_t;

/* flags[] slots of intake_values (the host fills them: 0 but SLOT_FIRST_BAD = INT_MAX) */
#define SLOT_FIRST_BAD 1  /* least list (row) holding an invalid value */
#define SLOT_BAD 2        /* invalid values (off the diagonal) */
#define SLOT_DIAG 3       /* diagonal entries */
#define SLOT_ASYM 4       /* entries (i, j, x), i < j, without a twin (j, i, x) */
#define SLOT_BALANCE 5    /* entries above the diagonal minus entries below */
#define SLOT_INEXACT 6    /* values that weight_t does not hold exactly (with check_exact) */
#define SLOT_HUGE 7       /* valid values above HUGE_WEIGHT: a sum of fewer than 2**63 of
                             them may overflow double, so the host sums the answer's weight */
#define HUGE_WEIGHT 0x1p960

/* One pass over the stored values of a square structure: each entry (i, j, x) off the
   diagonal must hold a finite positive x whose weight_t conversion (the device's weight) is
   finite and positive too. With check_twins, each entry above the diagonal (i < j) must have
   a twin (j, i, x) (binary search in list j) and there must be as many entries below the
   diagonal as above: with no repeated entries (intake_check) the twins then pair them all,
   so the matrix is symmetric with equal values both ways. Diagonal entries are only
   counted. With convert, w[e] = (weight_t)x for every entry (round to nearest, as numpy).
   With with_twins, twin[e] = the position of e's twin, both ways (valid when the matrix
   is found symmetric).
   Entries out of range are skipped (intake_check reports them); with unsorted lists the
   twin counts mean nothing (the host repairs the structure and runs this again). */
__kernel void intake_values(index_t n, offset_t nnz, __global const offset_t *ptr,
                            __global const index_t *ind, __global const in_value_t *val,
                            __global weight_t *w, int convert, int check_twins,
                            __global int *flags
% if with_twins:
                            , __global offset_t *twin
% endif
                            )
{
    int bad = 0, diag = 0, asym = 0, balance = 0, inexact = 0, huge = 0;
    index_t first = INT_MAX;
    <%common:entries e="e" i="i" by_rows="${by_rows}">
        const index_t j = ind[e];
        if (j < 0 || j >= n) continue;
        const in_value_t x = val[e];
        const weight_t f = (weight_t)x;
        if (convert) w[e] = f;
        if (i == j) { ++diag; continue; }
% if value_is_float:
        if (!(x > 0) || isinf(x) || !(f > 0) || isinf(f)) {      /* NaN fails x > 0 */
% else:
        if (!(x > 0)) {
% endif
            ++bad;
            first = min(first, i);
        }
% if in_value_t == "double":
        else if (x > HUGE_WEIGHT) ++huge;
% endif
% if check_exact:
        else if (convert_${in_value_t}_sat(f) != x) ++inexact;
% endif
        if (j < i) { --balance; continue; }
        ++balance;
        if (check_twins) {
            const offset_t t = sorted_list_find(ind, ptr[j], ptr[j + 1], i);
            if (t < 0 || !(val[t] == x)) ++asym;
% if with_twins:
            else { twin[e] = t; twin[t] = e; }
% endif
        }
    </%common:entries>
    if (bad) { atomic_add(&flags[SLOT_BAD], bad); atomic_min(&flags[SLOT_FIRST_BAD], first); }
    if (diag) atomic_add(&flags[SLOT_DIAG], diag);
    if (asym) atomic_add(&flags[SLOT_ASYM], asym);
    if (balance) atomic_add(&flags[SLOT_BALANCE], balance);
    if (inexact) atomic_add(&flags[SLOT_INEXACT], inexact);
    if (huge) atomic_add(&flags[SLOT_HUGE], huge);
}
% endif

/* has_diag[i] = 1 when the sorted list i holds i (a square structure's diagonal entry). */
__kernel void intake_diagonal_rows(index_t n, __global const offset_t *ptr,
                                   __global const index_t *ind, __global int *has_diag)
{
    FOR_EACH_VERTEX(i, n)
        has_diag[i] = sorted_list_has(ind, ptr[i], ptr[i + 1], i);
}

/* The structure without its diagonal: shift[i] = the diagonal entries of lists < i (the
   exclusive scan of has_diag, shift[n] the total). Entry e of list i goes to
   e - shift[i] - (1 if it follows i's diagonal entry); orig[new position] = e. With
   with_twins, the twin positions (intake_values) are carried across and renumbered. */
__kernel void intake_drop_diagonal(index_t n, offset_t nnz, __global const offset_t *ptr,
                                   __global const index_t *ind, __global const weight_t *w,
                                   __global const int *shift, __global offset_t *new_ptr,
                                   __global index_t *new_ind, __global weight_t *new_w,
                                   __global offset_t *orig
% if with_twins:
                                   , __global const offset_t *twin, __global offset_t *new_twin
% endif
                                   )
{
    FOR_EACH_VERTEX(i, n + 1)
        new_ptr[i] = ptr[i] - shift[i];
    <%common:entries e="e" i="i" by_rows="${by_rows}">
        const index_t j = ind[e];
        if (j == i) continue;
        const offset_t at = e - shift[i] - (j > i && shift[i + 1] > shift[i]);
        new_ind[at] = j;
        new_w[at] = w[e];
        orig[at] = e;
% if with_twins:
        new_twin[at] = twin[e] - shift[j] - (i > j && shift[j + 1] > shift[j]);
% endif
    </%common:entries>
}
