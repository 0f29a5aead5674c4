"""Benchmark harness: ``pyclmatch bench`` / ``pyclmatch report``.

    pyclmatch bench --suite small --rcp both --algorithms all --devices all --baselines \
        --repeat 3 --out DIR --plots
    pyclmatch report DIR            # runtime.png, speedup.png, performance_profile.png

Every (graph, algorithm, device) combination: a device-memory estimate (skipped with a stated
reason when it would not fit: ``--memory-limit BYTES`` overrides the device's memory), a
warm-up run that builds the programs (``build_s``), then ``--repeat`` timed runs, each verified
on the host.  ``DIR/results.jsonl`` holds one record per run (fields
:data:`~pyclmatch.bench.harness.RECORD_KEYS`, ``schema`` = :data:`SCHEMA_VERSION`),
``DIR/meta.json`` the command, date, host and device list with each device's copy bandwidth
(``kernels/bench_copy.cl.mako``, measured once per device per run), ``DIR/summary.md`` the
median [min-max] of end-to-end and device seconds, kernel phases, edges/s and the fraction
of the measured bandwidth.

``--suite``: ``small``, ``medium``, ``large``/``reference`` (:mod:`pyclmatch.generators`) or a
folder of Matrix Market files; ``--rcp yes|both`` adds the random row/column permutations.
``--algorithms``: ``all``, family names (``bipartite``, ``weighted``, ``louvain``, ``leiden``,
``marriage``), ``family:algorithm`` or bare algorithm names, comma-separated.
``--devices``: ``all`` (every OpenCL device: a cross-vendor table), ``auto`` or specs.
``--baselines``: scipy / networkx / numpy references where installed, same graphs, same
process, with ``device="host"`` (exact families are checked against the device answer).

See :mod:`pyclmatch.bench.families` for the family adapter protocol (new families register an
adapter; the harness is unchanged).
"""
from .._lazy import attach

# imported on first use (pyclmatch._lazy): ``pyclmatch``'s command line adds the bench
# commands without importing the harness
__getattr__, __dir__ = attach(__name__, {
    "FAMILIES": ".families:FAMILIES", "register": ".families:register",
    "all_algorithms": ".families:all_algorithms", "RECORD_KEYS": ".harness:RECORD_KEYS",
    "SCHEMA_VERSION": ".harness:SCHEMA_VERSION", "run_bench": ".harness:run_bench",
    "measure_bandwidth": ".harness:measure_bandwidth",
    "add_bench_commands": ".cli:add_bench_commands"})

__all__ = ["FAMILIES", "register", "all_algorithms", "RECORD_KEYS", "SCHEMA_VERSION",
           "run_bench", "measure_bandwidth", "add_bench_commands"]
