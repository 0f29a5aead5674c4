"""Hash-table sizes and degree buckets of the GPU Louvain method (Paper III, Section 4).

``TABLE_PRIMES`` is the "list of precomputed prime numbers" of computeMove (Algorithm 2): the
hash table of a vertex of degree d (or of a community whose members' degrees sum to d) has the
size of the smallest listed prime above 1.5 d. The list holds every prime below 1024 and then
primes about 4% apart up to 2**31 - 1, so tables are at most ~1.56 d slots. The kernel template
imports this module, so host and device agree on every size.
"""
import bisect

PRIME_GROWTH = 1.04


#: witnesses of the deterministic Miller-Rabin test below: enough for every n < 4,759,123,141
#: (Jaeschke 1993), which covers the table sizes (< 2**31)
_WITNESSES = (2, 7, 61)


def _is_prime(n):
    """Whether ``n`` (< 4,759,123,141) is prime: trial division by the small primes, then
    Miller-Rabin with :data:`_WITNESSES` (exact in that range). Trial division up to the
    square root took most of a second for the table at import.

    >>> [p for p in range(60, 80) if _is_prime(p)], _is_prime(2**31 - 1)
    ([61, 67, 71, 73, 79], True)
    """
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61):
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in _WITNESSES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _next_prime(n):
    while not _is_prime(n):
        n += 1
    return n


def _primes():
    out = [p for p in range(2, 1024) if _is_prime(p)]
    while True:
        nxt = _next_prime(int(out[-1] * PRIME_GROWTH) + 1)
        if nxt >= 2 ** 31 - 1:
            out.append(2 ** 31 - 1)   # a Mersenne prime
            return tuple(out)
        out.append(nxt)


TABLE_PRIMES = _primes()


def table_size(need):
    """Smallest listed prime p with p > 1.5 * need (the device's ``table_size``)."""
    need = int(need)
    i = bisect.bisect_right(TABLE_PRIMES, (3 * need) // 2)
    if i >= len(TABLE_PRIMES):
        raise ValueError(f"no hash-table size for {need} entries")
    return TABLE_PRIMES[i]


#: Modularity-optimization buckets of Paper III Section 4.1: (lowest degree, highest degree,
#: threads per vertex). ``None`` threads = the whole work-group. The four small buckets use
#: 2**(k+1) work-items per vertex (one edge each), the fifth a group of 32 with 1-3 edges per
#: work-item, the sixth a work-group with the hash table in local memory and the seventh a
#: work-group with the table in global memory (sorted by degree octave, interleaved over
#: work-groups).
PAPER_MOVE_BUCKETS = ((1, 4, 4), (5, 8, 8), (9, 16, 16), (17, 32, 32), (33, 84, 32),
                      (85, 319, None), (320, None, None))

#: The same bounds with work-items per vertex for CPU devices (PoCL runs the work-items of a
#: group as loop iterations, so one work-item per low-degree vertex avoids barrier-heavy
#: reductions): about 2x faster there. Bounds equal to the paper's keep deterministic results
#: identical to a GPU's (only the bounds decide which vertices move together).
CPU_MOVE_BUCKETS = ((1, 4, 1), (5, 8, 1), (9, 16, 1), (17, 32, 1), (33, 84, 4),
                    (85, 319, 16), (320, None, None))

#: Aggregation buckets (Algorithm 3 line 20): communities by the sum of their members'
#: degrees: [1,127] one group of 32, [128,479] a work-group with a local table, >479 a
#: work-group with a global table.
PAPER_MERGE_BUCKETS = ((1, 127, 32), (128, 479, None), (480, None, None))


def bucket_specs(buckets, wg):
    """Resolve bucket tuples to ``(lo, hi, threads, local_table)`` for work-group size ``wg``;
    ``hi`` None = unbounded (global table, ``local_table`` 0)."""
    out = []
    for lo, hi, t in buckets:
        t = wg if t is None else min(int(t), wg)
        if wg % t:
            raise ValueError(f"threads per item {t} must divide the work-group size {wg}")
        local = table_size(hi) if hi is not None else 0
        out.append((int(lo), None if hi is None else int(hi), int(t), int(local)))
    return tuple(out)


def local_bytes(specs, wg, weight_bytes=8):
    """Local memory of the largest kernel of the resolved buckets ``specs``
    (:func:`bucket_specs`) at work-group size ``wg``: the hash tables of its vertices (a key
    and a weight per slot) and its reduction arrays (a score and a community per work-item).

    Examples
    --------
    >>> local_bytes(bucket_specs(PAPER_MOVE_BUCKETS, 128), 128)
    7632
    """
    tables = [(wg // t) * L * (4 + weight_bytes) for _, _, t, L in specs if L]
    return max(tables, default=0) + wg * 12
