"""The fuzz corpus: bad and odd inputs for every public function, reader and CLI command, each
with the exact outcome the contract of issue 34 asks for (docs and docstrings, COMMON.md).

A case is ``Case(id, area, call, expect)``: ``call`` takes no argument and makes the call (it
builds its inputs itself, so a child process can run it by id), ``expect`` says what must come
of it: ``ok(check)`` an answer that ``check(result)`` accepts (it returns None, or a text saying
what is wrong), ``err(*arguments)`` an :class:`~pyclmatch.errors.InputError` whose
``.argument`` is one of ``arguments`` (more than one only where the contract leaves the name
open), ``err_class(name, words)`` an exception of exactly the class ``name`` (not a subclass:
``err_class("ValueError")`` is a plain ValueError, no InputError) whose message holds
``words``, for errors another library raises before pyclmatch is called (networkx's dispatch
checks ``seed`` first), ``either(check, err(...))`` an answer or that refusal. The areas: ``params`` (non-graph
parameters), ``readers`` (read_graph and the files under ``tests/data/bad/fuzz/``),
``semantics`` (graph intake: duplicates, weights, shapes, b, membership), ``cli`` and
``other`` (generators, interop, nxbackend, devices). ``hyp`` cases run a hypothesis search
(derandomized, no database) whose property is: an answer the checker accepts, or an
InputError naming one of the drawn arguments.

The test is tests/test_fuzz_corpus.py; tests/fuzz_harness.py runs the cases in child
processes. ``python tests/fuzz_cases.py`` lists the cases by area.
"""
import contextlib
import functools
import io as _io
import math
import os
import sys
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))
BAD = os.path.join(HERE, "data", "bad", "fuzz")
NAN, INF = float("nan"), float("inf")


# -- expectations ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Err:
    arguments: tuple = ()                 # InputError's .argument must be one of these
    classes: tuple = ("InputError",)      # a class name in the exception's MRO
    words: tuple = ()                     # fragments of the message (case-insensitive)
    exact: bool = False                   # the exception's own class is one of ``classes``


@dataclass(frozen=True)
class Expect:
    ok: bool = False
    check: object = None
    error: Err = None

    def text(self):
        parts = []
        if self.ok:
            parts.append("answer")
        if self.error:
            parts.append("/".join(self.error.classes) + (
                f"({'|'.join(self.error.arguments)})" if self.error.arguments else ""))
        return " or ".join(parts)


def ok(check=None):
    return Expect(ok=True, check=check)


def err(*arguments, classes=("InputError",), words=()):
    return Expect(error=Err(tuple(arguments), tuple(classes), tuple(words)))


def err_class(name, words=()):
    """The exception of exactly class ``name`` (not a subclass) with ``words`` in its message:
    an error raised by another library before any pyclmatch code runs."""
    return Expect(error=Err((), (name,), tuple(words), exact=True))


def either(check, refusal):
    return Expect(ok=True, check=check, error=refusal.error)


@dataclass
class Case:
    id: str
    area: str
    call: object
    expect: Expect
    slow: bool = False


CASES = []


def add(cid, area, call, expect, slow=False):
    CASES.append(Case(cid, area, call, expect, slow))


def case_table():
    """The cases by id (the child's view)."""
    build()
    return {c.id: c for c in CASES}


# -- inputs ------------------------------------------------------------------------------------

def pm():
    import pyclmatch
    return pyclmatch


def P3():
    """The 3-vertex weighted path 0 -2- 1 -3- 2."""
    return sp.csr_matrix(np.array([[0, 2.0, 0], [2.0, 0, 3.0], [0, 3.0, 0]]))


@functools.lru_cache(None)
def _nx_csr(name):
    import networkx as nx
    G = nx.karate_club_graph() if name == "K" else nx.barbell_graph(5, 1)
    return sp.csr_matrix(nx.to_scipy_sparse_array(G, dtype=np.float64, format="csr"))


def K():
    """The karate club graph (with its weights) as CSR."""
    return _nx_csr("K").copy()


def B():
    """The barbell graph (two 5-cliques and a middle vertex) as CSR."""
    return _nx_csr("B").copy()


def R():
    """A 3 x 4 bipartite matrix with a perfect row matching."""
    return sp.csr_matrix(np.array([[1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 1, 1]], np.float64))


def raw_csr(data, indices, indptr, shape):
    """A CSR holding the arrays as given (duplicates, unsorted: scipy checks only lengths)."""
    return sp.csr_matrix((np.asarray(data), np.asarray(indices), np.asarray(indptr)),
                         shape=shape)


# -- answer checkers ---------------------------------------------------------------------------

def close(a, b, rel=1e-9, abs_=1e-12):
    return a == b or (math.isfinite(a) and math.isfinite(b)
                      and abs(a - b) <= max(rel * max(abs(a), abs(b)), abs_))


def cardinality_of(A):
    """A check: a maximum matching of ``A``'s pattern (scipy's cardinality), whose pairs are
    entries of ``A``."""
    from scipy.sparse.csgraph import maximum_bipartite_matching

    def check(res):
        M = sp.csr_matrix(A)
        M.sum_duplicates()
        M = sp.csr_matrix((np.ones(M.nnz), M.indices, M.indptr), shape=M.shape)
        want = int((maximum_bipartite_matching(M, perm_type="column") >= 0).sum()) \
            if M.shape[0] and M.shape[1] else 0
        if res.cardinality != want:
            return f"cardinality {res.cardinality}, scipy {want}"
        rows = np.flatnonzero(res.row_match >= 0)
        if rows.size != want or not all(M[r, res.row_match[r]] for r in rows):
            return "row_match pairs are not entries"
        return None
    return check


def matched_weight(G, want=None, rel=1e-9):
    """A check: ``res.mate`` is a matching over edges of ``G`` (symmetric), ``res.weight`` its
    weight (``want`` when given)."""
    def check(res):
        M = sp.csr_matrix(G, dtype=np.float64)
        M.sum_duplicates()
        mate = np.asarray(res.mate)
        if mate.size != M.shape[0]:
            return f"mate has {mate.size} entries for {M.shape[0]} vertices"
        C = M.tocoo()
        edges = set(zip(C.row.tolist(), C.col.tolist()))
        w = 0.0
        for u, v in enumerate(mate.tolist()):
            if v < 0:
                continue
            if mate[v] != u or u == v or (u, v) not in edges:
                return f"mate[{u}]={v} is not a matching over the edges"
            w += M[u, v] if u < v else 0.0
        if not close(res.weight, w, rel):
            return f"weight {res.weight}, the pairs weigh {w}"
        if want is not None and not close(res.weight, want, rel):
            return f"weight {res.weight}, want {want}"
        return None
    return check


def nx_modularity(A, membership, resolution=1.0):
    import networkx as nx
    G = nx.from_scipy_sparse_array(sp.csr_matrix(A))
    groups = {}
    for v, c in enumerate(np.asarray(membership).tolist()):
        groups.setdefault(c, set()).add(v)
    return nx.community.modularity(G, list(groups.values()), resolution=resolution)


def louvain_of(A, resolution=1.0, same_as=None):
    """A check: a membership of every vertex whose networkx modularity is ``res.modularity``
    (and, with ``same_as``, the partition of that call's answer)."""
    def check(res):
        m = np.asarray(res.membership)
        if m.shape != (A.shape[0],):
            return f"membership of shape {m.shape} for {A.shape[0]} vertices"
        q = nx_modularity(A, m, resolution)
        if not close(res.modularity, q, 1e-6, 1e-9):
            return f"modularity {res.modularity}, networkx {q}"
        if same_as is not None:
            other = np.asarray(same_as().membership)
            if not _same_partition(m, other):
                return f"partition {m.tolist()} differs from {other.tolist()}"
        return None
    return check


def _same_partition(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and len(set(zip(a.tolist(), b.tolist()))) == len(set(a.tolist())) \
        == len(set(b.tolist()))


def value(want, rel=1e-9):
    """A check: the result is the number ``want``."""
    def check(res):
        if not isinstance(res, (float, int, np.floating)) or not close(float(res), want, rel):
            return f"got {res!r}, want {want!r}"
        return None
    return check


def attr(name, want):
    """A check: ``res.<name> == want`` (arrays compared as lists)."""
    def check(res):
        got = getattr(res, name)
        got = got.tolist() if isinstance(got, np.ndarray) else got
        return None if got == want else f"{name} = {got!r}, want {want!r}"
    return check


def same_answer(other, *names):
    """A check: the fields ``names`` equal those of ``other()``'s answer."""
    def check(res):
        ref = other()
        for n in names:
            a, b = getattr(res, n), getattr(ref, n)
            a = a.tolist() if isinstance(a, np.ndarray) else a
            b = b.tolist() if isinstance(b, np.ndarray) else b
            if a != b and not (isinstance(a, float) and close(a, b)):
                return f"{n} = {a!r}, the clean input gives {b!r}"
        return None
    return check


def matrix(want):
    """A check: a sparse matrix equal to the dense ``want`` (values and shape)."""
    def check(res):
        if not sp.issparse(res):
            return f"got a {type(res).__name__}"
        got = res.toarray()
        w = np.asarray(want, dtype=got.dtype if got.dtype.kind != "b" else np.float64)
        if got.shape != w.shape or not np.allclose(got, w, equal_nan=True):
            return f"got {got.tolist()}, want {w.tolist()}"
        return None
    return check


def all_of(*checks):
    def check(res):
        for c in checks:
            bad = c(res)
            if bad:
                return bad
        return None
    return check


def build():
    """Fill CASES (once)."""
    if CASES:
        return
    from fuzz_builders import (param_cases, semantic_cases, reader_cases, cli_cases,
                                 other_cases, hypothesis_cases)
    for f in (param_cases, semantic_cases, reader_cases, cli_cases, other_cases,
              hypothesis_cases):
        f()
    seen = set()
    for c in CASES:
        assert c.id not in seen, c.id
        seen.add(c.id)


def _listing():
    import fuzz_cases                     # (the module the builders fill, not __main__)
    fuzz_cases.build()
    areas = {}
    for c in fuzz_cases.CASES:
        areas.setdefault(c.area, []).append(c)
    for a, cs in areas.items():
        print(f"{a}: {len(cs)} cases ({sum(c.slow for c in cs)} slow)")
    print(f"total: {len(fuzz_cases.CASES)}")


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    _listing()
