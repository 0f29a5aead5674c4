"""Host-side parallel building blocks for the data generators (all cores, through threads:
numpy and scipy's sparsetools release the GIL in the loops used here).

* :class:`Stream` replays a ``numpy.random.default_rng(seed)`` (PCG64) bit for bit while
  drawing in parallel: ``random`` (doubles, one 64-bit output each) and ``integers`` (numpy's
  bounded 32-bit draws: Lemire's multiply-shift with rejection on 32-bit halves of the 64-bit
  outputs, low half first, the unused half buffered for the next call). Each chunk of the
  output stream is jumped to with ``PCG64.advance``; the rejected draws are found by the same
  test numpy applies (a draw is kept exactly when the low word of ``x * range`` is at least
  ``2**32 mod range``), so the values and the generator's position afterwards are numpy's.
* :func:`group_by_key`: stable counting sort of ``values`` by a key in ``[0, n_keys)``
  (what scipy's ``tocsc`` does for a CSR, single-threaded there): two stable radix passes on
  16-bit digits (numpy's radix argsort), the first partitioning chunks of the input by the
  key's high bits, the second sorting each key range independently.
* :func:`sort_rows_by`: scipy's per-row sort of a CSR (``sort_indices``) on blocks of rows in
  parallel (same results as one call, ties included, as each row is sorted alone).
* :func:`delete`: ``numpy.delete`` of a few positions from a large array, copied in parallel.
"""
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

_pool = None


def workers():
    """The number of threads the generators use: ``$PYCLMATCH_THREADS`` if set, else the CPUs
    this process may run on. The outputs do not depend on it."""
    env = os.environ.get("PYCLMATCH_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:                              # pragma: no cover (not Linux)
        return max(1, os.cpu_count() or 1)


def pmap(fn, items):
    """``list(map(fn, items))`` on the generators' thread pool (in order). Tasks must not
    submit to the pool themselves."""
    global _pool
    items = list(items)
    if len(items) <= 1 or workers() == 1:
        return [fn(x) for x in items]
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=workers(), thread_name_prefix="pyclmatch-gen")
    return list(_pool.map(fn, items))


def spans(n, parts=None, minimum=1 << 16):
    """Split ``range(n)`` into about ``parts`` (default 4 per worker) contiguous
    ``(start, stop)`` pairs of at least ``minimum`` items (one pair for small ``n``)."""
    parts = parts or 4 * workers()
    parts = max(1, min(parts, n // max(1, minimum)))
    b = np.linspace(0, n, parts + 1).astype(np.int64)
    return [(int(b[i]), int(b[i + 1])) for i in range(parts) if b[i + 1] > b[i]] or [(0, n)]


# --------------------------------------------------------------------------- random streams

_CHUNK64 = 1 << 18          # 64-bit outputs per task


class Stream:
    """The draws of ``numpy.random.default_rng(seed)``, computed in parallel (see the module
    docstring). Calls must come in the order the sequential code makes them."""

    _slack = 64             # extra outputs drawn beyond the expected number (tests lower it)

    def __init__(self, seed):
        bg = np.random.default_rng(seed).bit_generator
        if not isinstance(bg, np.random.PCG64) or sys.byteorder != "little":
            raise NotImplementedError("Stream replays PCG64 on little-endian hosts only")
        self._state = bg.state
        if self._state["has_uint32"]:                   # pragma: no cover (fresh generator)
            raise NotImplementedError("a fresh PCG64 has no buffered half")
        self.pos = 0            # 64-bit outputs consumed
        self.half = None        # the buffered high half (np.uint32) of an earlier output

    def _raw(self, start, count):
        bg = np.random.PCG64(0)            # its state is replaced at once
        bg.state = self._state
        bg.advance(start)
        return bg.random_raw(count)

    def generator(self, skip=0):
        """A ``numpy.random.Generator`` at the stream's position plus ``skip`` 64-bit outputs,
        for sequential draws (the stream does not follow it: use it last)."""
        bg = np.random.PCG64(0)            # its state is replaced at once
        bg.state = self._state
        bg.advance(self.pos + skip)
        st = bg.state
        if self.half is not None:
            st["has_uint32"], st["uinteger"] = 1, int(self.half)
            bg.state = st
        return np.random.Generator(bg)

    def doubles(self, start, count, out=None):
        """The doubles ``random`` gives for the 64-bit outputs ``start .. start + count - 1``
        (counted from the seed), in this thread."""
        raw = self._raw(start, count)
        raw >>= np.uint64(11)
        return np.multiply(raw, 1.0 / 9007199254740992.0, out=out)

    def random(self, size):
        """``Generator.random(size)``: float64 in [0, 1) from the top 53 bits of each output."""
        out = np.empty(size, np.float64)
        p0 = self.pos
        pmap(lambda ab: self.doubles(p0 + ab[0], ab[1] - ab[0], out[ab[0]:ab[1]]),
             spans(size, minimum=1 << 18))
        self.pos += size
        return out

    def integers(self, high, size, dtype=np.int64):
        """``Generator.integers(0, high, size, dtype)`` for ``1 <= high <= 2**32 - 1`` (the
        range numpy draws from 32-bit halves)."""
        high, size = int(high), int(size)
        if not 1 <= high < 1 << 32:
            raise ValueError("high must lie in [1, 2**32)")
        out = np.empty(size, dtype)
        if high == 1 or size == 0:         # numpy draws nothing for a single value
            out[:] = 0
            return out
        rng = np.uint64(high)
        threshold = np.uint32((1 << 32) % high)
        done = 0
        if self.half is not None:          # the buffered half comes first
            m = int(self.half) * high
            self.half = None
            if (m & 0xFFFFFFFF) >= int(threshold):
                out[0] = m >> 32
                done = 1
        need = size - done
        while need > 0:
            # enough 64-bit outputs for `need` kept halves (rejections: fraction < 2**-32 * high)
            est = (need + 1) // 2
            est = max(1, est + int(est * (int(threshold) / 2.0 ** 32) * 2) + self._slack)
            p0 = self.pos

            def draw(ab):
                a, b = ab
                m = self._raw(p0 + a, b - a).view(np.uint32).astype(np.uint64)
                m *= rng
                words = m.view(np.uint32)                    # (low, high) words of x * range
                vals = words[1::2].astype(dtype)
                rej = np.flatnonzero(words[0::2] < threshold) if threshold else []
                if len(rej):                                 # rare: drop the rejected draws
                    vals = np.delete(vals, rej)
                return vals, rej
            parts = pmap(draw, [(a, min(a + _CHUNK64, est)) for a in range(0, est, _CHUNK64)])
            counts = np.array([v.size for v, _ in parts], np.int64)
            starts = np.concatenate([[0], np.cumsum(counts)])
            last = int(np.searchsorted(starts, need, side="left"))   # chunk holding the end
            last = min(last, len(parts))
            used = parts[:last]

            def copy(i):
                v = parts[i][0]
                take = min(v.size, need - int(starts[i]))
                out[done + starts[i]:done + starts[i] + take] = v[:take]
            pmap(copy, range(len(used)))
            got = min(need, int(starts[last]))
            if got < need:                 # not enough outputs drawn: go on after them
                self.pos += est
                done += got
                need -= got
                continue
            # the stream's position after the `need`-th kept half
            i = last - 1
            j = need - int(starts[i]) - 1                           # index within chunk i
            h = j                          # the half index within chunk i of its j-th kept
            for r in parts[i][1]:
                if r > h:
                    break
                h += 1
            base = i * _CHUNK64
            out64 = base + h // 2                                    # the output it came from
            self.pos = p0 + out64 + 1
            if h % 2 == 0:                 # a low half: the high half stays buffered
                self.half = self._raw(p0 + out64, 1).view(np.uint32)[1]
            need = 0
        return out


# --------------------------------------------------------------------------- grouping / sorting

def group_by_key(keys, n_keys, values):
    """Stable counting sort: ``(ptr, grouped)`` where ``grouped[ptr[k]:ptr[k+1]]`` are the
    ``values`` whose key is ``k``, in their input order (``ptr`` int64 of ``n_keys + 1``).
    ``keys`` must lie in ``[0, n_keys)`` with ``n_keys <= 2**32``."""
    L = keys.size
    shift = min(16, int(max(n_keys - 1, 1)).bit_length())      # low digit: 16 bits at most
    nb = ((n_keys - 1) >> shift) + 1 if n_keys else 1          # high digit: key >> shift
    if nb > 1 << 16:
        raise ValueError("group_by_key takes at most 2**32 keys")
    low_mask = (1 << shift) - 1
    # chunks of about 2M entries: their sort permutation and gathers stay in cache
    chunks = spans(L, parts=max(4 * workers(), L >> 21), minimum=1 << 18)

    def count(ab):
        return np.bincount((keys[ab[0]:ab[1]] >> shift).astype(np.intp), minlength=nb)
    cnt = np.array(pmap(count, chunks), np.int64).reshape(len(chunks), nb)
    bstart = np.zeros(nb + 1, np.int64)
    np.cumsum(cnt.sum(0), out=bstart[1:])
    off = bstart[:-1] + np.cumsum(cnt, axis=0) - cnt            # chunk t's place in bucket b
    low = np.empty(L, np.uint16)
    staged = np.empty(L, values.dtype)

    def partition(t):
        a, b = chunks[t]
        k = keys[a:b]
        hi = (k >> shift).astype(np.uint16)
        order = np.argsort(hi, kind="stable")                  # radix sort (16-bit keys)
        ks, vs = k[order], values[a:b][order]
        c = np.concatenate([[0], np.cumsum(cnt[t])])
        for bk in np.flatnonzero(cnt[t]):
            o, s, e = off[t, bk], c[bk], c[bk + 1]
            low[o:o + e - s] = ks[s:e] & low_mask
            staged[o:o + e - s] = vs[s:e]
    pmap(partition, range(len(chunks)))

    grouped = np.empty(L, values.dtype)
    ptr = np.zeros(n_keys + 1, np.int64)
    # buckets in tasks of about equal numbers of entries
    cuts = np.searchsorted(bstart, np.linspace(0, L, 4 * workers() + 1)[1:-1])
    groups = np.unique(np.concatenate([[0], cuts, [nb]]))

    def sort_buckets(g):
        for bk in range(groups[g], groups[g + 1]):
            s, e = bstart[bk], bstart[bk + 1]
            k0 = bk << shift
            width = min(1 << shift, n_keys - k0)
            lk = low[s:e]
            order = np.argsort(lk, kind="stable")
            grouped[s:e] = staged[s:e][order]
            ptr[k0 + 1:k0 + 1 + width] = np.bincount(lk, minlength=width)
    pmap(sort_buckets, range(groups.size - 1))
    np.cumsum(ptr, out=ptr)
    return ptr, grouped


def sort_rows_by(indptr, keys, values, ncols):
    """Reorder ``keys`` and ``values`` (in place) within each CSR row by increasing key with
    scipy's ``sort_indices`` on blocks of rows in parallel; returns ``(keys, values)``."""
    nrows = indptr.size - 1
    L = int(indptr[-1])
    cuts = np.searchsorted(indptr, np.linspace(0, L, 4 * workers() + 1)[1:-1])
    rows = np.unique(np.concatenate([[0], cuts, [nrows]]))

    def sort(i):
        r0, r1 = int(rows[i]), int(rows[i + 1])
        a, b = int(indptr[r0]), int(indptr[r1])
        if b - a < 2:
            return
        p = (indptr[r0:r1 + 1] - indptr[r0]).astype(keys.dtype if keys.dtype == np.int64
                                                    else np.int32)
        # the views are set after construction: scipy's constructor copies views of less
        # than half of their base
        M = sp.csr_matrix((r1 - r0, ncols), dtype=values.dtype)
        M.indptr, M.indices, M.data = p, keys[a:b], values[a:b]
        M.has_sorted_indices = False
        M.sort_indices()
        if not (np.shares_memory(M.indices, keys) and np.shares_memory(M.data, values)):
            keys[a:b], values[a:b] = M.indices, M.data
    pmap(sort, range(rows.size - 1))
    return keys, values


def delete(a, positions):
    """``numpy.delete(a, positions)`` for sorted unique ``positions`` (few), copied in
    parallel."""
    positions = np.asarray(positions, np.int64)
    if positions.size == 0:
        return a
    out = np.empty(a.size - positions.size, a.dtype)
    chunks = spans(a.size, minimum=1 << 20)

    def copy(ab):
        s, e = ab
        lo, hi = np.searchsorted(positions, [s, e])
        o = s - lo                                          # output position of a[s]
        cur = s
        for p in positions[lo:hi]:
            out[o:o + p - cur] = a[cur:p]
            o += p - cur
            cur = p + 1
        out[o:o + e - cur] = a[cur:e]
    pmap(copy, chunks)
    return out


def fill_owners(ptr, dtype=np.int32):
    """``numpy.repeat(arange(ptr.size - 1), diff(ptr))`` (the row of each CSR entry), written by
    all cores."""
    n = ptr.size - 1
    out = np.empty(int(ptr[-1]), dtype)

    def fill(ab):
        a, b = ab
        out[ptr[a]:ptr[b]] = np.repeat(np.arange(a, b, dtype=dtype), np.diff(ptr[a:b + 1]))
    pmap(fill, spans(n))
    return out


def astype(a, dtype):
    """``a.astype(dtype)`` converted by all cores."""
    out = np.empty(a.shape, dtype)

    def conv(ab):
        out[ab[0]:ab[1]] = a[ab[0]:ab[1]]
    pmap(conv, spans(a.size, minimum=1 << 20))
    return out


def pattern_csr(r, c, shape, cls=sp.csr_matrix, data_dtype=np.int8):
    """The CSR pattern of the pairs ``(r, c)`` with sorted, unique column indices and ones as
    data: what ``csr_matrix((ones, (r, c)), shape)`` with ``sum_duplicates()`` and
    ``data[:] = 1`` gives, built by all cores (a two-pass stable radix sort, columns then
    rows, and a parallel compaction of the repeats). Index arrays are int32 where they fit."""
    nr, nc = int(shape[0]), int(shape[1])
    L = int(r.size)
    idx = np.int32 if max(L, nr, nc) <= np.iinfo(np.int32).max else np.int64
    if L == 0:
        return cls(shape, dtype=data_dtype)
    r = r if r.dtype == idx else astype(r, idx)
    c = c if c.dtype == idx else astype(c, idx)
    cptr, rows = group_by_key(c, nc, r)                 # by column ...
    cols = fill_owners(cptr, idx)
    ptr, cols = group_by_key(rows, nr, cols)            # ... then stably by row
    del rows
    chunks = spans(L, minimum=1 << 20)
    keeps = [None] * len(chunks)

    def mark(t):
        a, b = chunks[t]
        keep = np.empty(b - a, bool)
        keep[0] = True if a == 0 else cols[a] != cols[a - 1]
        np.not_equal(cols[a + 1:b], cols[a:b - 1], out=keep[1:])
        lo, hi = np.searchsorted(ptr, [a, b])
        keep[ptr[lo:hi] - a] = True                     # row starts
        keeps[t] = keep
        return int(np.count_nonzero(keep))
    counts = np.array(pmap(mark, range(len(chunks))), np.int64)
    base = np.concatenate([[0], np.cumsum(counts)])
    nnz = int(base[-1])
    indices = np.empty(nnz, idx)
    indptr = np.empty(nr + 1, idx)
    indptr[np.searchsorted(ptr, L):] = nnz              # rows starting at the end

    def compact(t):
        a, b = chunks[t]
        keep = keeps[t]
        indices[base[t]:base[t + 1]] = cols[a:b][keep]
        lo, hi = np.searchsorted(ptr, [a, b])
        kc = np.concatenate([[0], np.cumsum(keep)])
        indptr[lo:hi] = base[t] + kc[ptr[lo:hi] - a]
    pmap(compact, range(len(chunks)))
    A = cls((nr, nc), dtype=data_dtype)
    A.indptr, A.indices, A.data = indptr, indices, np.ones(nnz, data_dtype)
    A.has_sorted_indices = True
    return A


def permute_csr(A, pr, pc, sort=False):
    """``A[pr][:, pc]`` for a CSR ``A`` with int32 indices and permutations ``pr``, ``pc``,
    with scipy's entry order (each row keeps its source row's order, columns relabelled),
    gathered by all cores; ``sort=True``: every row's columns then sorted (scipy's
    ``sort_indices``, per block of rows on the core that gathered it), flagged canonical
    when ``A`` is."""
    n_rows = A.shape[0]
    deg = np.diff(A.indptr)[pr]
    indptr = np.zeros(n_rows + 1, A.indptr.dtype)
    np.cumsum(deg, out=indptr[1:])
    pcinv = np.empty(A.shape[1], A.indices.dtype)
    pcinv[pc] = np.arange(A.shape[1], dtype=A.indices.dtype)
    nnz = int(indptr[-1])
    indices = np.empty(nnz, A.indices.dtype)
    data = np.empty(nnz, A.data.dtype)
    cuts = np.searchsorted(indptr, np.linspace(0, nnz, 4 * workers() + 1)[1:-1])
    rows = np.unique(np.concatenate([[0], cuts, [n_rows]]))

    def gather(i):
        r0, r1 = int(rows[i]), int(rows[i + 1])
        a, b = int(indptr[r0]), int(indptr[r1])
        src = np.repeat(A.indptr[pr[r0:r1]].astype(np.int64) - indptr[r0:r1], deg[r0:r1])
        src += np.arange(a, b)
        indices[a:b] = pcinv[A.indices[src]]
        data[a:b] = A.data[src]
        if sort:      # (scipy copies a small view of a large array: written back)
            M = sp.csr_matrix((data[a:b], indices[a:b], indptr[r0:r1 + 1] - a),
                              shape=(r1 - r0, A.shape[1]))
            M.sort_indices()
            indices[a:b], data[a:b] = M.indices, M.data
    pmap(gather, range(rows.size - 1))
    P = A.__class__((data, indices, indptr), shape=A.shape, copy=False)
    if sort:
        P.has_sorted_indices = True
        if A.has_canonical_format:
            P.has_canonical_format = True
    return P
