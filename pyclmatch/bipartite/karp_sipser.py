"""Initial matchings on the device (``kernels/karp_sipser.cl.mako``): the cheap (greedy)
matching of paper 000 and parallel Karp-Sipser (paper 001's initial matching), degree-aware
through the heavy tier of :class:`~pyclmatch.bipartite.geometry.Launcher`.
"""
import numpy as np

from .geometry import Launcher


class InitialMatcher(Launcher):
    """Cheap matching and parallel Karp-Sipser rounds on one device graph."""

    TEMPLATE = "karp_sipser.cl.mako"

    def __init__(self, handle, dgraph, mode="ct", work_group_size=None, ct_work_items=None,
                 ks_rounds=32, heavy_degree=None, heavy_groups=None):
        super().__init__(handle, mode, work_group_size, ct_work_items, heavy_degree,
                         heavy_groups, **dgraph.type_values)
        self.dg = dgraph
        self.ks_rounds = int(ks_rounds)

    def prepare(self, init, sched=None):
        """Heavy lists of the sides ``init`` walks (columns; rows too for Karp-Sipser)."""
        if init == "none":
            return
        sides = ("cols", "rows") if init == "karp-sipser" else ("cols",)
        self.prepare_heavy(self.dg, sides, sched)

    def run(self, init, rmatch, cmatch, sched):
        """Enqueue the initial matching ``init`` ("karp-sipser", "cheap" or "none") on empty
        mates (``rmatch`` and ``cmatch`` all -1)."""
        if init == "none":
            return
        if init == "karp-sipser":
            self.karp_sipser(rmatch, cmatch, sched)
        self.cheap(rmatch, cmatch, sched)

    def cheap(self, rmatch, cmatch, sched):
        """One cheap pass: every unmatched column claims its first free row. It makes any
        initial matching maximal, and is the whole ``"cheap"`` init."""
        nc = np.int32(self.dg.graph.n_cols)
        self.launch(sched, "init", self.kernel("cheap_match"), "cols", nc,
                    self.dg.col_ptr.data, self.dg.col_ind.data, nc, rmatch.data, cmatch.data)

    def karp_sipser(self, rmatch, cmatch, sched):
        """Karp-Sipser rounds (degree-1 vertices first, then minimum degree) until a round
        matches nothing or ``ks_rounds`` are done, from empty mates: the first round's
        residual degrees are the degrees (``ks_degrees_first``, no edge read)."""
        g = self.dg.graph
        nr, nc = np.int32(g.n_rows), np.int32(g.n_cols)
        cdeg = self.empty(int(nc), self.dg.idt)       # (from the device's memory pool;
        rdeg = self.empty(int(nr), self.dg.idt)       # each round zeroes the flag)
        flags = self.empty(1, np.int32)
        host = np.zeros(1, np.int32)
        cols = (self.dg.col_ptr.data, self.dg.col_ind.data, nc, cmatch.data, rmatch.data)
        rows = (self.dg.row_ptr.data, self.dg.row_ind.data, nr, rmatch.data, cmatch.data)
        deg, deg1 = self.kernel("ks_degrees"), self.kernel("ks_match_deg1")
        mindeg, first = self.kernel("ks_match_mindeg"), self.kernel("ks_degrees_first")
        for rnd in range(self.ks_rounds):
            sched.fill("init", flags.data, 0)
            if rnd == 0:
                sched.launch("init", first, self.global_size(nc), self.wg,
                             self.dg.col_ptr.data, nc, cdeg.data)
                sched.launch("init", first, self.global_size(nr), self.wg,
                             self.dg.row_ptr.data, nr, rdeg.data)
            else:
                self.launch(sched, "init", deg, "cols", nc, *cols, cdeg.data)
                self.launch(sched, "init", deg, "rows", nr, *rows, rdeg.data)
            self.launch(sched, "init", deg1, "cols", nc, *cols, cdeg.data, flags.data)
            self.launch(sched, "init", deg1, "rows", nr, *rows, rdeg.data, flags.data)
            self.launch(sched, "init", mindeg, "cols", nc, *cols, rdeg.data, flags.data)
            if sched.read("init", host, flags.data)[0] == 0:
                break
