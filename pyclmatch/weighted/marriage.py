"""Stable marriage with incomplete lists (SMI) on an OpenCL device (Paper IV).

* :class:`MarriageInstance`: validated preference lists of both sides as CSR, with the
  cross-references the kernels need (``rank_w``: rank of each man's entry in the woman's list;
  ``pos_m``: the man's entry of each woman's entry), built in linear time with scipy.
* :func:`stable_marriage`: McVitie-Wilson (one work-item per man, atomic on the woman's
  suitor, a rejected man proposes again at once) or parallel Gale-Shapley by rounds. Both
  return the man-optimal stable matching, which is unique, so it equals the sequential
  Gale-Shapley result exactly.
* :func:`verify_stable_marriage`: no blocking pair, in O(total list length).
* :func:`easy_instance`, :func:`hard_instance`: the random data sets of Paper IV, Section 4.
* :func:`smi_from_graph`: the SMI instance G' of a weighted graph (Lemma 3.1), whose solution
  is the greedy matching.
"""
from dataclasses import dataclass, field
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import scipy.sparse as sp

from ..engine.devices import PinnedStaging, get_device
from ..engine.scheduler import Scheduler
from ..errors import InputError, VerificationError
from .graph import INDEX_MAX, as_weighted_graph
from .suitor import TEMPLATE

ALGORITHMS = ("mcvitie-wilson", "gale-shapley")


def _as_csr_lists(prefs, side, n_other):
    """Preference lists (list of lists, or a CSR pair (indptr, indices)) -> int64 arrays."""
    if isinstance(prefs, tuple) and len(prefs) == 2 and np.ndim(prefs[0]) == 1 \
            and np.ndim(prefs[1]) == 1 and not isinstance(prefs[0], (list,)):
        indptr = np.asarray(prefs[0])
        indices = np.asarray(prefs[1])
        if indptr.dtype.kind not in "iu" or indices.dtype.kind not in "iu":
            raise InputError(f"{side}'s CSR lists must be integer arrays")
        indptr, indices = indptr.astype(np.int64), indices.astype(np.int64)
        if indptr.size == 0 or indptr[0] != 0 or (np.diff(indptr) < 0).any() \
                or indptr[-1] != indices.size:
            raise InputError(f"{side}'s CSR indptr is malformed")
    else:
        try:
            lists = list(prefs)
        except TypeError:
            raise InputError(f"{side}'s preferences must be a list of lists of ids or a CSR "
                             f"pair (indptr, indices)") from None
        lens = np.zeros(len(lists) + 1, np.int64)
        parts = []
        for i, lst in enumerate(lists):
            try:
                a = np.asarray(lst)
            except ValueError:
                a = None
            if a is None or a.dtype == object or a.ndim != 1 and a.size:
                raise InputError(f"{side} {i} has a tie (a group of equally ranked ids) or a "
                                 f"non-integer entry: ties are not supported (strict "
                                 f"preference lists only)")
            a = a.ravel()
            if a.size and a.dtype.kind not in "iu":
                if a.dtype.kind == "f" and np.all(a == np.round(a)):
                    a = a.astype(np.int64)
                else:
                    raise InputError(f"{side} {i}'s list holds non-integer ids")
            lens[i + 1] = a.size
            parts.append(a.astype(np.int64))
        indptr = np.cumsum(lens)
        indices = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    if indices.size and (indices.min() < 0 or indices.max() >= n_other):
        bad = indices[(indices < 0) | (indices >= n_other)][0]
        raise InputError(f"{side}'s lists hold id {int(bad)}, out of range for {n_other}")
    if indices.size > INDEX_MAX:
        raise InputError("more than 2**31-1 preference entries")
    return indptr, indices


def _check_duplicates(A, side):
    """A: csr with sorted indices; raise if a row lists an id twice (a tie)."""
    if A.nnz < 2:
        return
    same = np.zeros(A.nnz, bool)
    same[1:] = A.indices[1:] == A.indices[:-1]
    starts = A.indptr[:-1][np.diff(A.indptr) > 0]
    same[starts] = False
    if same.any():
        k = int(np.flatnonzero(same)[0])
        row = int(np.searchsorted(A.indptr, k, side="right") - 1)
        raise InputError(f"{side} {row} lists {int(A.indices[k])} twice (ties and repeated "
                         f"entries are not supported)")


class MarriageInstance(PinnedStaging):
    """An SMI instance: men's and women's strict preference lists (CSR), mutually consistent
    (m lists w exactly when w lists m). ``inst.stage(get_device(...))`` keeps page-locked
    copies of its arrays for a GPU, so that repeated :func:`stable_marriage` calls upload
    them at full PCIe speed (the easy instance with n = 25M holds 10 GB of arrays)."""
    _staged_fields = ("mptr32", "mlist", "rank_w", "wptr32", "wlist", "pos_m")

    def __init__(self, men_prefs, women_prefs, n_men=None, n_women=None):
        if n_men is None:
            n_men = _count(men_prefs)
        if n_women is None:
            n_women = _count(women_prefs)
        self.n_men, self.n_women = int(n_men), int(n_women)
        if self.n_men > INDEX_MAX or self.n_women > INDEX_MAX:
            raise InputError("more than 2**31-1 men or women")
        self.mptr, self.mlist = _as_csr_lists(men_prefs, "man", self.n_women)
        self.wptr, self.wlist = _as_csr_lists(women_prefs, "woman", self.n_men)
        if self.mptr.size != self.n_men + 1 or self.wptr.size != self.n_women + 1:
            raise InputError("the number of lists does not match n_men / n_women")
        self._cross()
        self.mlist = self.mlist.astype(np.int32)      # ids < 2**31: the device's type
        self.wlist = self.wlist.astype(np.int32)

    @classmethod
    def _trusted(cls, mptr, mlist, wptr, wlist, rank_w, pos_m):
        """An instance built by a generator that already knows the cross-references
        (consistent by construction, so the O(L log) validation is skipped)."""
        self = cls.__new__(cls)
        self.n_men, self.n_women = int(mptr.size - 1), int(wptr.size - 1)
        self.mptr, self.mlist = np.asarray(mptr, np.int64), np.asarray(mlist, np.int32)
        self.wptr, self.wlist = np.asarray(wptr, np.int64), np.asarray(wlist, np.int32)
        self.rank_w = np.asarray(rank_w, np.int32)
        self.pos_m = np.asarray(pos_m, np.int32)
        return self

    @classmethod
    def from_arrays(cls, mptr, mlist, wptr, wlist):
        """Build from CSR arrays (validated like any input)."""
        return cls((np.asarray(mptr), np.asarray(mlist)), (np.asarray(wptr), np.asarray(wlist)),
                   len(mptr) - 1, len(wptr) - 1)

    def _cross(self):
        L = self.mlist.size
        nm, nw = self.n_men, self.n_women
        A = sp.csr_matrix((np.arange(L, dtype=np.int64), self.mlist, self.mptr),
                          shape=(nm, nw), copy=True)     # copy: sort_indices works in place
        A.has_sorted_indices = False
        A.sort_indices()
        _check_duplicates(A, "man")
        B = sp.csr_matrix((np.arange(self.wlist.size, dtype=np.int64), self.wlist, self.wptr),
                          shape=(nw, nm), copy=True)
        B.has_sorted_indices = False
        B.sort_indices()
        _check_duplicates(B, "woman")
        BT = B.T.tocsr()
        BT.sort_indices()
        if not (np.array_equal(A.indptr, BT.indptr) and np.array_equal(A.indices, BT.indices)):
            mrow = np.repeat(np.arange(nm, dtype=np.int64), np.diff(A.indptr))
            ka = mrow * nw + A.indices
            brow = np.repeat(np.arange(nm, dtype=np.int64), np.diff(BT.indptr))
            kb = brow * nw + BT.indices
            d = np.setdiff1d(ka, kb)
            if d.size:
                raise InputError(f"the lists are inconsistent: man {int(d[0] // nw)} lists "
                                 f"woman {int(d[0] % nw)} but she does not list him")
            d = np.setdiff1d(kb, ka)
            raise InputError(f"the lists are inconsistent: woman {int(d[0] % nw)} lists man "
                             f"{int(d[0] // nw)} but he does not list her")
        e = A.data.astype(np.int64)
        f = BT.data.astype(np.int64)
        self.rank_w = np.empty(L, np.int32)
        self.rank_w[e] = f - self.wptr[self.mlist[e]]
        self.pos_m = np.empty(L, np.int32)
        self.pos_m[f] = e

    def device_arrays(self):
        """int32 copies of the offsets (made once) for the device; the lists are int32."""
        if getattr(self, "_ptr32", None) is None:
            self._ptr32 = (self.mptr.astype(np.int32), self.wptr.astype(np.int32))
        return self._ptr32

    def _field(self, name):       # (PinnedStaging: the int32 offsets are made on demand)
        if name in ("mptr32", "wptr32"):
            return self.device_arrays()[name == "wptr32"]
        return getattr(self, name)

    @property
    def entries(self):
        return int(self.mlist.size)

    def __repr__(self):
        return (f"<MarriageInstance {self.n_men} men, {self.n_women} women, "
                f"{self.entries} acceptable pairs>")


def _count(prefs):
    if isinstance(prefs, tuple) and len(prefs) == 2 and np.ndim(prefs[0]) == 1 \
            and not isinstance(prefs[0], list):
        return len(prefs[0]) - 1
    return len(prefs)


@dataclass
class StableMarriageResult:
    """``wife[m]`` (-1 unmarried), ``husband[w]`` (-1 unmarried), ``size`` = married couples."""
    wife: np.ndarray
    husband: np.ndarray
    size: int
    algorithm: str
    device: str
    timings: dict = field(default_factory=dict)
    counters: dict = field(default_factory=dict)
    verified: bool = False


def gale_shapley_sequential(inst):
    """The sequential Gale-Shapley algorithm (man-proposing, a queue of free men): the test
    oracle. Plain Python, O(total list length)."""
    from collections import deque
    nm, nw = inst.n_men, inst.n_women
    nxt = inst.mptr[:-1].copy()
    srank = np.full(nw, INDEX_MAX, np.int64)
    holder = np.full(nw, -1, np.int64)
    q = deque(range(nm))
    mptr, mlist, rank_w = inst.mptr, inst.mlist, inst.rank_w
    while q:
        m = q.popleft()
        while nxt[m] < mptr[m + 1]:
            e = nxt[m]
            nxt[m] += 1
            w, r = mlist[e], rank_w[e]
            if r < srank[w]:
                if holder[w] >= 0:
                    q.append(holder[w])
                srank[w], holder[w] = r, m
                break
    wife = np.full(nm, -1, np.int64)
    h = np.flatnonzero(holder >= 0)
    wife[holder[h]] = h
    return wife, holder


def verify_stable_marriage(inst, wife, husband):
    """Check that (wife, husband) is a matching of acceptable pairs with no blocking pair."""
    nm, nw = inst.n_men, inst.n_women
    wife = np.asarray(wife, np.int64)
    husband = np.asarray(husband, np.int64)
    if wife.shape != (nm,) or husband.shape != (nw,):
        raise VerificationError("wife/husband have the wrong shape")
    if (wife < -1).any() or (wife >= nw).any() or (husband < -1).any() or (husband >= nm).any():
        raise VerificationError("wife/husband hold an invalid id")
    mm = np.flatnonzero(wife >= 0)
    if not np.array_equal(husband[wife[mm]], mm) or (husband >= 0).sum() != mm.size:
        raise VerificationError("wife and husband disagree")
    L = inst.entries
    owner = np.repeat(np.arange(nm, dtype=np.int64), np.diff(inst.mptr))
    pos = np.arange(L, dtype=np.int64) - inst.mptr[owner]
    is_wife = inst.mlist == wife[owner]
    if is_wife.sum() != mm.size:
        raise VerificationError("a married pair is not mutually acceptable")
    wife_pos = np.full(nm, INDEX_MAX, np.int64)       # unmarried: anyone is better
    wife_pos[owner[is_wife]] = pos[is_wife]
    husband_rank = np.full(nw, INDEX_MAX, np.int64)
    husband_rank[inst.mlist[is_wife]] = inst.rank_w[is_wife]
    block = (pos < wife_pos[owner]) & (inst.rank_w < husband_rank[inst.mlist])
    if block.any():
        k = int(np.flatnonzero(block)[0])
        raise VerificationError(f"man {owner[k]} and woman {inst.mlist[k]} form a blocking "
                                f"pair: the matching is not stable")
    return True


class _MarriageDriver:
    def __init__(self, handle, work_group_size=None, batch_rounds=None):
        self.handle = handle
        wg = int(work_group_size or handle.default_work_group_size())
        self.wg = max(1, min(wg, handle.max_work_group_size))
        self.values = dict(index_t="int", offset_t="int", mode="mt", threads_per_vertex=1,
                           vertices_per_group=1, work_group_size=self.wg)
        self.batch = int(batch_rounds or (4 if handle.is_cpu else 16))

    def kernel(self, name):
        return self.handle.kernel(TEMPLATE, name, **self.values)


def stable_marriage(men_prefs, women_prefs=None, *, algorithm="mcvitie-wilson", device=None,
                    verify=True, progress=None, n_men=None, n_women=None, work_group_size=None,
                    batch_rounds=None):
    """Man-optimal stable matching of an SMI instance on an OpenCL device.

    ``men_prefs[m]`` lists women in m's order of preference, ``women_prefs[w]`` men in w's
    (lists of lists, or CSR pairs ``(indptr, indices)``; incomplete lists allowed, ties and
    repeated entries refused, and the lists must be consistent: m lists w iff w lists m).
    A :class:`MarriageInstance` (e.g. from :func:`easy_instance`) may be passed alone.

    ``algorithm``: ``"mcvitie-wilson"`` (one work-item per man, atomic_min on the woman's
    suitor rank, a rejected man proposes again at once) or ``"gale-shapley"`` (parallel rounds:
    every free man proposes once per round). Both give the unique man-optimal solution.
    """
    name = (algorithm or "mcvitie-wilson").lower()
    if name not in ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    t0 = time.perf_counter()
    if isinstance(men_prefs, MarriageInstance):
        if women_prefs is not None:
            raise InputError("pass either a MarriageInstance or both preference lists")
        inst = men_prefs
    else:
        if women_prefs is None:
            raise InputError("women_prefs is missing")
        inst = MarriageInstance(men_prefs, women_prefs, n_men, n_women)
    t_prepare = time.perf_counter() - t0
    handle = get_device(device)
    drv = _MarriageDriver(handle, work_group_size, batch_rounds)
    sched = Scheduler(handle, progress=progress, label=f"stable_marriage[{name}]")
    sched.wall["prepare"] = t_prepare
    nm, nw, L = inst.n_men, inst.n_women, inst.entries
    if L == 0:
        res = StableMarriageResult(np.full(nm, -1, np.int64), np.full(nw, -1, np.int64), 0,
                                   name, handle.label, {"prepare": t_prepare}, {}, bool(verify))
        return res
    q = handle.queue
    need = {"men lists": L * 4, "ranks": L * 4, "women lists": L * 4,
            "positions": L * 4 if name == "mcvitie-wilson" else 0,
            "offsets": (nm + nw + 2) * 4, "state": (2 * nm + 2 * nw) * 4}
    handle.check_fits(need, what="stable marriage instance")
    with sched.step("upload"):
        # read-only: wrapped on CPUs, copied on GPUs (from the pinned copies of inst.stage)
        mptr = inst.upload(handle, "mptr32")
        mlist = inst.upload(handle, "mlist")
        rank_w = inst.upload(handle, "rank_w")
        wptr = inst.upload(handle, "wptr32")
        wlist = inst.upload(handle, "wlist")
        pos_m = inst.upload(handle, "pos_m") if name == "mcvitie-wilson" else None
        q.finish()
    with sched.step("build"):
        names = ("mcvitie_wilson",) if name == "mcvitie-wilson" else ("gale_shapley_round",)
        for k in names + ("marriage_husbands",):
            drv.kernel(k)
    stats = {}
    with sched.step("match"):
        srank = cla.empty(q, nw, np.int32, allocator=handle.pool)
        sched.fill("init", srank, INDEX_MAX)
        if name == "mcvitie-wilson":
            count = cla.zeros(q, 1, np.int32)
            sched.launch("mcvitie-wilson", drv.kernel("mcvitie_wilson"), nm, drv.wg,
                         mptr.data, mlist.data, rank_w.data, np.int32(nm), wptr.data,
                         wlist.data, pos_m.data, srank.data, count.data)
            stats["proposals"] = int(sched.read("mcvitie-wilson", np.zeros(1, np.int32),
                                                count.data)[0])
        else:
            nextp = cla.empty(q, nm, np.int32)       # each man starts at his list's head
            cl.enqueue_copy(q, nextp.data, mptr.data, byte_count=nm * 4)
            counts = [cla.empty(q, 1, np.int32) for _ in range(drv.batch)]
            host = np.zeros(1, np.int32)
            k = drv.kernel("gale_shapley_round")
            rounds = 0
            while True:
                for i in range(drv.batch):
                    sched.tick("gale-shapley rounds", L + 2 + drv.batch)
                    sched.fill("gale-shapley", counts[i].data, 0)
                    sched.launch("gale-shapley", k, nm, drv.wg, mptr.data, mlist.data,
                                 rank_w.data, np.int32(nm), nextp.data, srank.data,
                                 counts[i].data)
                rounds += drv.batch
                sched.report("gale-shapley", rounds=rounds)
                if sched.read("gale-shapley", host, counts[-1].data)[0] == 0:
                    break
            stats["rounds"] = rounds
        husband_d = cla.empty(q, nw, np.int32, allocator=handle.pool)
        wife_d = cla.empty(q, nm, np.int32, allocator=handle.pool)
        sched.fill("husbands", wife_d, -1, np.int32)
        sched.launch("husbands", drv.kernel("marriage_husbands"), nw, drv.wg, wptr.data,
                     wlist.data, np.int32(nw), srank.data, husband_d.data, wife_d.data)
        q.finish()
    with sched.step("download"):
        husband = handle.download(husband_d, np.int64)
        wife = handle.download(wife_d, np.int64)
        married = int(np.count_nonzero(husband >= 0))
    if verify:
        with sched.step("verify"):
            verify_stable_marriage(inst, wife, husband)
    res = StableMarriageResult(wife, husband, married, name, handle.label)
    res.verified = bool(verify)
    res.timings = sched.timings()
    res.counters = dict(stats, **sched.counters)
    return res


# --------------------------------------------------------------------------- generators

def _sort_rows_by(indptr, keys, values, ncols):
    """Reorder ``values`` within each CSR row by increasing ``keys`` (scipy's per-row sort in
    C++, linear in the number of rows plus the rows' sort costs; no global sort). Sorts
    ``keys`` and ``values`` in place (pass copies to keep them): fresh pages cost more than
    the sort on large instances."""
    M = sp.csr_matrix((values, keys, indptr), shape=(indptr.size - 1, ncols), copy=False)
    M.has_sorted_indices = False
    M.sort_indices()
    return M.indices, M.data


def easy_instance(n, seed=0):
    """Paper IV's easy instance: each man draws eps in [0, 1] and ranks (1 + eps) ln n random
    women (distinct, random order); each woman ranks exactly the men who rank her, in random
    order. Built with per-row sorts and one counting-sort transpose (no global sort, no
    random gather), so large n stays practical (n = 2.5M, 54M entries: 5.0 s on the 2-core
    VM against 13.5 s for the first version, which made the same instance for a seed)."""
    n = int(n)
    if n < 1:
        raise InputError("n must be positive")
    rng = np.random.default_rng(seed)
    ln = np.log(max(n, 2))
    k = np.minimum(n, np.maximum(1, ((1.0 + rng.random(n)) * ln).astype(np.int64)))
    mptr = np.zeros(n + 1, np.int64)
    np.cumsum(k, out=mptr[1:])
    L = int(mptr[-1])
    if L > INDEX_MAX or n > INDEX_MAX:
        raise InputError(f"easy_instance({n}) would hold {L} preference entries; at most "
                         f"2**31-1 are supported")
    women = rng.integers(0, n, L, dtype=np.int32)
    # repeated women within a man's list (rare: about ln(n)^2 / 2 pairs per n men): sort each
    # list by woman, and of each run of equal women keep the earliest draw only
    srt_w, srt_pos = _sort_rows_by(mptr, women.copy(), np.arange(L, dtype=np.int32), n)
    same = np.flatnonzero(srt_w[1:] == srt_w[:-1]) + 1
    del srt_w
    # (a run never spans two lists: drop positions that start a list)
    same = same[mptr[np.searchsorted(mptr, same, side="right") - 1] != same]
    if same.size:
        cut = np.flatnonzero(np.diff(same) > 1)
        drop = []
        for a, b in zip((same[np.r_[0, cut + 1]] - 1).tolist(),
                        same[np.r_[cut, same.size - 1]].tolist()):
            pos = srt_pos[a:b + 1]
            drop.extend(pos[pos != pos.min()].tolist())
        drop = np.unique(np.asarray(drop, np.int64))
        keep = np.ones(L, bool)
        keep[drop] = False
        women = women[keep]
        del keep
        np.subtract.at(k, np.searchsorted(mptr, drop, side="right") - 1, 1)
        np.cumsum(k, out=mptr[1:])
        L = int(mptr[-1])
    del srt_pos
    # women's lists: the transpose (a counting sort) carrying each entry's man and index
    # packed in one int64, then each list in random order; the cross-references follow
    packed = np.repeat(np.arange(n, dtype=np.int64) << 32, k)
    packed |= np.arange(L, dtype=np.int64)
    T = sp.csr_matrix((packed, women, mptr), shape=(n, n)).tocsc()
    del packed
    wptr = T.indptr.astype(np.int64)
    rnd = rng.integers(0, INDEX_MAX, L, dtype=np.int32)
    _, packed = _sort_rows_by(wptr, rnd, T.data, INDEX_MAX)     # women's entry f -> (m, e)
    del T, rnd
    wlist = (packed >> 32).astype(np.int32)
    pos_m = (packed & 0xFFFFFFFF).astype(np.int32)
    del packed
    rank_w = np.empty(L, np.int32)
    rank_w[pos_m] = (np.arange(L, dtype=np.int64)
                     - np.repeat(wptr[:-1], np.diff(wptr))).astype(np.int32)
    return MarriageInstance._trusted(mptr, women, wptr, wlist, rank_w, pos_m)


def hard_instance(n, seed=0):
    """Paper IV's hard instance: every man has the same complete random ranking of the women,
    every woman the same complete random ranking of the men (n(n+1)/2 proposals)."""
    n = int(n)
    if n < 1:
        raise InputError("n must be positive")
    if n * n > INDEX_MAX:
        raise InputError(f"hard_instance({n}) would hold n^2 = {n * n} preference entries; "
                         f"the device lists take at most 2**31-1 (n <= 46340)")
    rng = np.random.default_rng(seed)
    wr, mr = rng.permutation(n), rng.permutation(n)
    ptr = np.arange(n + 1, dtype=np.int64) * n
    inv_w, inv_m = np.argsort(wr), np.argsort(mr)
    # man m's entry i is woman wr[i], who ranks m at inv_m[m]; woman w's entry k is man
    # mr[k], whose list holds w at position inv_w[w]
    rank_w = np.repeat(inv_m.astype(np.int32), n)
    pos_m = (ptr[:-1][np.tile(mr, n)] + np.repeat(inv_w, n)).astype(np.int64)
    return MarriageInstance._trusted(ptr, np.tile(wr, n), ptr.copy(), np.tile(mr, n), rank_w,
                                     pos_m)


def smi_from_graph(G, **graph_params):
    """The SMI instance G' of Lemma 3.1 (Paper IV): man i and woman i both rank the
    neighbours of vertex i by decreasing weight (ties by larger id). Its stable matching pairs
    (man i, woman j) exactly for the greedy-matching edges (i, j)."""
    g = as_weighted_graph(G, **graph_params)
    u = g.src.astype(np.int64)
    v = g.indices.astype(np.int64)
    order = np.lexsort((-v, -g.w32.astype(np.float64), u))
    lst = v[order]
    ptr = g.indptr.astype(np.int64)
    return MarriageInstance.from_arrays(ptr, lst, ptr.copy(), lst.copy())
