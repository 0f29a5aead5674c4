"""The connectivity certificate of a partition, on the device (``kernels/connectivity.cl.mako``)
or, for a small graph checked on the host, by scipy's connected components
(:func:`host_components`).

Every community of a Leiden answer must induce a connected subgraph (Traag, Waltman, van Eck,
Sci. Rep. 2019); a Louvain answer may hold communities that do not
(:attr:`~pyclmatch.community.api.LouvainResult.disconnected`). The components of every
community's induced subgraph are found on the input graph as uploaded (every stored entry an
edge) by a union-find pass over the edges inside communities and pointer jumping, then checked
by hooking passes until one changes nothing (usually the first), and counted per community,
by kernels that share nothing with the algorithms. One read-back per hooking pass (its
"changed" flag), one for the counts.
"""
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from ..engine.family import KernelFamily
from .dtypes import DEFAULT_WG

#: consecutive entries per work-item in the edge passes (``CHUNK`` of the kernels)
CHUNK = 16


@dataclass
class Components:
    """What the device found: ``components`` (connected components of the communities'
    induced subgraphs, all together), ``disconnected`` (communities of more than one
    component), ``labels`` (host array, a root vertex per vertex: two vertices have the same
    label iff they are connected inside their community), ``bad_labels`` (a label outside
    ``0..k-1``) and ``passes`` (edge passes: the union-find pass and the hooking passes)."""
    components: int
    disconnected: int
    labels: np.ndarray
    bad_labels: bool
    passes: int


class DeviceConnectivity(KernelFamily):
    """The connectivity kernels of one device.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> import pyclmatch
    >>> from pyclmatch.community.connectivity import DeviceConnectivity
    >>> from pyclmatch.community.modularity import InputGraph
    >>> from pyclmatch.engine.scheduler import Scheduler
    >>> h = pyclmatch.get_device("cpu")
    >>> A = nx.to_scipy_sparse_array(nx.path_graph(4), format="csr")
    >>> memb = h.to_device(np.array([0, 1, 1, 0], np.int32))    # {0, 3} is not connected
    >>> c = DeviceConnectivity(h).count(Scheduler(h), InputGraph.upload(h, A), memb, 2)
    >>> c.components, c.disconnected, c.labels.tolist()
    (3, 1, [0, 1, 1, 3])
    """

    TEMPLATE = "connectivity.cl.mako"

    def __init__(self, handle, wg=None):
        wg = int(wg or min(DEFAULT_WG.get(handle.type, 128), handle.max_work_group_size))
        super().__init__(handle, index_t="int", offset_t="int", mode="ct")
        self.wg = wg
        self.grid = max(wg, handle.constant_grid(wg))

    def count(self, sched, graph, memb, k, max_passes=None):
        """The components of the communities of ``memb`` (an int32 device array of
        ``graph.n`` labels in ``0..k-1``) in ``graph``
        (:class:`~pyclmatch.community.modularity.InputGraph`): a :class:`Components`.
        Launches under phase ``verify``."""
        n, wg = int(graph.n), self.wg
        grid = max(wg, min(self.grid, -(-max(n, 1) // wg) * wg))
        chunks = -(-int(graph.edges.size) // CHUNK)        # (work-items of the edge passes)
        egrid = max(wg, min(self.grid, -(-max(chunks, 1) // wg) * wg))
        L, out = self.handle.empty(max(n, 1)), self.handle.empty(4)
        host = np.zeros(4, np.int32)
        sched.launch("verify", self.kernel("components_init"), grid, wg, np.int32(n), L.data)
        sched.launch("verify", self.kernel("components_link"), egrid, wg, np.int32(n),
                     graph.vertices.data, graph.edges.data, memb.data, L.data)
        sched.launch("verify", self.kernel("components_jump"), grid, wg, np.int32(n), L.data)
        passes = 1
        while True:       # (check passes: the first one changes nothing after the link pass)
            sched.tick("connectivity passes", max_passes or 64 + 2 * n)
            passes += 1
            sched.fill("verify", out, 0)
            sched.launch("verify", self.kernel("components_hook"), egrid, wg, np.int32(n),
                         graph.vertices.data, graph.edges.data, memb.data, L.data, out.data)
            sched.launch("verify", self.kernel("components_jump"), grid, wg, np.int32(n),
                         L.data)
            sched.read("verify", host, out.data)
            if not host[0]:
                break
        roots = self.handle.empty(max(int(k), 1))
        sched.fill("verify", roots, 0)
        sched.launch("verify", self.kernel("components_count"), grid, wg, np.int32(n),
                     np.int32(k), memb.data, L.data, roots.data, out.data)
        sched.read("verify", host, out.data)
        labels = self.handle.download(L, np.int64)[:n]
        return Components(int(host[2]), int(host[1]), labels, bool(host[3]), passes)


def device_components(handle, sched, graph, memb, k, *, wg=None):
    """:meth:`DeviceConnectivity.count` on ``handle`` (work-group size ``wg``)."""
    return DeviceConnectivity(handle, wg).count(sched, graph, memb, k)


def host_components(A, memb, k):
    """What :meth:`DeviceConnectivity.count` finds, computed on the host with scipy (a small
    graph whose answer is checked on the host: no kernel to build): the components of the
    subgraphs that the communities of ``memb`` (``A.shape[0]`` labels) induce in the CSR
    matrix ``A`` (every stored entry an edge), each labelled by its smallest vertex as the
    device labels them.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from pyclmatch.community.connectivity import host_components
    >>> A = nx.to_scipy_sparse_array(nx.path_graph(4), format="csr")
    >>> c = host_components(A, np.array([0, 1, 1, 0]), 2)
    >>> c.components, c.disconnected, c.labels.tolist()
    (3, 1, [0, 1, 1, 3])
    """
    n = A.shape[0]
    memb = np.asarray(memb, np.int64)
    bad = bool(memb.size and (memb.min() < 0 or memb.max() >= k))
    rows = np.repeat(np.arange(n), np.diff(A.indptr))
    inside = memb[rows] == memb[A.indices]
    B = sp.csr_matrix((np.ones(int(inside.sum()), np.int8),
                       (rows[inside], A.indices[inside])), shape=(n, n))
    ncomp, lab = connected_components(B, directed=True, connection="weak")
    root = np.full(ncomp, n, np.int64)
    np.minimum.at(root, lab, np.arange(n))
    labels = root[lab]
    # components per community: the communities of the roots (L[v] == v), counted
    comps = np.bincount(memb[labels == np.arange(n)].clip(0, max(int(k), 1) - 1))
    return Components(int(ncomp), int((comps > 1).sum()), labels, bad, 0)
