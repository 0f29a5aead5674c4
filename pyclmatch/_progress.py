"""A plain-text progress bar on stderr (a leaf module: the bench harness and
:func:`pyclmatch.distributed.map_graphs` draw it)."""
import sys
import time

__all__ = ["Progress"]


class Progress:
    """Plain-text progress bar on stderr: ``step(label)`` after each of ``total`` items.

    Examples
    --------
    >>> import io
    >>> from pyclmatch._progress import Progress
    >>> out = io.StringIO()
    >>> bar = Progress(2, stream=out)
    >>> bar.step("first"); bar.step("second")
    >>> out.getvalue().count("/2 "), out.getvalue().endswith("\\n")
    (2, True)
    """

    def __init__(self, total, stream=None, enabled=True):
        self.total, self.done, self.stream, self.enabled = max(total, 1), 0, stream, enabled
        self.t0 = time.perf_counter()

    def step(self, label):
        self.done += 1
        if not self.enabled:
            return
        s = self.stream or sys.stderr
        frac = self.done / self.total
        bar = "#" * int(30 * frac)
        s.write(f"\r[{bar:<30}] {self.done}/{self.total} {time.perf_counter() - self.t0:6.1f}s "
                f"{label[:50]:<50}")
        if self.done >= self.total:
            s.write("\n")
        s.flush()
