"""Byte counts as text, for the size checks' messages (a leaf module).

Examples
--------
>>> from pyclmatch.engine.units import fmt_bytes
>>> fmt_bytes(512), fmt_bytes(3 << 20)
('512 B', '3.0 MiB')
"""


def fmt_bytes(n):
    """``n`` bytes in the largest binary unit below it, one decimal (``"1.5 GiB"``)."""
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
