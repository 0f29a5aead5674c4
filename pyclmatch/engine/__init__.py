"""The engine every algorithm family shares: devices, programs, scheduler and device graphs.

Data flows one way: input -> validated graph -> device buffers (once) -> a family's driver asks
the engine for specialized kernels and chains launches -> result arrays come back once ->
verification -> result object. The engine knows no algorithm.
"""
from .devices import (DeviceHandle, get_device, list_devices, diagnose_icd, fix_icd,
                      describe_devices)
from .programs import render_template, KERNEL_DIR
from .scheduler import Scheduler

__all__ = ["DeviceHandle", "get_device", "list_devices", "diagnose_icd", "fix_icd",
           "describe_devices", "render_template", "KERNEL_DIR", "Scheduler"]
