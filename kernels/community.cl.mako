<%doc>
  Shared pieces of the community kernels (louvain.cl.mako, leiden.cl.mako): the weight type of
  the run (template value wtype, "float" or "int", see louvain.cl.mako), its atomic add, the
  hash-table sizes of Section 4 and the double-hashed tables of Algorithm 2 (lines 3-13), and
  the argmax order of Algorithm 2 line 14. The including template defines EMPTY (-1).
</%doc>
<%!
from pyclmatch.community.hashing import TABLE_PRIMES, table_size
%>
% if wtype == "float":
typedef float weight_t;
/* float atomicAdd (Alg. 2 lines 7, 10, 12) by a CAS loop on the int bits: OpenCL 1.2 has no
   float atomics. */
%   for space in ("__global", "__local"):
inline void atomic_add_w${space}(volatile ${space} weight_t *p, weight_t v)
{
    volatile ${space} int *ip = (volatile ${space} int *)p;
    int old = *ip, assumed;
    do {
        assumed = old;
        old = atomic_cmpxchg(ip, assumed, as_int(as_float(assumed) + v));
    } while (old != assumed);
}
%   endfor
% else:
typedef int weight_t;
#define atomic_add_w__global(p, v) atomic_add((volatile __global int *)(p), (v))
#define atomic_add_w__local(p, v) atomic_add((volatile __local int *)(p), (v))
% endif

/* The "list of precomputed prime numbers" of Section 4 (pyclmatch/community/hashing.py). */
#define NPRIMES ${len(TABLE_PRIMES)}
__constant int table_primes[NPRIMES] = {
% for k in range(0, len(TABLE_PRIMES), 12):
    ${", ".join(str(p) for p in TABLE_PRIMES[k:k + 12])},
% endfor
};

/* The same for need < SMALL_NEED, looked up directly (one constant-memory load instead of a
   binary search for the vertices of the local-table buckets). */
#define SMALL_NEED 512
__constant int small_table_size[SMALL_NEED] = {
% for k in range(0, 512, 16):
    ${", ".join(str(table_size(d)) for d in range(k, k + 16))},
% endfor
};

/* Table size: the smallest listed prime above 1.5 x need (Section 4, computeMove). */
inline int table_size(int need)
{
    if (need < SMALL_NEED) return small_table_size[need];
    int lo = 0, hi = NPRIMES - 1;
    long three = 3L * (long)need;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (2L * (long)table_primes[mid] > three) hi = mid; else lo = mid + 1;
    }
    return table_primes[lo];
}

/* Algorithm 2 lines 3-13: open addressing with double hashing; CAS claims an empty slot of
   hashComm, atomic add accumulates hashWeight. */
% for space in ("__global", "__local"):
inline void hash_add${space}(volatile ${space} int *hashComm,
                             volatile ${space} weight_t *hashWeight,
                             int size, int key, weight_t w)
{
    uint pos = (uint)key % (uint)size;                              /* hash(C[j], 0) */
    uint step = 1u + (uint)key % (uint)(size > 1 ? size - 1 : 1);   /* second hash */
    for (;;) {
        int cur = hashComm[pos];
        if (cur == key) {                                           /* line 6 */
            atomic_add_w${space}(&hashWeight[pos], w);              /* line 7 */
            return;
        }
        if (cur == EMPTY) {                                         /* line 8 */
            int old = atomic_cmpxchg(&hashComm[pos], EMPTY, key);   /* line 9 */
            if (old == EMPTY || old == key) {                       /* lines 10-12 */
                atomic_add_w${space}(&hashWeight[pos], w);
                return;
            }
        }
        pos += step;                                                /* line 5: hash(C[j], it++) */
        if (pos >= (uint)size) pos -= (uint)size;
    }
}

inline weight_t hash_get${space}(volatile ${space} int *hashComm,
                                 volatile ${space} weight_t *hashWeight,
                                 int size, int key)
{
    uint pos = (uint)key % (uint)size;
    uint step = 1u + (uint)key % (uint)(size > 1 ? size - 1 : 1);
    for (int it = 0; it < size; ++it) {
        int cur = hashComm[pos];
        if (cur == key) return hashWeight[pos];
        if (cur == EMPTY) return (weight_t)0;
        pos += step;
        if (pos >= (uint)size) pos -= (uint)size;
    }
    return (weight_t)0;
}
% endfor

/* (score, community) order of the argmax of Alg. 2 line 14: larger score first, ties to the
   lowest community id (Section 4); EMPTY loses to everything. */
inline int better(double s2, int c2, double s1, int c1)
{
    if (c2 == EMPTY) return 0;
    if (c1 == EMPTY) return 1;
    return s2 > s1 || (s2 == s1 && c2 < c1);
}
