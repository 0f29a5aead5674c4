"""Stable marriage (SMI): McVitie-Wilson and parallel Gale-Shapley against the sequential
Gale-Shapley (the man-optimal solution is unique), stability checks, generators, Lemma 3.1."""
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from pyclmatch.errors import InputError, VerificationError
from pyclmatch.weighted import (MarriageInstance, as_weighted_graph, easy_instance,
                                gale_shapley_sequential, greedy_matching_sequential,
                                hard_instance, smi_from_graph, stable_marriage,
                                verify_stable_marriage)

#: the device of the default (PoCL) run; PYCLMATCH_TEST_DEVICE=gpu runs every case on a GPU
DEV = os.environ.get("PYCLMATCH_TEST_DEVICE", "cpu")
ALGS = ["mcvitie-wilson", "gale-shapley"]


def random_smi(n_men, n_women, p, seed):
    rng = np.random.default_rng(seed)
    acc = rng.random((n_men, n_women)) < p
    men = [list(rng.permutation(np.flatnonzero(acc[m]))) for m in range(n_men)]
    women = [list(rng.permutation(np.flatnonzero(acc[:, w]))) for w in range(n_women)]
    return men, women


@pytest.mark.parametrize("alg", ALGS)
@pytest.mark.parametrize("make", [lambda: easy_instance(3000, 1), lambda: hard_instance(200, 2),
                                  lambda: MarriageInstance(*random_smi(120, 90, 0.1, 3)),
                                  lambda: MarriageInstance(*random_smi(50, 80, 0.5, 4))])
def test_equals_sequential_gale_shapley(alg, make):
    inst = make()
    wife, husband = gale_shapley_sequential(inst)
    res = stable_marriage(inst, algorithm=alg, device=DEV)
    assert np.array_equal(res.wife, wife)
    assert np.array_equal(res.husband, husband)
    assert res.verified and res.size == int((wife >= 0).sum())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 25), st.integers(1, 25), st.floats(0.0, 1.0), st.integers(0, 10 ** 6),
       st.sampled_from(ALGS))
def test_hypothesis(n_men, n_women, p, seed, alg):
    men, women = random_smi(n_men, n_women, p, seed)
    res = stable_marriage(men, women, algorithm=alg, device=DEV)
    wife, _ = gale_shapley_sequential(MarriageInstance(men, women))
    assert np.array_equal(res.wife, wife)


def test_lists_and_csr_inputs_agree():
    men, women = random_smi(40, 40, 0.2, 5)
    r1 = stable_marriage(men, women, device=DEV)
    inst = MarriageInstance(men, women)
    r2 = stable_marriage((inst.mptr, inst.mlist), (inst.wptr, inst.wlist), device=DEV)
    assert np.array_equal(r1.wife, r2.wife)


def test_textbook_example():
    # 3 men, 3 women: men-optimal differs from women-optimal
    men = [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    women = [[1, 2, 0], [2, 0, 1], [0, 1, 2]]
    for alg in ALGS:
        res = stable_marriage(men, women, algorithm=alg, device=DEV)
        assert list(res.wife) == [0, 1, 2]


def test_ties_rejected():
    with pytest.raises(InputError, match="tie"):
        stable_marriage([[0, [1, 2]]], [[0], [0], [0]], device=DEV)
    with pytest.raises(InputError, match="tie"):
        stable_marriage([[[0, 1]]], [[0], [0]], device=DEV)
    with pytest.raises(InputError, match="twice"):
        stable_marriage([[0, 0]], [[0]], device=DEV)
    with pytest.raises(InputError, match="twice"):
        stable_marriage([[0], [0]], [[1, 0, 1]], device=DEV)


def test_inconsistent_lists_rejected():
    with pytest.raises(InputError, match="man 0 lists woman 1"):
        stable_marriage([[0, 1], [0]], [[0, 1], []], device=DEV)
    with pytest.raises(InputError, match="woman 1 lists man 1"):
        stable_marriage([[0], [0]], [[0, 1], [1]], device=DEV)
    with pytest.raises(InputError, match="out of range"):
        stable_marriage([[5]], [[0]], device=DEV)
    with pytest.raises(InputError, match="non-integer"):
        stable_marriage([[0.5]], [[0]], device=DEV)
    with pytest.raises(InputError, match="unknown algorithm"):
        stable_marriage([[0]], [[0]], algorithm="irving", device=DEV)
    with pytest.raises(InputError, match="missing"):
        stable_marriage([[0]], device=DEV)


def test_empty_and_unmatched():
    res = stable_marriage([[], []], [[]], device=DEV)
    assert list(res.wife) == [-1, -1] and list(res.husband) == [-1]
    res = stable_marriage([[0], [0]], [[1, 0]], device=DEV)
    assert list(res.wife) == [-1, 0]
    for alg in ALGS:       # one acceptable pair: the round loop's bound covers a whole batch
        assert list(stable_marriage([[0]], [[0]], algorithm=alg, device=DEV).wife) == [0]


def test_generators():
    inst = easy_instance(5000, seed=3)
    lens = np.diff(inst.mptr)
    ln = np.log(5000)
    assert lens.min() >= 1 and lens.max() <= int(2 * ln) + 1
    assert inst.entries == int(np.diff(inst.wptr).sum())
    res = stable_marriage(inst, device=DEV)
    assert res.size / 5000 > 0.9          # the paper: more than 98% married at scale
    h = hard_instance(50, seed=1)
    assert h.entries == 2500
    res = stable_marriage(h, device=DEV)
    assert res.size == 50
    assert res.counters["proposals"] <= 50 * 51 // 2
    # deterministic in the seed
    a, b = easy_instance(300, 7), easy_instance(300, 7)
    assert np.array_equal(a.mlist, b.mlist) and np.array_equal(a.wlist, b.wlist)


@pytest.mark.parametrize("n", [1, 2, 3, 7, 40, 2000])
def test_easy_instance_is_consistent(n):
    """The generator's lists have no repeats (dropped draws: frequent at small n) and its
    cross-references equal those the validating constructor computes from the lists."""
    for seed in range(4):
        inst = easy_instance(n, seed)
        ref = MarriageInstance.from_arrays(inst.mptr, inst.mlist, inst.wptr, inst.wlist)
        assert np.array_equal(ref.rank_w, inst.rank_w) and np.array_equal(ref.pos_m, inst.pos_m)
        for m in range(min(n, 50)):
            row = inst.mlist[inst.mptr[m]:inst.mptr[m + 1]]
            assert row.size == np.unique(row).size >= 1


def test_lemma_3_1_smi_of_a_graph_is_greedy():
    for seed, ties in ((0, False), (1, True), (2, True)):
        rng = np.random.default_rng(seed)
        n = 150
        u, v = rng.integers(0, n, 600), rng.integers(0, n, 600)
        a, b = np.minimum(u, v), np.maximum(u, v)
        keep = a != b
        a, b = a[keep], b[keep]
        _, first = np.unique(a * n + b, return_index=True)
        a, b = a[first], b[first]
        w = rng.integers(1, 4, a.size).astype(float) if ties else rng.random(a.size) + 0.01
        g = as_weighted_graph((a, b, w, n))
        inst = smi_from_graph(g)
        greedy = greedy_matching_sequential(g)
        for alg in ALGS:
            res = stable_marriage(inst, algorithm=alg, device=DEV)
            assert np.array_equal(res.wife, greedy)
            assert np.array_equal(res.husband, greedy)


def test_verifier_catches_blocking_pairs():
    men, women = random_smi(30, 30, 0.3, 8)
    inst = MarriageInstance(men, women)
    wife, husband = gale_shapley_sequential(inst)
    verify_stable_marriage(inst, wife, husband)
    m = int(np.flatnonzero(wife >= 0)[0])
    w2, h2 = wife.copy(), husband.copy()
    h2[w2[m]] = -1
    w2[m] = -1                                # divorce: the pair now blocks
    with pytest.raises(VerificationError, match="blocking"):
        verify_stable_marriage(inst, w2, h2)
    with pytest.raises(VerificationError):
        verify_stable_marriage(inst, wife, np.roll(husband, 1))


@pytest.mark.slow
@pytest.mark.parametrize("alg", ALGS)
def test_larger(alg):
    inst = easy_instance(200000, 11)
    wife, _ = gale_shapley_sequential(inst)
    assert np.array_equal(stable_marriage(inst, algorithm=alg, device=DEV).wife, wife)


@pytest.mark.gpu
@pytest.mark.parametrize("alg", ALGS)
def test_gpu(alg):
    for inst in (easy_instance(1 << 20, 1), hard_instance(2000, 2)):
        res = stable_marriage(inst, algorithm=alg, device="gpu")
        assert res.verified
    inst = easy_instance(100000, 3)
    assert np.array_equal(stable_marriage(inst, algorithm=alg, device="gpu").wife,
                          gale_shapley_sequential(inst)[0])


def test_inputs_not_modified_and_large_easy_generator():
    inst = easy_instance(20000, 5)
    mlist = inst.mlist.astype(np.int32)
    wlist = inst.wlist.astype(np.int32)
    mcopy, wcopy = mlist.copy(), wlist.copy()
    inst2 = MarriageInstance((inst.mptr.astype(np.int32), mlist),
                             (inst.wptr.astype(np.int32), wlist))
    assert np.array_equal(mlist, mcopy) and np.array_equal(wlist, wcopy)
    # the men's lists are in random (not sorted) order, and have no repeated women
    assert not all(np.all(np.diff(mlist[a:b]) > 0) for a, b in zip(inst.mptr[:50],
                                                                  inst.mptr[1:51]))
    assert np.array_equal(stable_marriage(inst2, device=DEV).wife,
                          gale_shapley_sequential(inst)[0])


@pytest.mark.parametrize("make", [lambda: easy_instance(3000, 2), lambda: hard_instance(40, 3)])
def test_generator_cross_references_match_validation(make):
    inst = make()
    checked = MarriageInstance.from_arrays(inst.mptr, inst.mlist, inst.wptr, inst.wlist)
    assert np.array_equal(inst.rank_w, checked.rank_w)
    assert np.array_equal(inst.pos_m, checked.pos_m)


def test_generator_limits():
    with pytest.raises(InputError, match="46340"):
        hard_instance(50000)
    with pytest.raises(InputError, match="positive"):
        easy_instance(0)
