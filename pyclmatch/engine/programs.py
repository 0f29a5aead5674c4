"""Kernel templates: render once, build per device, cache in memory (and on disk via pyopencl).

Templates are Mako files in ``kernels/`` (installed as the package ``pyclmatch.kernels``). A
template is rendered with the values it is specialized for (work-group size, CT/MT thread mode,
index type, BFS variant, ...). The rendered source is memoized per (template, values); the built
program per (device, template, values) lives on the :class:`~pyclmatch.engine.DeviceHandle`, and
pyopencl's own binary cache keeps built programs on disk between processes.

Builds are quiet: what a compiler prints about a successful build (NVIDIA's driver says
something about most) goes to the logger ``"pyclmatch"`` at DEBUG level instead of pyopencl's
``CompilerWarning`` (:func:`quiet_build`); ``PYOPENCL_COMPILER_OUTPUT=1`` shows it as pyopencl
would.
"""
import contextlib
import functools
import logging
import os
import re
import threading
import time
import warnings
from importlib.resources import files

import pyopencl as cl

from ..errors import KernelBuildError

log = logging.getLogger("pyclmatch")
log.addHandler(logging.NullHandler())


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
    return str(files("pyclmatch.kernels"))


KERNEL_DIR = _kernel_dir()


@functools.lru_cache(maxsize=None)
def _lookup():
    """Mako's lookup of :data:`KERNEL_DIR` (Mako is imported at the first rendering)."""
    from mako.lookup import TemplateLookup
    return TemplateLookup(directories=[KERNEL_DIR], strict_undefined=True)


def _freeze(values):
    return tuple(sorted(values.items()))


@functools.lru_cache(maxsize=None)
def _render(template, frozen):
    return _lookup().get_template(template).render(**dict(frozen))


#: the head of a kernel definition, up to its name: ``__kernel [attributes] void name(``
_KERNEL_HEAD = re.compile(r"^[ \t]*(?:__)?kernel\b[^;{}]*?\bvoid\s+(\w+)\s*\(", re.M)
#: what the brace count of :func:`_body_end` skips: comments, string and character literals
_SKIP = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|[{}]', re.S)


def _body_end(src, start):
    """The offset just past the ``}`` that closes the first ``{`` from ``start`` on."""
    depth = 0
    for m in _SKIP.finditer(src, start):
        tok = m.group()
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
            if depth == 0:
                return m.end()
    raise ValueError("unbalanced braces in a kernel body")


def kernel_names(source):
    """The names of the kernels defined in the OpenCL C ``source``, in order.

    Examples
    --------
    >>> from pyclmatch.engine.programs import kernel_names
    >>> kernel_names("__kernel void a(int x) { }\\n__kernel void b(int y) { }")
    ['a', 'b']
    """
    return [m.group(1) for m in _KERNEL_HEAD.finditer(source)]


def select_kernels(source, names):
    """``source`` without the kernels whose names are not in ``names`` (everything else, the
    helper functions, types and macros the kernels share, stays): a program of these kernels
    alone, which a compiler parses and optimizes without the others. A kernel of ``names``
    that ``source`` lacks raises ``KeyError``.

    Examples
    --------
    >>> from pyclmatch.engine.programs import select_kernels
    >>> src = "int f(int x) { return x; }\\n__kernel void a(int x) { }\\n__kernel void b() { }"
    >>> select_kernels(src, ["b"])
    'int f(int x) { return x; }\\n\\n__kernel void b() { }'
    """
    keep = set(names)
    out, at, found = [], 0, set()
    for m in _KERNEL_HEAD.finditer(source):
        if m.start() < at:              # (a head inside a dropped body: not a definition)
            continue
        end = _body_end(source, m.end())
        if m.group(1) in keep:
            found.add(m.group(1))
        else:
            out.append(source[at:m.start()])
            at = end
    missing = keep - found
    if missing:
        raise KeyError(", ".join(sorted(missing)))
    out.append(source[at:])
    return "".join(out)


@functools.lru_cache(maxsize=None)
def _select(template, kernels, frozen):
    return select_kernels(_render(template, frozen), kernels)


def render_template(template, kernels=None, **values):
    """Return the OpenCL C source of ``template`` specialized for ``values`` (memoized);
    ``kernels`` (names) keeps those kernels alone (:func:`select_kernels`)."""
    try:
        if kernels is not None:
            return _select(template, tuple(sorted(kernels)), _freeze(values))
        return _render(template, _freeze(values))
    except Exception as exc:
        if isinstance(exc, (NameError, KeyError, TypeError)) or type(exc).__name__ in (
                "NameError", "CompileException", "SyntaxException", "TopLevelLookupException"):
            raise KernelBuildError(template, values, "(rendering, before any device)",
                                   f"{type(exc).__name__}: {exc}") from exc
        raise


#: warnings pyopencl raises about our own builds and kernel objects
_BUILD_WARNINGS = tuple(c for c in (getattr(cl, "CompilerWarning", None),
                                    getattr(cl, "RepeatedKernelRetrieval", None)) if c)
_quiet_lock = threading.RLock()


def _compiler_output_requested():
    """Whether the user asked pyopencl to show compiler output (``PYOPENCL_COMPILER_OUTPUT``)."""
    return os.environ.get("PYOPENCL_COMPILER_OUTPUT", "").strip().lower() in (
        "1", "true", "yes", "on", "y", "t")


@contextlib.contextmanager
def quiet_build(what):
    """Run pyclmatch's own OpenCL builds (templates, pyopencl helpers) without pyopencl's
    ``CompilerWarning`` ("Non-empty compiler output", which NVIDIA's compiler triggers on
    most builds): the warnings raised inside are caught, the compiler's words are logged by
    logger ``"pyclmatch"`` at DEBUG, and shown as warnings only when
    ``PYOPENCL_COMPILER_OUTPUT`` asks for them. Every other warning raised meanwhile (by any
    thread: Python's warning filters are process-wide) is shown after the block, as it would
    have been. No filter outlives the block, and the user's own code is never filtered.
    The blocks are serialized (one process-wide lock) so that they nest properly."""
    caught = []
    with _quiet_lock:
        try:
            with warnings.catch_warnings(record=True) as caught:
                for cat in _BUILD_WARNINGS:     # (recorded, never raised: even under "error")
                    warnings.filterwarnings("always", category=cat)
                yield
        finally:
            _pass_on(caught, what)


def _pass_on(caught, what):
    """Log the build warnings among ``caught``; show the others (and the build warnings when
    ``PYOPENCL_COMPILER_OUTPUT`` asks for them)."""
    show = _compiler_output_requested()
    for w in caught:
        ours = issubclass(w.category, _BUILD_WARNINGS)
        if ours:
            log.debug("%s: %s", what, w.message)
        if not ours or show:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno, w.file,
                                 w.line)


@functools.lru_cache(maxsize=None)
def _names(template, frozen):
    return tuple(kernel_names(_render(template, frozen)))


def template_kernels(template, **values):
    """The names of the kernels ``template`` specialized for ``values`` defines (memoized).

    Examples
    --------
    >>> from pyclmatch.engine.programs import template_kernels
    >>> template_kernels("bench_copy.cl.mako", index_t="int", offset_t="int", mode="ct")
    ('bench_copy',)
    """
    return _names(template, _freeze(values))


def build_program(context, device_name, template, values, options=(), kernels=None):
    """Render and build ``template`` for ``context`` (with ``kernels``, those kernels alone:
    :func:`select_kernels`); a failure raises :class:`KernelBuildError`. The build is quiet
    (:func:`quiet_build`); its time and anything the compiler said are logged at DEBUG."""
    src = (render_template(template, **values) if kernels is None else
           render_template(template, kernels=kernels, **values))
    what = f"{device_name}: {template} {values}" + (f" kernels {kernels}" if kernels else "")
    t0 = time.perf_counter()
    try:
        with quiet_build(what):
            prg = cl.Program(context, src).build(options=list(options))
    except cl.Error as exc:
        raise KernelBuildError(template, values, device_name, str(exc)) from None
    if log.isEnabledFor(logging.DEBUG):
        log.debug("%s: built in %.3f s", what, time.perf_counter() - t0)
        for dev in context.devices:
            try:
                said = prg.get_build_info(dev, cl.program_build_info.LOG) or ""
            except cl.Error:
                said = ""
            if said.strip():
                log.debug("%s: compiler output on %s:\n%s", what, dev.name.strip(),
                          said.strip())
    return prg
