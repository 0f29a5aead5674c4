"""Type aliases of the public API (annotations only: nothing here is checked at run time).

``GraphInput``: what the graph families take: a scipy.sparse matrix or array, a dense
array-like, edge arrays, a networkx or igraph graph, a pandas edge-list DataFrame or a
converted :class:`pyclmatch.nxbackend.PyclGraph` (each family's docstring says which).
``DeviceSpec``: what ``device=`` takes (see :func:`pyclmatch.get_device`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Union

if TYPE_CHECKING:     # (annotations only: pyopencl is imported when a device is needed)
    import pyopencl as cl

GraphInput = Any
#: a name ("auto", "gpu", "cpu", "P:D", a substring), a pyopencl device or context, or a
#: :class:`~pyclmatch.engine.devices.DeviceHandle` (the Any)
DeviceSpec = Union[str, None, "cl.Device", "cl.Context", Any]
Progress = Union[bool, None, Callable[..., Any]]

__all__ = ["GraphInput", "DeviceSpec", "Progress"]
