"""Kernel templates: render once, build per device, cache in memory (and on disk via pyopencl).

Templates are Mako files in ``kernels/`` (installed as the package ``pyclmatch.kernels``). A
template is rendered with the values it is specialized for (work-group size, CT/MT thread mode,
index type, BFS variant, ...). The rendered source is memoized per (template, values); the built
program per (device, template, values) lives on the :class:`~pyclmatch.engine.DeviceHandle`, and
pyopencl's own binary cache keeps built programs on disk between processes.
"""
import functools
import os

import pyopencl as cl
from mako.lookup import TemplateLookup

from ..errors import KernelBuildError


def _kernel_dir():
    """The templates that belong to this copy of pyclmatch.

    An installed package has them in ``pyclmatch/kernels``; a source checkout in ``kernels/``
    beside ``pyclmatch/``. Those two are looked for first, beside the imported package, so that
    a checkout run through ``PYTHONPATH`` renders its own templates even when another checkout
    is installed editable (whose finder would answer ``pyclmatch.kernels`` with its own).
    """
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for d in (os.path.join(pkg, "kernels"), os.path.join(os.path.dirname(pkg), "kernels")):
        if os.path.isfile(os.path.join(d, "common.cl.mako")):
            return d
    try:
        from importlib.resources import files
        return str(files("pyclmatch.kernels"))
    except Exception:  # pragma: no cover - very old Pythons
        import pyclmatch.kernels as k
        return os.path.dirname(k.__file__)


KERNEL_DIR = _kernel_dir()
_lookup = TemplateLookup(directories=[KERNEL_DIR], strict_undefined=True)


def _freeze(values):
    return tuple(sorted(values.items()))


@functools.lru_cache(maxsize=None)
def _render(template, frozen):
    return _lookup.get_template(template).render(**dict(frozen))


def render_template(template, **values):
    """Return the OpenCL C source of ``template`` specialized for ``values`` (memoized)."""
    try:
        return _render(template, _freeze(values))
    except Exception as exc:
        if isinstance(exc, (NameError, KeyError, TypeError)) or type(exc).__name__ in (
                "NameError", "CompileException", "SyntaxException", "TopLevelLookupException"):
            raise KernelBuildError(template, values, "(rendering, before any device)",
                                   f"{type(exc).__name__}: {exc}") from exc
        raise


def build_program(context, device_name, template, values, options=()):
    """Render and build ``template`` for ``context``; a failure raises :class:`KernelBuildError`."""
    src = render_template(template, **values)
    try:
        return cl.Program(context, src).build(options=list(options))
    except cl.Error as exc:
        raise KernelBuildError(template, values, device_name, str(exc)) from None
