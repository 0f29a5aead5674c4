"""The rule behind ``maximum_matching(algorithm="auto")``: cheap graph features and the device's
profile choose the family.

Features (:func:`features`, O(n) on the host from the index pointer the user's matrix already
has): ``edges``, ``rows``, ``cols``, ``max_degree``, ``dispersion`` (variance / mean of the
degrees of the side the matrix stores: about 1 for uniform random graphs, whose degrees are
Poisson, at most ~0.3 for meshes and grids, far above 1 for power-law graphs; unlike the
coefficient of variation it does not drift with the average degree) and ``shape``
(rows / cols). Every result says what was chosen and why: ``res.algorithm`` and ``res.choice``
(``{"algorithm", "rule", "reason", "features", "profile"}``).

The rule, per device profile (:data:`PROFILES`: ``"gpu"``, ``"cpu"`` and ``"cpu-many"`` for
CPU devices of at least :data:`MANY_CORES` compute units, :func:`profile_kind`;
:func:`device_profile` applies the per-device tuning cache on top, see below):

1. ``edges <= host_edges`` (on CPU devices not for mesh-like graphs above
   ``one_group_edges``, see rule 3): ``"host-hk"``, scipy's compiled Hopcroft-Karp on the host
   with a König cover and its check (:mod:`pyclmatch.bipartite.host`): a device call has a
   fixed cost (uploads, launches, read-backs; about 4 ms on the H100 before the small path's
   two read-backs) that the host's whole work stays under on such graphs. H100
   (benchmarks/results/small-h100, whole calls): scipy took 0.15 to 0.9 ms on the eight
   graphs of 2764 to 6102 edges where the best device family took 3.3 to 6.8 ms; from 27622
   edges on, neither side wins by size: grid-100 (27622 edges) 11 ms on the host vs 6.6 on
   the device, rajat01 (43250) 0.5 vs 10.4, delaunay-13 1.4 vs 10, its RCP 17.9 vs 9.8,
   bcsstk13 (83883) 0.23 vs 6.5, facebook_combined (88234) 1993 vs 17, bayer10 (94926) 156 vs
   24. No cheap feature separates these: delaunay-13 and its random permutation have the
   same degrees (Hopcroft-Karp's greedy start depends on the order), and the degree
   dispersion and maximum degree of the host-fast graphs (rajat01 118 and 1442, bcsstk13 12
   and 95, 4elt 0.06 and 10) span those of the host-slow ones (facebook 69 and 1043, bayer10
   7.9 and 27, grid-100 0.3 and 4). A size rule alone does badly above 6102 edges: the best
   threshold by worst ratio leaves a 33x miss (4elt or bcsstk13 on the device) or a 115x
   one (facebook_combined on the host). Hence ``host_edges`` = 8192 on GPUs (confirmed by
   benchmarks/results/small-h100-2/host.md after the small path's cuts: the host family's
   whole call 0.8 to 1.7 ms vs the best device family's 1.6 to 4.5 ms up to 6102 edges,
   the device ahead on grid-100 and uniform-8192 from 27622 edges), and above it the device
   families, with the misses listed in :data:`KNOWN_MISSES`. PoCL (2 cores; the host
   family's whole call, with its cover and check,
   against the device families': EVIDENCE): the host wins up to 49146 edges on all graphs but
   uniform random ones (uniform-8192-d4: 7.7 ms vs 5.4 in one work-group) and meshes, where
   PPF does (grid-150, 62584 edges: host 18 ms, PPF 4.6 ms of device time; the 2 cores leave
   no room for a race), hence ``host_edges`` = 65536 and the mesh exception on CPU devices.
2. ``edges <= one_group_edges``: ``small_family``, which runs APFB whole in one work-group
   (``apfb_one_group``: one launch and one read-back for the whole augmentation, see
   :mod:`pyclmatch.bipartite.augmenting`). PoCL, 2 cores
   (benchmarks/results/small-pocl/one_group.md, whole call medians, one group vs the
   per-level launches of the same family): 1.1x to 1.9x faster on uniform, Kronecker, Delaunay
   and grid graphs from 626 to 45K edges, even from 65K to 100K, slower above (0.5x on
   grid-256, 183K edges). The PoCL medium-suite runs of PPF (the CPU's large-graph family)
   took 2 to 8 ms of device time on such graphs where the one group took 1 to 3 ms. GPUs: the
   same bound until a sweep on the device (``bench_small.py --one-group-sweep``) moves it;
   one SM walks the graph, so the bound is where a level's work per work-item reaches a
   launch plus a read-back.
3. CPU devices, ``dispersion <= mesh_dispersion`` or ``edges < ppf_edges``: ``"ppf"``
   (parallel Pothen-Fan). On 2-core PoCL, medium suite with and without RCP
   (benchmarks/results/families-pocl-medium), PPF was 2.7x to 7x faster than APFB on Delaunay
   meshes (dispersion 0.30) and grids (0.30) and the best device time on most shared graphs
   under 1e5 edges (benchmarks/results/small-pocl).
   Also PPF on CPU devices where ``expander_dispersion < dispersion <= powerlaw_dispersion``
   (2 to 100 on 2 cores, 0 to 100 with many cores): the shared real graphs of that band
   (arxiv-cit 20, astro-ph 30, WormNet 39, facebook 69) ran fastest under PPF, by 2.5x to 4x
   over APFB-WR-MT with 16 cores (benchmarks/results/auto-profile-pocl16-medium: arxiv-cit
   26 vs 64 ms, astro-ph 14 vs 41 ms whole) and by 1.0x to 1.4x on 2 cores
   (auto-profile-pocl-small/stop24); with 16 cores PPF also led on uniform random graphs
   (uniform-256K 74 vs 97 ms, auto-profile-pocl16-many), on 2 cores it did not (below).
4. Otherwise ``large_family``: on CPU devices ``"apfb-gpubfs-wr-mt"``, 1.4x to 1.8x ahead of
   PPF on uniform random (dispersion 1.0; 2 cores) and Kronecker graphs (dispersion > 100) of
   the medium suite, and on uniform 1M x 1M d4 (issue 15's case; 2-core PoCL, device
   seconds: APFB-MT 1.80, G-PR 2.29, APFB-CT 3.00, PPF 7.89, which the previous device-type
   rule chose); on GPUs
   ``"apfb-gpubfs-wr-mt"``, the fastest family or within 1.25x of it on 8 of 8 reference
   graphs on the H100 (benchmarks/results/families-h100), where G-PR was 1.3x to 12x slower
   and PPF 2.7x to 6x slower on uniform and Delaunay graphs.

The race: with a device family chosen (rules 2 to 4) and ``edges <= race_edges``, the call
hands the graph to the host family in a worker process (:mod:`pyclmatch.bipartite.race`: a
separate interpreter, since scipy's Hopcroft-Karp holds the GIL for its whole run, and a host
attempt in a thread stalled the device path behind it: on the H100, small-h100-2/host.md, a
raced facebook_combined took 2076 ms in a thread where the device family alone took 13.6 ms)
and runs the device family beside it. The device path looks at the worker before and after
each of its waits (read-backs, queue drains: blocking waits, as unraced calls wait), so the
host's answer is taken at the end of the device wait in progress
(``res.algorithm`` is the winner, ``res.device`` ``"host"`` when the host won,
``res.choice["race"]`` records the winner, the host's seconds and, for a call that was not
raced, why). A call races only when the worker is idle: the first call that wants a race
starts the worker and runs on the device alone while it starts (about 0.3 s); after a device
win the host attempt runs on, and calls meanwhile run on the device alone (a worker busy
longer than its start-up time is killed and restarted); after a host win the device work left
on the queue drains before the next raced call enqueues anything (the host answers meanwhile).
A race makes the graphs above ``host_edges`` that the host solves in a fraction of the
device's time (:data:`KNOWN_MISSES`) cost the host's time plus the hand-over (the lists copied
to shared memory, a message, the answer copied back; the worker checks the answer before it
replies, beside the device path), and the host-hard ones the device's time plus what the
host's computing beside it costs the device path (the worker runs at nice 10).
``race_edges`` = 0 on CPU devices of fewer than :data:`MANY_CORES` compute units: the device
family needs the cores the worker takes (2-core PoCL, ``bench_small.py --race``: delaunay-13
8.2 ms raced vs 7.1 ms with PPF alone, its RCP 25 vs 20 ms; benchmarks/results/race-cpu-pocl2:
host attempts starved beside PoCL's two threads at nice 0 and nice 10 alike). With many
cores (profile ``"cpu-many"``: ``race_edges`` = 2**18, ``host_edges`` = 2**15), PoCL on the
H100 host's 16 cores (benchmarks/results/race-cpu-pocl16): raced 4elt 3.5x -> 1.6x, bcsstk13
5.2x -> 1.7x, delaunay-13 3.4x -> 1.4x, uniform-16384-d3 (host alone) 2.7x -> 1.1x of the
best family, device wins 0.94x to 1.4x of the unraced call; over the medium suite with RCP
and every shared graph (benchmarks/results/auto-profile-pocl16-many) auto is within 1.3x of
the best family on 15 of 23 whole calls (65%, as before the race and the band) with a geometric
mean of 1.23 (was 1.40) and a worst of 2.5x (was 5.0x): facebook_combined, raced, where PPF
took 21 to 43 ms beside the worker's seconds-long host attempt and 10 ms alone (1.1x in a
run the same hour); host attempts beside PoCL's 16 threads also run slower than alone
(Groebner: APFB answered first, 1.9x the host family alone). A head start for the host (the
device path waiting 1 or 3 ms first) gained on host wins what it lost on device wins and is
not used. ``race_edges`` = 2**17 on GPUs: on the H100 (benchmarks/results/small-h100-race,
three runs of ``bench_small.py --race 131072``, ``auto`` with and without the race side by
side on the 24 graphs of up to 1e5 edges) the race took auto's worst ratio to the best of
host and device from 18.6x, 15.9x and 9.8x to 2.5x, 2.9x and 2.6x (4elt 31 -> 3.5 ms, bcsstk13
9.5 -> 3.4, rajat01 9.8 -> 2.4, delaunay-13 6.0 -> 3.1), at a geometric mean of 0.78, 0.78
and 0.73 of auto's time without it; later runs (run5, run5a, run6) 2.65x, 1.97x and
2.58x at 0.74, 0.74 and 0.72.
Raced calls the device wins, each from an idle worker (benchmarks/results/race-wait-h100):
facebook_combined 1.35x and bayer10 1.18x the unraced call (the worker at nice 10; 1.75x and
1.94x at nice 0). Over the reference suite with RCP and every shared graph
(benchmarks/results/auto-profile-h100) auto is within 1.3x of the best exact family on 18 of
23 whole calls, worst 1.82x (facebook_combined, raced). A tuning-cache ``"auto"`` entry sets
it per device (0: off).

The initial matching's deficiency is not a feature: it is known only after the initial
matching, which depends on the family's thread mode, and it did not separate PPF's bad cases
(random expanders) from its good ones (meshes), which have the same deficiencies.

:data:`EVIDENCE` lists the measured graphs behind the thresholds (features and device seconds
per family); ``tests/test_choice.py`` checks that the rule keeps choosing, on each of them, a
family within :data:`TOLERANCE` of the best on :data:`SHARE` of them and within
:data:`WORST` on all but :data:`KNOWN_MISSES`, so a threshold cannot move without its data
(the share is held on the 2-core rows; there kron-12 is the known near miss, PPF 1.7x behind
APFB-CT). The ``"cpu-many"`` rows (16 cores) meet 1.3x on 18 of their 27 graphs.

Per-device profile: ``examples/autotune.py`` stores a tuned ``"bipartite"`` entry
(``algorithm`` and its parameters) in the tuning cache (:mod:`pyclmatch.engine.tuning`); that
tuned algorithm replaces the rule (rule 0; APFB/APsB variants still run graphs up to
``one_group_edges`` in one work-group). An ``"auto"`` entry of the cache may override any key
of :data:`PROFILES` for the device (``host_edges`` and ``race_edges`` too: 0 turns the host
family or the race off). ``bench_small.py`` measures the crossover per device (``host.md``:
host family, best device family, ``auto``, and the worst ratio of every size threshold).
"""
import numpy as np

#: the host family (:mod:`pyclmatch.bipartite.host`)
HOST = "host-hk"
#: compute units from which a CPU device gets the ``"cpu-many"`` profile
MANY_CORES = 8

#: shipped defaults per device type ("cpu" for CPU devices such as PoCL, "gpu" for the rest)
PROFILES = {
    "cpu": {"host_edges": 1 << 16, "race_edges": 0,
            "one_group_edges": 1 << 15, "small_family": "apfb-gpubfs-wr-ct",
            "mesh_dispersion": 0.5, "ppf_edges": 1 << 17, "mesh_family": "ppf",
            "expander_dispersion": 2.0, "powerlaw_dispersion": 100.0,
            "large_family": "apfb-gpubfs-wr-mt"},
    "gpu": {"host_edges": 1 << 13, "race_edges": 1 << 17,
            "one_group_edges": 1 << 15, "small_family": "apfb-gpubfs-wr-mt",
            "mesh_dispersion": None, "ppf_edges": 0, "mesh_family": "ppf",
            "large_family": "apfb-gpubfs-wr-mt"},
}

# CPU devices of at least MANY_CORES compute units: the "cpu" profile but that the race costs
# the device one core of many (host family alone only up to 2**15 edges, raced up to 2**18),
# and PPF's dispersion band reaches down to uniform random graphs
PROFILES["cpu-many"] = dict(PROFILES["cpu"], host_edges=1 << 15, race_edges=1 << 18,
                            expander_dispersion=0.0)

#: evidence rows where the rule's family, not raced, is more than WORST behind the best
#: measured one, with the reason; tests/test_choice.py checks that the misses of the rows
#: the profile does not race are exactly these (a raced row counts the faster of host and
#: device, or its measured ``auto-race`` time). On GPUs: graphs above host_edges where
#: scipy's Hopcroft-Karp (host) needs under a third of the device call's time and no cheap
#: feature tells them from graphs where it needs 10 to 150x more (facebook_combined,
#: bayer10, grid-100): see rule 1 and the race above.
KNOWN_MISSES = {
    "gpu": {"bcsstk13.mtx": "host 0.23 ms vs device 6.5 ms", "4elt.graph": "host vs device "
            "BFS over a long-path mesh", "rajat01.mtx": "host 0.5 ms vs device 10 ms",
            "delaunay-13": "host 1.4 ms vs device 10 ms (its RCP: the device wins)",
            "kron-11-rcp": "host 2.3 ms vs device 13 ms", "kron-11": "host 2.4 ms vs 9.4 ms"},
    "cpu": {},
    "cpu-many": {"facebook_combined.txt": "raced, the device won: PPF took 21 to 43 ms beside "
                 "the worker's host attempt (seconds) where it takes 10 ms alone (1.1x in the "
                 "run before, auto-profile-pocl16-many's first run)"},
}

#: the issue's criterion, held on EVIDENCE per device type: the rule's family within TOLERANCE
#: of the best on at least SHARE of the graphs, and within WORST of it on every one
TOLERANCE, SHARE, WORST = 1.3, 0.9, 2.0

#: measured graphs behind the thresholds: (device, graph, features, {family: device seconds})
#: (PoCL: families-pocl-medium/results.md and small-pocl/one_group.md; H100:
#: families-h100/results.md). "apfb-one-group" is apfb-gpubfs-wr-ct run in one work-group.
EVIDENCE = [
    ("cpu", "uniform-256K-d4", {"edges": 1048567, "dispersion": 1.0, "max_degree": 16},
     {"apfb-gpubfs-wr-mt": 0.1480, "apfb-gpubfs-wr-ct": 0.2117, "gpr": 0.2015, "ppf": 0.2649}),
    ("cpu", "uniform-256K-d4-rcp", {"edges": 1048567, "dispersion": 1.0, "max_degree": 16},
     {"apfb-gpubfs-wr-mt": 0.0771, "apfb-gpubfs-wr-ct": 0.1194, "gpr": 0.1244, "ppf": 0.1395}),
    # issue 15's case (PoCL, 2 cores, device seconds, best of 2; the old rule chose PPF)
    ("cpu", "uniform-1M-d4", {"edges": 4194291, "dispersion": 1.0, "max_degree": 17},
     {"apfb-gpubfs-wr-mt": 1.796, "apfb-gpubfs-wr-ct": 3.000, "gpr": 2.289, "ppf": 7.893}),
    ("cpu", "kron-17", {"edges": 3728080, "dispersion": 898.6, "max_degree": 15768},
     {"apfb-gpubfs-wr-mt": 0.0257, "apfb-gpubfs-wr-ct": 0.0354, "gpr": 0.0522, "ppf": 0.0352}),
    ("cpu", "kron-17-rcp", {"edges": 3728080, "dispersion": 898.6, "max_degree": 15768},
     {"apfb-gpubfs-wr-mt": 0.0279, "apfb-gpubfs-wr-ct": 0.0349, "gpr": 0.0840, "ppf": 0.0451}),
    ("cpu", "delaunay-17", {"edges": 786362, "dispersion": 0.30, "max_degree": 18},
     {"apfb-gpubfs-wr-mt": 0.0564, "apfb-gpubfs-wr-ct": 0.0774, "gpr": 0.2046, "ppf": 0.0210}),
    ("cpu", "delaunay-17-rcp", {"edges": 786362, "dispersion": 0.30, "max_degree": 18},
     {"apfb-gpubfs-wr-mt": 0.1050, "apfb-gpubfs-wr-ct": 0.1141, "gpr": 0.3090, "ppf": 0.0413}),
    ("cpu", "grid-512", {"edges": 731672, "dispersion": 0.30, "max_degree": 4},
     {"apfb-gpubfs-wr-mt": 0.1933, "apfb-gpubfs-wr-ct": 0.3177, "gpr": 0.2241, "ppf": 0.0270}),
    ("cpu", "grid-512-rcp", {"edges": 731672, "dispersion": 0.30, "max_degree": 4},
     {"apfb-gpubfs-wr-mt": 0.0956, "apfb-gpubfs-wr-ct": 0.1451, "gpr": 0.2274, "ppf": 0.0368}),
    # small graphs, PoCL (whole-call ms / 1e3; the one-group column from one_group.md, the
    # others from the same machine's bench_small run, noisy host: medians of 3)
    ("cpu", "grid-96", {"edges": 25532, "dispersion": 0.3122, "max_degree": 4},
     {"host-hk": 0.00501, "apfb-one-group": 0.00628, "apfb-gpubfs-wr-ct": 0.01559, "ppf": 0.01346}),
    ("cpu", "kron-10", {"edges": 21002, "dispersion": 77.70, "max_degree": 471},
     {"host-hk": 0.00101, "apfb-one-group": 0.00279, "apfb-gpubfs-wr-ct": 0.00620, "ppf": 0.00823}),
    ("cpu", "uniform-8192-d4", {"edges": 32761, "dispersion": 1.0176, "max_degree": 13},
     {"host-hk": 0.0077, "apfb-one-group": 0.00536, "apfb-gpubfs-wr-ct": 0.01320, "ppf": 0.01187}),
    ("cpu", "delaunay-12", {"edges": 24520, "dispersion": 0.3213, "max_degree": 12},
     {"host-hk": 0.00093, "apfb-one-group": 0.00404, "apfb-gpubfs-wr-ct": 0.01379, "ppf": 0.00796}),
    # 32K to 131K edges, PoCL: device seconds (bench_small.py --device cpu --repeat 3, before
    # the one-group path; the files of shared/data/graphs and generated graphs)
    ("cpu", "4elt.graph", {"edges": 91756, "dispersion": 0.0559, "max_degree": 10},
     {"apfb-gpubfs-wr-mt": 0.03591, "apfb-gpubfs-wr-ct": 0.04833, "gpr": 0.03963, "ppf": 0.00495}),
    ("cpu", "PGPgiantcompo.graph", {"edges": 48632, "dispersion": 14.33, "max_degree": 205},
     {"host-hk": 0.00375,
      "apfb-gpubfs-wr-mt": 0.00604, "apfb-gpubfs-wr-ct": 0.00581, "gpr": 0.00641, "ppf": 0.0029}),
    ("cpu", "WormNet.v3", {"edges": 78736, "dispersion": 39.04, "max_degree": 247},
     {"apfb-gpubfs-wr-mt": 0.01472, "apfb-gpubfs-wr-ct": 0.01467, "gpr": 0.00729, "ppf": 0.00501}),
    ("cpu", "bayer10.mtx", {"edges": 94926, "dispersion": 7.855, "max_degree": 27},
     {"apfb-gpubfs-wr-mt": 0.03547, "apfb-gpubfs-wr-ct": 0.03276, "gpr": 0.04432, "ppf": 0.00512}),
    ("cpu", "bcsstk13.mtx", {"edges": 83883, "dispersion": 12.42, "max_degree": 95},
     {"apfb-gpubfs-wr-mt": 0.0064, "apfb-gpubfs-wr-ct": 0.00583, "gpr": 0.00481, "ppf": 0.0024}),
    ("cpu", "ca-condmat-cc1", {"edges": 91342, "dispersion": 17.64, "max_degree": 272},
     {"apfb-gpubfs-wr-mt": 0.00451, "apfb-gpubfs-wr-ct": 0.00672, "gpr": 0.01592, "ppf": 0.00502}),
    ("cpu", "facebook_combined", {"edges": 88234, "dispersion": 69.27, "max_degree": 1043},
     {"apfb-gpubfs-wr-mt": 0.01538, "apfb-gpubfs-wr-ct": 0.01494, "gpr": 0.03568, "ppf": 0.00882}),
    ("cpu", "rajat01.mtx", {"edges": 43250, "dispersion": 117.8, "max_degree": 1442},
     {"host-hk": 0.00093,
      "apfb-gpubfs-wr-mt": 0.01587, "apfb-gpubfs-wr-ct": 0.00641, "gpr": 0.01377, "ppf": 0.00758}),
    ("cpu", "uniform-16384-d3", {"edges": 49146, "dispersion": 1.010, "max_degree": 14},
     {"host-hk": 0.0209,
      "apfb-gpubfs-wr-mt": 0.02701, "apfb-gpubfs-wr-ct": 0.03363, "gpr": 0.07416, "ppf": 0.02539}),
    ("cpu", "uniform-16384-d3-rcp", {"edges": 49146, "dispersion": 1.010, "max_degree": 14},
     {"host-hk": 0.02319,
      "apfb-gpubfs-wr-mt": 0.05743, "apfb-gpubfs-wr-ct": 0.04434, "gpr": 0.06284, "ppf": 0.02422}),
    ("cpu", "kron-12", {"edges": 97194, "dispersion": 168.7, "max_degree": 1336},
     {"apfb-gpubfs-wr-mt": 0.0062, "apfb-gpubfs-wr-ct": 0.00448, "gpr": 0.0148, "ppf": 0.00779}),
    ("cpu", "kron-12-rcp", {"edges": 97194, "dispersion": 168.7, "max_degree": 1336},
     {"apfb-gpubfs-wr-mt": 0.00938, "apfb-gpubfs-wr-ct": 0.0078, "gpr": 0.01283, "ppf": 0.00926}),
    ("cpu", "delaunay-14", {"edges": 98256, "dispersion": 0.3078, "max_degree": 16},
     {"apfb-gpubfs-wr-mt": 0.01198, "apfb-gpubfs-wr-ct": 0.01986, "gpr": 0.01554, "ppf": 0.0054}),
    ("cpu", "delaunay-14-rcp", {"edges": 98256, "dispersion": 0.3078, "max_degree": 16},
     {"apfb-gpubfs-wr-mt": 0.01583, "apfb-gpubfs-wr-ct": 0.00735, "gpr": 0.01851, "ppf": 0.00587}),
    ("cpu", "grid-150", {"edges": 62584, "dispersion": 0.3011, "max_degree": 4},
     {"host-hk": 0.01845,
      "apfb-gpubfs-wr-mt": 0.02226, "apfb-gpubfs-wr-ct": 0.02154, "gpr": 0.02758, "ppf": 0.00461}),
    ("cpu", "grid-150-rcp", {"edges": 62584, "dispersion": 0.3011, "max_degree": 4},
     {"host-hk": 0.02436,
      "apfb-gpubfs-wr-mt": 0.01284, "apfb-gpubfs-wr-ct": 0.02639, "gpr": 0.05372, "ppf": 0.00807}),
    # PPF's dispersion band, 2-core PoCL (auto-profile-pocl-small/stop24, whole calls in s,
    # medians of 3 after a verified warm-up)
    ("cpu", "arxiv-cit-hep-th.txt.gz", {"edges": 352807, "dispersion": 20.0673, "max_degree": 562},
     {"apfb-gpubfs-wr-mt": 0.04025, "apfb-gpubfs-wr-ct": 0.05175, "gpr": 0.03856, "ppf": 0.03406,
      "host-hk": 0.11305}),
    ("cpu", "astro-ph.graph", {"edges": 242502, "dispersion": 30.4051, "max_degree": 360},
     {"apfb-gpubfs-wr-mt": 0.01709, "apfb-gpubfs-wr-ct": 0.02487, "gpr": 0.02539, "ppf": 0.017,
      "host-hk": 0.03336}),
    # CPU devices of many cores: PoCL on the H100 host's 16 cores (auto-profile-pocl16-many:
    # the medium suite with RCP and every shared graph, whole calls in seconds, medians of 3
    # after a verified warm-up; "auto-race": auto's measured time on the graphs it raced)
    ("cpu-many", "uniform-256K-d4", {"edges": 1048567, "dispersion": 0.9999, "max_degree": 16},
     {"apfb-gpubfs-wr-mt": 0.09578, "apfb-gpubfs-wr-ct": 0.09549, "gpr": 0.10455, "ppf": 0.08447,
      "host-hk": 0.70862}),
    ("cpu-many", "uniform-256K-d4-rcp", {"edges": 1048567, "dispersion": 0.9999, "max_degree": 16},
     {"apfb-gpubfs-wr-mt": 0.09477, "apfb-gpubfs-wr-ct": 0.09077, "gpr": 0.10534, "ppf": 0.08118,
      "host-hk": 0.76001}),
    ("cpu-many", "delaunay-17", {"edges": 786362, "dispersion": 0.3, "max_degree": 18},
     {"apfb-gpubfs-wr-mt": 0.06734, "apfb-gpubfs-wr-ct": 0.06472, "gpr": 0.21286, "ppf": 0.03373,
      "host-hk": 0.06006}),
    ("cpu-many", "delaunay-17-rcp", {"edges": 786362, "dispersion": 0.3, "max_degree": 18},
     {"apfb-gpubfs-wr-mt": 0.07351, "apfb-gpubfs-wr-ct": 0.07169, "gpr": 0.32373, "ppf": 0.03894}),
    ("cpu-many", "4elt.graph", {"edges": 91756, "dispersion": 0.0559, "max_degree": 10},
     {"apfb-gpubfs-wr-mt": 0.13604, "apfb-gpubfs-wr-ct": 0.12193, "gpr": 0.13984, "ppf": 0.01307,
      "host-hk": 0.00294, "auto-race": 0.00455}),
    ("cpu-many", "PGPgiantcompo.graph", {"edges": 48632, "dispersion": 14.3275, "max_degree": 205},
     {"apfb-gpubfs-wr-mt": 0.01297, "apfb-gpubfs-wr-ct": 0.01536, "gpr": 0.01731, "ppf": 0.00923,
      "host-hk": 0.00783, "auto-race": 0.0071}),
    ("cpu-many", "arxiv-cit-hep-th.txt.gz",
     {"edges": 352807, "dispersion": 20.0673, "max_degree": 562},
     {"apfb-gpubfs-wr-mt": 0.09144, "apfb-gpubfs-wr-ct": 0.0711, "gpr": 0.05161, "ppf": 0.03464,
      "host-hk": 0.19411}),
    ("cpu-many", "bayer10.mtx", {"edges": 94926, "dispersion": 7.855, "max_degree": 27},
     {"apfb-gpubfs-wr-mt": 0.13755, "apfb-gpubfs-wr-ct": 0.07437, "gpr": 0.09425, "ppf": 0.01134,
      "host-hk": 0.2105, "auto-race": 0.0136}),
    ("cpu-many", "ca-condmat-cc1.txt.gz",
     {"edges": 91342, "dispersion": 17.6372, "max_degree": 272},
     {"apfb-gpubfs-wr-mt": 0.01864, "apfb-gpubfs-wr-ct": 0.01411, "gpr": 0.02501, "ppf": 0.01088,
      "host-hk": 0.00651, "auto-race": 0.00871}),
    ("cpu-many", "delaunay_n16.mtx", {"edges": 393150, "dispersion": 0.3052, "max_degree": 17},
     {"apfb-gpubfs-wr-mt": 0.05639, "apfb-gpubfs-wr-ct": 0.0527, "gpr": 0.2001, "ppf": 0.02476,
      "host-hk": 0.01845}),
    ("cpu-many", "rajat01.mtx", {"edges": 43250, "dispersion": 117.8358, "max_degree": 1442},
     {"apfb-gpubfs-wr-mt": 0.02237, "apfb-gpubfs-wr-ct": 0.02863, "gpr": 0.02676, "ppf": 0.01616,
      "host-hk": 0.00159, "auto-race": 0.00259}),
    ("cpu-many", "wing.graph", {"edges": 243088, "dispersion": 0.0197, "max_degree": 4},
     {"apfb-gpubfs-wr-mt": 0.04939, "apfb-gpubfs-wr-ct": 0.04559, "gpr": 0.16255, "ppf": 0.01969,
      "host-hk": 0.17858, "auto-race": 0.02356}),
    ("cpu-many", "kron-17", {"edges": 3728080, "dispersion": 898.6, "max_degree": 15768},
     {"apfb-gpubfs-wr-mt": 0.06967, "apfb-gpubfs-wr-ct": 0.06991, "gpr": 0.08076, "ppf": 0.08806,
      "host-hk": 0.25738}),
    ("cpu-many", "kron-17-rcp", {"edges": 3728080, "dispersion": 898.6, "max_degree": 15768},
     {"apfb-gpubfs-wr-mt": 0.06806, "apfb-gpubfs-wr-ct": 0.06251, "gpr": 0.08306, "ppf": 0.0924,
      "host-hk": 0.33042}),
    ("cpu-many", "grid-512", {"edges": 731672, "dispersion": 0.3, "max_degree": 4},
     {"apfb-gpubfs-wr-mt": 0.13144, "apfb-gpubfs-wr-ct": 0.10541, "gpr": 0.22016, "ppf": 0.04259,
      "host-hk": 0.93179}),
    ("cpu-many", "grid-512-rcp", {"edges": 731672, "dispersion": 0.3, "max_degree": 4},
     {"apfb-gpubfs-wr-mt": 0.12903, "apfb-gpubfs-wr-ct": 0.11965, "gpr": 0.19716, "ppf": 0.04782}),
    ("cpu-many", "Groebner_id2003_aug.mtx",
     {"edges": 173670, "dispersion": 269.3369, "max_degree": 829},
     {"apfb-gpubfs-wr-mt": 0.00842, "apfb-gpubfs-wr-ct": 0.00848, "gpr": 0.01011, "ppf": 0.00926,
      "host-hk": 0.00509, "auto-race": 0.00966}),
    ("cpu-many", "WormNet.v3.benchmark.txt",
     {"edges": 78736, "dispersion": 39.044, "max_degree": 247},
     {"apfb-gpubfs-wr-mt": 0.05786, "apfb-gpubfs-wr-ct": 0.05572, "gpr": 0.04557, "ppf": 0.00932,
      "host-hk": 0.01467, "auto-race": 0.01003}),
    ("cpu-many", "astro-ph.graph", {"edges": 242502, "dispersion": 30.4051, "max_degree": 360},
     {"apfb-gpubfs-wr-mt": 0.04031, "apfb-gpubfs-wr-ct": 0.04154, "gpr": 0.04985, "ppf": 0.01361,
      "host-hk": 0.05673, "auto-race": 0.01625}),
    ("cpu-many", "bcsstk13.mtx", {"edges": 83883, "dispersion": 12.4177, "max_degree": 95},
     {"apfb-gpubfs-wr-mt": 0.02216, "apfb-gpubfs-wr-ct": 0.02334, "gpr": 0.01416, "ppf": 0.00798,
      "host-hk": 0.00145, "auto-race": 0.00241}),
    ("cpu-many", "delaunay_n15.graph", {"edges": 196548, "dispersion": 0.3063, "max_degree": 18},
     {"apfb-gpubfs-wr-mt": 0.03005, "apfb-gpubfs-wr-ct": 0.03119, "gpr": 0.08511, "ppf": 0.0123,
      "host-hk": 0.00788, "auto-race": 0.01047}),
    ("cpu-many", "facebook_combined.txt",
     {"edges": 88234, "dispersion": 69.2663, "max_degree": 1043},
     {"apfb-gpubfs-wr-mt": 0.0406, "apfb-gpubfs-wr-ct": 0.03727, "gpr": 0.04319, "ppf": 0.01003,
      "auto-race": 0.02512}),
    ("cpu-many", "wiki-Vote.txt", {"edges": 103689, "dispersion": 124.7351, "max_degree": 893},
     {"apfb-gpubfs-wr-mt": 0.00806, "apfb-gpubfs-wr-ct": 0.00825, "gpr": 0.01214, "ppf": 0.00865,
      "host-hk": 0.0169, "auto-race": 0.01051}),
    # the same machine, small graphs (race-cpu-pocl16: whole calls in seconds, medians of 5;
    # "auto-race": raced with race_edges 262144 and host_edges 8192)
    ("cpu-many", "uniform-16384-d3", {"edges": 49146, "dispersion": 1.0103, "max_degree": 14},
     {"apfb-gpubfs-wr-mt": 0.0714, "ppf": 0.01424, "host-hk": 0.04056, "auto-race": 0.0156}),
    ("cpu-many", "uniform-8192-d4", {"edges": 32761, "dispersion": 1.0176, "max_degree": 13},
     {"apfb-gpubfs-wr-mt": 0.00842, "ppf": 0.01376, "host-hk": 0.01397, "auto-race": 0.00933}),
    ("cpu-many", "grid-96", {"edges": 25532, "dispersion": 0.3122, "max_degree": 4},
     {"apfb-gpubfs-wr-mt": 0.00822, "ppf": 0.00895, "host-hk": 0.00934, "auto-race": 0.00851}),
    ("cpu-many", "kron-10", {"edges": 21002, "dispersion": 77.7027, "max_degree": 471},
     {"apfb-gpubfs-wr-mt": 0.00377, "ppf": 0.00699, "host-hk": 0.0019, "auto-race": 0.00259}),
    # H100, reference suite (families-h100/results.md, device seconds; the GPU rule reads
    # the size only: dispersion None where it was not measured)
    ("gpu", "kron-21", {"edges": 63538872, "dispersion": None, "max_degree": None},
     {"apfb-gpubfs-wr-ct": 0.0275, "apfb-gpubfs-wr-mt": 0.027, "gpr": 0.0454, "ppf": 0.0253}),
    ("gpu", "kron-21-rcp", {"edges": 63538872, "dispersion": None, "max_degree": None},
     {"apfb-gpubfs-wr-ct": 0.0279, "apfb-gpubfs-wr-mt": 0.0277, "gpr": 0.0406, "ppf": 0.0261}),
    ("gpu", "uniform-4M-d4", {"edges": 16777206, "dispersion": 1.0, "max_degree": None},
     {"apfb-gpubfs-wr-ct": 0.0547, "apfb-gpubfs-wr-mt": 0.0534, "gpr": 0.1125, "ppf": 0.3134}),
    ("gpu", "uniform-4M-d4-rcp", {"edges": 16777206, "dispersion": 1.0, "max_degree": None},
     {"apfb-gpubfs-wr-ct": 0.0551, "apfb-gpubfs-wr-mt": 0.0515, "gpr": 0.1047, "ppf": 0.3231}),
    ("gpu", "delaunay-21", {"edges": 12582834, "dispersion": 0.3, "max_degree": None},
     {"apfb-gpubfs-wr-ct": 0.0578, "apfb-gpubfs-wr-mt": 0.0539, "gpr": 0.6685, "ppf": 0.2414}),
    ("gpu", "delaunay-21-rcp", {"edges": 12582834, "dispersion": 0.3, "max_degree": None},
     {"apfb-gpubfs-wr-ct": 0.0916, "apfb-gpubfs-wr-mt": 0.0868, "gpr": 0.7806, "ppf": 0.2309}),
    ("gpu", "grid-2048", {"edges": 11741556, "dispersion": 0.3, "max_degree": None},
     {"apfb-gpubfs-wr-ct": 0.0562, "apfb-gpubfs-wr-mt": 0.0526, "gpr": 0.1764, "ppf": 0.042}),
    ("gpu", "grid-2048-rcp", {"edges": 11741556, "dispersion": 0.3, "max_degree": None},
     {"apfb-gpubfs-wr-ct": 0.0491, "apfb-gpubfs-wr-mt": 0.045, "gpr": 0.1326, "ppf": 0.0467}),
    # H100, small graphs (benchmarks/results/small-h100, whole calls in seconds from the
    # user's CSR with verify=True, medians of 5, before the two-read-back small path):
    # "host-hk" = scipy's Hopcroft-Karp (the host family adds its cover and check, ~0.3 ms),
    # "apfb-gpubfs-wr-mt" = what auto ran (one work-group up to 32768 edges), and the best
    # other device family when faster. Raced rows count the faster of host and device
    # (tests/test_choice.py) until an "auto-race" column is measured (bench_small.py host.md).
    ("gpu", "grid-32", {"edges": 2764, "dispersion": 0.3124, "max_degree": 4},
     {"host-hk": 0.00047, "apfb-gpubfs-wr-mt": 0.00464, "apfb-gpubfs-mt": 0.00454}),
    ("gpu", "grid-32-rcp", {"edges": 2764, "dispersion": 0.3124, "max_degree": 4},
     {"host-hk": 0.00046, "apfb-gpubfs-wr-mt": 0.00723, "apsb-gpubfs-mt": 0.00681}),
    ("gpu", "uniform-1024-d4", {"edges": 4085, "dispersion": 0.9721, "max_degree": 12},
     {"host-hk": 0.00087, "apfb-gpubfs-wr-mt": 0.00428, "apsb-gpubfs-ct": 0.00386}),
    ("gpu", "uniform-1024-d4-rcp", {"edges": 4085, "dispersion": 0.9721, "max_degree": 12},
     {"host-hk": 0.00082, "apfb-gpubfs-wr-mt": 0.00683, "apsb-gpubfs-wr-ct": 0.00469}),
    ("gpu", "kron-8", {"edges": 4262, "dispersion": 32.09, "max_degree": 166},
     {"host-hk": 0.00018, "apfb-gpubfs-wr-mt": 0.00517, "apsb-gpubfs-wr-mt": 0.00327}),
    ("gpu", "kron-8-rcp", {"edges": 4262, "dispersion": 32.09, "max_degree": 166},
     {"host-hk": 0.00015, "apfb-gpubfs-wr-mt": 0.00664, "apsb-gpubfs-wr-mt": 0.00626}),
    ("gpu", "delaunay-10", {"edges": 6102, "dispersion": 0.3016, "max_degree": 11},
     {"host-hk": 0.00021, "apfb-gpubfs-wr-mt": 0.00482, "apsb-gpubfs-wr-ct": 0.00422}),
    ("gpu", "delaunay-10-rcp", {"edges": 6102, "dispersion": 0.3016, "max_degree": 11},
     {"host-hk": 0.00073, "apfb-gpubfs-wr-mt": 0.00681, "apsb-gpubfs-mt": 0.00654}),
    ("gpu", "grid-100", {"edges": 27622, "dispersion": 0.3106, "max_degree": 4},
     {"host-hk": 0.01096, "apfb-gpubfs-wr-mt": 0.00656}),
    ("gpu", "grid-100-rcp", {"edges": 27622, "dispersion": 0.3106, "max_degree": 4},
     {"host-hk": 0.01674, "apfb-gpubfs-wr-mt": 0.00942, "apfb-gpubfs-wr-ct": 0.00902}),
    ("gpu", "uniform-8192-d4", {"edges": 32761, "dispersion": 1.0176, "max_degree": 13},
     {"host-hk": 0.01308, "apfb-gpubfs-wr-mt": 0.00532, "apsb-gpubfs-wr-ct": 0.00541}),
    ("gpu", "uniform-8192-d4-rcp", {"edges": 32761, "dispersion": 1.0176, "max_degree": 13},
     {"host-hk": 0.01295, "apfb-gpubfs-wr-mt": 0.00738, "apfb-gpubfs-wr-ct": 0.00726}),
    ("gpu", "rajat01.mtx", {"edges": 43250, "dispersion": 117.8, "max_degree": 1442},
     {"host-hk": 0.00051, "apfb-gpubfs-wr-mt": 0.01132, "apsb-gpubfs-ct": 0.01038}),
    ("gpu", "kron-11", {"edges": 45468, "dispersion": 115.7, "max_degree": 760},
     {"host-hk": 0.00236, "apfb-gpubfs-wr-mt": 0.00942, "ppf": 0.00849}),
    ("gpu", "kron-11-rcp", {"edges": 45468, "dispersion": 115.7, "max_degree": 760},
     {"host-hk": 0.00233, "apfb-gpubfs-wr-mt": 0.01301, "ppf": 0.0117}),
    ("gpu", "PGPgiantcompo.graph", {"edges": 48632, "dispersion": 14.33, "max_degree": 205},
     {"host-hk": 0.00431, "apfb-gpubfs-wr-mt": 0.00638}),
    ("gpu", "delaunay-13", {"edges": 49108, "dispersion": 0.3104, "max_degree": 13},
     {"host-hk": 0.00141, "apfb-gpubfs-wr-mt": 0.01018}),
    ("gpu", "delaunay-13-rcp", {"edges": 49108, "dispersion": 0.3104, "max_degree": 13},
     {"host-hk": 0.01785, "apfb-gpubfs-wr-mt": 0.01232, "apfb-gpubfs-wr-ct": 0.0098}),
    ("gpu", "WormNet.v3", {"edges": 78736, "dispersion": 39.04, "max_degree": 247},
     {"host-hk": 0.01304, "apfb-gpubfs-wr-mt": 0.01486, "gpr-first": 0.01356}),
    ("gpu", "bcsstk13.mtx", {"edges": 83883, "dispersion": 12.42, "max_degree": 95},
     {"host-hk": 0.00023, "apfb-gpubfs-wr-mt": 0.0081, "ppf": 0.00648}),
    ("gpu", "facebook_combined", {"edges": 88234, "dispersion": 69.27, "max_degree": 1043},
     {"host-hk": 1.99342, "apfb-gpubfs-wr-mt": 0.02347, "gpr-first": 0.01734}),
    ("gpu", "ca-condmat-cc1", {"edges": 91342, "dispersion": 17.64, "max_degree": 272},
     {"host-hk": 0.00352, "apfb-gpubfs-wr-mt": 0.00686, "apfb-gpubfs-ct": 0.00548}),
    ("gpu", "4elt.graph", {"edges": 91756, "dispersion": 0.0559, "max_degree": 10},
     {"host-hk": 0.00129, "apfb-gpubfs-wr-mt": 0.04229, "ppf": 0.03045}),
    ("gpu", "bayer10.mtx", {"edges": 94926, "dispersion": 7.855, "max_degree": 27},
     {"host-hk": 0.15641, "apfb-gpubfs-wr-mt": 0.02525}),
]


def _degrees(graph):
    ptr = np.asarray(graph.indptr)
    return np.diff(ptr).astype(np.float64) if ptr.size > 1 else np.zeros(0)


def features(graph, degrees=True):
    """The cheap features of ``graph`` (a :class:`~pyclmatch.engine.graphs.BipartiteGraph`).
    The size and shape are O(1); ``degrees=False`` leaves out ``max_degree`` and
    ``dispersion`` (None), a pass over the n + 1 offsets on the host that the rule needs only
    on CPU devices and that costs a GPU's whole call tens of milliseconds at millions of
    vertices."""
    feat = {"edges": int(graph.nnz), "rows": int(graph.n_rows), "cols": int(graph.n_cols),
            "max_degree": None, "dispersion": None,
            "shape": round(graph.n_rows / graph.n_cols, 4) if graph.n_cols else 0.0}
    if degrees:
        deg = _degrees(graph)
        mean = float(deg.mean()) if deg.size else 0.0
        feat["max_degree"] = int(deg.max()) if deg.size else 0
        feat["dispersion"] = round(float(deg.var()) / mean, 4) if mean > 0 else 0.0
    return feat


def profile_kind(handle):
    """The key of :data:`PROFILES` for ``handle``: ``"gpu"`` for every device but CPUs,
    ``"cpu-many"`` for CPU devices of at least :data:`MANY_CORES` compute units, else
    ``"cpu"``."""
    if handle.type != "cpu":
        return "gpu"
    return "cpu-many" if (getattr(handle, "compute_units", 0) or 0) >= MANY_CORES else "cpu"


def device_profile(handle):
    """(profile dict, source): the shipped defaults of the device's kind
    (:func:`profile_kind`), with the keys of the tuning cache's ``"auto"`` entry for this
    device on top (:mod:`pyclmatch.engine.tuning`)."""
    from ..engine.tuning import tuned_params
    kind = profile_kind(handle)
    prof = dict(PROFILES[kind])
    source = f"shipped {kind} defaults"
    over = {k: v for k, v in tuned_params(handle, "auto").items() if k in prof}
    if over:
        prof.update(over)
        source += " + tuning cache (auto)"
    return prof, source


def rule(feat, prof, device_type, tuned_algorithm=None):
    """(algorithm, rule number, reason) for features ``feat`` under profile ``prof``."""
    e = feat["edges"]
    if tuned_algorithm:
        return tuned_algorithm, 0, ("the algorithm examples/autotune.py stored for this "
                                    "device (APFB/APsB still run graphs of <= "
                                    f"{prof['one_group_edges']} edges in one work-group)")
    if e == 0:
        return prof["small_family"], 2, "no edges: nothing to launch"
    md = prof.get("mesh_dispersion")
    mesh = (device_type == "cpu" and md is not None and e > prof["one_group_edges"]
            and feat.get("dispersion") is not None and feat["dispersion"] <= md)
    if e <= prof.get("host_edges", 0) and not mesh:
        return HOST, 1, (f"{e} edges <= host_edges {prof['host_edges']}: Hopcroft-Karp on "
                         f"the host (scipy) ends before a device call's fixed cost")
    if e <= prof["one_group_edges"]:
        return prof["small_family"], 2, (f"{e} edges <= one_group_edges "
                                         f"{prof['one_group_edges']}: APFB in one work-group")
    if device_type == "cpu":
        if mesh:
            return prof["mesh_family"], 3, (f"degree dispersion {feat['dispersion']} <= {md} "
                                            f"(mesh-like) on a CPU device")
        if e < prof.get("ppf_edges", 0):
            return prof["mesh_family"], 3, (f"{e} edges < ppf_edges {prof['ppf_edges']} "
                                            f"on a CPU device")
        lo, hi = prof.get("expander_dispersion"), prof.get("powerlaw_dispersion")
        d = feat.get("dispersion")
        if lo is not None and hi is not None and d is not None and lo < d <= hi:
            return prof["mesh_family"], 3, (f"degree dispersion {d} in ({lo}, {hi}]: "
                                            f"PPF's band on this device (above it "
                                            f"Kronecker-like graphs, below it random "
                                            f"expanders on few cores)")
    degs = (f", degree dispersion {feat['dispersion']}, max degree {feat['max_degree']}"
            if feat.get("dispersion") is not None else "")
    return prof["large_family"], 4, f"{e} edges{degs}: the large-graph family of this device"


def raced(feat, prof, number):
    """Whether a call under rule ``number`` races the host's Hopcroft-Karp against the
    device family: device families (rules 2-4) on graphs of at most ``race_edges`` edges."""
    return number in (2, 3, 4) and 0 < feat["edges"] <= prof.get("race_edges", 0)


def _tuned_algorithm(handle):
    from ..engine.tuning import tuned_params
    from .api import algorithms
    alg = tuned_params(handle, "bipartite").get("algorithm")
    return alg if alg in algorithms() else None


def choose(handle, graph, device_only=False):
    """The choice of ``"auto"`` on ``handle`` for ``graph`` (a
    :class:`~pyclmatch.engine.graphs.BipartiteGraph` or anything
    :func:`~pyclmatch.engine.graphs.as_bipartite` takes), as recorded in ``res.choice``.
    ``device_only``: a device family, neither the host family nor a race (for callers that
    need the matching on the device, such as the Dulmage-Mendelsohn decomposition)."""
    from ..engine.graphs import BipartiteGraph, as_bipartite
    if not isinstance(graph, BipartiteGraph):
        graph = as_bipartite(graph)
    prof, source = device_profile(handle)
    if device_only:
        prof.update(host_edges=0, race_edges=0)
    dtype = "cpu" if handle.type == "cpu" else "gpu"
    feat = features(graph, degrees=dtype == "cpu" and graph.nnz > prof["one_group_edges"])
    alg, number, reason = rule(feat, prof, dtype, _tuned_algorithm(handle))
    out = {"algorithm": alg, "rule": number, "reason": reason, "features": feat,
           "profile": source, "one_group_edges": prof["one_group_edges"]}
    if raced(feat, prof, number):
        out["race"] = HOST
        out["reason"] += (f"; raced against {HOST} on the host ({feat['edges']} edges <= "
                          f"race_edges {prof['race_edges']}: the first to finish answers)")
    return out


def choose_algorithm(handle, graph=None, init_deficiency=None):
    """The algorithm ``"auto"`` runs on ``handle`` for ``graph`` (module docstring); without a
    graph, the device's large-graph family."""
    if graph is None:
        return _tuned_algorithm(handle) or device_profile(handle)[0]["large_family"]
    return choose(handle, graph)["algorithm"]
