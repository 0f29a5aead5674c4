"""The small-graph path: APFB/APsB whole in one work-group (apfb_one_group) gives the same
answers as the large-graph path (a launch per step) and scipy's sequential Hopcroft-Karp, for
every variant, at and around the size threshold."""
import numpy as np
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st

import pyclmatch
from pyclmatch import AUGMENTING_VARIANTS
from pyclmatch.bipartite import INITS, verify_matching
from pyclmatch.engine.graphs import as_bipartite
from bipartite_cases import (structured_cases, bipartite_matrices, power_law_matrices,
                             scipy_cardinality)

CASES = structured_cases()


def solve(A, variant, init, device, limit):
    res = pyclmatch.maximum_matching(A, algorithm=variant, init=init, device=device,
                                     one_group_edges=limit)
    assert res.cardinality == scipy_cardinality(A)
    verify_matching(as_bipartite(A), res.row_match, res.col_match, res.certificate)
    return res


@pytest.mark.parametrize("variant", AUGMENTING_VARIANTS)
def test_structured_one_group(variant, device):
    """Chains, long paths, layered graphs, stars... (the adversarial cases of the large path)
    in one work-group: exact, certified, and run in one launch of apfb_one_group."""
    for name, A in CASES:
        res = solve(A, variant, "none" if "apsb" in variant else "karp-sipser", device, 10**9)
        if as_bipartite(A).nnz:
            assert res.counters.get("one_group") == 1, name


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(A=st.one_of(bipartite_matrices(), power_law_matrices()),
       variant=st.sampled_from(AUGMENTING_VARIANTS), init=st.sampled_from(INITS))
def test_one_group_matches_large_path(A, variant, init, device):
    """Same cardinality as the large path and scipy and a valid König cover from the last BFS
    of each. The initial matchings are of the same kind (their rounds run in the same launch
    on the one-group path) but not always equal: the claims race differently in one group."""
    small = solve(A, variant, init, device, 10**9)
    large = solve(A, variant, init, device, 0)
    for res in (small, large):
        assert res.initial_cardinality <= res.cardinality
        if init == "none":
            assert res.initial_cardinality == 0
        elif res.cardinality:
            assert res.initial_cardinality > 0         # a maximal matching of >= 1 edge
    assert small.cardinality == large.cardinality
    assert large.counters.get("one_group") is None


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(A=bipartite_matrices(max_side=40), delta=st.sampled_from([-1, 0, 1]),
       variant=st.sampled_from(["apfb-gpubfs-wr-ct", "apsb-gpubfs-mt", "ppf", "gpr"]))
def test_threshold(A, delta, variant, device):
    """A graph of exactly one_group_edges edges runs in one work-group, one edge more does not
    (PPF and G-PR, which do not augment by APFB, never report it)."""
    nnz = as_bipartite(A).nnz
    res = solve(A, variant, "karp-sipser", device, max(nnz + delta, 0))
    expect = 0 < nnz <= nnz + delta and variant.startswith("ap")
    assert (res.counters.get("one_group") == 1) == expect


def test_one_group_counts_one_augmenting_launch(device):
    """The initial matching and the augmentation are one launch and one read-back, whatever
    the number of rounds and phases."""
    from bipartite_cases import long_paths
    A = long_paths(60)
    small = solve(A, "apfb-gpubfs-wr-ct", "karp-sipser", device, 10**9)
    large = solve(A, "apfb-gpubfs-wr-ct", "karp-sipser", device, 0)
    assert small.counters["phases"] >= 1 and small.counters["bfs_levels"] > 2
    assert small.counters["launches"] < large.counters["launches"]
    assert small.counters["readbacks"] < large.counters["readbacks"]
    assert small.timings.get("kernel:one-group", 0) >= 0


def test_one_group_rejects_nothing_new(device):
    """An empty graph or one without edges returns at once on either path."""
    import scipy.sparse as sp
    for A in (sp.csr_matrix((0, 0)), sp.csr_matrix((4, 7))):
        res = pyclmatch.maximum_matching(A, device=device, one_group_edges=10**9)
        assert res.cardinality == 0 and np.all(res.row_match == -1)
