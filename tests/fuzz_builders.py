"""The cases of the fuzz corpus (tests/fuzz_cases.py explains them), one builder per area."""
import os

import numpy as np
import scipy.sparse as sp

from fuzz_cases import (BAD, INF, NAN, B, K, P3, R, add, all_of, attr, cardinality_of,
                        either, err, err_class, louvain_of, matched_weight, matrix,
                        nx_modularity, ok, pm, raw_csr, same_answer, value)

# values no integer parameter takes (an int or a numpy integer scalar, in range, is the rule)
NOT_INT = [("str", "64"), ("float", 1.5), ("intfloat", 64.0), ("bool", True), ("list", [64]),
           ("nan", NAN), ("none_str", "None"), ("array", np.array([64])), ("complex", 1j),
           ("bytes", b"64"), ("u64_2p63", np.uint64(2**63)), ("huge", 2**70)]
NEG = [("neg", -1), ("neg64", -64)]
# values no work-group size takes (a power of two up to the device's limit, or None)
BAD_WG = NOT_INT + NEG + [("zero", 0), ("three", 3), ("1e9", 10**9), ("2p40", 2**40),
                          ("np_zero", np.int64(0))]
NOT_REAL = [("str", "1"), ("bool", True), ("nan", NAN), ("inf", INF), ("-inf", -INF),
            ("complex", 1 + 0j), ("list", [1.0]), ("array", np.array([1.0])), ("npnan",
                                                                               np.float64(NAN))]
NOT_BOOL = [("str", "yes"), ("str_false", "False"), ("int1", 1), ("int0", 0), ("list", [True]),
            ("float", 1.0)]
NOT_CHOICE = [("unknown", "nope"), ("int", 3), ("empty", ""), ("bytes", b"x"), ("list", ["x"])]


def _calls():
    """Each family's call on a small valid graph, taking the parameter as keywords."""
    m = pm
    return {
        "maximum_matching": lambda **kw: m().maximum_matching(R(), **kw),
        "maximum_matching_apfb": lambda **kw: m().maximum_matching(R(), algorithm="apfb", **kw),
        "weighted_matching": lambda **kw: m().weighted_matching(P3(), **kw),
        "b_matching": lambda **kw: m().b_matching(P3(), 2, **kw),
        "louvain": lambda **kw: m().louvain(K(), **kw),
        "leiden": lambda **kw: m().leiden(K(), **kw),
        "modularity": lambda **kw: m().modularity(K(), np.zeros(34, int), **kw),
        "stable_marriage": lambda **kw: m().stable_marriage([[0, 1], [1, 0]], [[0, 1], [1, 0]],
                                                            **kw),
        "dulmage_mendelsohn": lambda **kw: m().dulmage_mendelsohn(R(), **kw),
        "structural_rank": lambda **kw: m().structural_rank(R(), **kw),
        "block_triangular_form": lambda **kw: m().block_triangular_form(R(), **kw),
        "maximum_bipartite_matching": lambda **kw: m().maximum_bipartite_matching(R(), **kw),
        "prepare_graph": lambda **kw: m().prepare_graph(P3(), **kw),
        "read_graph": lambda **kw: m().read_graph(os.path.join(BAD, "ok_general.mtx"), **kw),
    }


def _bad(call, fam, param, values, cid_prefix=None):
    for tag, v in values:
        add(f"params/{cid_prefix or fam}/{param}={tag}", "params",
            lambda c=call, p=param, v=v: c(**{p: v}), err(param))


def param_cases():
    c = _calls()
    for fam in ("maximum_matching_apfb", "weighted_matching", "b_matching", "louvain",
                "stable_marriage"):    # (the augmenting-path kernels take any size from 1 up)
        _bad(c[fam], fam, "work_group_size",
             [(t, v) for t, v in BAD_WG if fam != "maximum_matching_apfb" or t != "three"])
    add("params/maximum_matching_apfb/work_group_size=three", "params",
        lambda: c["maximum_matching_apfb"](work_group_size=3), ok(cardinality_of(R())))
    for fam in ("b_matching", "stable_marriage"):
        _bad(c[fam], fam, "batch_rounds", NOT_INT + NEG + [("zero", 0)])
    _bad(c["maximum_matching_apfb"], "maximum_matching_apfb", "ks_rounds", NOT_INT + NEG[:1])
    _bad(c["maximum_matching_apfb"], "maximum_matching_apfb", "one_group_edges",
         NOT_INT[:6] + NEG[:1])
    _bad(c["maximum_matching_apfb"], "maximum_matching_apfb", "heavy_degree", NOT_INT[:6])
    _bad(c["maximum_matching_apfb"], "maximum_matching_apfb", "heavy_groups", NOT_INT[:6])
    for p in ("max_level", "subrounds", "bin_limit", "one_group_edges"):
        # (bin_limit=0: every level is above it, so every level uses t_bin)
        low = [("neg", -1)] if p in ("one_group_edges", "bin_limit") else \
            [("zero", 0), ("neg", -1)]
        _bad(c["louvain"], "louvain", p, NOT_INT[:8] + low)
    add("params/louvain/bin_limit=zero", "params", lambda: c["louvain"](bin_limit=0),
        ok(louvain_of(K())))
    _bad(c["louvain"], "louvain", "seed", NOT_INT[:10] + [("neg", -1), ("2p64", 2**64),
                                                         ("i64neg", np.int64(-5))])
    for fam in ("louvain", "modularity"):
        _bad(c[fam], fam, "resolution", NOT_REAL + [("neg", -1.0), ("none", None)])
    _bad(c["louvain"], "louvain", "threshold", NOT_REAL[:6] + [("neg", -1.0)])
    for p in ("deterministic", "return_levels"):
        _bad(c["louvain"], "louvain", p, NOT_BOOL + [("none", None)])
    for p in ("move_buckets", "merge_buckets"):
        _bad(c["louvain"], "louvain", p, [
            ("neg_in_list", [5, 3, -1]), ("str", "x"), ("nested", [[1, 2]]),
            ("floats", [1.5, 2.5]), ("empty", []), ("zero", [0]), ("nan", [NAN]),
            ("u64", [np.uint64(2**63)]), ("dict", {1: 2})])
    _bad(c["louvain"], "louvain", "moves", NOT_CHOICE)
    _bad(c["leiden"], "leiden", "quality", NOT_CHOICE + [("none", None)])
    _bad(c["leiden"], "leiden", "theta", NOT_REAL[:6] + [("neg", -1.0)])
    _bad(c["leiden"], "leiden", "iterations", NOT_INT[:8] + [("zero", 0), ("neg", -1)])
    for p in ("resolution", "seed", "max_level", "verify", "work_group_size"):
        _bad(c["leiden"], "leiden", p, [("str", "x"), ("list", [1])])
    for fam in ("maximum_matching", "weighted_matching", "b_matching", "louvain",
                "stable_marriage", "dulmage_mendelsohn"):
        _bad(c[fam], fam, "verify", [("str", "yes"), ("int2", 2), ("float", 1.0),
                                     ("list", [True]), ("none", None)])
        _bad(c[fam], fam, "progress", [("str", "yes"), ("int", 3), ("float", 1.5),
                                       ("list", [1])])
    for fam in ("maximum_matching", "weighted_matching", "b_matching", "stable_marriage",
                "dulmage_mendelsohn", "structural_rank", "block_triangular_form"):
        _bad(c[fam], fam, "algorithm", NOT_CHOICE + [("none", None)])
    for fam in ("maximum_matching", "dulmage_mendelsohn"):
        _bad(c[fam], fam, "init", NOT_CHOICE + [("none", None)])
    for fam in ("weighted_matching", "b_matching"):
        _bad(c[fam], fam, "precision", NOT_CHOICE + [("float16", "float16")])
    _bad(c["maximum_bipartite_matching"], "maximum_bipartite_matching", "perm_type",
         NOT_CHOICE + [("diag", "diag")])
    for p in ("n_men", "n_women"):
        _bad(c["stable_marriage"], "stable_marriage", p, NOT_INT[:8] + NEG[:1])
    _bad(c["read_graph"], "read_graph", "format", NOT_CHOICE)
    for p in ("symmetrize", "return_labels"):
        _bad(c["read_graph"], "read_graph", p, NOT_BOOL[:4])
    _unknown_and_device_cases(c)
    _accepted_param_cases(c)


def _cpu_buckets(kw):
    """``move_buckets="cpu"`` stands for the library's CPU buckets (the default's kernels)."""
    if kw.get("move_buckets") == "cpu":
        from pyclmatch.community import hashing
        return dict(kw, move_buckets=list(hashing.CPU_MOVE_BUCKETS))
    return kw


def _unknown_and_device_cases(c):
    for fam in ("maximum_matching", "weighted_matching", "b_matching", "dulmage_mendelsohn",
                "prepare_graph"):
        add(f"params/{fam}/unknown=colour", "params", lambda f=c[fam]: f(colour=1),
            err("colour"))
    for fam in ("maximum_matching", "weighted_matching", "louvain", "stable_marriage",
                "dulmage_mendelsohn"):
        for tag, v in [("float", 1.5), ("list", [0]), ("bool", True), ("dict", {})]:
            add(f"params/{fam}/device={tag}", "params", lambda f=c[fam], v=v: f(device=v),
                err("device"))
        add(f"params/{fam}/device=nosuch", "params",
            lambda f=c[fam]: f(device="no-such-device-xyz"), err(classes=("DeviceError",)))
        add(f"params/{fam}/device=index99", "params", lambda f=c[fam]: f(device=99),
            err("device", classes=("DeviceError", "InputError")))


def _accepted_param_cases(c):
    """Parameters in numpy types and at their limits: an answer, the same as plain values."""
    m = pm
    rows = [
        ("louvain", {"seed": np.uint64(2**64 - 1)}, louvain_of(K())),
        ("louvain", {"seed": np.int32(7)}, louvain_of(K())),
        ("louvain", {"seed": 0}, louvain_of(K())),
        ("louvain", {"resolution": np.float32(0.5)}, louvain_of(K(), 0.5)),
        ("louvain", {"resolution": 0}, louvain_of(K(), 0.0)),
        ("louvain", {"resolution": 2}, louvain_of(K(), 2.0)),
        ("louvain", {"max_level": np.int64(1)}, louvain_of(K())),
        ("louvain", {"work_group_size": np.int64(32)}, louvain_of(K())),
        ("louvain", {"deterministic": np.True_}, louvain_of(K())),
        ("louvain", {"move_buckets": "cpu"}, louvain_of(K())),
        ("modularity", {"resolution": np.float64(1.0)},
         value(nx_modularity(K(), np.zeros(34, int)))),
        ("modularity", {"resolution": 0}, value(nx_modularity(K(), np.zeros(34, int), 0.0))),
        ("maximum_matching_apfb", {"work_group_size": np.uint32(32)}, cardinality_of(R())),
        ("maximum_matching_apfb", {"work_group_size": 1}, cardinality_of(R())),
        ("maximum_matching_apfb", {"ks_rounds": 0}, cardinality_of(R())),
        ("maximum_matching_apfb", {"heavy_degree": -1}, cardinality_of(R())),
        ("maximum_matching", {"verify": "host"}, cardinality_of(R())),
        ("maximum_matching", {"verify": False}, cardinality_of(R())),
        ("maximum_matching", {"algorithm": "APFB"}, cardinality_of(R())),
        ("maximum_matching", {"algorithm": "host-hk"}, cardinality_of(R())),
        ("maximum_matching", {"init": "none"}, cardinality_of(R())),
        ("maximum_matching", {"progress": False}, cardinality_of(R())),
        ("weighted_matching", {"work_group_size": np.int16(64)}, matched_weight(P3(), 3.0)),
        ("weighted_matching", {"precision": "float64"}, matched_weight(P3(), 3.0)),
        ("b_matching", {"batch_rounds": np.int64(1)}, attr("weight", 5.0)),
        ("stable_marriage", {"batch_rounds": 1}, attr("size", 2)),
        ("stable_marriage", {"work_group_size": np.int64(32)}, attr("size", 2)),
        ("maximum_bipartite_matching", {"perm_type": "column"}, None),
        ("structural_rank", {}, value(3)),
    ]
    for i, (fam, kw, check) in enumerate(rows):
        (k, v), = kw.items() if kw else (("none", None),)
        add(f"params/{fam}/ok/{k}={type(v).__name__}:{v}", "params",
            lambda f=c[fam], kw=kw: f(**_cpu_buckets(kw)),
            # (the CPU's buckets need more local memory than a GPU's work-group has)
            either(check, err("move_buckets")) if k == "move_buckets" else ok(check))
    add("params/read_graph/ok/bytes_path", "params",
        lambda: m().read_graph(os.fsencode(os.path.join(BAD, "ok_general.mtx"))),
        ok(matrix([[0, 1.5, 0], [0, 0, -2.0], [4.0, 0, 0]])))


# -- graph intake ------------------------------------------------------------------------------

def _dup_P3(a=3.0, b=-1.0):
    """P3 with its (0, 1) weight stored twice in each direction as ``a`` and ``b``."""
    return raw_csr([a, b, a, b, 3.0, 3.0], [1, 1, 0, 0, 2, 1], [0, 2, 5, 6], (3, 3))


def _dup_P3_coo(a=3.0, b=-1.0):
    return sp.coo_matrix(([a, b, a, b, 3.0, 3.0], ([0, 0, 1, 1, 1, 2], [1, 1, 0, 0, 2, 1])),
                         shape=(3, 3))


def _summed(A):
    A = sp.csr_matrix(A, copy=True)
    A.sum_duplicates()
    return A


GRAPH_FUNCS = {   # family -> (its graph argument, call with the graph)
    "maximum_matching": ("A", lambda g: pm().maximum_matching(g)),
    "maximum_bipartite_matching": ("A", lambda g: pm().maximum_bipartite_matching(g)),
    "dulmage_mendelsohn": ("A", lambda g: pm().dulmage_mendelsohn(g)),
    "block_triangular_form": ("A", lambda g: pm().block_triangular_form(g)),
    "structural_rank": ("graph", lambda g: pm().structural_rank(g)),
    "weighted_matching": ("G", lambda g: pm().weighted_matching(g)),
    "b_matching": ("G", lambda g: pm().b_matching(g, 1)),
    "prepare_graph": ("G", lambda g: pm().prepare_graph(g)),
    "louvain": ("G", lambda g: pm().louvain(g)),
    "modularity": ("A", lambda g: pm().modularity(g, [0, 0])),
}
SYMMETRIC = ("weighted_matching", "b_matching", "prepare_graph", "louvain", "modularity")
NOT_GRAPHS = [
    ("none", lambda: None), ("str", lambda: "abc"), ("int", lambda: 3), ("float", lambda: 3.5),
    ("ragged", lambda: [[1, 2], [3]]), ("dict", lambda: {}), ("set", lambda: {1, 2}),
    ("empty1d", lambda: np.array([])), ("cube", lambda: np.ones((2, 2, 2))),
    ("mixed_str", lambda: np.array([[1, "a"], ["b", 1]])), ("bytes", lambda: b"abc"),
    ("object", lambda: object()), ("vector", lambda: np.ones(4)),
    ("nested3", lambda: [[[1]]]),
]


def _bad_values_graph(kind):
    """A 2 x 2 symmetric CSR with the odd value ``kind`` on its off-diagonal pair."""
    v = {"nan": NAN, "inf": INF, "-inf": -INF, "neg": -1.0}[kind]
    return sp.csr_matrix(np.array([[0, v], [v, 0]]))


def semantic_cases():
    _graph_type_cases()
    _duplicate_cases()
    _weight_range_cases()
    _shape_cases()
    _b_cases()
    _membership_cases()
    _small_and_odd_graph_cases()
    _marriage_cases()
    _assignment_cases()


def _graph_type_cases():
    for fam, (arg, call) in GRAPH_FUNCS.items():
        for tag, g in NOT_GRAPHS:
            add(f"semantics/{fam}/graph={tag}", "semantics", lambda c=call, g=g: c(g()),
                err(arg))
        for kind in ("nan", "inf", "-inf"):   # (the bipartite family reads a pattern: a
            add(f"semantics/{fam}/value={kind}", "semantics",    # stored NaN may be an edge)
                lambda c=call, k=kind: c(_bad_values_graph(k)),
                err(arg) if fam in SYMMETRIC else either(None, err(arg)))
            # (dense: NaN is neither an edge nor a zero, refused; an infinity is a nonzero,
            # so an edge of the unweighted families and a bad weight of the weighted ones)
            add(f"semantics/{fam}/dense_value={kind}", "semantics",
                lambda c=call, k=kind: c(_bad_values_graph(k).toarray()),
                err(arg) if fam in SYMMETRIC or kind == "nan" else either(None, err(arg)))
        if fam in SYMMETRIC:
            add(f"semantics/{fam}/rectangular", "semantics", lambda c=call: c(R()), err(arg))
            add(f"semantics/{fam}/complex", "semantics",
                lambda c=call: c(sp.csr_matrix(np.array([[0, 1j], [1j, 0]]))), err(arg))
        if fam in ("weighted_matching", "louvain", "modularity"):
            add(f"semantics/{fam}/negative", "semantics",
                lambda c=call: c(_bad_values_graph("neg")), err(arg))
    add("semantics/louvain/asymmetric_names_symmetrize", "semantics",
        lambda: pm().louvain(sp.csr_matrix(np.array([[0, 1.0], [0, 0]]))),
        err("G", words=("symmetrize",)))
    for fam, arg in (("maximum_matching", "A"), ("weighted_matching", "G")):
        call = GRAPH_FUNCS[fam][1]
        rows = np.array([2**63, 0], np.uint64)
        g = (lambda r=rows: (r, np.array([0, 1]))) if fam == "maximum_matching" else \
            (lambda r=rows: (r, np.array([0, 1]), np.array([1.0, 1.0])))
        add(f"semantics/{fam}/uint64_id_2p63", "semantics", lambda c=call, g=g: c(g()),
            err(arg, "shape", "n", words=("9223372036854775808",)))


def _duplicate_cases():
    m = pm
    for fmt, dup in (("csr", _dup_P3), ("coo", _dup_P3_coo)):
        add(f"semantics/weighted_matching/dup_{fmt}_3_-1", "semantics",
            lambda d=dup: m().weighted_matching(d()), ok(matched_weight(P3(), 3.0)))
        add(f"semantics/b_matching/dup_{fmt}_3_-1", "semantics",
            lambda d=dup: m().b_matching(d(), 2), ok(attr("weight", 5.0)))
        add(f"semantics/louvain/dup_{fmt}_3_-1", "semantics", lambda d=dup: m().louvain(d()),
            ok(louvain_of(P3(), same_as=lambda: m().louvain(P3()))))
        add(f"semantics/modularity/dup_{fmt}_3_-1", "semantics",
            lambda d=dup: m().modularity(d(), [0, 0, 1]),
            ok(value(nx_modularity(P3(), [0, 0, 1]))))
        add(f"semantics/prepare_graph/dup_{fmt}_3_-1", "semantics",
            lambda d=dup: m().weighted_matching(m().prepare_graph(d())),
            ok(attr("weight", 3.0)))
        add(f"semantics/weighted_matching/dup_{fmt}_1_-3", "semantics",
            lambda d=dup: m().weighted_matching(d(1.0, -3.0)), err("G", words=("negative",)))
        add(f"semantics/louvain/dup_{fmt}_1_-3", "semantics",
            lambda d=dup: m().louvain(d(1.0, -3.0)), err("G", words=("negative",)))
        add(f"semantics/modularity/dup_{fmt}_1_-3", "semantics",
            lambda d=dup: m().modularity(d(1.0, -3.0), [0, 0, 1]), err("A"))
        add(f"semantics/weighted_matching/dup_{fmt}_cancel", "semantics",   # (a zero weight)
            lambda d=dup: m().weighted_matching(d(2.0, -2.0)),
            either(matched_weight(_summed(_dup_P3(2.0, -2.0)), 3.0), err("G")))
        add(f"semantics/louvain/dup_{fmt}_cancel", "semantics",
            lambda d=dup: m().louvain(d(2.0, -2.0)), ok(louvain_of(_summed(_dup_P3(2, -2)))))
        add(f"semantics/maximum_matching/dup_{fmt}", "semantics",
            lambda d=dup: m().maximum_matching(d()), ok(cardinality_of(_dup_P3())))
    add("semantics/weighted_matching/dup_nan_inf", "semantics",
        lambda: m().weighted_matching(_dup_P3(INF, -INF)), err("G"))
    zeros = lambda: raw_csr([0.0, 0.0], [1, 0], [0, 1, 2], (2, 2))     # (zeros are edges)
    add("semantics/maximum_matching/explicit_zeros", "semantics",
        lambda: m().maximum_matching(zeros()), ok(attr("cardinality", 2)))
    add("semantics/structural_rank/explicit_zeros", "semantics",
        lambda: m().structural_rank(zeros()), ok(value(2)))


def _weight_range_cases():
    m = pm
    big = lambda: sp.csr_matrix(np.array([[0, 1e308, 0], [1e308, 0, 1e308], [0, 1e308, 0]]))
    # (a sum that overflows is refused where the call sums: louvain's total weight, the
    # weight of a matching of two such edges; one edge of 1e308 is an answer, and
    # prepare_graph, which sums nothing, takes the graph)
    add("semantics/louvain/sum_overflows_1e308", "semantics",
        lambda: m().louvain(big()), err("G", words=("overflow",)))
    def bad_index():       # (scipy's compiled routines write past their arrays on it)
        A = sp.csr_matrix(np.eye(3))
        A.indices[2] = 10 ** 6
        return A
    for fam in ("maximum_matching", "dulmage_mendelsohn", "structural_rank"):
        add(f"semantics/{fam}/csr_index_past_end_host", "semantics",
            lambda c=GRAPH_FUNCS[fam][1]: c(bad_index()),
            err(GRAPH_FUNCS[fam][0], words=("out of range",)))
    add("semantics/dulmage_mendelsohn/csr_index_past_end_host_hk", "semantics",
        lambda: m().dulmage_mendelsohn(bad_index(), algorithm="host-hk"),
        err("A", words=("out of range",)))
    masked = lambda: np.ma.array(P3().toarray(), mask=P3().toarray() > 2)
    for fam, arg in (("maximum_matching", "A"), ("weighted_matching", "G"), ("louvain", "G")):
        add(f"semantics/{fam}/masked_array", "semantics",     # (the mask would be dropped)
            lambda c=GRAPH_FUNCS[fam][1]: c(masked()), err(arg, words=("masked",)))
    add("semantics/modularity/list_of_sets", "semantics",
        lambda: m().modularity(K(), [set(range(17)), set(range(17, 34))]),
        err("membership", words=("list of sets",)))
    add("semantics/louvain/self_loop_1e308", "semantics",   # (a self-loop counts twice in 2m)
        lambda: m().louvain(sp.csr_matrix(np.diag([1e308, 7.0, 0.0]))),
        err("G", words=("overflow",)))
    add("semantics/weighted_matching/sum_overflows_1e308", "semantics",
        lambda: m().weighted_matching(big()), ok(attr("weight", 1e308)))
    add("semantics/weighted_matching/matched_sum_overflows", "semantics",
        lambda: m().weighted_matching((np.array([0, 1, 2]), np.array([1, 2, 3]),
                                       np.array([1e308, 1.0, 1e308]))),
        err("G", words=("overflow",)))
    path4 = lambda: sp.csr_matrix((np.array([1e308, 1e308, 1.0, 1.0, 1e308, 1e308]),
                                   ([0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2])), shape=(4, 4))
    add("semantics/weighted_matching/matched_sum_overflows_csr", "semantics",
        lambda: m().weighted_matching(path4()), err("G", words=("overflow",)))
    add("semantics/b_matching/matched_sum_overflows_csr", "semantics",
        lambda: m().b_matching(path4(), 1), err("G", words=("overflow",)))
    add("semantics/prepare_graph/sum_overflows_1e308", "semantics",
        lambda: m().prepare_graph(big()), ok())
    add("semantics/b_matching/sum_overflows_1e308", "semantics",
        lambda: m().b_matching(big(), 2), err("G", words=("overflow",)))
    add("semantics/louvain/B_times_1e308", "semantics", lambda: m().louvain(B() * 1e308),
        err("G", words=("overflow",)))
    add("semantics/modularity/B_times_1e308", "semantics",
        lambda: m().modularity(B() * 1e308, np.zeros(11, int)), err("A", words=("overflow",)))
    add("semantics/modularity/sum_overflows_1e308", "semantics",
        lambda: m().modularity(big(), [0, 0, 1]), err("A", words=("overflow",)))
    for scale in (1e-300, 5e-324, 1e-310, 1e300):
        tag = f"{scale:g}"
        add(f"semantics/louvain/B_times_{tag}", "semantics",
            lambda s=scale: m().louvain(B() * s),
            ok(louvain_of(B(), same_as=lambda: m().louvain(B()))))
        add(f"semantics/louvain/K_times_{tag}", "semantics",
            lambda s=scale: m().louvain(K() * s, seed=1),
            ok(louvain_of(K(), same_as=lambda: m().louvain(K(), seed=1))))
        add(f"semantics/modularity/B_times_{tag}", "semantics",
            lambda s=scale: m().modularity(B() * s, [0] * 5 + [1] * 6),
            ok(value(nx_modularity(B(), [0] * 5 + [1] * 6), 1e-9)))
        add(f"semantics/weighted_matching/P3_times_{tag}", "semantics",
            lambda s=scale: m().weighted_matching(P3() * s),
            ok(same_answer(lambda: m().weighted_matching(P3()), "mate")))
        add(f"semantics/b_matching/P3_times_{tag}", "semantics",
            lambda s=scale: m().b_matching(P3() * s, 1),
            ok(same_answer(lambda: m().b_matching(P3(), 1), "edges", "cardinality")))
    i64 = lambda: sp.csr_matrix(np.array([[0, 2**60 + 1, 0], [2**60 + 1, 0, 3],
                                          [0, 3, 0]], np.int64))
    add("semantics/weighted_matching/int64_past_2p53", "semantics",
        lambda: m().weighted_matching(i64()), err("G", "precision"))
    f16 = lambda: P3().toarray().astype(np.float16)
    add("semantics/weighted_matching/float16_dense", "semantics",
        lambda: m().weighted_matching(f16()), either(matched_weight(P3(), 3.0), err("G")))
    add("semantics/louvain/float16_dense", "semantics",
        lambda: m().louvain(K().toarray().astype(np.float16)),
        either(louvain_of(K()), err("G")))
    add("semantics/maximum_matching/float16_dense", "semantics",
        lambda: m().maximum_matching(R().toarray().astype(np.float16)),
        either(cardinality_of(R()), err("A")))
    uv = lambda: (np.array([0, 1]), np.array([1, 2]))
    add("semantics/weighted_matching/weights_2d", "semantics",
        lambda: m().weighted_matching((*uv(), np.ones((2, 2)))), err("weights", "G"))
    add("semantics/weighted_matching/weights_short", "semantics",
        lambda: m().weighted_matching((*uv(), np.ones(1))), err("weights", "G"))
    add("semantics/weighted_matching/weights_str", "semantics",
        lambda: m().weighted_matching((*uv(), np.array(["a", "b"]))), err("weights", "G"))
    add("semantics/weighted_matching/weights_nan", "semantics",
        lambda: m().weighted_matching((*uv(), np.array([1.0, NAN]))), err("weights", "G"))


def _shape_cases():
    m = pm
    e = lambda: (np.array([0, 1, 2]), np.array([1, 0, 2]))
    for tag, shape in (("too_small", (1, 1)), ("neg", (-1, 3)), ("three", (1, 2, 3)),
                       ("float", (3.0, 3)), ("str", "33"), ("bool", (True, 3)),
                       ("none_in", (None, 3)), ("scalar", 3), ("u64", (np.uint64(2**63), 3))):
        add(f"semantics/maximum_matching/edges_shape={tag}", "semantics",
            lambda s=shape: m().maximum_matching(e(), shape=s), err("shape"))
    add("semantics/maximum_matching/edges_shape=ok", "semantics",
        lambda: m().maximum_matching(e(), shape=(4, 5)), ok(attr("cardinality", 3)))
    add("semantics/maximum_matching/csr_shape_conflict", "semantics",
        lambda: m().maximum_matching(R(), shape=(5, 5)), err("shape"))
    add("semantics/maximum_matching/csr_shape_same", "semantics",
        lambda: m().maximum_matching(R(), shape=(3, 4)), ok(cardinality_of(R())))
    add("semantics/maximum_matching/edges_len_mismatch", "semantics",
        lambda: m().maximum_matching((np.array([0, 1]), np.array([0]))), err("A"))
    add("semantics/maximum_matching/edges_fraction", "semantics",
        lambda: m().maximum_matching((np.array([0.5]), np.array([0]))), err("A"))
    w = lambda: (np.array([0, 1]), np.array([1, 2]), np.array([2.0, 3.0]))
    for tag, n in (("below_id", 2), ("neg", -1), ("float", 3.5), ("str", "3"), ("bool", True),
                   ("u64", np.uint64(2**63))):
        add(f"semantics/weighted_matching/edges_n={tag}", "semantics",
            lambda n=n: m().weighted_matching(w(), n=n), err("n"))
    add("semantics/weighted_matching/edges_n=5", "semantics",
        lambda: m().weighted_matching(w(), n=5), ok(attr("weight", 3.0)))
    add("semantics/weighted_matching/csr_n_conflict", "semantics",
        lambda: m().weighted_matching(P3(), n=5), err("n"))
    add("semantics/prepare_graph/csr_n_conflict", "semantics",
        lambda: m().prepare_graph(P3(), n=5), err("n"))
    edges = [(0, 1), (1, 2), (2, 0), (3, 4)]
    E = sp.csr_matrix((np.ones(8), ([0, 1, 1, 2, 2, 0, 3, 4], [1, 0, 2, 1, 0, 2, 4, 3])),
                      shape=(5, 5))
    # (a list is the rows of a dense matrix, in every family: these are refused, naming the
    # tuple-of-arrays form; the same edges as arrays are read as edges)
    add("semantics/louvain/edge_tuples", "semantics", lambda: m().louvain(edges),
        err("G", words=("tuple of arrays",)))
    add("semantics/louvain/edge_arrays", "semantics",
        lambda: m().louvain(tuple(np.array(edges).T)), ok(louvain_of(E)))
    add("semantics/louvain/edge_tuples_weighted", "semantics",
        lambda: m().louvain([(0, 1, 2.0), (1, 2, 3.0)]), err("G", words=("tuple of arrays",)))
    add("semantics/louvain/edge_arrays_weighted", "semantics",
        lambda: m().louvain((np.array([0, 1]), np.array([1, 2]), np.array([2.0, 3.0]))),
        ok(louvain_of(P3())))
    add("semantics/louvain/edge_tuples_mixed_len", "semantics",
        lambda: m().louvain([(0, 1), (1, 2, 3.0)]), err("G"))
    add("semantics/louvain/edge_tuples_neg_id", "semantics",
        lambda: m().louvain([(0, -1), (1, 2)]), err("G"))
    add("semantics/louvain/edge_tuples_nan_weight", "semantics",
        lambda: m().louvain([(0, 1, NAN)]), err("G"))


def _b_cases():
    m = pm
    b2 = same_answer(lambda: m().b_matching(P3(), 2), "edges", "weight")
    for tag, b in (("1e9", 10**9), ("2p40", 2**40), ("arr_2p40", np.array([1, 2**40, 1])),
                   ("i64max", np.iinfo(np.int64).max), ("np_int8", np.int8(2))):
        add(f"semantics/b_matching/b={tag}", "semantics", lambda b=b: m().b_matching(P3(), b),
            ok(b2))
    for tag, b in (("u64_2p63", np.uint64(2**63)), ("u64_max", np.uint64(2**64 - 1)),
                   ("arr_u64_2p63", np.array([1, 2**63, 1], np.uint64))):
        add(f"semantics/b_matching/b={tag}", "semantics", lambda b=b: m().b_matching(P3(), b),
            either(b2, err("b", words=("9223372036854775808" if "2p63" in tag else
                                       "18446744073709551615",))))
    add("semantics/b_matching/b=0", "semantics", lambda: m().b_matching(P3(), 0),
        ok(attr("weight", 0.0)))
    add("semantics/b_matching/b=zeros", "semantics",
        lambda: m().b_matching(P3(), np.zeros(3, int)), ok(attr("weight", 0.0)))
    add("semantics/b_matching/b=floats_integral", "semantics",
        lambda: m().b_matching(P3(), np.array([1.0, 2.0, 1.0])), ok(b2))
    for tag, b in (("neg", -1), ("float", 1.5), ("str", "2"), ("bool", True), ("none", None),
                   ("nan", NAN), ("inf", INF), ("short", np.array([1, 2])),
                   ("long", np.array([1, 2, 1, 1])), ("2d", [[1, 1, 1]]),
                   ("arr_neg", np.array([1, -1, 1])), ("arr_frac", np.array([1, 0.5, 1])),
                   ("arr_nan", np.array([1, NAN, 1])), ("arr_str", np.array(["1", "1", "1"])),
                   ("arr_bool", np.array([True, True, True])), ("complex", 2 + 0j),
                   ("2p70", 2**70), ("dict", {0: 1})):
        add(f"semantics/b_matching/b={tag}", "semantics", lambda b=b: m().b_matching(P3(), b),
            err("b"))


def _membership_cases():
    m = pm
    k = lambda: np.arange(34) % 2
    ref = nx_modularity(K(), np.arange(34) % 2)
    bad = [("half", lambda: np.full(34, 0.5)), ("short", lambda: np.zeros(33, int)),
           ("long", lambda: np.zeros(35, int)), ("2d", lambda: np.zeros((34, 1), int)),
           ("none", lambda: None), ("neg", lambda: -k()), ("nan", lambda: np.full(34, NAN)),
           ("scalar", lambda: 0), ("str", lambda: "ab" * 17), ("dict", lambda: {0: 1}),
           ("inf", lambda: np.full(34, INF)), ("complex", lambda: k() + 0j),
           ("u64_2p63", lambda: np.full(34, 2**63, np.uint64)),
           ("bool", lambda: k().astype(bool))]
    for tag, mem in bad:
        add(f"semantics/modularity/membership={tag}", "semantics",
            lambda mem=mem: m().modularity(K(), mem()), err("membership"))
    add("semantics/modularity/membership=letters", "semantics",
        lambda: m().modularity(K(), np.array(["a", "b"] * 17)),
        either(value(ref), err("membership")))
    for tag, mem in (("list", lambda: k().tolist()), ("u64", lambda: k().astype(np.uint64)),
                     ("int8", lambda: k().astype(np.int8)),
                     ("floats_integral", lambda: k().astype(float)),
                     ("sparse_labels", lambda: k() * 10**9)):
        add(f"semantics/modularity/membership={tag}", "semantics",
            lambda mem=mem: m().modularity(K(), mem()), ok(value(ref)))
    # (no edges: Q = 0 by the convention louvain's answer for such a graph documents)
    add("semantics/modularity/edgeless", "semantics",
        lambda: m().modularity(sp.csr_matrix((3, 3)), [0, 1, 2]), ok(value(0.0)))
    add("semantics/modularity/0x0", "semantics",
        lambda: m().modularity(sp.csr_matrix((0, 0)), []), ok(value(0.0)))
    add("semantics/modularity/asymmetric", "semantics",
        lambda: m().modularity(sp.csr_matrix(np.array([[0, 1.0], [0, 0]])), [0, 1]),
        err("A", words=("symmetri",)))
    add("semantics/modularity/self_loops", "semantics",
        lambda: m().modularity(K() + sp.eye(34), k()),
        ok(value(nx_modularity(K() + sp.eye(34), k()))))


def _membership_len(n):
    def check(res):
        got = np.asarray(res.membership).shape
        return None if got == (n,) else f"membership of shape {got}, want ({n},)"
    return check


def _small_and_odd_graph_cases():
    m = pm
    e0 = lambda: sp.csr_matrix((0, 0))
    for fam in ("maximum_matching", "dulmage_mendelsohn"):
        add(f"semantics/{fam}/0x0", "semantics", lambda c=GRAPH_FUNCS[fam][1]: c(e0()),
            ok(attr("row_match", [])))
    add("semantics/structural_rank/0x0", "semantics", lambda: m().structural_rank(e0()),
        ok(value(0)))
    add("semantics/structural_rank/0x3", "semantics",
        lambda: m().structural_rank(sp.csr_matrix((0, 3))), ok(value(0)))
    add("semantics/maximum_matching/3x0", "semantics",
        lambda: m().maximum_matching(sp.csr_matrix((3, 0))), ok(attr("row_match", [-1] * 3)))
    add("semantics/weighted_matching/0x0", "semantics", lambda: m().weighted_matching(e0()),
        ok(attr("weight", 0.0)))
    add("semantics/b_matching/0x0", "semantics", lambda: m().b_matching(e0(), 1),
        ok(attr("weight", 0.0)))
    add("semantics/louvain/0x0", "semantics", lambda: m().louvain(e0()),
        either(_membership_len(0), err("G")))
    add("semantics/louvain/edgeless3", "semantics",
        lambda: m().louvain(sp.csr_matrix((3, 3))), either(_membership_len(3), err("G")))
    one = lambda v: sp.csr_matrix(np.array([[v]]))
    add("semantics/maximum_matching/1x1", "semantics", lambda: m().maximum_matching(one(1.0)),
        ok(attr("cardinality", 1)))
    add("semantics/maximum_matching/1x1_dense_zero", "semantics",
        lambda: m().maximum_matching(np.zeros((1, 1))), ok(attr("cardinality", 0)))
    add("semantics/weighted_matching/1x1_loop", "semantics",
        lambda: m().weighted_matching(one(5.0)), ok(attr("weight", 0.0)))
    add("semantics/louvain/1x1_loop", "semantics", lambda: m().louvain(one(1.0)),
        ok(attr("membership", [0])))
    add("semantics/dulmage_mendelsohn/1x1", "semantics",
        lambda: m().dulmage_mendelsohn(one(1.0)), ok(attr("structural_rank", 1)))
    loops = lambda: P3() + sp.diags([5.0, 5.0, 5.0])
    add("semantics/weighted_matching/self_loops", "semantics",
        lambda: m().weighted_matching(loops()), ok(attr("weight", 3.0)))
    add("semantics/b_matching/self_loops", "semantics", lambda: m().b_matching(loops(), 2),
        ok(attr("weight", 5.0)))
    add("semantics/louvain/self_loops", "semantics",
        lambda: m().louvain(K() + sp.eye(34), seed=1), ok(louvain_of(K() + sp.eye(34))))
    add("semantics/maximum_matching/diagonal", "semantics",
        lambda: m().maximum_matching(sp.eye(5, format="csr")), ok(attr("cardinality", 5)))
    add("semantics/maximum_matching/bool_dense", "semantics",
        lambda: m().maximum_matching(R().toarray().astype(bool)), ok(cardinality_of(R())))
    add("semantics/louvain/bool_csr", "semantics", lambda: m().louvain(K().astype(bool)),
        ok(louvain_of((K() != 0).astype(float))))
    add("semantics/maximum_matching/int8_data", "semantics",
        lambda: m().maximum_matching(R().astype(np.int8)), ok(cardinality_of(R())))
    add("semantics/weighted_matching/uint8_weights", "semantics",
        lambda: m().weighted_matching(P3().astype(np.uint8)), ok(attr("weight", 3.0)))
    add("semantics/maximum_matching/csc", "semantics",
        lambda: m().maximum_matching(sp.csc_matrix(R())), ok(cardinality_of(R())))
    add("semantics/maximum_matching/csr_array", "semantics",
        lambda: m().maximum_matching(sp.csr_array(R())), ok(cardinality_of(R())))
    add("semantics/louvain/dok", "semantics", lambda: m().louvain(sp.dok_matrix(K())),
        ok(louvain_of(K())))
    add("semantics/maximum_matching/list_of_lists", "semantics",
        lambda: m().maximum_matching([[1, 0], [1, 1]]), ok(attr("cardinality", 2)))
    _networkx_graph_cases()


def _networkx_graph_cases():
    import networkx as nx
    m = pm

    def graph(attr_value=None, kind=nx.Graph):
        G = kind()
        G.add_edge("a", "b", weight=2.0)
        G.add_edge("b", "c", weight=3.0 if attr_value is None else attr_value)
        return G
    add("semantics/louvain/nx_string_nodes", "semantics", lambda: m().louvain(graph()),
        ok(louvain_of(P3())))
    add("semantics/weighted_matching/nx_string_nodes", "semantics",
        lambda: m().weighted_matching(graph()), ok(attr("weight", 3.0)))
    for tag, v in (("nan", NAN), ("str", "abc"), ("neg", -1.0), ("inf", INF), ("none", None),
                   ("list", [1.0]), ("complex", 1j)):
        if v is None:
            build = lambda: _none_weight(graph())
        else:
            build = lambda v=v: graph(v)
        for fam in ("louvain", "weighted_matching"):
            add(f"semantics/{fam}/nx_weight={tag}", "semantics",
                lambda b=build, f=fam: getattr(m(), f)(b()), err("G"))
    add("semantics/louvain/nx_digraph", "semantics",
        lambda: m().louvain(graph(kind=nx.DiGraph)), err("G", words=("directed",)))
    add("semantics/louvain/nx_multigraph_parallel", "semantics",
        lambda: m().louvain(_multi()), either(louvain_of(P3()), err("G")))


def _none_weight(G):
    G["b"]["c"]["weight"] = None
    return G


def _multi():
    import networkx as nx
    G = nx.MultiGraph()
    G.add_edge(0, 1, weight=1.0)
    G.add_edge(0, 1, weight=1.0)
    G.add_edge(1, 2, weight=3.0)
    return G


def _marriage_cases():
    m = pm
    good = [[0, 1], [1, 0]]
    for side, arg in (("men", "men_prefs"), ("women", "women_prefs")):
        for tag, v in (("str", "abc"), ("int", 3), ("frac", [[0.5, 1]]), ("neg", [[-1], [0]]),
                       ("u64_2p63", [[np.uint64(2**63)], [0]]), ("repeat", [[0, 0], [1, 0]]),
                       ("past_end", [[5], [0]]), ("nested3", [[[0]], [[1]]]),
                       ("nan", [[NAN], [0]]), ("bool", [[True], [False]]),
                       ("dict", {0: [0]}), ("2p70", [[2**70], [0]])):
            men, women = (v, good) if side == "men" else (good, v)
            add(f"semantics/stable_marriage/{side}={tag}", "semantics",
                lambda a=men, b=women: m().stable_marriage(a, b), err(arg))
    add("semantics/stable_marriage/unreciprocated", "semantics",
        lambda: m().stable_marriage([[0]], [[]]), err("men_prefs", "women_prefs"))
    add("semantics/stable_marriage/empty", "semantics",
        lambda: m().stable_marriage([], []), either(attr("size", 0), err("men_prefs")))
    add("semantics/stable_marriage/n_men_conflict", "semantics",
        lambda: m().stable_marriage(good, good, n_men=1), err("n_men"))
    add("semantics/stable_marriage/ok", "semantics", lambda: m().stable_marriage(good, good),
        ok(attr("size", 2)))


def _pairs(want):
    """A check: a (row_ind, col_ind) pair of arrays equal to ``want``."""
    def check(res):
        got = [np.asarray(x).tolist() for x in res]
        return None if got == want else f"got {got!r}, want {want!r}"
    return check


def _assignment_cases():
    """The assignment family: its parameters, its inputs, and the drop-ins' scipy errors."""
    m = pm
    C = lambda: sp.csr_matrix(np.array([[1.0, 2.0], [3.0, 4.0]]))
    singular = lambda: sp.csr_matrix(np.array([[1.0, 0.0], [1.0, 0.0]]))
    nan = lambda: sp.csr_matrix(np.array([[NAN, 1.0], [1.0, 1.0]]))
    for param in ("maximize", "full"):
        _bad(lambda **kw: m().assignment(C(), **kw), "assignment", param, NOT_BOOL)
    _bad(lambda **kw: m().assignment(C(), **kw), "assignment", "verify",
         [("str", "yes"), ("list", [True]), ("float", 1.0)])
    _bad(lambda **kw: m().assignment(C(), **kw), "assignment", "scaling",
         NOT_INT[:8] + [("zero", 0), ("one", 1)])
    _bad(lambda **kw: m().maximum_product_transversal(C(), **kw), "transversal", "scale",
         NOT_BOOL)
    sem = "semantics"
    add("semantics/assignment/ok", sem, lambda: m().assignment(C()), ok(attr("objective", 5.0)))
    add("semantics/assignment/maximize", sem, lambda: m().assignment(C(), maximize=True),
        ok(attr("objective", 5.0)))
    add("semantics/assignment/empty", sem, lambda: m().assignment(sp.csr_matrix((0, 0))),
        ok(attr("objective", 0.0)))
    add("semantics/assignment/singular", sem, lambda: m().assignment(singular()), err("A"))
    add("semantics/assignment/singular_partial", sem,
        lambda: m().assignment(singular(), full=False, maximize=True),
        ok(attr("objective", 1.0)))
    add("semantics/assignment/partial_min_is_empty", sem,     # (positive costs: match none)
        lambda: m().assignment(singular(), full=False), ok(attr("objective", 0.0)))
    add("semantics/assignment/nan", sem, lambda: m().assignment(nan()), err("A"))
    add("semantics/assignment/str", sem, lambda: m().assignment("abc"), err("A"))
    add("semantics/assignment/1d", sem, lambda: m().assignment(np.array([1.0, 2.0])), err("A"))
    add("semantics/min_weight_full_bipartite_matching/ok", sem,
        lambda: m().min_weight_full_bipartite_matching(C()), ok(_pairs([[0, 1], [0, 1]])))
    add("semantics/min_weight_full_bipartite_matching/dense", sem,
        lambda: m().min_weight_full_bipartite_matching(C().toarray()),
        err("biadjacency_matrix"))
    add("semantics/min_weight_full_bipartite_matching/singular", sem,
        lambda: m().min_weight_full_bipartite_matching(singular()), err("biadjacency_matrix"))
    add("semantics/linear_sum_assignment/ok", sem,
        lambda: m().linear_sum_assignment(C().toarray()), ok(_pairs([[0, 1], [0, 1]])))
    add("semantics/linear_sum_assignment/inf_forbidden", sem,
        lambda: m().linear_sum_assignment(np.array([[INF, 2.0], [3.0, 4.0]])),
        ok(_pairs([[0, 1], [1, 0]])))
    add("semantics/linear_sum_assignment/infeasible", sem,
        lambda: m().linear_sum_assignment(np.array([[INF, INF], [3.0, 4.0]])),
        err("cost_matrix"))
    add("semantics/linear_sum_assignment/nan", sem,
        lambda: m().linear_sum_assignment(np.array([[NAN, 2.0], [3.0, 4.0]])),
        err("cost_matrix"))
    add("semantics/linear_sum_assignment/3d", sem,
        lambda: m().linear_sum_assignment(np.zeros((2, 2, 2))), err("cost_matrix"))
    add("semantics/maximum_product_transversal/ok", sem,
        lambda: m().maximum_product_transversal(C()), ok(attr("perm", [1, 0])))
    add("semantics/maximum_product_transversal/singular", sem,
        lambda: m().maximum_product_transversal(singular()), err("A"))
    add("semantics/maximum_product_transversal/rectangular", sem,
        lambda: m().maximum_product_transversal(sp.csr_matrix(np.ones((2, 3)))), err("A"))
    add("semantics/maximum_product_transversal/nan", sem,
        lambda: m().maximum_product_transversal(nan()), err("A"))
    for fam, arg in (("assignment", "A"), ("maximum_product_transversal", "A"),
                     ("linear_sum_assignment", "cost_matrix")):
        add(f"semantics/{fam}/ragged", sem, lambda f=fam: getattr(m(), f)([[1, 2], [3]]),
            err(arg))
    for tag, v in (("str", np.array([["a", "b"], ["c", "d"]])), ("none", None)):
        add(f"semantics/maximum_product_transversal/{tag}", sem,
            lambda v=v: m().maximum_product_transversal(v), err("A"))
    for fam, arg, call in (
            ("assignment", "A", lambda M: m().assignment(M)),
            ("min_weight_full_bipartite_matching", "biadjacency_matrix",
             lambda M: m().min_weight_full_bipartite_matching(M, maximize=True))):
        add(f"semantics/{fam}/1e308", sem,       # (the duals' sums would overflow float64)
            lambda c=call: c(sp.csr_matrix(np.array([[1e308], [1.0], [7.0]]))), err(arg))
    add("semantics/assignment/1e300", sem,
        lambda: m().assignment(sp.csr_matrix(np.array([[1e300], [1.0], [7.0]]))),
        ok(attr("objective", 1.0)))
    for fam in ("linear_sum_assignment", "min_weight_full_bipartite_matching"):
        M = (lambda: C().toarray()) if fam == "linear_sum_assignment" else C
        add(f"semantics/{fam}/maximize=array", sem,
            lambda f=fam, M=M: getattr(m(), f)(M(), maximize=np.array([1, 2])), err("maximize"))
    add("semantics/maximum_product_transversal/f16", sem,
        lambda: m().maximum_product_transversal(np.array([[1, 2], [3, 4]], np.float16)),
        ok(attr("perm", [1, 0])))


# -- readers -----------------------------------------------------------------------------------

GEN = [[0, 1.5, 0], [0, 0, -2.0], [4.0, 0, 0]]
PATH3 = [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
READ_OK = {
    "ok_general.mtx": GEN, "ok_uppercase_banner.mtx": GEN, "ok_crlf.mtx": GEN,
    "ok_tabs.mtx": GEN, "ok_comments.mtx": GEN, "ok_gzip.mtx.gz": GEN,
    "ok_pattern_symmetric.mtx": [[0, 1, 0], [1, 0, 1], [0, 1, 0]],
    "ok_explicit_zero.mtx": [[0, 0], [5, 0]], "ok_duplicates_summed.mtx": [[0, 2], [2, 0]],
    "ok_zero_size.mtx": np.zeros((0, 0)), "ok_integer.mtx": [[0, 7], [-3, 0]],
    "ok_array.mtx": [[1, 0], [0, 2]], "ok_skew.mtx": [[0, -3], [3, 0]],
    "ok_metis_isolated.graph": [[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0]],
    "ok_metis_weights.graph": [[0, 5, 0], [5, 0, 4], [0, 4, 0]],
    "ok_snap_dup_summed.txt": [[0, 5], [5, 0]], "ok_snap_crlf.txt": PATH3,
    "ok_snap_labels.txt": PATH3, "ok_snap_float_ids.txt": PATH3,
}
READ_BIG = {   # refused either as a bad file or as too big for the host
    "metis_header_huge.graph": (), "snap_uint64_id.txt": ("18446744073709551615",),
}


def _nnz(n):
    def check(res):
        return None if res.nnz == n else f"{res.nnz} stored entries, want {n}"
    return check


def reader_cases():
    m = pm
    for name in sorted(os.listdir(BAD)):
        path = os.path.join(BAD, name)
        call = lambda p=path: m().read_graph(p)
        if name in READ_OK:
            check = matrix(READ_OK[name])
            if name == "ok_explicit_zero.mtx":
                check = all_of(check, _nnz(2))
            add(f"readers/{name}", "readers", call, ok(check))
        elif name in READ_BIG:
            add(f"readers/{name}", "readers", call,
                err("path", classes=("InputError", "HostMemoryError"), words=READ_BIG[name]))
        else:
            add(f"readers/{name}", "readers", call, err("path"))
    for fmt, name in (("metis", "ok_general.mtx"), ("snap", "ok_metis_weights.graph"),
                      ("mtx", "ok_snap_labels.txt")):
        add(f"readers/format={fmt}/{name}", "readers",
            lambda f=fmt, n=name: m().read_graph(os.path.join(BAD, n), format=f), err("path"))
    add("readers/symmetrize_rectangular", "readers",
        lambda: m().read_graph(os.path.join(HERE_DATA, "rectangular.mtx"), symmetrize=True),
        err("path", "symmetrize"))
    add("readers/return_labels", "readers",
        lambda: m().read_graph(os.path.join(BAD, "ok_snap_labels.txt"), return_labels=True)[1],
        ok(lambda labels: None if list(labels) == ["a", "b", "c"] else f"labels {labels}"))
    _path_cases()


HERE_DATA = os.path.dirname(BAD)


def _fifo():
    import tempfile
    d = tempfile.mkdtemp(prefix="pyclmatch-fuzz-")
    p = os.path.join(d, "pipe.mtx")
    os.mkfifo(p)
    return p


def _path_cases():
    m = pm
    missing = os.path.join(BAD, "no-such-file.mtx")
    for tag, path, expect in (
            ("missing", lambda: missing, err("path", classes=("FileNotFoundError",
                                                              "InputError"))),
            ("missing_bytes", lambda: os.fsencode(missing),
             err("path", classes=("FileNotFoundError", "InputError"))),
            ("directory", lambda: BAD, err("path")),
            ("directory_bytes", lambda: os.fsencode(BAD), err("path")),
            ("fifo", _fifo, err("path")),
            ("dev_null", lambda: os.devnull, err("path")),
            ("empty_str", lambda: "", err("path")),
            ("nul_in_path", lambda: "a\x00b.mtx", err("path")),
            ("int", lambda: 3, err("path")), ("none", lambda: None, err("path")),
            ("list", lambda: [missing], err("path")), ("float", lambda: 1.5, err("path")),
            ("array", lambda: np.array([1, 2]), err("path")),
            ("matrix", lambda: P3(), err("path"))):
        add(f"readers/path={tag}", "readers", lambda p=path: m().read_graph(p()), expect)
    add("readers/path=pathlib", "readers",
        lambda: m().read_graph(__import__("pathlib").Path(BAD, "ok_general.mtx")),
        ok(matrix(GEN)))


# -- the command line --------------------------------------------------------------------------

def run_cli(argv, workdir=False):
    """``pyclmatch.cli.main(argv)`` in this process: (exit status, stdout, stderr); argparse's
    exits are statuses too; anything else escaping ``main`` is what a user would see as a
    traceback, so it propagates."""
    import contextlib
    import io
    from pyclmatch import cli
    out, errs = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(errs):
        try:
            rc = cli.main(list(argv))
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 2
    return rc, out.getvalue(), errs.getvalue()


def cli_error():
    """A check of (rc, out, err): exit status 2 and exactly one line ``pyclmatch: error: ...``
    on stderr (argparse's errors too: the command line's parsers print no usage block)."""
    def check(res):
        rc, out, errtext = res
        lines = [ln for ln in errtext.splitlines() if ln.strip()]
        if rc != 2:
            return f"exit status {rc}, stderr {errtext[-200:]!r}"
        if "Traceback" in errtext:
            return f"a traceback: {errtext[-200:]!r}"
        if len(lines) != 1 or not lines[0].startswith("pyclmatch: error: "):
            return f"stderr is not one 'pyclmatch: error:' line: {errtext[-300:]!r}"
        return None
    return check


def cli_ok(*words):
    def check(res):
        rc, out, errtext = res
        if rc != 0:
            return f"exit status {rc}: {errtext[-300:]!r}"
        missing = [w for w in words if w not in out]
        return f"output lacks {missing}: {out[-300:]!r}" if missing else None
    return check


def cli_cases():
    good = os.path.join(BAD, "ok_general.mtx")
    nul = os.path.join(BAD, "mm_nul_in_value.mtx")
    missing = os.path.join(BAD, "no-such-file.mtx")
    outdir = os.path.join(__import__("tempfile").gettempdir(), "pyclmatch-fuzz-bench")
    small = ["--suite", "small", "--graphs", "grid-64", "--repeat", "1", "--no-progress",
             "--out", outdir]
    rows = [
        ("match/missing", ["match", missing]),
        ("match/directory", ["match", BAD]),
        ("match/nul_value", ["match", nul]),
        ("match/bad_banner", ["match", os.path.join(BAD, "mm_bad_field.mtx")]),
        ("match/fifo", ["match", "@fifo"]),
        ("match/algorithm", ["match", good, "--algorithm", "nope"]),
        ("match/device", ["match", good, "--device", "no-such-device-xyz"]),
        ("match/init", ["match", good, "--init", "nope"]),
        ("match/no_file", ["match"]),
        ("match/unknown_flag", ["match", good, "--frobnicate"]),
        ("dmperm/missing", ["dmperm", missing]),
        ("dmperm/directory", ["dmperm", BAD]),
        ("dmperm/nul_value", ["dmperm", nul]),
        ("dmperm/algorithm", ["dmperm", good, "--algorithm", "nope"]),
        ("dmperm/device", ["dmperm", good, "--device", "no-such-device-xyz"]),
        ("dmperm/plot_unwritable", ["dmperm", good, "--plot", os.path.join(missing, "x.png")]),
        ("dmperm/plot_folder", ["dmperm", good, "--plot", BAD]),
        ("dmperm/plot_extension", ["dmperm", good, "--plot", os.path.join(outdir, "x.txt")]),
        ("bench/suite", ["bench", *small, "--suite", "nope"]),
        ("bench/graphs", ["bench", *small, "--graphs", "nope"]),
        ("bench/algorithms", ["bench", *small, "--algorithms", "nope"]),
        ("bench/devices", ["bench", *small, "--devices", "no-such-device-xyz"]),
        ("bench/repeat_neg", ["bench", *small, "--repeat", "-1"]),
        ("bench/repeat_zero", ["bench", *small, "--repeat", "0"]),
        ("bench/repeat_word", ["bench", *small, "--repeat", "x"]),
        ("bench/memory_limit_neg", ["bench", *small, "--memory-limit", "-5"]),
        ("bench/out_is_file", ["bench", *small, "--out", good]),
        ("bench/rcp", ["bench", *small, "--rcp", "maybe"]),
        ("report/missing", ["report", missing]),
        ("report/file", ["report", good]),
        ("report/out_is_file", ["report", BAD, "--out", good]),
        ("devices/unknown_flag", ["devices", "--bogus"]),
        ("command/unknown", ["frobnicate"]),
        ("command/none", []),
    ]
    for cid, argv in rows:
        add(f"cli/{cid}", "cli", lambda a=argv: run_cli(_fifo_arg(a)), ok(cli_error()))
    add("cli/match/ok", "cli", lambda: run_cli(["match", good]), ok(cli_ok("cardinality:")))
    add("cli/match/ok_json", "cli", lambda: run_cli(["match", good, "--json"]),
        ok(cli_ok('"cardinality": 3')))
    add("cli/dmperm/ok", "cli", lambda: run_cli(["dmperm", good]),
        ok(cli_ok("structural rank:      3")))
    add("cli/devices/json", "cli", lambda: run_cli(["devices", "--json"]),
        ok(cli_ok('"devices"')))
    for cid, argv in (("match_directory", ["match", BAD]), ("match_nul", ["match", nul]),
                      ("match_missing", ["match", missing])):
        add(f"cli/subprocess/{cid}", "cli", lambda a=argv: _cli_process(a), ok(cli_error()))


def _fifo_arg(argv):
    return [_fifo() if a == "@fifo" else a for a in argv]


def _cli_process(argv):
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-m", "pyclmatch", *argv], capture_output=True,
                       text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


# -- generators, interop, networkx backend, devices --------------------------------------------

def _shape_is(shape):
    def check(res):
        return None if getattr(res, "shape", None) == shape else f"shape {res.shape}"
    return check


def other_cases():
    _generator_cases()
    _interop_cases()
    _nxbackend_cases()
    _device_cases()


def _seeded_ok(fn):
    """The check of a generator's answer for a seed of 2**63 (numpy's seeds go to 2**64-1)."""
    if fn == "easy_instance":
        def check(inst):
            return None if pm().stable_marriage(inst).verified else "not verified"
        return check
    return _shape_is((3, 4) if fn == "permuted" else (16, 16))


def _generator_cases():
    from pyclmatch import generators as g
    bad = [("neg", -1), ("float", 1.5), ("str", "8"), ("bool", True), ("none", None),
           ("nan", NAN), ("u64", np.uint64(2**63)), ("list", [8])]
    for fn, arg, make in (("uniform", "n", lambda v: g.uniform(v, 2)),
                          ("uniform", "deg", lambda v: g.uniform(16, v)),
                          ("uniform", "seed", lambda v: g.uniform(16, 2, seed=v)),
                          ("kron", "scale", lambda v: g.kron(v)),
                          ("kron", "edgefactor", lambda v: g.kron(4, edgefactor=v)),
                          ("kron", "seed", lambda v: g.kron(4, seed=v)),
                          ("delaunay", "logn", lambda v: g.delaunay(v)),
                          ("delaunay", "seed", lambda v: g.delaunay(4, seed=v)),
                          ("grid", "side", lambda v: g.grid(v)),
                          ("grid", "seed", lambda v: g.grid(4, seed=v)),
                          ("permuted", "seed", lambda v: g.permuted(R(), seed=v)),
                          ("easy_instance", "n", lambda v: pm().easy_instance(v)),
                          ("hard_instance", "n", lambda v: pm().hard_instance(v)),
                          ("easy_instance", "seed", lambda v: pm().easy_instance(3, seed=v))):
        for tag, v in bad:
            if arg == "seed" and tag == "none":
                continue
            if arg == "seed" and tag == "u64":   # (a valid numpy seed: 0 to 2**64-1)
                add(f"other/generators/{fn}/{arg}={tag}", "other", lambda f=make, v=v: f(v),
                    ok(_seeded_ok(fn)))
                continue
            add(f"other/generators/{fn}/{arg}={tag}", "other", lambda f=make, v=v: f(v),
                err(arg))
    for tag, keep in (("neg", -0.5), ("above1", 1.5), ("nan", NAN), ("str", "0.5"),
                      ("bool", True)):
        add(f"other/generators/grid/keep={tag}", "other", lambda k=keep: g.grid(4, keep=k),
            err("keep"))
    add("other/generators/kron/scale=40", "other", lambda: g.kron(40),
        err("scale", classes=("InputError", "HostMemoryError")))
    add("other/generators/uniform/n=2p40", "other", lambda: g.uniform(2**40, 4),
        err("n", classes=("InputError", "HostMemoryError")))
    add("other/generators/permuted/A=str", "other", lambda: g.permuted("abc"), err("A"))
    add("other/generators/suite/names=nope", "other", lambda: list(g.suite("nope", small=True)),
        err("names"))
    add("other/generators/suite/rcp=maybe", "other",
        lambda: list(g.suite("grid-64", rcp="maybe", small=True)), err("rcp"))
    add("other/generators/suite/size=huge", "other", lambda: list(g.suite(size="huge")),
        err("size"))
    for fn, make, shape in (("uniform", lambda: g.uniform(16, 2), (16, 16)),
                            ("grid", lambda: g.grid(4), (16, 16)),
                            ("kron", lambda: g.kron(4), (16, 16)),
                            ("permuted", lambda: g.permuted(R()), (3, 4)),
                            ("uniform_np_int", lambda: g.uniform(np.int64(16), np.int32(2)),
                             (16, 16))):
        add(f"other/generators/{fn}/ok", "other", make, ok(_shape_is(shape)))
    add("other/generators/easy_instance/ok", "other",
        lambda: pm().stable_marriage(pm().easy_instance(5)), ok(attr("verified", True)))
    add("other/generators/easy_instance/n=0", "other", lambda: pm().easy_instance(0),
        either(None, err("n")))


def _interop_cases():
    m = pm
    res = lambda: m().maximum_matching(R())
    for fn in ("matching_dict", "matching_edges", "community_sets"):
        for tag, v in (("str", "abc"), ("none", None), ("int", 3), ("matrix", R())):
            add(f"other/interop/{fn}/res={tag}", "other",
                lambda f=fn, v=v: getattr(m(), f)(v), err("res"))
    for fn in ("matching_dict", "matching_edges"):
        add(f"other/interop/{fn}/row_labels_short", "other",
            lambda f=fn: getattr(m(), f)(res(), row_labels=["a"]), err("row_labels"))
        add(f"other/interop/{fn}/col_labels_int", "other",
            lambda f=fn: getattr(m(), f)(res(), col_labels=5), err("col_labels"))
    add("other/interop/matching_dict/ok", "other",
        lambda: m().matching_dict(m().maximum_matching(R(), algorithm="host-hk")),
        ok(lambda d: None if len(d) == 6 else f"{d}"))      # (both directions)
    add("other/interop/community_sets/ok", "other", lambda: m().community_sets(m().louvain(K())),
        ok(lambda s: None if sum(len(x) for x in s) == 34 else f"{s}"))
    add("other/interop/membership_sets/bad", "other",
        lambda: m().interop.membership_sets(np.array([0.5, 1])), err("membership"))
    add("other/verify_matching/row_match_short", "other",
        lambda: m().verify_matching(R(), [0], [-1, -1, -1, -1]), err("row_match"))
    add("other/verify_matching/col_match_str", "other",
        lambda: m().verify_matching(R(), [1, 0, 2], "abc"), err("col_match"))
    add("other/verify_matching/row_match_past", "other",
        lambda: m().verify_matching(R(), [9, 0, 2], [1, 0, 2, -1]),
        err("row_match", classes=("InputError", "VerificationError")))
    add("other/verify_matching/graph_none", "other",
        lambda: m().verify_matching(None, [0], [0]), err("graph"))
    add("other/verify_matching/ok", "other",
        lambda: m().verify_matching(R(), [1, 0, 2], [1, 0, 2, -1]), ok(lambda r: None if r is
                                                                       True else f"{r!r}"))


def _nxbackend_cases():
    import networkx as nx
    m = pm
    G = nx.karate_club_graph
    Kw = lambda: K()
    lc = nx.community.louvain_communities

    def partition_of(A):
        def check(comms):
            n = sum(len(c) for c in comms)
            return None if n == A.shape[0] else f"{n} vertices in the communities"
        return check
    add("other/nxbackend/louvain_communities/ok", "other",
        lambda: lc(G(), backend="pyclmatch", seed=1), ok(partition_of(Kw())))
    for p, tag, v in (("resolution", "neg", -1), ("resolution", "nan", NAN),
                      ("resolution", "str", "1"), ("threshold", "nan", NAN),
                      ("threshold", "nan64", np.float64(NAN)), ("max_level", "zero", 0),
                      ("max_level", "neg", -3), ("max_level", "str", "2"),
                      ("device", "float", 1.5)):
        add(f"other/nxbackend/louvain_communities/{p}={tag}", "other",
            lambda p=p, v=v: lc(G(), backend="pyclmatch", **{p: v}), err(p))
    # seed: networkx's dispatch makes a random state of it before the backend is called, so
    # the backend keeps networkx's contract: a negative int is a seed, 1.5 networkx's error
    add("other/nxbackend/louvain_communities/seed=neg", "other",
        lambda: lc(G(), backend="pyclmatch", seed=-1), ok(partition_of(Kw())))
    add("other/nxbackend/louvain_communities/seed=float", "other",
        lambda: lc(G(), backend="pyclmatch", seed=1.5),
        err_class("ValueError", words=("1.5 cannot be used to generate a random.Random",)))
    add("other/nxbackend/louvain_communities/seed=float_networkx", "other",
        lambda: lc(G(), seed=1.5),
        err_class("ValueError", words=("1.5 cannot be used to generate a random.Random",)))
    add("other/nxbackend/louvain_communities/weight_nan", "other",
        lambda: lc(_nx_nan(), backend="pyclmatch"), err("G"))
    add("other/nxbackend/louvain_partitions/resolution=neg", "other",
        lambda: list(nx.community.louvain_partitions(G(), backend="pyclmatch", resolution=-1)),
        err("resolution"))
    add("other/nxbackend/modularity/ok", "other",
        lambda: nx.community.modularity(G(), [set(range(17)), set(range(17, 34))],
                                        backend="pyclmatch"),
        ok(value(nx.community.modularity(G(), [set(range(17)), set(range(17, 34))]))))
    add("other/nxbackend/modularity/resolution=nan", "other",
        lambda: nx.community.modularity(G(), [set(range(34))], resolution=NAN,
                                        backend="pyclmatch"), err("resolution"))
    add("other/nxbackend/louvain_partitions/threshold=nan", "other",
        lambda: list(nx.community.louvain_partitions(G(), backend="pyclmatch", threshold=NAN)),
        err("threshold"))
    bip = lambda: nx.complete_bipartite_graph(2, 3)
    add("other/nxbackend/hopcroft_karp/ok", "other",
        lambda: nx.bipartite.hopcroft_karp_matching(bip(), top_nodes=[0, 1],
                                                    backend="pyclmatch"),
        ok(lambda d: None if len(d) == 4 else f"{d}"))
    add("other/nxbackend/hopcroft_karp/top_nodes_missing", "other",
        lambda: nx.bipartite.hopcroft_karp_matching(bip(), top_nodes=[7],
                                                    backend="pyclmatch"),
        err("top_nodes", classes=("InputError", "NetworkXError")))
    add("other/nxbackend/max_weight/ok", "other",
        lambda: nx.approximate.max_weight_matching(G(), backend="pyclmatch")
        if hasattr(nx, "approximate") and hasattr(nx.approximate, "max_weight_matching")
        else m().nxbackend.approximate_max_weight_matching(G()),
        ok(lambda s: None if len(s) > 0 else f"{s}"))
    add("other/nxbackend/maximal_matching/ok", "other",
        lambda: nx.maximal_matching(G(), backend="pyclmatch"),
        ok(lambda s: None if nx.is_maximal_matching(G(), s) else f"{s}"))
    add("other/nxbackend/maximal_matching/digraph", "other",
        lambda: nx.maximal_matching(nx.DiGraph([(0, 1)]), backend="pyclmatch"),
        err("G", classes=("InputError", "NetworkXNotImplemented")))


def _nx_nan():
    import networkx as nx
    G = nx.karate_club_graph()
    G[0][1]["weight"] = NAN
    return G


def _device_cases():
    m = pm
    for tag, v in (("float", 1.5), ("list", [0]), ("dict", {}), ("bytes", b"cpu")):
        add(f"other/get_device/spec={tag}", "other", lambda v=v: m().get_device(v),
            err("spec", "device"))
    for tag, v in (("nosuch", "no-such-device-xyz"), ("index99", 99), ("neg", -5)):
        add(f"other/get_device/spec={tag}", "other", lambda v=v: m().get_device(v),
            err("spec", "device", classes=("DeviceError", "InputError")))
    add("other/get_device/ok_cpu", "other", lambda: m().get_device("cpu"),
        ok(lambda h: None if h is not None else "None"))
    add("other/list_devices/ok", "other", lambda: m().list_devices(),
        ok(lambda r: None if len(r) >= 1 else f"{r}"))
    add("other/describe_devices/ok", "other", lambda: m().describe_devices(),
        ok(lambda r: None if r and "usable" in r[0] else f"{r}"))


# -- hypothesis searches -----------------------------------------------------------------------

JUNK = [None, -1, 0, 1.5, "1", True, NAN, INF, [1], np.uint64(2**63), 2**70, b"x", 1j,
        np.array([2])]


def _hyp(cid, area, strategy, prop, n=40):
    """A case that runs a derandomized hypothesis search of ``n`` examples (no database, no
    shrinking: the first failing example is reported as drawn); the answer is the number of
    examples tried."""
    def run():
        from hypothesis import HealthCheck, Phase, given, settings
        tried = []

        @settings(max_examples=n, derandomize=True, database=None, deadline=None,
                  phases=(Phase.explicit, Phase.generate), print_blob=False,
                  suppress_health_check=list(HealthCheck))
        @given(strategy())
        def search(x):
            tried.append(1)
            try:
                bad = prop(x)
            except Exception as exc:
                bad = f"{type(exc).__name__}(argument={getattr(exc, 'argument', None)!r}): " \
                      f"{str(exc)[:150]}"
            assert not bad, f"{bad} -- for {x!r}"[:600]
        search()
        return len(tried)
    add(f"hyp/{cid}", area, run, ok(None))


def _answer_or_refusal(call, check, arguments):
    """None when ``call()`` answers as ``check`` accepts, or raises an InputError naming one
    of ``arguments``; else what went wrong (an unexpected exception propagates)."""
    from pyclmatch import InputError
    try:
        res = call()
    except InputError as exc:
        if exc.argument not in arguments:
            return f"InputError(argument={exc.argument!r}) {str(exc)[:150]}; want one of " \
                   f"{sorted(map(str, arguments))}"
        return None
    return check(res) if check else None


def _params(options):
    """A strategy of keyword dicts: a subset of ``options`` (name -> good values), each value
    either good or junk."""
    from hypothesis import strategies as st
    return st.fixed_dictionaries({}, optional={
        k: st.one_of(st.sampled_from(v), st.sampled_from(JUNK)) for k, v in options.items()})


def hypothesis_cases():
    m = pm
    # (good values that use the default call's kernels: others compile for a minute on PoCL)
    lv = {"resolution": [0.5, 1.0, 2], "seed": [0, 7, np.uint64(2**64 - 1)],
          "max_level": [1, 3, None], "threshold": [None, 1e-7], "work_group_size": [None],
          "moves": ["up-down"], "subrounds": [None], "move_buckets": [None]}
    _hyp("louvain_params", "params", lambda: _params(lv), lambda kw: _answer_or_refusal(
        lambda: m().louvain(K(), **kw), louvain_of(K(), kw.get("resolution", 1.0)), set(kw)))
    mm = {"algorithm": ["auto", "host-hk"], "init": ["karp-sipser"],
          "verify": [True, "host", False], "work_group_size": [None], "ks_rounds": [32]}
    _hyp("maximum_matching_params", "params", lambda: _params(mm), lambda kw: (
        _answer_or_refusal(lambda: m().maximum_matching(R(), **kw), cardinality_of(R()),
                           set(kw))))
    wm = {"work_group_size": [None], "precision": ["auto", "float64"],
          "verify": [True, False], "batch_rounds": [None, 1, 4]}
    _hyp("b_matching_params", "params",
         lambda: _params(dict(wm, b=[0, 1, 2, 10**6, np.array([1, 2, 1])])),
         lambda kw: _answer_or_refusal(lambda: m().b_matching(
             P3(), kw.get("b", 2), **{k: v for k, v in kw.items() if k != "b"}),
                                       _b_valid(P3()), set(kw) | {"b"}))
    _hyp("weighted_matching_params", "params",
         lambda: _params({k: v for k, v in wm.items() if k != "batch_rounds"}),
         lambda kw: _answer_or_refusal(lambda: m().weighted_matching(P3(), **kw),
                                       matched_weight(P3(), 3.0, rel=1e-6), set(kw)))
    sm = {"work_group_size": [None], "batch_rounds": [None], "verify": [True, False],
          "n_men": [None, 2], "n_women": [None, 2]}
    _hyp("stable_marriage_params", "params", lambda: _params(sm), lambda kw: (
        _answer_or_refusal(lambda: m().stable_marriage([[0, 1], [1, 0]], [[0, 1], [1, 0]],
                                                       **kw), attr("size", 2), set(kw))))
    _hyp("bipartite_small_graphs", "semantics", _small_matrices, _bipartite_property, n=60)
    _hyp("symmetric_small_graphs", "semantics", lambda: _small_matrices(symmetric=True),
         _symmetric_property, n=60)
    _hyp("modularity_memberships", "semantics", _memberships, _membership_property, n=60)
    _hyp("marriage_prefs", "semantics", _prefs, lambda mw: _answer_or_refusal(
        lambda: m().stable_marriage(*mw), attr("verified", True),
        {"men_prefs", "women_prefs"}), n=60)
    for name in ("ok_general.mtx", "ok_metis_weights.graph", "ok_snap_labels.txt"):
        _hyp(f"mutated_file/{name}", "readers", lambda n=name: _mutations(n),
             _reader_property, n=60)


def _b_valid(G):
    """A check of a b-matching: its edges are edges of ``G``, each vertex in at most b[v] of
    them, the weight their sum."""
    def check(res):
        M = sp.csr_matrix(G)
        deg = np.zeros(M.shape[0], int)
        w = 0.0
        for u, v in np.asarray(res.edges).reshape(-1, 2).tolist():
            if u == v or M[u, v] == 0:
                return f"({u}, {v}) is not an edge"
            deg[u] += 1
            deg[v] += 1
            w += M[u, v]
        if np.any(deg > np.asarray(res.b)):
            return f"degrees {deg.tolist()} past b {np.asarray(res.b).tolist()}"
        return None if abs(w - res.weight) <= 1e-9 * max(1, w) else f"weight {res.weight} != {w}"
    return check


VALUES = [0.0, 1.0, 2.0, 0.5, 3.0, 1e-300, 5e-324, 1e300, -1.0, NAN, INF]


def _small_matrices(symmetric=False):
    """(form, matrix) with form "dense", "csr" or "coo" (the coo with duplicates)."""
    from hypothesis import strategies as st

    @st.composite
    def draw(d):
        n = d(st.integers(0, 5))
        k = n if symmetric else d(st.integers(0, 5))
        vals = st.sampled_from(VALUES if d(st.booleans()) else VALUES[:5])
        A = np.array([[d(vals) for _ in range(k)] for _ in range(n)]).reshape(n, k)
        if symmetric:
            A = np.triu(A) + np.triu(A, 1).T
        form = d(st.sampled_from(["dense", "csr", "coo"]))
        if form == "coo":
            r, c = np.nonzero(A)
            if r.size and d(st.booleans()):    # split each entry into two that sum to it
                return form, sp.coo_matrix((np.r_[A[r, c] * 2, -A[r, c]], (np.r_[r, r],
                                            np.r_[c, c])), shape=A.shape)
            return form, sp.coo_matrix(A)
        return form, (A if form == "dense" else sp.csr_matrix(A))
    return draw()


def _finite(M):
    data = M if isinstance(M, np.ndarray) else sp.csr_matrix(M).data
    return bool(np.all(np.isfinite(data)))


def _bipartite_property(fm):
    form, M = fm
    if not _finite(M):     # (dense NaN: refused; else the pattern may be read as the edges)
        nan = form == "dense" and np.isnan(np.asarray(M, dtype=float)).any()
        return _answer_or_refusal(lambda: pm().maximum_matching(M), cardinality_of(
            _summed(M)) if not nan else (lambda r: "answered"), {"A"})
    return _answer_or_refusal(lambda: pm().maximum_matching(M), cardinality_of(
        sp.csr_matrix(M) if form != "coo" else _summed(M)), set())


def _symmetric_property(fm):
    form, M = fm
    S = _summed(M)
    n = S.shape[0]
    bad = not np.all(np.isfinite(S.data)) or np.any(S.data < 0)
    T = sp.coo_matrix(S)
    off = T.data[T.row != T.col]       # (weighted matching drops the diagonal unchecked)
    bad_weighted = not np.all(np.isfinite(off)) or np.any(off <= 0)
    scaled = S / abs(S).max() if S.nnz and abs(S).max() > 0 else S
    calls = [("weighted_matching", {"G"}, lambda: pm().weighted_matching(M),
              matched_weight(S, rel=1e-6)),
             ("louvain", {"G"}, lambda: pm().louvain(M),
              louvain_of(scaled) if scaled.sum() > 0 else _membership_len(n)),
             ("modularity", {"A"}, lambda: pm().modularity(M, np.arange(n) % 2),
              value(nx_modularity(scaled, np.arange(n) % 2), 1e-6)
              if scaled.sum() > 0 else value(0.0))]
    for name, args, call, check in calls:
        if n == 0 and name == "modularity":
            continue
        refuse = bad_weighted if name == "weighted_matching" else bad
        why = _answer_or_refusal(call, (lambda r: "answered") if refuse else check,
                                 args if refuse or scaled.sum() == 0 and
                                 name != "weighted_matching" else set())
        if why:
            return f"{name}: {why}"
    return None


def _memberships():
    from hypothesis import strategies as st
    good = st.lists(st.integers(0, 40), min_size=34, max_size=34)
    odd = st.one_of(st.lists(st.integers(-3, 40), min_size=30, max_size=36),
                    st.lists(st.sampled_from([0, 1, 0.5, NAN, -1, 2**63, "a"]), min_size=34,
                             max_size=34))
    dtype = st.sampled_from([None, np.int64, np.uint32, np.float64, object])
    return st.tuples(st.one_of(good, odd), dtype)


def _membership_property(md):
    mem, dtype = md
    try:
        arr = np.array(mem, dtype=dtype) if dtype else mem
    except (ValueError, OverflowError, TypeError):
        arr = mem
    ok_ = len(mem) == 34 and all(isinstance(v, int) and 0 <= v < 2**63 for v in mem)
    check = value(nx_modularity(K(), np.array(mem))) if ok_ else (lambda r: "answered")
    return _answer_or_refusal(lambda: pm().modularity(K(), arr), check,
                              set() if ok_ else {"membership"})


def _prefs():
    from hypothesis import strategies as st
    ids = st.integers(-1, 3)
    side = st.lists(st.lists(ids, max_size=4), min_size=1, max_size=3)
    return st.tuples(side, side)


def _mutations(name):
    """(file name, its bytes with a few random insertions, deletions and replacements)."""
    from hypothesis import strategies as st
    with open(os.path.join(BAD, name), "rb") as f:
        body = f.read()
    edit = st.tuples(st.sampled_from(["ins", "del", "rep"]), st.integers(0, len(body)),
                     st.sampled_from([0, 10, 13, 32, 37, 45, 46, 48, 49, 57, 101, 120, 255]))
    return st.tuples(st.just(name), st.just(body), st.lists(edit, min_size=1, max_size=4))


def _reader_property(x):
    import tempfile
    name, body, edits = x
    b = bytearray(body)
    for op, i, c in edits:
        i = min(i, len(b))
        if op == "ins":
            b[i:i] = bytes([c])
        elif op == "del" and i < len(b):
            del b[i]
        elif i < len(b):
            b[i] = c
    d = tempfile.mkdtemp(prefix="pyclmatch-fuzz-")
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(bytes(b))
    try:
        return _answer_or_refusal(lambda: pm().read_graph(path),
                                  lambda A: None if sp.issparse(A) else f"got {type(A)}",
                                  {"path"})
    finally:
        os.unlink(path)
        os.rmdir(d)
