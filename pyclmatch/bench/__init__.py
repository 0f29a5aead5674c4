"""Benchmark harness: ``pyclmatch bench`` / ``pyclmatch report``.

See :mod:`pyclmatch.bench.families` for the family adapter protocol (new families register an
adapter; the harness is unchanged) and :mod:`pyclmatch.bench.harness` for the record schema.
"""
from .families import FAMILIES, register, all_algorithms
from .harness import RECORD_KEYS, SCHEMA_VERSION, run_bench, measure_bandwidth
from .cli import add_bench_commands

__all__ = ["FAMILIES", "register", "all_algorithms", "RECORD_KEYS", "SCHEMA_VERSION",
           "run_bench", "measure_bandwidth", "add_bench_commands"]
