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
  One pass checks and counts (intake_check), pyopencl's scan turns the counts into the
  transpose's offsets, and one pass scatters (intake_scatter): the transpose of a checked CSR
  in two edge passes and no host work proportional to the edges.
</%doc>
<%include file="common.cl.mako"/>
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
    for (offset_t e = get_global_id(0); e < nnz; e += get_global_size(0)) {
        const in_index_t j = ind[e];
        if (j < 0 || j >= n_minor) { bad |= BAD_RANGE; continue; }
        const index_t i = major_of(e, n, ptr);
        if (e > ptr[i]) {
            const in_index_t prev = ind[e - 1];
            if (prev == j) bad |= DUPLICATE;
            else if (prev > j) bad |= UNSORTED;
        }
% if in_index_t != index_t:
        ind_out[e] = (index_t)j;
% endif
        atomic_inc(&cnt[j]);
    }
    if (bad) atomic_or(&flags[0], bad);
}

/* The transpose: entry (i, j) of the input goes to list j at a position taken from cursor[j]
   (the scanned counts). Within a list the order is the order in which work-items claim
   positions; the lists hold the right entries whatever that order. */
__kernel void intake_scatter(index_t n, index_t n_minor, offset_t nnz, __global const offset_t *ptr,
                             __global const index_t *ind, __global offset_t *cursor,
                             __global index_t *t_ind
% if with_perm:
                             , __global offset_t *t_perm
% endif
                             )
{
    for (offset_t e = get_global_id(0); e < nnz; e += get_global_size(0)) {
        const index_t j = ind[e];
        if (j < 0 || j >= n_minor) continue;    /* (flagged by intake_check; not counted) */
        const index_t i = major_of(e, n, ptr);
        const offset_t pos = atomic_inc(&cursor[j]);
        t_ind[pos] = i;
% if with_perm:
        t_perm[pos] = e;
% endif
    }
}

/* Canonical order on the device (input the check found unsorted or with repeated entries):
   each entry becomes the key (major << minor_bits) | minor, pyopencl's radix sort orders the
   keys, pyopencl's unique drops repeats, and intake_split turns the keys back into lists. */
__kernel void intake_keys(index_t n, offset_t nnz, __global const offset_t *ptr,
                          __global const index_t *ind, int minor_bits, __global ulong *keys)
{
    for (offset_t e = get_global_id(0); e < nnz; e += get_global_size(0))
        keys[e] = ((ulong)major_of(e, n, ptr) << minor_bits) | (ulong)(uint)ind[e];
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
