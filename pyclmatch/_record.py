"""The fields every result object shares: what ran, where, for how long, and whether its
answer was checked.

Examples
--------
>>> from dataclasses import dataclass
>>> from pyclmatch._record import RunRecord
>>> @dataclass
... class Sum(RunRecord):
...     total: int
>>> Sum(3, algorithm="add", device="host")
Sum(algorithm='add', device='host', timings={}, counters={}, verified=False, total=3)
"""
from dataclasses import dataclass, field


@dataclass(kw_only=True)
class RunRecord:
    """Base of the result classes: ``algorithm`` and ``device`` (what ran, where),
    ``timings`` (seconds per step and device seconds per ``kernel:<phase>``), ``counters``
    (launches, read-backs, iterations, ...) and ``verified`` (the certificate was checked).
    Keyword-only, so that each result's own fields come first in its constructor."""
    algorithm: str
    device: str
    timings: dict = field(default_factory=dict)
    counters: dict = field(default_factory=dict)
    verified: bool = False
