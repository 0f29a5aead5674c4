"""Attributes of a package imported on first use (PEP 562), so that ``import pyclmatch`` loads
neither pyopencl, mako nor the device families: each public name is looked up in its module
the first time it is read (``pyclmatch.maximum_matching``, ``from pyclmatch import
louvain``), then kept in the package's namespace.

Examples
--------
>>> import pyclmatch
>>> "louvain" in dir(pyclmatch)
True
"""
import importlib


def attach(package, table):
    """``(__getattr__, __dir__)`` for the package named ``package``: ``table`` maps each lazy
    name to ``"module"`` (a submodule of the package, relative as ``".io"``) or to
    ``"module:attribute"``.

    Examples
    --------
    >>> getattr_, dir_ = attach("pyclmatch", {"read_graph": ".io:read_graph"})
    >>> getattr_("read_graph").__name__, "read_graph" in dir_()
    ('read_graph', True)
    """
    def __getattr__(name):
        where = table.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attr = where.partition(":")
        value = importlib.import_module(module, package)
        if attr:
            value = getattr(value, attr)
        setattr(importlib.import_module(package), name, value)
        return value

    def __dir__():
        return sorted(set(vars(importlib.import_module(package))) | set(table))
    return __getattr__, __dir__
