"""Stable marriage with incomplete lists (SMI) on an OpenCL device (Paper IV).

* :class:`MarriageInstance`: the preference lists of both sides as CSR arrays, kept as given.
  The cross-references the kernels need (``rank_w``: rank of each man's entry in the woman's
  list; ``pos_m``: the man's entry of each woman's entry) are derived on the device, where
  the lists are checked too (offsets, id ranges, repeats, consistency); on the host
  (:meth:`MarriageInstance.validate`) for the sequential oracle, ``verify="host"`` and the
  error messages.
* :func:`stable_marriage`: McVitie-Wilson (one work-item per man, atomic on the woman's
  suitor, a rejected man proposes again at once) or parallel Gale-Shapley by rounds. Both
  return the man-optimal stable matching, which is unique, so it equals the sequential
  Gale-Shapley result exactly.
* :func:`verify_stable_marriage` (host) and :func:`verify_stable_marriage_device` (the
  kernels ``stable_marriage`` runs by default): a matching of acceptable pairs, wife and
  husband inverse, no blocking pair, in O(total list length).
* :func:`easy_instance`, :func:`hard_instance`: the random data sets of Paper IV, Section 4.
* :func:`smi_from_graph`: the SMI instance G' of a weighted graph (Lemma 3.1), whose solution
  is the greedy matching.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
import itertools
import numbers
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import scipy.sparse as sp
from pyopencl.elementwise import ElementwiseKernel
from pyopencl.reduction import ReductionKernel

from typing import Any

from .._typing import DeviceSpec, Progress
from .._record import RunRecord
from ..engine import args
from ..engine.devices import PinnedStaging, get_device, device_call
from ..engine.family import KernelFamily
from ..engine.indices import offset_type, require_offset64
from ..engine.scheduler import Scheduler
from ..errors import InputError, VerificationError
from ..hostpar import Stream, delete, group_by_key, pmap, sort_rows_by, spans
from .graph import INDEX_MAX, as_weighted_graph

ALGORITHMS = ("mcvitie-wilson", "gale-shapley")
#: the kernel of each algorithm in ``kernels/marriage.cl.mako``
ALGORITHM_KERNELS = {"mcvitie-wilson": "mcvitie_wilson", "gale-shapley": "gale_shapley_round"}


#: the index dtypes uploaded as they are (others are converted to int64 on the host first)
_DEVICE_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))


#: the argument holding each side's lists (what an error about them names)
PREFS_ARGUMENT = {"man": "men_prefs", "woman": "women_prefs"}
_PREFS_ALLOWED = "a list of lists of ids, or a CSR pair (indptr, indices) of integer arrays"


def _as_csr_lists(prefs, side, n_other):
    """Preference lists (list of lists, or a CSR pair (indptr, indices)) -> (indptr, indices).

    A CSR pair of int32 or int64 arrays is kept as it is (no copy, never modified); only O(1)
    checks run here. Whether the offsets are monotone and the ids in range is checked on the
    device by :func:`stable_marriage` (or on the host by :meth:`MarriageInstance.validate`).
    Errors name the side's argument (:data:`PREFS_ARGUMENT`)."""
    name = PREFS_ARGUMENT[side]
    if isinstance(prefs, tuple) and len(prefs) == 2 and np.ndim(prefs[0]) == 1 \
            and np.ndim(prefs[1]) == 1 and not isinstance(prefs[0], (list,)):
        indptr = _csr_array(name, "indptr", prefs[0])
        indices = _csr_array(name, "indices", prefs[1])
        if indptr.size == 0 or indptr[0] != 0 or indptr[-1] != indices.size:
            raise InputError(f"{side}'s CSR indptr is malformed", argument=name)
    else:
        if isinstance(prefs, (str, bytes, dict, set, frozenset)) \
                or not hasattr(prefs, "__iter__"):
            args.refuse(name, prefs, _PREFS_ALLOWED)
        lists = list(prefs)
        indptr, indices = _flat_lists(lists)
        if indices is None:     # (not all flat integer lists: each one checked, named)
            lens = np.zeros(len(lists) + 1, np.int64)
            parts = []
            for i, lst in enumerate(lists):
                a = _one_list(lst, side, i, name, n_other)
                lens[i + 1] = a.size
                parts.append(a)
            indptr = np.cumsum(lens)
            indices = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    if indices.size > INDEX_MAX:
        raise InputError("more than 2**31-1 preference entries", argument=name)
    return indptr, indices


def _flat_lists(lists):
    """``(indptr, indices)`` of lists (lists, tuples or 1-D arrays) that all hold integer
    ids within int64, in one conversion; ``(None, None)`` for anything else (the caller
    then checks each list, :func:`_one_list`, to name the first problem)."""
    if not all(type(x) in (list, tuple, np.ndarray) for x in lists):
        return None, None
    try:
        a = np.array(list(itertools.chain.from_iterable(lists)))
    except (ValueError, TypeError, OverflowError):
        return None, None
    if a.ndim != 1 or a.dtype.kind not in "iu" or a.dtype == np.uint64 and a.size \
            and a.max() > np.uint64(np.iinfo(np.int64).max):
        return (None, None) if a.size else (_offsets(lists), np.zeros(0, np.int64))
    return _offsets(lists), a.astype(np.int64, copy=False)


def _offsets(lists):
    lens = np.zeros(len(lists) + 1, np.int64)
    lens[1:] = np.fromiter(map(len, lists), np.int64, len(lists))
    return np.cumsum(lens)


def _csr_array(name, part, value):
    """One array of a CSR pair: int32 and int64 kept as they are, other integer dtypes
    converted to int64 (a ``uint64`` past int64 refused, shown unsigned)."""
    a = np.asarray(value)
    if a.dtype.kind not in "iu":
        raise InputError(f"the CSR {part} of {name} must be an integer array, got dtype "
                         f"{a.dtype}", argument=name)
    if a.dtype in _DEVICE_DTYPES:
        return a
    if a.dtype == np.uint64 and a.size and a.max() > np.uint64(np.iinfo(np.int64).max):
        raise InputError(f"the CSR {part} of {name} holds {args.shown(a.max())}, out of "
                         f"range", argument=name)
    return a.astype(np.int64)


def _one_list(lst, side, i, name, n_other):
    """The list of ``side`` ``i`` as an int64 array: refused (naming ``name``) when it is not
    a flat sequence of integer ids (a nested list is a tie), or holds an id past int64 (the
    ranges are checked with the other side's size ``n_other`` later, on the device or the
    host)."""
    out_of_range = f"out of range: ids are 0 to {n_other - 1}"
    if isinstance(lst, (str, bytes, dict, set, frozenset)) or not hasattr(lst, "__len__"):
        raise InputError(f"{side} {i}'s list is {args.shown(lst)}: each {side}'s preferences "
                         f"must be a list of ids ({name} must be {_PREFS_ALLOWED})",
                         argument=name)
    try:
        a = np.asarray(lst)
    except (ValueError, TypeError):
        a = None
    if a is None or a.ndim != 1 and a.size or a.dtype == object and any(
            isinstance(x, (list, tuple, np.ndarray)) for x in a.ravel()):
        raise InputError(f"{side} {i} has a tie (a group of equally ranked ids) or a "
                         f"non-integer entry: ties are not supported (strict preference "
                         f"lists only)", argument=name)
    a = a.ravel()
    if not a.size:
        return np.zeros(0, np.int64)
    if a.dtype.kind == "f":
        ok = np.isfinite(a) & (a == np.round(a))
        if ok.all() and (np.abs(a) < 2.0**63).all():
            return a.astype(np.int64)
        if ok.all():
            bad = a[np.abs(a) >= 2.0**63][0]
            raise InputError(f"{side} {i}'s list holds id {args.shown(bad)}, {out_of_range}",
                             argument=name)
    if a.dtype.kind in "iu":
        if a.dtype == np.uint64 and (a > np.uint64(np.iinfo(np.int64).max)).any():
            bad = a[a > np.uint64(np.iinfo(np.int64).max)][0]
            raise InputError(f"{side} {i}'s list holds id {args.shown(bad)}, {out_of_range}",
                             argument=name)
        return a.astype(np.int64)
    if a.dtype == object and all(isinstance(x, numbers.Integral) and not isinstance(x, bool)
                                 for x in a):       # (Python ints past int64)
        bad = next(x for x in a if not -2**63 <= int(x) < 2**63)
        raise InputError(f"{side} {i}'s list holds id {args.shown(bad)}, {out_of_range}",
                         argument=name)
    raise InputError(f"{side} {i}'s list holds non-integer ids ({args.shown(lst)}): ids are "
                     f"integers", argument=name)


def _check_lists_host(indptr, indices, side, n_other):
    """The O(entries) checks of one side's lists on the host: monotone offsets, ids in range."""
    name = PREFS_ARGUMENT[side]
    if (np.diff(indptr) < 0).any():
        raise InputError(f"{side}'s CSR indptr is malformed", argument=name)
    if indices.size and (indices.min() < 0 or indices.max() >= n_other):
        bad = indices[(indices < 0) | (indices >= n_other)][0]
        other = "women" if side == "man" else "men"
        raise InputError(f"{side}'s lists hold id {int(bad)}, out of range for {n_other} "
                         f"{other}: ids are 0 to {n_other - 1}", argument=name)


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
                         f"entries are not supported)", argument=PREFS_ARGUMENT[side])


class MarriageInstance(PinnedStaging):
    """An SMI instance: men's and women's strict preference lists (CSR ``mptr``/``mlist``,
    ``wptr``/``wlist``), which must be mutually consistent (m lists w exactly when w lists m).

    The arrays are kept as given (int32 or int64, no copy) and go to the device as they are:
    :func:`stable_marriage` checks them there (offsets, id ranges, repeats, consistency) and
    derives the cross-references its kernels need. On the host, :attr:`rank_w` (rank of each
    men's entry in the woman's list) and :attr:`pos_m` (the men's entry of each women's entry)
    are built on first use with the same checks (:meth:`validate`), for the sequential oracle
    and ``verify="host"``. ``inst.stage(get_device(...))`` keeps page-locked copies of the
    lists for a GPU, so that repeated calls upload them at full PCIe speed.

    Examples
    --------
    >>> from pyclmatch.weighted import MarriageInstance, stable_marriage
    >>> inst = MarriageInstance([[0, 1], [1, 0]], [[1, 0], [0, 1]])
    >>> inst
    <MarriageInstance 2 men, 2 women, 4 acceptable pairs>
    >>> inst.rank_w.tolist()            # rank of each men's entry in the woman's list
    [1, 0, 1, 0]
    >>> stable_marriage(inst).wife.tolist()
    [0, 1]
    """
    _staged_fields = ("mptr", "mlist", "wptr", "wlist")

    def __init__(self, men_prefs, women_prefs, n_men=None, n_women=None):
        n_men, n_women = _sizes(n_men, n_women)
        if n_men is None:
            n_men = _count(men_prefs, "men_prefs")
        if n_women is None:
            n_women = _count(women_prefs, "women_prefs")
        self.n_men, self.n_women = n_men, n_women
        self.mptr, self.mlist = _as_csr_lists(men_prefs, "man", self.n_women)
        self.wptr, self.wlist = _as_csr_lists(women_prefs, "woman", self.n_men)
        for arg, n, ptr, what in (("n_men", n_men, self.mptr, "men_prefs"),
                                  ("n_women", n_women, self.wptr, "women_prefs")):
            if ptr.size != n + 1:
                raise InputError(f"{arg}={n} contradicts {what}, which holds {ptr.size - 1} "
                                 f"lists (leave {arg} out)", argument=arg)
        self._cross_refs = None

    @classmethod
    def from_arrays(cls, mptr, mlist, wptr, wlist):
        """Build from CSR arrays (checked like any input)."""
        return cls((np.asarray(mptr), np.asarray(mlist)), (np.asarray(wptr), np.asarray(wlist)),
                   len(mptr) - 1, len(wptr) - 1)

    @property
    def rank_w(self):
        """int32 rank of each men's entry's man in the woman's list (host, built on first use)."""
        return self.validate()[0]

    @property
    def pos_m(self):
        """int32 index in ``mlist`` of each women's entry (host, built on first use)."""
        return self.validate()[1]

    def validate(self):
        """Check the lists on the host (raises :class:`InputError` naming the first problem)
        and return the cross-references ``(rank_w, pos_m)``; O(entries log) host work, done
        once. :func:`stable_marriage` checks on the device instead and calls this only to
        name the problem it found."""
        if self._cross_refs is None:
            _check_lists_host(self.mptr, self.mlist, "man", self.n_women)
            _check_lists_host(self.wptr, self.wlist, "woman", self.n_men)
            self._cross_refs = self._cross()
        return self._cross_refs

    def _cross(self):
        mptr, wptr = self.mptr.astype(np.int64), self.wptr.astype(np.int64)
        mlist, wlist = self.mlist.astype(np.int64), self.wlist.astype(np.int64)
        L = mlist.size
        nm, nw = self.n_men, self.n_women
        A = sp.csr_matrix((np.arange(L, dtype=np.int64), mlist, mptr),
                          shape=(nm, nw), copy=True)     # copy: sort_indices works in place
        A.has_sorted_indices = False
        A.sort_indices()
        _check_duplicates(A, "man")
        B = sp.csr_matrix((np.arange(wlist.size, dtype=np.int64), wlist, wptr),
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
                                 f"woman {int(d[0] % nw)} but she does not list him",
                                 argument="men_prefs")
            d = np.setdiff1d(kb, ka)
            raise InputError(f"the lists are inconsistent: woman {int(d[0] % nw)} lists man "
                             f"{int(d[0] // nw)} but he does not list her",
                             argument="women_prefs")
        e = A.data.astype(np.int64)
        f = BT.data.astype(np.int64)
        rank_w = np.empty(L, np.int32)
        rank_w[e] = f - wptr[mlist[e]]
        pos_m = np.empty(L, np.int32)
        pos_m[f] = e
        return rank_w, pos_m

    @property
    def entries(self):
        return int(self.mlist.size)

    def __repr__(self):
        return (f"<MarriageInstance {self.n_men} men, {self.n_women} women, "
                f"{self.entries} acceptable pairs>")


def _sizes(n_men, n_women):
    """``n_men``, ``n_women`` checked: None (the number of lists) or an integer from 0 to
    2**31-1."""
    return (args.integer("n_men", n_men, low=0, high=INDEX_MAX, none=True),
            args.integer("n_women", n_women, low=0, high=INDEX_MAX, none=True))


def _count(prefs, name):
    """The number of lists of one side (its argument ``name``), at most 2**31-1."""
    if isinstance(prefs, tuple) and len(prefs) == 2 and np.ndim(prefs[0]) == 1 \
            and not isinstance(prefs[0], list):
        n = len(prefs[0]) - 1
    elif isinstance(prefs, (str, bytes, dict, set, frozenset)) or not hasattr(prefs,
                                                                               "__len__"):
        args.refuse(name, prefs, _PREFS_ALLOWED)
    else:
        n = len(prefs)
    if n > INDEX_MAX:
        raise InputError(f"{name} holds {n} lists: at most 2**31-1 men or women are "
                         f"supported", argument=name)
    return n


@dataclass
class StableMarriageResult(RunRecord):
    """``wife[m]`` (-1 unmarried), ``husband[w]`` (-1 unmarried), ``size`` = married couples.

    Examples
    --------
    >>> import pyclmatch
    >>> res = pyclmatch.stable_marriage([[0], [0]], [[1, 0], []])
    >>> res.wife.tolist(), res.husband.tolist(), res.size, res.algorithm
    ([-1, 0], [1, -1], 1, 'mcvitie-wilson')
    """
    wife: np.ndarray
    husband: np.ndarray
    size: int


def gale_shapley_sequential(inst):
    """The sequential Gale-Shapley algorithm (man-proposing, a queue of free men): the test
    oracle. Plain Python, O(total list length)."""
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


class _MarriageDriver(KernelFamily):
    """The kernels of one instance: ``entries`` (the longer side's list entries) fixes the
    offset type (:func:`~pyclmatch.engine.indices.index_types`: 64-bit offsets, list positions
    and hash slots above 2**31-1 entries). ``cross_lanes``: work-items per woman in the
    cross-referencing of the lists (1: one work-item walks her whole list, ``marriage_cross``,
    the faster on CPU devices; a power of two: ``marriage_cross_lanes``, the default of 32 on
    GPUs, where consecutive work-items then read consecutive entries and a woman's lookups run
    side by side)."""

    TEMPLATE = "marriage.cl.mako"

    def __init__(self, handle, work_group_size=None, batch_rounds=None, entries=0,
                 cross_lanes=None):
        wg = int(work_group_size or handle.default_work_group_size())
        self.wg = max(1, min(wg, handle.max_work_group_size))
        self.offset_t, self.odt = offset_type(entries)
        if self.offset_t == "long":
            require_offset64(handle)
        super().__init__(handle, index_t="int", offset_t=self.offset_t, mode="mt",
                         threads_per_vertex=1)
        self.batch = int(batch_rounds or (4 if handle.is_cpu else 16))
        lanes = int(cross_lanes or (1 if handle.is_cpu else min(32, self.wg)))
        if lanes & (lanes - 1) or lanes > self.wg:
            raise ValueError(f"cross_lanes must be a power of two up to the work-group size "
                             f"({self.wg}), got {lanes}")
        self.cross_lanes = lanes

    # -- the instance on the device ---------------------------------------------------------
    def _checker(self, what, src, cast):
        """pyopencl elementwise kernel (memoized per device): ``what`` = "offsets" (monotone)
        or "ids" (in [0, limit)) over an int32/int64 array, writing copies of dtype ``cast``
        (int32 or int64) if given; any problem sets bad[0]."""
        types = {np.dtype(np.int32): "int", np.dtype(np.int64): "long"}
        t = types[np.dtype(src)]
        ct = types[np.dtype(cast)] if cast else None
        out = f", __global {ct} *out" if cast else ""
        body = f"out[i] = ({ct})a[i]; " if cast else ""
        if what == "offsets":
            args = f"__global const {t} *a{out}, __global long *bad, long rows"
            body += "if (i < rows && a[i] > a[i + 1]) bad[0] = 1;"
        else:
            args = f"__global const {t} *a{out}, __global long *bad, long limit"
            body += "if (a[i] < 0 || a[i] >= limit) bad[0] = 1;"
        return self.handle.memoize(
            ("marriage check", what, t, ct),
            lambda: ElementwiseKernel(self.handle.context, args, body,
                                      name=f"marriage_check_{what}"))

    def _long_entries(self, src):
        """pyopencl reduction (memoized): entries of the men's lists longer than the kernels'
        MARRIAGE_SHORT (they go through the hash table)."""
        t = {np.dtype(np.int32): "int", np.dtype(np.int64): "long"}[np.dtype(src)]
        return self.handle.memoize(("marriage long entries", t), lambda: ReductionKernel(
            self.handle.context, np.int64, neutral="0", reduce_expr="a+b",
            map_expr=f"(a[i + 1] - a[i] > {MARRIAGE_SHORT}) ? (long)(a[i + 1] - a[i]) : 0",
            arguments=f"__global const {t} *a", name="marriage_long_entries"))

    def device_instance(self, inst, sched):
        """Upload the four lists as they are, check them and derive what the kernels need:
        offsets of the offset type, int32 lists, ``rank_w`` and ``pos_m``. Two small
        read-backs (the check flags, the hash table's size); on a bad instance the host check
        names the problem (:meth:`MarriageInstance.validate` raises its :class:`InputError`).
        """
        handle, q = self.handle, self.handle.queue
        nm, nw = inst.n_men, inst.n_women
        Lm, Lw = int(inst.mlist.size), int(inst.wlist.size)
        # a CPU device reads host memory directly, and there the host's cross-references,
        # when validate() has built them already, are cheaper than deriving them again
        host_refs = inst._cross_refs if handle.is_cpu else None
        with sched.step("upload"):
            raw = {k: inst.upload(handle, k) for k in ("mptr", "mlist", "wptr", "wlist")}
            if host_refs is not None:
                rank_w, pos_m = (handle.to_device(host_refs[0]),
                                 handle.to_device(host_refs[1].astype(self.odt, copy=False)))
        with sched.step("derive"):
            info = cla.zeros(q, 2, np.int64)     # [0]: a check failed, [1]: long entries
            dev = self._checked_lists(raw, (nm, nw, Lm, Lw), host_refs is None, info, sched)
            if host_refs is not None:            # (validated on the host)
                dev.update(rank_w=rank_w, pos_m=pos_m, raw=raw)
                return dev
            if nm:
                sched.record("check", self._long_entries(raw["mptr"].dtype)(
                    raw["mptr"], range=slice(0, nm), queue=q, out=info[1], return_event=True)[1])
            flags = sched.read("check", np.zeros(2, np.int64), info.data)
            if flags[0] or Lm != Lw:
                _explain(inst)
            dev["rank_w"], dev["pos_m"] = self._cross_references(inst, dev, int(flags[1]), sched)
        dev["raw"] = raw                       # (the uploads must outlive the kernels)
        return dev

    def _checked_lists(self, raw, sizes, check, info, sched):
        """The four uploaded lists as the kernels take them (offsets of the offset type,
        int32 ids), each cast on the device where its type differs and checked there (with
        ``check``, or when cast) by the checker kernels, which flag ``info[0]``."""
        q = self.handle.queue
        nm, nw, Lm, Lw = sizes
        dev = {}
        for key, what, size, param in (("mptr", "offsets", nm + 1, nm),
                                       ("wptr", "offsets", nw + 1, nw),
                                       ("mlist", "ids", Lm, nw), ("wlist", "ids", Lw, nm)):
            a = raw[key]
            want = self.odt if what == "offsets" else np.dtype(np.int32)
            cast = want if a.dtype != want else None
            out = cla.empty(q, size, want, allocator=self.handle.pool) if cast else a
            if size and (cast or check):
                knl = self._checker(what, a.dtype, cast)
                args = (a, out) if cast else (a,)
                sched.record("check", knl(*args, info, np.int64(param), queue=q))
            dev[key] = out
        return dev

    def _cross_references(self, inst, dev, n_long, sched):
        """``(rank_w, pos_m)`` derived on the device: the men's long lists hashed
        (``marriage_hash_men``, ``n_long`` of them), then every woman's list entry ranked
        and placed (``marriage_cross``, or its lanes variant); a failed lookup means a bad
        instance (:func:`_explain` names it)."""
        handle, q = self.handle, self.handle.queue
        nm, nw = inst.n_men, inst.n_women
        Lm, Lw = int(inst.mlist.size), int(inst.wlist.size)
        cap = 2 * n_long + 1 if n_long else 1
        osz = self.odt.itemsize
        handle.check_fits({"hash table": cap * osz, "ranks": Lm * 4,
                           "positions": Lw * osz}, what="stable marriage instance")
        table = cla.empty(q, cap, self.odt, allocator=handle.pool)
        sched.fill("derive", table, -1)
        if n_long:
            sched.launch("derive", self.kernel("marriage_hash_men"), nm, self.wg,
                         dev["mptr"].data, dev["mlist"].data, np.int32(nm), table.data,
                         np.uint32(cap))
        bad = cla.zeros(q, 1, np.int32)
        rank_w = cla.empty(q, max(Lm, 1), np.int32, allocator=handle.pool)
        pos_m = cla.empty(q, max(Lw, 1), self.odt, allocator=handle.pool)
        sched.fill("derive", rank_w, -1)
        args = (dev["wptr"].data, dev["wlist"].data, np.int32(nw), dev["mptr"].data,
                dev["mlist"].data, table.data, np.uint32(cap), rank_w.data, pos_m.data,
                bad.data)
        lanes = self.cross_lanes
        if lanes == 1:
            sched.launch("derive", self.kernel("marriage_cross"), nw, self.wg, *args)
        else:
            grid = min(handle.constant_grid(self.wg), nw * lanes)
            sched.launch("derive", self.kernel("marriage_cross_lanes",
                                               threads_per_vertex=lanes),
                         grid, self.wg, *args)
        if sched.read("derive", np.zeros(1, np.int32), bad.data)[0]:
            _explain(inst)
        return rank_w, pos_m

    # -- the algorithms -----------------------------------------------------------------------
    def check_fits(self, inst):
        """Raise :class:`~pyclmatch.errors.DeviceMemoryError` unless the instance's lists
        and the matching state fit the device."""
        L, Lw = inst.entries, inst.wlist.size
        self.handle.check_fits({"men lists": L * inst.mlist.itemsize + L * 4,
                                "women lists": Lw * (inst.wlist.itemsize + 4),
                                "offsets": (inst.n_men + inst.n_women + 2) * 8,
                                "state": (2 * inst.n_men + 2 * inst.n_women) * 4},
                               what="stable marriage instance")

    def match(self, name, inst, dev, sched):
        """Run ``name`` (:data:`ALGORITHMS`) on the device instance ``dev`` to its fixpoint:
        ``srank[w]`` ends as the rank of w's husband in her list; returns the device arrays
        ``(wife, husband)`` (int32, -1 unmarried) and the algorithm's counters."""
        srank = self.empty(inst.n_women)
        sched.fill("init", srank, INDEX_MAX)
        if name == "mcvitie-wilson":
            stats = self.mcvitie_wilson(inst, dev, srank, sched)
        else:
            stats = self.gale_shapley(inst, dev, srank, sched)
        wife_d, husband_d = self.husbands(inst, dev, srank, sched)
        return wife_d, husband_d, stats


    def mcvitie_wilson(self, inst, dev, srank, sched):
        """McVitie-Wilson: one launch; a rejected man proposes again at once."""
        count = cla.zeros(self.handle.queue, 1, np.int32)
        sched.launch("mcvitie-wilson", self.kernel("mcvitie_wilson"), inst.n_men, self.wg,
                     dev["mptr"].data, dev["mlist"].data, dev["rank_w"].data,
                     np.int32(inst.n_men), dev["wptr"].data, dev["wlist"].data,
                     dev["pos_m"].data, srank.data, count.data)
        return {"proposals": int(sched.read("mcvitie-wilson", np.zeros(1, np.int32),
                                            count.data)[0])}

    def gale_shapley(self, inst, dev, srank, sched):
        """Parallel Gale-Shapley: rounds in which every free man proposes once, ``batch``
        rounds enqueued between two reads of the free men's count."""
        q, nm = self.handle.queue, inst.n_men
        nextp = cla.empty(q, nm, self.odt)        # each man starts at his list's head
        cl.enqueue_copy(q, nextp.data, dev["mptr"].data, byte_count=nm * self.odt.itemsize)
        counts = [cla.empty(q, 1, np.int32) for _ in range(self.batch)]
        host = np.zeros(1, np.int32)
        k = self.kernel("gale_shapley_round")
        rounds = 0
        while True:
            for i in range(self.batch):
                sched.tick("gale-shapley rounds", inst.entries + 2 + self.batch)
                sched.fill("gale-shapley", counts[i].data, 0)
                sched.launch("gale-shapley", k, nm, self.wg, dev["mptr"].data,
                             dev["mlist"].data, dev["rank_w"].data, np.int32(nm),
                             nextp.data, srank.data, counts[i].data)
            rounds += self.batch
            sched.report("gale-shapley", rounds=rounds)
            if sched.read("gale-shapley", host, counts[-1].data)[0] == 0:
                return {"rounds": rounds}

    def husbands(self, inst, dev, srank, sched):
        """The answer from the women's suitor ranks: device arrays ``(wife, husband)``."""
        nm, nw = inst.n_men, inst.n_women
        husband_d, wife_d = self.empty(nw), self.empty(nm)
        sched.fill("husbands", wife_d, -1, np.int32)
        sched.launch("husbands", self.kernel("marriage_husbands"), nw, self.wg,
                     dev["wptr"].data, dev["wlist"].data, np.int32(nw), srank.data,
                     husband_d.data, wife_d.data)
        return wife_d, husband_d

    # -- verification on the device ---------------------------------------------------------
    def verify(self, inst, dev, wife_d, husband_d, sched):
        """The device check of an answer (kernels independent of the algorithm's): raises
        :class:`VerificationError` as :func:`verify_stable_marriage` does."""
        q = self.handle.queue
        nm, nw = inst.n_men, inst.n_women
        err = cla.empty(q, 4, np.int32, allocator=self.handle.pool)
        sched.fill("verify", err, INDEX_MAX)
        hrank = cla.empty(q, max(nw, 1), np.int32, allocator=self.handle.pool)
        sched.launch("verify", self.kernel("marriage_verify_women"), nw, self.wg,
                     dev["wptr"].data, dev["wlist"].data, np.int32(nw), np.int32(nm),
                     husband_d.data, wife_d.data, hrank.data, err.data)
        sched.launch("verify", self.kernel("marriage_verify_men"), nm, self.wg,
                     dev["mptr"].data, dev["mlist"].data, dev["rank_w"].data, np.int32(nm),
                     np.int32(nw), wife_d.data, husband_d.data, hrank.data, err.data)
        found = sched.read("verify", np.zeros(4, np.int32), err.data)
        if found[0] != INDEX_MAX:
            raise VerificationError("wife/husband hold an invalid id")
        if found[1] != INDEX_MAX:
            raise VerificationError("wife and husband disagree")
        if found[2] != INDEX_MAX:
            raise VerificationError("a married pair is not mutually acceptable")
        if found[3] != INDEX_MAX:
            k = int(found[3])
            m = int(np.searchsorted(inst.mptr, k, side="right") - 1)
            raise VerificationError(f"man {m} and woman {int(inst.mlist[k])} form a blocking "
                                    f"pair: the matching is not stable")
        return True


def _explain(inst):
    """The device found the lists invalid: the host check names the first problem."""
    inst.validate()
    raise InputError("the device check found the preference lists invalid but the host "
                     "check did not (please report this instance)")


@device_call
def verify_stable_marriage_device(inst, wife, husband, device=None):
    """:func:`verify_stable_marriage` on the device: uploads the instance and the answer and
    runs the kernels that ``stable_marriage(verify=True)`` runs (the instance is checked
    there too: a bad instance raises :class:`InputError`)."""
    if not isinstance(inst, MarriageInstance):
        raise InputError("verify_stable_marriage_device takes a MarriageInstance")
    wife, husband = np.asarray(wife), np.asarray(husband)
    if wife.shape != (inst.n_men,) or husband.shape != (inst.n_women,):
        raise VerificationError("wife/husband have the wrong shape")
    if wife.dtype.kind not in "iu" or husband.dtype.kind not in "iu":
        raise VerificationError("wife/husband hold an invalid id")
    handle = get_device(device)
    drv = _MarriageDriver(handle, entries=max(inst.mlist.size, inst.wlist.size))
    sched = Scheduler(handle, label="verify_stable_marriage_device")
    dev = drv.device_instance(inst, sched)

    def up(a):        # ids beyond int32 are invalid: clip them to an invalid int32 id
        a = np.where((a < -1) | (a > INDEX_MAX), -2, a).astype(np.int32)
        return cla.to_device(handle.queue, a if a.size else np.zeros(1, np.int32))
    return drv.verify(inst, dev, up(wife), up(husband), sched)


#: entries of a men's list up to which the device finds an entry by scanning the list
#: (MARRIAGE_SHORT in marriage.cl.mako); longer lists go through a hash table
MARRIAGE_SHORT = 64


@device_call
def stable_marriage(men_prefs: Any, women_prefs: Any = None, *,
                    algorithm: str = "mcvitie-wilson", device: DeviceSpec = None,
                    verify: bool | str = True, progress: Progress = None,
                    n_men: int | None = None, n_women: int | None = None,
                    work_group_size: int | None = None,
                    batch_rounds: int | None = None) -> StableMarriageResult:
    """Man-optimal stable matching of an SMI instance on an OpenCL device.

    ``men_prefs[m]`` lists women in m's order of preference, ``women_prefs[w]`` men in w's
    (lists of lists, or CSR pairs ``(indptr, indices)``; incomplete lists allowed, ties and
    repeated entries refused, and the lists must be consistent: m lists w iff w lists m).
    A :class:`MarriageInstance` (e.g. from :func:`easy_instance`) may be passed alone. The
    lists go to the device as they are and are checked there; the cross-references the
    kernels need are derived there too.

    ``algorithm``: ``"mcvitie-wilson"`` (one work-item per man, atomic_min on the woman's
    suitor rank, a rejected man proposes again at once) or ``"gale-shapley"`` (parallel rounds:
    every free man proposes once per round). Both give the unique man-optimal solution.

    ``verify``: ``True`` or ``"device"`` checks on the device that the answer is a matching of
    acceptable pairs with no blocking pair (kernels independent of the algorithm's);
    ``"host"`` runs :func:`verify_stable_marriage` instead; ``False`` skips it.
    ``res.timings["total"]`` is the whole call's wall time.

    Examples
    --------
    >>> import pyclmatch
    >>> men = [[0, 1], [0, 1]]          # both men prefer woman 0
    >>> women = [[1, 0], [0, 1]]        # woman 0 prefers man 1
    >>> res = pyclmatch.stable_marriage(men, women)
    >>> res.wife.tolist(), res.husband.tolist(), res.size
    ([1, 0], [1, 0], 2)
    >>> pyclmatch.stable_marriage(men, women, algorithm="gale-shapley").wife.tolist()
    [1, 0]
    """
    t_start = time.perf_counter()
    name = args.choice("algorithm", algorithm, ALGORITHMS)
    verify = args.verify("verify", verify)
    progress = args.progress("progress", progress)
    batch_rounds = args.batch("batch_rounds", batch_rounds)
    work_group_size = args.work_group_size("work_group_size", work_group_size,
                                           power_of_two=True)
    n_men, n_women = _sizes(n_men, n_women)
    inst = _instance(men_prefs, women_prefs, n_men, n_women)
    t_prepare = time.perf_counter() - t_start
    handle = get_device(device)
    work_group_size = args.work_group_size("work_group_size", work_group_size,
                                           handle.max_work_group_size, power_of_two=True)
    drv = _MarriageDriver(handle, work_group_size, batch_rounds,
                          max(inst.mlist.size, inst.wlist.size))
    if inst.entries == 0 and inst.wlist.size == 0:
        inst.validate()                       # (O(lists): the offsets alone)
        res = StableMarriageResult(np.full(inst.n_men, -1, np.int64),
                                   np.full(inst.n_women, -1, np.int64), 0, algorithm=name,
                                   device=handle.label, timings={"prepare": t_prepare},
                                   verified=bool(verify))
        res.timings["total"] = time.perf_counter() - t_start
        return res
    sched = Scheduler(handle, progress=progress, label=f"stable_marriage[{name}]")
    sched.wall["prepare"] = t_prepare
    drv.check_fits(inst)
    dev = drv.device_instance(inst, sched)
    with sched.step("build"):
        drv.build(ALGORITHM_KERNELS[name], "marriage_husbands")
    with sched.step("match"):
        wife_d, husband_d, stats = drv.match(name, inst, dev, sched)
    if verify in (True, "device"):
        with sched.step("verify"):
            drv.verify(inst, dev, wife_d, husband_d, sched)
    with sched.step("download"):
        husband = handle.download(husband_d, np.int64)
        wife = handle.download(wife_d, np.int64)
    if verify == "host":
        with sched.step("verify"):
            verify_stable_marriage(inst, wife, husband)
    res = StableMarriageResult(wife, husband, int(np.count_nonzero(husband >= 0)),
                               algorithm=name, device=handle.label, verified=bool(verify))
    res.timings = sched.timings()
    res.timings["total"] = time.perf_counter() - t_start
    res.counters = dict(stats, **sched.call_counters())
    return res


def _instance(men_prefs, women_prefs, n_men, n_women):
    """The :class:`MarriageInstance` of :func:`stable_marriage`'s arguments."""
    if isinstance(men_prefs, MarriageInstance):
        if women_prefs is not None:
            raise InputError("pass either a MarriageInstance or both preference lists",
                             argument="women_prefs")
        for arg, n, have in (("n_men", n_men, men_prefs.n_men),
                             ("n_women", n_women, men_prefs.n_women)):
            if n is not None and n != have:
                raise InputError(f"{arg}={n} contradicts the instance, which has {have} "
                                 f"(leave {arg} out)", argument=arg)
        return men_prefs
    if women_prefs is None:
        raise InputError("women_prefs is missing", argument="women_prefs")
    return MarriageInstance(men_prefs, women_prefs, n_men, n_women)


# --------------------------------------------------------------------------- generators

def easy_instance(n: int, seed: int = 0) -> MarriageInstance:
    """Paper IV's easy instance: each man draws eps in [0, 1] and ranks (1 + eps) ln n random
    women (distinct, random order); each woman ranks exactly the men who rank her, in random
    order. Returns int32 arrays; the cross-references are derived where needed (on the device
    by :func:`stable_marriage`).

    Linear time on all cores (:mod:`pyclmatch.hostpar`): the draws of
    ``numpy.random.default_rng(seed)`` are computed in parallel chunks, bit for bit as the
    sequential calls make them (``random(n)`` for eps, ``integers(0, n, L, int32)`` for the
    women, ``integers(0, 2**31 - 1, L', int32)`` for the women's keys), so a seed always gives
    the same instance. A stable counting sort by woman groups the entries with the men in
    increasing order, so a woman drawn twice by one man shows as two equal neighbours there
    (the later draw is dropped); each woman's list is then ordered by its random keys
    (scipy's per-row sort, on blocks of women in parallel).

    Examples
    --------
    >>> from pyclmatch.weighted import easy_instance, stable_marriage
    >>> inst = easy_instance(100, seed=1)
    >>> inst
    <MarriageInstance 100 men, 100 women, 621 acceptable pairs>
    >>> stable_marriage(inst).size
    90
    """
    n = args.integer("n", n, low=1, high=INDEX_MAX)   # (every man ranks one woman or more)
    S = Stream(args.seed("seed", seed))
    ln = np.log(max(n, 2))
    eps = S.random(n)
    k = np.empty(n, np.int64)

    def lengths(ab):
        a, b = ab
        k[a:b] = np.minimum(n, np.maximum(1, ((1.0 + eps[a:b]) * ln).astype(np.int64)))
    pmap(lengths, spans(n))
    del eps
    L = int(k.sum())
    if L > INDEX_MAX:                 # (n itself is at most INDEX_MAX: args.integer)
        raise InputError(f"easy_instance({n}) would hold {L} preference entries; at most "
                         f"2**31-1 are supported", argument="n")
    mptr = np.zeros(n + 1, np.int32)
    np.cumsum(k, out=mptr[1:])
    women = S.integers(n, L, np.int32)
    men = np.empty(L, np.int32)

    def owners(ab):
        a, b = ab
        men[mptr[a]:mptr[b]] = np.repeat(np.arange(a, b, dtype=np.int32), k[a:b])
    pmap(owners, spans(n))
    wptr, men = group_by_key(women, n, men)          # men increasing within each woman

    def repeats(ab):     # equal men next to each other within one woman's list
        a, b = ab
        a = max(a, 1)
        j = np.flatnonzero(men[a:b] == men[a - 1:b - 1]) + a
        return j[wptr[np.searchsorted(wptr, j, side="right") - 1] != j]
    same = np.concatenate(pmap(repeats, spans(L, minimum=1 << 20)) + [np.zeros(0, np.int64)])
    if same.size:
        # drop the later draws of each repeated (man, woman) pair from the man's list
        col = np.searchsorted(wptr, same, side="right") - 1
        drop = []
        for m, w in set(zip(men[same].tolist(), col.tolist())):
            row = np.flatnonzero(women[mptr[m]:mptr[m + 1]] == w)
            drop.extend((row[1:] + mptr[m]).tolist())
        np.subtract.at(k, men[same], 1)
        np.cumsum(k, out=mptr[1:])
        women = delete(women, np.sort(np.array(drop, np.int64)))
        men = delete(men, same)
        wptr[1:] -= np.cumsum(np.bincount(col, minlength=n))
        L = int(mptr[-1])
    wptr = wptr.astype(np.int32)
    rnd = S.integers(INDEX_MAX, L, np.int32)
    _, wlist = sort_rows_by(wptr, rnd, men, INDEX_MAX)          # each list in random order
    return MarriageInstance.from_arrays(mptr, women, wptr, wlist)


def hard_instance(n: int, seed: int = 0) -> MarriageInstance:
    """Paper IV's hard instance: every man has the same complete random ranking of the women,
    every woman the same complete random ranking of the men (n(n+1)/2 proposals). The n^2
    entries are written by all cores.

    Examples
    --------
    >>> from pyclmatch.weighted import hard_instance, stable_marriage
    >>> inst = hard_instance(20)
    >>> inst.entries
    400
    >>> stable_marriage(inst, algorithm="gale-shapley").size
    20
    """
    n = args.integer("n", n, low=1)
    if n * n > INDEX_MAX:
        raise InputError(f"hard_instance({n}) would hold n^2 = {n * n} preference entries; "
                         f"the device lists take at most 2**31-1 (n <= 46340)", argument="n")
    rng = np.random.default_rng(args.seed("seed", seed))
    wr, mr = rng.permutation(n).astype(np.int32), rng.permutation(n).astype(np.int32)
    ptr = np.arange(n + 1, dtype=np.int32) * np.int32(n)
    mlist, wlist = np.empty((n, n), np.int32), np.empty((n, n), np.int32)

    def tile(ab):
        mlist[ab[0]:ab[1]] = wr
        wlist[ab[0]:ab[1]] = mr
    pmap(tile, spans(n, minimum=max(1, (1 << 20) // n)))
    return MarriageInstance.from_arrays(ptr, mlist.ravel(), ptr.copy(), wlist.ravel())


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
