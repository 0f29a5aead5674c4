"""Exceptions raised by pyclmatch.

Every error the library raises on purpose derives from :class:`PyclmatchError`; the input errors
also derive from :class:`ValueError` so that callers who catch ``ValueError`` (as with scipy) keep
working.
"""


class PyclmatchError(Exception):
    """Base class of every error raised by pyclmatch.

    Examples
    --------
    >>> import pyclmatch
    >>> issubclass(pyclmatch.DeviceError, pyclmatch.PyclmatchError)
    True
    """


class InputError(PyclmatchError, ValueError):
    """The input graph or a parameter is invalid (shape, dtype, NaN, index out of range, ...).

    ``argument`` names the argument the error is about (``"work_group_size"``, ``"G"``,
    ``"path"``, ...) where one is to blame, else None; the message names it too, with the
    value as the caller wrote it and what is allowed (:mod:`pyclmatch.engine.args`).

    Examples
    --------
    An input error is also a ``ValueError``, as scipy raises for bad input:

    >>> import numpy as np
    >>> from pyclmatch import InputError, maximum_matching
    >>> try:
    ...     maximum_matching(np.array([[1.0, np.nan]]))
    ... except ValueError as exc:
    ...     print(isinstance(exc, InputError))
    True
    """

    def __init__(self, message, *, argument=None):
        super().__init__(message)
        self.argument = argument


class DeviceError(PyclmatchError):
    """No usable OpenCL device, or the requested one does not exist.

    Examples
    --------
    >>> from pyclmatch import DeviceError, get_device
    >>> try:
    ...     get_device("no-such-device-name")
    ... except DeviceError:
    ...     print("no such device")
    no such device
    """


class DeviceSpecError(InputError, DeviceError):
    """A ``device=`` argument of a type no device is named by (a float, a list, a bool, ...):
    an :class:`InputError` naming the argument (``argument == "device"``) and a
    :class:`DeviceError`, so that either ``except`` clause catches it. A well-formed name that
    matches no device present is a plain :class:`DeviceError` (it is about the machine).

    Examples
    --------
    >>> from pyclmatch import DeviceError, DeviceSpecError, InputError, get_device
    >>> try:
    ...     get_device(1.5)
    ... except DeviceError as exc:
    ...     print(isinstance(exc, InputError), exc.argument)
    True device
    """


class DeviceMemoryError(PyclmatchError, MemoryError):
    """The graph does not fit into the device's memory (names the sizes, the bytes needed,
    the limit and the device).

    Examples
    --------
    >>> from pyclmatch import DeviceMemoryError
    >>> issubclass(DeviceMemoryError, MemoryError)
    True
    """


class HostMemoryError(DeviceMemoryError):
    """The input needs more host memory than is available (names the sizes, the bytes needed
    and what the host has). A :class:`DeviceMemoryError`, so that one ``except`` clause
    covers both limits.

    Examples
    --------
    >>> from pyclmatch import DeviceMemoryError, HostMemoryError
    >>> issubclass(HostMemoryError, DeviceMemoryError)
    True
    """


class KernelBuildError(PyclmatchError):
    """An OpenCL program failed to build; names the template, its values, the device and the log.

    Examples
    --------
    >>> from pyclmatch import KernelBuildError
    >>> err = KernelBuildError("apfb.cl.mako", {"index_t": "int"}, "cpu", "error: ...")
    >>> str(err).splitlines()[0]
    "building kernel template 'apfb.cl.mako' with {index_t='int'} failed on device 'cpu':"
    """

    def __init__(self, template, values, device, log):
        self.template, self.values, self.device, self.log = template, dict(values), device, log
        vals = ", ".join(f"{k}={v!r}" for k, v in sorted(self.values.items()))
        super().__init__(
            f"building kernel template {template!r} with {{{vals}}} failed on device "
            f"{device!r}:\n{log}")


class IterationLimitError(PyclmatchError, RuntimeError):
    """A device loop ran past its iteration bound (raised instead of hanging)."""


class VerificationError(PyclmatchError, AssertionError):
    """A result failed its certificate check; the wrong answer is never returned."""
