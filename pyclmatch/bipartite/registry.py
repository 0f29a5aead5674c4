"""The names ``maximum_matching(algorithm=...)`` accepts, and the families behind them.

The built-in families are listed here by module (:data:`BUILTIN`: ``apfb``, ``gpr``,
``ppf``, ``ptg``, ``host``) and imported on the first lookup of one of their names
(:func:`factory_of`): a call answered by the host family loads no device family, nor
pyopencl. Each family module registers its names (:func:`register_algorithm`) when it is
imported; users register theirs the same way. :mod:`~pyclmatch.bipartite.api`,
:mod:`~pyclmatch.bipartite.choice` and :mod:`~pyclmatch.bipartite.dmperm` look them up. This
module imports only the package's leaf modules (the errors and the argument checker), so that
the lookups form no import cycle.

A factory is called as ``factory(handle, dgraph, name, **params)`` and returns a runner with
``build()`` and ``run(rmatch, cmatch, sched) -> (bfs_array or None, stats)``; its class
attributes are ``needs_csr`` (upload the row lists too), ``params`` (accepted parameter
names) and ``device_bytes(graph, name)`` (bytes of its work buffers, for the memory check);
``host = True`` marks a family that runs on the host. :data:`PARAMS` says how each
parameter a registered family takes is checked (:mod:`pyclmatch.engine.args`) before any work.
"""
import functools
import importlib

from ..engine import args
from ..errors import InputError

#: the registered name of the host family (:mod:`pyclmatch.bipartite.host`)
HOST_FAMILY = "host-hk"

#: the augmenting-path variants of paper 000: driver, BFS kernel, thread mode
DRIVERS = ("apfb", "apsb")
BFS_KERNELS = ("gpubfs", "gpubfs-wr")
THREAD_MODES = ("ct", "mt")
AUGMENTING_VARIANTS = tuple(f"{d}-{b}-{m}" for d in DRIVERS for b in BFS_KERNELS
                            for m in THREAD_MODES)
#: the initial matchings (:mod:`pyclmatch.bipartite.karp_sipser`)
INITS = ("karp-sipser", "cheap", "none")
#: short names: the best variant of each driver
ALIASES = {"apfb": "apfb-gpubfs-wr-mt", "apsb": "apsb-gpubfs-wr-mt"}
#: the variant that computes the König cover for families whose result carries none: one
#: alternating BFS from the unmatched columns (it augments further only if the matching was
#: not maximum, which ``counters["cover_phases"]`` then reports)
CERTIFICATE_VARIANT = "apfb-gpubfs-wr-ct"

#: the push-relabel variants (paper 003) and their relabel strategies
GPR_VARIANTS = {"gpr": "shr", "gpr-shr": "shr", "gpr-noshr": "noshr", "gpr-first": "first"}
#: the built-in families: module -> the names it registers when imported
BUILTIN = {"pyclmatch.bipartite.apfb": AUGMENTING_VARIANTS,
           "pyclmatch.bipartite.gpr": tuple(GPR_VARIANTS),
           "pyclmatch.bipartite.ppf": ("ppf",), "pyclmatch.bipartite.ptg": ("ptg",),
           "pyclmatch.bipartite.host": (HOST_FAMILY,)}

#: name -> factory, or the module that registers it when imported (a built-in not yet used)
_ALGORITHMS = {name: module for module, names in BUILTIN.items() for name in names}

#: the checker of every parameter of the matching families (their ``params``) and of the
#: initial matching; ``work_group_size`` is checked against the device once it is known
#: (every size from 1 up runs: the kernels have no tree reduction over the group)
PARAMS = {
    "work_group_size": args.work_group_size, "ct_work_items": args.count,
    "batch_levels": args.batch, "heavy_degree": args.signed, "heavy_groups": args.count,
    "one_group_edges": args.size,
    "ks_rounds": functools.partial(args.integer, low=0, high=args.INT32_MAX, none=True),
    "k": functools.partial(args.number, low=0, low_open=True, none=True),
    "relabel": functools.partial(args.choice, options=("adaptive", "fixed")),
    "shrink_threshold": functools.partial(args.integer, low=0, high=args.INT32_MAX),
    "batch": args.batch, "work_items": args.count, "stack_bytes": args.count,
    "mode": functools.partial(args.choice, options=THREAD_MODES, none=True),
    "alpha": functools.partial(args.number, low=0, low_open=True, none=True),
}


def register_algorithm(name, factory):
    """Make ``factory`` selectable as ``maximum_matching(..., algorithm=name)``.

    Parameters
    ----------
    name : str
        The algorithm's name (case-insensitive).
    factory : callable
        ``factory(handle, dgraph, name, **params)``, with the class attributes the module
        docstring lists.

    Examples
    --------
    >>> from pyclmatch.bipartite import register_algorithm, algorithms
    >>> from pyclmatch.bipartite.ppf import PothenFanMatcher
    >>> register_algorithm("my-ppf", PothenFanMatcher)
    >>> "my-ppf" in algorithms()
    True
    >>> from pyclmatch.bipartite.registry import unregister_algorithm
    >>> unregister_algorithm("my-ppf")
    """
    _ALGORITHMS[name.lower()] = factory


def unregister_algorithm(name):
    """Remove ``name`` from the registry (no error if it is not there)."""
    _ALGORITHMS.pop(name.lower(), None)


def algorithms():
    """Names accepted by ``maximum_matching(algorithm=...)`` besides ``"auto"`` and the short
    names of :data:`ALIASES`.

    Examples
    --------
    >>> from pyclmatch.bipartite import algorithms
    >>> "apfb-gpubfs-wr-mt" in algorithms() and "gpr" in algorithms()
    True
    """
    return tuple(_ALGORITHMS)


def accepted_names():
    """Every name ``algorithm=`` accepts: ``"auto"``, the short names, the registered ones."""
    return ("auto",) + tuple(ALIASES) + algorithms()


def canonical_name(algorithm):
    """The registered name (or ``"auto"``) that ``algorithm`` (a string) stands for; raises
    :class:`~pyclmatch.errors.InputError` listing every accepted name when there is none
    (a value that is not a string, None included, is refused the same way).

    Examples
    --------
    >>> from pyclmatch.bipartite.registry import canonical_name
    >>> canonical_name("APFB"), canonical_name(" auto")
    ('apfb-gpubfs-wr-mt', 'auto')
    """
    name = ALIASES.get(algorithm.strip().lower(), algorithm.strip().lower()) \
        if isinstance(algorithm, str) else None
    if name != "auto" and name not in _ALGORITHMS:
        args.refuse("algorithm", algorithm, "one of " + ", ".join(map(repr, accepted_names())))
    return name


def factory_of(name):
    """The factory registered under the canonical ``name``; a built-in family's module is
    imported on the first lookup of one of its names.

    Examples
    --------
    >>> from pyclmatch.bipartite.registry import factory_of
    >>> factory_of("host-hk").host
    True
    """
    factory = _ALGORITHMS[name]
    if isinstance(factory, str):
        importlib.import_module(factory)     # (registers its names)
        factory = _ALGORITHMS[name]
    return factory


def is_host(name):
    """Whether the family registered as ``name`` runs on the host (no device)."""
    return name in _ALGORITHMS and bool(getattr(factory_of(name), "host", False))


def device_families():
    """The registered names of the families that run on a device."""
    return tuple(n for n in _ALGORITHMS if not is_host(n))


def parse_variant(name):
    """``"apfb-gpubfs-wr-ct"`` -> ``("apfb", True, "ct")`` (driver, with root array, mode).

    Examples
    --------
    >>> from pyclmatch.bipartite.registry import parse_variant
    >>> parse_variant("apsb-gpubfs-mt")
    ('apsb', False, 'mt')
    """
    parts = name.lower().split("-")
    if len(parts) not in (3, 4) or parts[0] not in DRIVERS or parts[1] != "gpubfs" \
            or parts[-1] not in THREAD_MODES or (len(parts) == 4 and parts[2] != "wr"):
        raise ValueError(name)
    return parts[0], len(parts) == 4, parts[-1]
