"""The one argument checker (pyclmatch.engine.args) and its use by every public function:
each bad parameter is refused before any device work, by an InputError naming it."""
import math
import os

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

import pyclmatch
from pyclmatch import InputError, generators
from pyclmatch.engine import args

DEV = os.environ.get("PYCLMATCH_TEST_DEVICE", "cpu")
G = sp.csr_matrix([[1, 1, 0], [1, 0, 0], [0, 1, 1]])
W = sp.csr_matrix(np.array([[0, 3, 1, 0], [3, 0, 2, 0], [1, 2, 0, 4], [0, 0, 4, 0]], float))
K = sp.csr_matrix(np.array([[0, 1, 1, 0], [1, 0, 1, 0], [1, 1, 0, 1], [0, 0, 1, 0]], float))
MEN, WOMEN = [[0, 1], [0, 1]], [[1, 0], [0, 1]]

#: the calls, each taking the keyword arguments under test
CALLS = {
    "maximum_matching": lambda **k: pyclmatch.maximum_matching(
        G, **{"algorithm": "apfb", "device": DEV, **k}),
    "maximum_matching/auto": lambda **k: pyclmatch.maximum_matching(G, device=DEV, **k),
    "maximum_matching/gpr": lambda **k: pyclmatch.maximum_matching(
        G, **{"algorithm": "gpr", "device": DEV, **k}),
    "maximum_matching/ppf": lambda **k: pyclmatch.maximum_matching(
        G, **{"algorithm": "ppf", "device": DEV, **k}),
    "maximum_bipartite_matching": lambda **k: pyclmatch.maximum_bipartite_matching(
        G, device=DEV, **k),
    "dulmage_mendelsohn": lambda **k: pyclmatch.dulmage_mendelsohn(G, device=DEV, **k),
    "weighted_matching": lambda **k: pyclmatch.weighted_matching(W, device=DEV, **k),
    "b_matching": lambda **k: pyclmatch.b_matching(W, 1, device=DEV, **k),
    "prepare_graph": lambda **k: pyclmatch.prepare_graph(W, **k),
    "stable_marriage": lambda **k: pyclmatch.stable_marriage(MEN, WOMEN, device=DEV, **k),
    "louvain": lambda **k: pyclmatch.louvain(K, device=DEV, **k),
    "modularity": lambda **k: pyclmatch.modularity(K, **{"membership": [0, 0, 0, 1], **k}),
    "easy_instance": lambda **k: pyclmatch.easy_instance(**{"n": 10, **k}),
    "hard_instance": lambda **k: pyclmatch.hard_instance(**{"n": 10, **k}),
    "generators.uniform": lambda **k: generators.uniform(**{"n": 10, "deg": 2, **k}),
    "generators.kron": lambda **k: generators.kron(**{"scale": 3, **k}),
    "generators.delaunay": lambda **k: generators.delaunay(**{"logn": 3, **k}),
    "generators.grid": lambda **k: generators.grid(**{"side": 3, **k}),
    "generators.permuted": lambda **k: generators.permuted(G, **k),
    "structural_rank": lambda **k: pyclmatch.structural_rank(G, device=DEV, **k),
    "block_triangular_form": lambda **k: pyclmatch.block_triangular_form(G, device=DEV, **k),
}

BAD_INT = ["8", 1.5, True, np.bool_(True), [8], float("nan"), np.uint64(2**64 - 1), 2**64]
BAD_WG = [0, -64, "64", 10**9, 2**40, 1.5, True, np.uint64(2**63), [64]]
BAD_SEED = [1.5, -1, "x", True, 2**64, float("nan"), [1]]
BAD_VERIFY = [1, 0, None, "maybe", 1.0]
BAD_PROGRESS = [1, "yes", 2.5, [True]]
MATCHING = ("maximum_matching", "maximum_matching/auto", "dulmage_mendelsohn")
ALL_DEVICE = MATCHING + ("weighted_matching", "b_matching", "stable_marriage", "louvain")


def _cases():
    """(call, parameter, bad value) for every parameter of every public function."""
    c = []
    for f in ALL_DEVICE:
        c += [(f, "work_group_size", v) for v in BAD_WG]
        c += [(f, "verify", v) for v in BAD_VERIFY]
        c += [(f, "progress", v) for v in BAD_PROGRESS]
        c += [(f, "algorithm", v) for v in ("nope", 3, None, ["apfb"], b"apfb")]
        c.append((f, "no_such_parameter", 1))
    for f in ("structural_rank", "block_triangular_form"):
        c += [(f, "algorithm", v) for v in ("nope", 3, None, ["apfb"])]
    for f in ("weighted_matching", "b_matching", "stable_marriage", "louvain"):
        c.append((f, "work_group_size", 48))          # (a power of two there)
    c += [("louvain", "work_group_size", 16)]         # (>= 32 there)
    for f in MATCHING:
        c += [(f, "init", v) for v in ("random", 1, None)]
        for p in ("ct_work_items", "heavy_groups"):
            c += [(f, p, v) for v in BAD_INT + [0, -1]]
        c += [(f, "ks_rounds", v) for v in BAD_INT + [-1, 2**31]]
        c += [(f, "heavy_degree", v) for v in BAD_INT + [2**31, -2**31 - 1]]
        c += [(f, "one_group_edges", v) for v in BAD_INT[:6] + [-1]]   # (any size >= 0)
    c += [("maximum_matching", "batch_levels", v) for v in BAD_INT + [0, -3, 10**9]]
    for p, vals in [("k", [0, -1, "x", float("nan"), float("inf"), True]),
                    ("relabel", ["x", 1, None]), ("batch", [0, 10**9, 1.5]),
                    ("shrink_threshold", [-1, 1.5, None])]:
        c += [("maximum_matching/gpr", p, v) for v in vals]
    c += [("maximum_matching/ppf", p, v) for p in ("work_items", "stack_bytes")
          for v in [0, -1, 1.5, "8"]]
    c += [("maximum_bipartite_matching", "perm_type", v) for v in ("rows", 1, None)]
    for f in ("weighted_matching", "b_matching"):
        c += [(f, "batch_rounds", v) for v in BAD_INT + [0, -3, 10**9]]
        c += [(f, "precision", v) for v in ("half", 3, [1], np.int8)]
        c += [(f, p, v) for p in ("symmetrize", "drop_invalid", "keep_on_device")
              for v in (1, "yes", None)]
    c += [("weighted_matching", "variant", v) for v in ("x", 1)]
    c += [("weighted_matching", "threads_per_vertex", v) for v in (3, 0, "x", True, 2048)]
    c += [("weighted_matching", "vertices_per_group", v) for v in (0, 10**9, 1.5)]
    c += [("weighted_matching", "lb_rounds", v) for v in (-1, None, 1.5)]
    c += [("prepare_graph", p, v) for p in ("symmetrize", "drop_invalid") for v in (1, "x")]
    c += [("prepare_graph", "colour", 1)]
    c += [("stable_marriage", "batch_rounds", v) for v in BAD_INT + [0, -3, 10**9]]
    for p in ("n_men", "n_women"):     # (2.0 too: an integer parameter takes no float)
        c += [("stable_marriage", p, v) for v in BAD_INT + [2.0, -1, 2**31, 1, 3]]
    lv = [("resolution", [float("nan"), float("inf"), -1, "1", True, 1j, None]),
          ("threshold", ["x", -1, float("nan"), (1,), ("relative", "a", 1), True, [1, -1]]),
          ("max_level", [0, 1.5, True, "2"]), ("seed", BAD_SEED),
          ("deterministic", [1, "yes", None]), ("return_levels", [1, "yes"]),
          ("move_buckets", [[5, 3, -1], [(1, 4, 4)], [(2, None, None)], "x", 5,
                            [(1, None, 3)], [(1, 4, 4), (6, None, None)], [(1, None)]]),
          ("merge_buckets", [[5, 3, -1], [(1, 127, 0), (128, None, None)]]),
          ("bin_limit", [-1, "x", 1.5]), ("subrounds", [0, 2000, "x"]),
          ("moves", [1, "x", None]), ("one_group_edges", [-1, 1.5, "0"])]
    c += [("louvain", p, v) for p, vals in lv for v in vals]
    c += [("modularity", "membership", v) for v in ([0.5] * 4, ["a"] * 4, [0] * 3,
                                                    [[0, 1]] * 2)]
    c += [("modularity", "resolution", v) for v in (float("nan"), -1, "1", True)]
    for f in ("easy_instance", "hard_instance"):
        c += [(f, "n", v) for v in (0, -1, 1.5, "x", True, 2**64)]
        c += [(f, "seed", v) for v in BAD_SEED]
    for f, p in [("generators.uniform", "n"), ("generators.uniform", "deg"),
                 ("generators.kron", "scale"), ("generators.kron", "edgefactor"),
                 ("generators.delaunay", "logn"), ("generators.grid", "side")]:
        c += [(f, p, v) for v in (-1, 1.5, "x", True, 2**64, float("nan"))]
    c += [("generators.grid", "keep", v) for v in (-0.5, 1.5, "x", float("nan"))]
    for f in ("generators.uniform", "generators.kron", "generators.delaunay",
              "generators.grid", "generators.permuted"):
        c += [(f, "seed", v) for v in BAD_SEED]
    return c


@pytest.mark.parametrize("call, name, value", _cases(),
                         ids=lambda x: x if isinstance(x, str) else None)
def test_every_bad_parameter_is_an_input_error_naming_it(call, name, value):
    with pytest.raises(InputError) as exc:
        CALLS[call](**{name: value})
    assert exc.value.argument == name, str(exc.value)
    assert name in str(exc.value)


def test_good_values_still_run():
    """Sizes the bipartite kernels take although not powers of two, bool-like numpy values,
    upper-case modes, and the defaults spelled out."""
    for wg in (48, 3):
        assert pyclmatch.maximum_matching(G, algorithm="apfb", device=DEV,
                                          work_group_size=np.int64(wg)).cardinality == 3
    res = pyclmatch.maximum_matching(G, algorithm="host-hk", verify="HOST")
    assert res.verified and res.cardinality == 3
    assert pyclmatch.louvain(K, device=DEV, seed=np.uint64(2**63), verify="device",
                             deterministic=np.True_, work_group_size=32).n_communities >= 1
    assert pyclmatch.modularity(K, np.array([0, 0, 0, 1], np.uint8), resolution=1) == \
        pytest.approx(pyclmatch.modularity(K, [0, 0, 0, 1]))
    # auto: the parameters of the families not chosen are not used
    assert pyclmatch.maximum_matching(G, device=DEV, k=0.5).cardinality == 3


def test_work_group_size_beyond_the_device_is_refused_fast():
    """louvain(work_group_size=10**9) hung in a read-back; now refused with the device's
    bound, before the graph is read."""
    big = pyclmatch.get_device(DEV).max_work_group_size * 2
    for call in ("maximum_matching", "dulmage_mendelsohn", "weighted_matching", "b_matching",
                 "stable_marriage", "louvain"):
        with pytest.raises(InputError, match="this device's largest work-group") as exc:
            CALLS[call](work_group_size=big)
        assert exc.value.argument == "work_group_size"


def test_messages_show_the_value_as_written():
    with pytest.raises(InputError, match="^seed=2.5 is not allowed"):
        pyclmatch.louvain(K, device=DEV, seed=np.float32(2.5))
    with pytest.raises(InputError, match="work_group_size=9223372036854775808 "):
        pyclmatch.maximum_matching(G, device=DEV, work_group_size=np.uint64(2**63))
    with pytest.raises(InputError, match=r"move_buckets=\[5, 3, -1\] is not allowed"):
        pyclmatch.louvain(K, device=DEV, move_buckets=[5, 3, -1])
    with pytest.raises(InputError, match="unknown parameter colour=1; accepted: "):
        pyclmatch.weighted_matching(W, device=DEV, colour=1)


DEVICE_CALLS = {
    "maximum_matching": lambda d: pyclmatch.maximum_matching(G, device=d),
    "maximum_matching/apfb": lambda d: pyclmatch.maximum_matching(G, algorithm="apfb",
                                                                  device=d),
    "maximum_bipartite_matching": lambda d: pyclmatch.maximum_bipartite_matching(G, device=d),
    "dulmage_mendelsohn": lambda d: pyclmatch.dulmage_mendelsohn(G, device=d),
    "structural_rank": lambda d: pyclmatch.structural_rank(G, device=d),
    "block_triangular_form": lambda d: pyclmatch.block_triangular_form(G, device=d),
    "weighted_matching": lambda d: pyclmatch.weighted_matching(W, device=d),
    "b_matching": lambda d: pyclmatch.b_matching(W, 1, device=d),
    "stable_marriage": lambda d: pyclmatch.stable_marriage(MEN, WOMEN, device=d),
    "louvain": lambda d: pyclmatch.louvain(K, device=d),
    "get_device": lambda d: pyclmatch.get_device(d),
}


@pytest.mark.parametrize("call", sorted(DEVICE_CALLS))
def test_device_of_a_wrong_type_is_an_input_error_and_a_device_error(call):
    """A device= that cannot name a device: DeviceSpecError, both an InputError naming
    ``device`` (get_device's parameter is ``spec``; one name for the rule) and a
    DeviceError; a name that matches no device stays a plain DeviceError."""
    for bad in (3.5, [1], b"cpu", True, {}, 99):
        with pytest.raises(pyclmatch.DeviceSpecError,
                           match=r"^device=.* is not allowed: it must be None, a string") as e:
            DEVICE_CALLS[call](bad)
        assert isinstance(e.value, InputError) and isinstance(e.value, pyclmatch.DeviceError)
        assert e.value.argument == "device"
    with pytest.raises(pyclmatch.DeviceError) as e:
        pyclmatch.get_device("no-such-device-xyz")
    assert not isinstance(e.value, InputError)
    assert "DeviceSpecError" in pyclmatch.__all__


def test_parameters_before_the_graph_and_the_graph_named():
    """block_triangular_form checks its parameters before the graph (a 3 x 4 matrix with a
    bad algorithm names algorithm), then names A; structural_rank and verify_matching name
    their parameter graph."""
    R = sp.csr_matrix(np.ones((3, 4)))
    for bad in ("nope", None, ["apfb"], 3):
        with pytest.raises(InputError) as e:
            pyclmatch.block_triangular_form(R, algorithm=bad, device=DEV)
        assert e.value.argument == "algorithm"
    with pytest.raises(InputError) as e:
        pyclmatch.block_triangular_form(R, init="nope", device=DEV)
    assert e.value.argument == "init"
    with pytest.raises(InputError, match="square") as e:
        pyclmatch.block_triangular_form(R, device=DEV)
    assert e.value.argument == "A"
    with pytest.raises(InputError, match="structurally singular") as e:
        pyclmatch.block_triangular_form(sp.csr_matrix([[1, 1], [0, 0]]), device=DEV)
    assert e.value.argument == "A"
    for bad in (None, "abc", 3, np.ones(4), np.ones((2, 2, 2)), [[1, 2], [3]],
                np.array([[0, np.inf], [1, 0]])):
        with pytest.raises(InputError) as e:
            pyclmatch.structural_rank(bad, device=DEV)
        assert e.value.argument == "graph", str(e.value)
        with pytest.raises(InputError) as e:
            pyclmatch.verify_matching(bad, [0], [0])
        assert e.value.argument == "graph", str(e.value)
    with pytest.raises(InputError) as e:     # (a parameter keeps its own name)
        pyclmatch.structural_rank(G, device=DEV, shape=(5, 5))
    assert e.value.argument == "shape"


def test_verify_matching_malformed_match_arrays():
    """A match array of the wrong form is an InputError naming it; a wrong matching of the
    right form stays a VerificationError."""
    R = sp.csr_matrix([[1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 1, 0]])
    for rm, cm, name in (([0], [-1] * 4, "row_match"), ([1, 0, 2], "abc", "col_match"),
                         ([1, 0, 2], [[1, 0, 2, -1]], "col_match"),
                         (["a", "b", "c"], [1, 0, 2, -1], "row_match"),
                         ([1.5, 0, 2], [1, 0, 2, -1], "row_match"),
                         ([1, 0, 2], None, "col_match")):
        with pytest.raises(InputError) as e:
            pyclmatch.verify_matching(R, rm, cm)
        assert e.value.argument == name, str(e.value)
    with pytest.raises(pyclmatch.VerificationError):
        pyclmatch.verify_matching(R, [9, 0, 2], [1, 0, 2, -1])
    with pytest.raises(pyclmatch.VerificationError):
        pyclmatch.verify_matching(R, [1, 0, 2], [1, 0, -1, -1])
    assert pyclmatch.verify_matching(R, [1, 0, 2], [1, 0, 2, -1]) is True
    assert pyclmatch.verify_matching(R, np.array([1, 0, 2], np.uint64),
                                     (1.0, 0.0, 2.0, -1.0)) is True


def test_dense_non_finite_values_are_refused():
    for v in (np.nan, np.inf, -np.inf):
        for call in ("maximum_matching", "dulmage_mendelsohn", "block_triangular_form"):
            with pytest.raises(InputError, match="dense matrix contains") as e:
                getattr(pyclmatch, call)(np.array([[0, v], [v, 0]]), device=DEV)
            assert e.value.argument == "A"


def test_permuted_takes_sparse_matrices_only():
    A = sp.random(5, 4, density=0.5, format="coo", random_state=0)
    want = generators.permuted(A.tocsr()).toarray()
    for fmt in ("coo", "csc", "lil", "dok", "bsr", "dia"):
        np.testing.assert_array_equal(generators.permuted(A.asformat(fmt)).toarray(), want)
    for bad in ("abc", None, np.eye(3), [[1, 0]], 3):
        with pytest.raises(InputError) as e:
            generators.permuted(bad)
        assert e.value.argument == "A"


@pytest.mark.parametrize("call", ["easy_instance", "hard_instance", "generators.uniform",
                                  "generators.kron", "generators.delaunay", "generators.grid",
                                  "generators.permuted"])
def test_seeds_take_the_whole_uint64_range(call):
    """numpy's seeds go from 0 to 2**64-1: np.uint64(2**63) is a seed like any other."""
    a = CALLS[call](seed=np.uint64(2**63))
    b = CALLS[call](seed=2**63)
    if isinstance(a, pyclmatch.MarriageInstance):
        assert np.array_equal(a.mlist, b.mlist) and pyclmatch.stable_marriage(a).verified
    else:
        assert (a != b).nnz == 0


# ------------------------------------------------------------------------ the checkers


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.integers(-2**70, 2**70), st.floats(allow_nan=True), st.booleans(),
                 st.text(max_size=3), st.none()),
       st.one_of(st.none(), st.integers(-100, 100)), st.one_of(st.none(), st.integers(-100, 100)))
def test_integer(value, low, high):
    ok = isinstance(value, int) and not isinstance(value, bool) and \
        (low is None or value >= low) and (high is None or value <= high)
    if ok:
        assert args.integer("x", value, low=low, high=high) == value
    else:
        with pytest.raises(InputError) as exc:
            args.integer("x", value, low=low, high=high)
        assert exc.value.argument == "x" and str(exc.value).startswith("x=")


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.integers(-2**70, 2**70), st.floats(allow_nan=True, allow_infinity=True),
                 st.booleans(), st.text(max_size=3)))
def test_number(value):
    ok = not isinstance(value, (bool, str)) and math.isfinite(float(value)) and value >= 0
    if ok:
        assert args.number("r", value, low=0) == float(value)
    else:
        with pytest.raises(InputError) as exc:
            args.number("r", value, low=0)
        assert exc.value.argument == "r"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.integers(-2**64, 2**64), st.floats(allow_nan=True)), max_size=6))
def test_integer_array(values):
    def fits(v):
        return (isinstance(v, int) or (math.isfinite(v) and v == int(v))) and \
            0 <= int(v) < 2**63
    try:
        want = np.array([int(v) for v in values], np.int64) if all(map(fits, values)) else None
    except OverflowError:
        want = None
    try:
        got = args.integer_array("ids", values, low=0)
    except InputError as exc:
        assert exc.argument == "ids" and want is None
    else:
        assert want is not None and np.array_equal(got, want)


def test_blame_renames_the_inner_graph_argument():
    with pytest.raises(InputError) as e:
        with args.blame("graph", instead="A"):
            raise InputError("x", argument="A")
    assert e.value.argument == "graph"
    for inner in ("shape", "algorithm"):       # (other arguments keep their names)
        with pytest.raises(InputError) as e:
            with args.blame("graph", instead="A"):
                raise InputError("x", argument=inner)
        assert e.value.argument == inner

    @args.blame("G", instead="A")
    def f():
        raise InputError("x")
    with pytest.raises(InputError) as e:
        f()
    assert e.value.argument == "G"


def test_shown_keeps_uint64_unsigned():
    assert args.shown(np.uint64(2**63)) == "9223372036854775808"
    with pytest.raises(InputError, match="^seed=-1 is not allowed"):
        args.integer("seed", -1, low=0)
    with pytest.raises(InputError, match="^n=18446744073709551615 is not allowed"):
        args.integer("n", np.uint64(2**64 - 1), high=10)


def test_verify_progress_buckets_options():
    assert args.verify("verify", np.True_) is True
    assert args.verify("verify", "Device") == "device"
    with pytest.raises(InputError):
        args.verify("verify", "device", modes=("host",))
    cb = print
    assert args.progress("progress", cb) is cb and args.progress("progress", False) is False
    assert args.buckets("b", [(1, 4, 4), [5, None, None]]) == ((1, 4, 4), (5, None, None))
    for bad in ([], [(1, 4, 3), (5, None, None)], [(1, 0, 1), (1, None, None)],
                [(1, 4, 4)] * 15, [(np.float64(1), None, None)], np.array([[1, 2, 3]])):
        with pytest.raises(InputError):
            args.buckets("b", bad)
    assert args.options("f", {"a": np.int32(3), "b": "x"}, {"a": args.count, "b": None}) == \
        {"a": 3, "b": "x"}
    with pytest.raises(InputError, match=r"^f\(\) got an unknown parameter c=1 \(and d\)"):
        args.options("f", {"c": 1, "d": 2}, {"a": args.count})
    assert args.work_group_size("w", 48, 64) == 48
    with pytest.raises(InputError):
        args.work_group_size("w", 48, 64, power_of_two=True)
    assert args.batch("b", None) is None and args.signed("h", -1) == -1
