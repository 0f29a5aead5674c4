"""The rule behind ``maximum_matching(algorithm="auto")``: cheap graph features and the
device's profile choose the family.

Features (:func:`features`, from the index pointer the matrix already has): ``edges``,
``rows``, ``cols``, ``max_degree``, ``dispersion`` (variance / mean of the stored side's
degrees: about 1 for uniform random graphs, at most ~0.3 for meshes, far above 1 for
power-law graphs) and ``shape``. The rule (:func:`rule`), per profile of :data:`PROFILES`
(``"gpu"``, ``"cpu"``, ``"cpu-many"``):

1. ``edges <= host_edges``: ``"host-hk"``, scipy's Hopcroft-Karp on the host, which ends
   before a device call's fixed cost of uploads, launches and read-backs;
2. ``edges <= one_group_edges``: ``small_family``, APFB whole in one work-group (one launch);
3. CPU devices, mesh-like graphs (``dispersion <= mesh_dispersion``), ``edges < ppf_edges``
   or a dispersion in PPF's band: ``"ppf"`` (parallel Pothen-Fan); but on many-core CPUs
   large random-like graphs (``edges >= graft_edges``, ``dispersion <= graft_dispersion``):
   ``graft_family`` (``"ptg"``, tree grafting);
4. GPUs, ``edges >= graft_edges``: ``graft_family`` (``"ptg"``); otherwise ``large_family``
   (APFB with GPUBFS-WR).

Graphs of at most ``race_edges`` edges sent to a device family also race the host family in
a worker process (:mod:`pyclmatch.bipartite.race`): no cheap feature tells the graphs the
host solves fast from those it does not. The thresholds are those the measured graphs of
``tests/data/choice_evidence.json`` support, which ``tests/test_choice.py`` checks; the
tuning cache (:mod:`pyclmatch.engine.tuning`) may override any of them per device, or fix
the algorithm (rule 0). ``res.choice`` records what was chosen and why.
"""
from ..engine import catalog
from ..engine.graphs import BipartiteGraph, as_bipartite, degree_stats
from ..engine.tuning import tuned_params
from .registry import HOST_FAMILY as HOST, algorithms
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
            "graft_edges": 1 << 20, "graft_family": "ptg",
            "large_family": "apfb-gpubfs-wr-mt"},
}

# CPU devices of at least MANY_CORES compute units: the "cpu" profile but that the race costs
# the device one core of many (host family alone only up to 2**15 edges, raced up to 2**18),
# and PPF's dispersion band reaches down to uniform random graphs, but for the large ones,
# which tree grafting takes (PPF's depth-first searches wander through a random graph's many
# short alternating paths; the grafted BFS forest does not)
PROFILES["cpu-many"] = dict(PROFILES["cpu"], host_edges=1 << 15, race_edges=1 << 18,
                            expander_dispersion=0.0, graft_edges=1 << 22,
                            graft_dispersion=2.0, graft_family="ptg")


def features(graph, degrees=True):
    """The cheap features of ``graph`` (a :class:`~pyclmatch.engine.graphs.BipartiteGraph`).
    The size and shape are O(1); ``degrees=False`` leaves out ``max_degree`` and
    ``dispersion`` (None), a pass over the n + 1 offsets on the host that the rule needs only
    on CPU devices (a GPU's call at millions of vertices would wait for it)."""
    feat = {"edges": int(graph.nnz), "rows": int(graph.n_rows), "cols": int(graph.n_cols),
            "max_degree": None, "dispersion": None,
            "shape": round(graph.n_rows / graph.n_cols, 4) if graph.n_cols else 0.0}
    if degrees:
        top, dispersion = degree_stats(graph.indptr)
        feat["max_degree"], feat["dispersion"] = top, round(dispersion, 4)
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
        ge, gd = prof.get("graft_edges"), prof.get("graft_dispersion")
        if ge is not None and d is not None and e >= ge and d <= gd:
            return prof["graft_family"], 3, (f"{e} edges >= graft_edges {ge} and degree "
                                             f"dispersion {d} <= {gd} (a large random-like "
                                             f"graph) on a many-core CPU device")
        if lo is not None and hi is not None and d is not None and lo < d <= hi:
            return prof["mesh_family"], 3, (f"degree dispersion {d} in ({lo}, {hi}]: "
                                            f"PPF's band on this device (above it "
                                            f"Kronecker-like graphs, below it random "
                                            f"expanders on few cores)")
    ge = prof.get("graft_edges")
    if device_type != "cpu" and ge is not None and e >= ge:
        return prof["graft_family"], 4, (f"{e} edges >= graft_edges {ge}: tree grafting, "
                                         f"the fastest family measured on large graphs of "
                                         f"this device type")
    degs = (f", degree dispersion {feat['dispersion']}, max degree {feat['max_degree']}"
            if feat.get("dispersion") is not None else "")
    return prof["large_family"], 4, f"{e} edges{degs}: the large-graph family of this device"


def raced(feat, prof, number):
    """Whether a call under rule ``number`` races the host's Hopcroft-Karp against the
    device family: device families (rules 2-4) on graphs of at most ``race_edges`` edges."""
    return number in (2, 3, 4) and 0 < feat["edges"] <= prof.get("race_edges", 0)


def _tuned_algorithm(handle):
    alg = tuned_params(handle, "bipartite").get("algorithm")
    return alg if alg in algorithms() else None


def choose(handle, graph, device_only=False):
    """The choice of ``"auto"`` on ``handle`` for ``graph`` (a
    :class:`~pyclmatch.engine.graphs.BipartiteGraph` or anything
    :func:`~pyclmatch.engine.graphs.as_bipartite` takes), as recorded in ``res.choice``.
    ``device_only``: a device family, neither the host family nor a race (for callers that
    need the matching on the device, such as the Dulmage-Mendelsohn decomposition)."""
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


def host_choice(spec, graph):
    """:func:`choose`'s record when every device that :func:`~pyclmatch.get_device` may
    select for the name ``spec`` (:func:`~pyclmatch.engine.devices.candidates`, their
    profiles and tuning entries) sends ``graph`` to the host family, else ``None``: the call
    is then answered on the host without a context or a build (the compiler check of
    device selection builds a program). The record is that of the first such device.

    The devices' facts come from the device cache (:mod:`pyclmatch.engine.catalog`) while it
    is valid, so that this answer loads no pyopencl; else they are enumerated (and cached).
    The tuning cache is read at every call.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from pyclmatch.bipartite.choice import host_choice
    >>> out = host_choice("cpu", sp.identity(4, format="csr"))
    >>> out is None or out["algorithm"] == "host-hk"
    True
    """
    infos = catalog.cached_candidates(spec) if isinstance(spec, (str, type(None))) else None
    if infos is None:
        from ..engine.devices import candidates   # (pyopencl: the devices enumerated)
        infos = candidates(spec)
    if not infos:
        return None
    first = None
    for info in infos:
        out = choose(info, graph)
        if out["algorithm"] != HOST or out.get("race"):
            return None
        first = first or out
    return first


def choose_algorithm(handle, graph=None, init_deficiency=None):
    """The algorithm ``"auto"`` runs on ``handle`` for ``graph`` (module docstring); without a
    graph, the device's large-graph family.

    Parameters
    ----------
    handle : pyclmatch.engine.devices.DeviceHandle
        The device (:func:`pyclmatch.get_device`).
    graph : scipy.sparse matrix/array or anything :func:`maximum_matching` takes, optional
    init_deficiency : ignored
        Not a feature of the rule: it is known only after the initial matching.

    Returns
    -------
    str
        A name from :func:`~pyclmatch.bipartite.algorithms`.

    Examples
    --------
    >>> import pyclmatch
    >>> from pyclmatch.bipartite import algorithms, choose_algorithm
    >>> h = pyclmatch.get_device("cpu")
    >>> choose_algorithm(h, pyclmatch.generators.grid(8)) in algorithms()
    True
    >>> choose_algorithm(h) in algorithms()
    True
    """
    if graph is None:
        return _tuned_algorithm(handle) or device_profile(handle)[0]["large_family"]
    return choose(handle, graph)["algorithm"]
