"""The engine every algorithm family shares: devices, programs, scheduler and device graphs.

Data flows one way: input -> validated graph -> device buffers (once) -> a family's driver asks
the engine for specialized kernels and chains launches -> result arrays come back once ->
verification -> result object. The engine knows no algorithm.
"""
from .._lazy import attach

# imported on first use (pyclmatch._lazy): the leaf modules (args, tuning, limits, units,
# calls, compressed, catalog) and graphs' host part load without pyopencl
__getattr__, __dir__ = attach(__name__, {
    **{name: f".devices:{name}" for name in ("DeviceHandle", "get_device", "list_devices",
                                             "diagnose_icd", "fix_icd", "describe_devices")},
    "render_template": ".programs:render_template", "KERNEL_DIR": ".programs:KERNEL_DIR",
    "Scheduler": ".scheduler:Scheduler"})

__all__ = ["DeviceHandle", "get_device", "list_devices", "diagnose_icd", "fix_icd",
           "describe_devices", "render_template", "KERNEL_DIR", "Scheduler"]
