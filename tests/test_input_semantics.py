"""The graph intake's rules, the same in every family and format (docs/interop.rst, "Input
rules"): duplicates summed before any check, edge tuples, shape/n consistency, b capped at the
degree, scale, overflow, and the argument each refusal names."""
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import pyclmatch
from pyclmatch import InputError
from pyclmatch.weighted.graph import as_b

DEV = None


def _barbell():
    return nx.to_scipy_sparse_array(nx.barbell_graph(5, 0), format="csr", dtype=float)


def _dup_path():
    """The path 0-1-2 (weights 2, 1) with (0, 1) and (1, 0) stored as 3 and -1."""
    ind = np.array([1, 1, 0, 0, 2, 1])
    ptr = np.array([0, 2, 5, 6])
    data = np.array([3.0, -1.0, 3.0, -1.0, 1.0, 1.0])
    return sp.csr_matrix((data, ind, ptr), shape=(3, 3))


def _formats(A):
    yield A
    yield sp.csc_matrix((A.data, A.indices, A.indptr), shape=A.shape)   # symmetric: same arrays
    yield A.tocoo()
    yield sp.csr_array(A)


def test_duplicates_summed_before_checks_weighted():
    for A in _formats(_dup_path()):
        res = pyclmatch.weighted_matching(A, device=DEV)
        assert res.mate.tolist() == [1, 0, -1] and res.weight == 2.0, type(A)
        assert pyclmatch.b_matching(A, 1, device=DEV).weight == 2.0
    u, v, w = np.array([0, 0, 1]), np.array([1, 1, 2]), np.array([3.0, -1.0, 1.0])
    assert pyclmatch.weighted_matching((u, v, w), device=DEV).weight == 2.0
    # summed to a negative value: refused, naming G
    with pytest.raises(InputError, match="negative") as exc:
        pyclmatch.weighted_matching((u, v, np.array([1.0, -3.0, 1.0])), device=DEV)
    assert exc.value.argument == "G"


def test_duplicates_summed_before_checks_louvain():
    A = _dup_path()
    ref = pyclmatch.modularity(np.array([[0, 2, 0], [2, 0, 1], [0, 1, 0.]]), [0, 0, 1])
    for B in _formats(A):
        assert pyclmatch.modularity(B, [0, 0, 1]) == pytest.approx(ref)
        assert pyclmatch.louvain(B, device=DEV).n_communities == 1


def test_edge_arrays_both_directions_must_agree():
    with pytest.raises(InputError, match="both directions with different weights") as exc:
        pyclmatch.weighted_matching((np.array([0, 1]), np.array([1, 0]), np.array([1.0, 2])),
                                    device=DEV)
    assert exc.value.argument == "G"
    res = pyclmatch.weighted_matching((np.array([0, 1]), np.array([1, 0]), np.array([2.0, 2])),
                                      device=DEV)
    assert res.weight == 2.0


def test_louvain_edge_tuples():
    u = np.array([0, 1, 2, 3, 4, 5, 0])
    v = np.array([1, 2, 0, 4, 5, 3, 3])
    res = pyclmatch.louvain((u, v), device=DEV)
    assert res.membership.tolist() == [0, 0, 0, 1, 1, 1]
    res = pyclmatch.louvain((u, v, np.ones(7), 8), device=DEV)
    assert res.membership.tolist() == [0, 0, 0, 1, 1, 1, 2, 3]
    assert pyclmatch.modularity((u, v), [0, 0, 0, 1, 1, 1]) == pytest.approx(
        pyclmatch.modularity(nx.Graph(list(zip(u.tolist(), v.tolist()))), [0] * 3 + [1] * 3))
    with pytest.raises(InputError) as exc:
        pyclmatch.louvain((u, v, np.ones(7), 5), device=DEV)
    assert exc.value.argument == "n"
    with pytest.raises(InputError) as exc:
        pyclmatch.louvain((u, v, np.ones((7, 2))), device=DEV)
    assert exc.value.argument == "G"


def test_shape_and_n_must_agree():
    with pytest.raises(InputError, match="contradicts") as exc:
        pyclmatch.maximum_matching(sp.eye(3, format="csr"), shape=(5, 5), device=DEV)
    assert exc.value.argument == "shape"
    assert pyclmatch.maximum_matching(sp.eye(3, format="csr"), shape=(3, 3),
                                      device=DEV).cardinality == 3
    res = pyclmatch.maximum_matching((np.array([0]), np.array([0])), shape=(4, 5), device=DEV)
    assert res.row_match.size == 4 and res.col_match.size == 5
    P3 = sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 2], [0, 2, 0]], float))
    with pytest.raises(InputError, match="contradicts") as exc:
        pyclmatch.weighted_matching(P3, n=7, device=DEV)
    assert exc.value.argument == "n"
    assert pyclmatch.weighted_matching(P3, n=3, device=DEV).weight == 2.0
    with pytest.raises(InputError) as exc:
        pyclmatch.weighted_matching((np.array([0]), np.array([5]), np.array([1.0])), n=3,
                                    device=DEV)
    assert exc.value.argument == "n"
    res = pyclmatch.weighted_matching((np.array([0]), np.array([1]), np.array([1.0])), n=6,
                                      device=DEV)
    assert res.mate.tolist() == [1, 0, -1, -1, -1, -1]


def test_ids_past_int64_shown_unsigned():
    big = np.array([2**63], np.uint64)
    with pytest.raises(InputError, match="9223372036854775808") as exc:
        pyclmatch.weighted_matching((big, np.array([1]), np.array([1.0])), device=DEV)
    assert exc.value.argument == "G"
    with pytest.raises(InputError, match="9223372036854775808") as exc:
        pyclmatch.maximum_matching((big, np.array([1])), device=DEV)
    assert exc.value.argument == "A"


def test_b_capped_at_degree():
    P3 = sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 2], [0, 2, 0]], float))
    for b in (10**9, 2**40, np.iinfo(np.int64).max, np.array([5, 10**12, 7])):
        res = pyclmatch.b_matching(P3, b, device=DEV)
        assert res.weight == 3.0 and res.edges.tolist() == [[0, 1], [1, 2]]
        assert res.b.tolist() == np.broadcast_to(b, 3).tolist()
    assert as_b(10**9, 3, np.array([1, 2, 1])).tolist() == [1, 2, 1]
    assert as_b(10**9, 3).tolist() == [2, 2, 2]


def test_b_refused():
    P3 = sp.csr_matrix(np.array([[0, 1, 0], [1, 0, 2], [0, 2, 0]], float))
    for bad in (True, np.array([True, False, True]), 1.5, [1, 2.5, 1], [1, 1],
                np.array([2**63] * 3, np.uint64), -1, float("inf"), "2", None):
        with pytest.raises(InputError) as exc:
            pyclmatch.b_matching(P3, bad, device=DEV)
        assert exc.value.argument == "b", bad
    assert pyclmatch.b_matching(P3, 2.0, device=DEV).weight == 3.0
    assert pyclmatch.b_matching(P3, np.array(1), device=DEV).weight == 2.0


def test_modularity_as_strict_as_louvain():
    B = _barbell()
    m = [0] * 5 + [1] * 5
    q = pyclmatch.modularity(B, m)
    for bad, arg in (([0.5] * 10, "membership"), (["a"] * 10, "membership"),
                     ([0] * 9, "membership"), ([-1] + [0] * 9, "membership"),
                     ([np.nan] * 10, "membership")):
        with pytest.raises(InputError) as exc:
            pyclmatch.modularity(B, bad)
        assert exc.value.argument == arg, bad
    with pytest.raises(InputError) as exc:
        pyclmatch.modularity(B, m, resolution=float("nan"))
    assert exc.value.argument == "resolution"
    with pytest.raises(InputError, match="overflows") as exc:
        pyclmatch.modularity(B * 1e308, m)
    assert exc.value.argument == "A"
    assert pyclmatch.modularity(B, [2**62] * 5 + [7] * 5) == q       # labels need not be dense
    assert pyclmatch.modularity(B, np.array(m, float)) == q


@pytest.mark.parametrize("scale", [1e-300, 5e-324, 1e-40, 1e200])
def test_scale_invariance(scale):
    B = _barbell()
    m = [0] * 5 + [1] * 5
    q = pyclmatch.modularity(B, m)
    assert pyclmatch.modularity(B * scale, m) == pytest.approx(q, rel=1e-12)
    res = pyclmatch.louvain(B * scale, device=DEV)
    assert res.n_communities == 2 and res.modularity == pytest.approx(q, rel=1e-6)
    A = sp.csr_matrix(np.array([[0, 3, 1, 0], [3, 0, 2, 0], [1, 2, 0, 4], [0, 0, 4, 0]], float))
    res = pyclmatch.weighted_matching(A * scale, device=DEV)
    assert res.mate.tolist() == [1, 0, 3, 2] and res.weight == pytest.approx(7 * scale)


def test_overflowing_sums_refused():
    with pytest.raises(InputError, match="overflows") as exc:
        pyclmatch.louvain(_barbell() * 1e308, device=DEV)
    assert exc.value.argument == "G"
    edges = (np.array([0, 2]), np.array([1, 3]), np.array([1e308, 1e308]))
    with pytest.raises(InputError, match="overflows") as exc:    # (refused by the call)
        pyclmatch.weighted_matching(edges, device=DEV)
    assert exc.value.argument == "G"
    csr = sp.csr_matrix((np.full(4, 1e308), ([0, 1, 2, 3], [1, 0, 3, 2])), shape=(4, 4))
    for call in (lambda: pyclmatch.weighted_matching(csr, device=DEV),   # (device intake)
                 lambda: pyclmatch.b_matching(csr, 1, device=DEV)):
        with pytest.raises(InputError, match="overflows") as exc:
            call()
        assert exc.value.argument == "G"
    one = pyclmatch.weighted_matching((np.array([0]), np.array([1]), np.array([1e308])),
                                      device=DEV)
    assert one.weight == 1e308


def test_float16_and_messages():
    P = np.array([[0, 1, 0], [1, 0, 2], [0, 2, 0]], np.float16)
    assert pyclmatch.weighted_matching(P, device=DEV).weight == 2.0
    assert pyclmatch.maximum_matching(P, device=DEV).cardinality == 2
    assert pyclmatch.louvain(P, device=DEV).n_communities == 1
    with pytest.raises(InputError, match=r"read_graph\(path, symmetrize=True\)") as exc:
        pyclmatch.louvain(sp.csr_matrix(np.array([[0, 1], [0, 0.]])), device=DEV)
    assert exc.value.argument == "G"
    with pytest.raises(InputError, match=r"symmetrize=True") as exc:
        pyclmatch.weighted_matching(sp.csr_matrix(np.array([[0, 1], [0, 0.]])), device=DEV)
    assert exc.value.argument == "G"
    with pytest.raises(InputError) as exc:
        pyclmatch.weighted_matching((np.array([0, 1]), np.array([1, 2]), np.ones((2, 2))),
                                    device=DEV)
    assert exc.value.argument == "G"
