#!/usr/bin/env bash
# Source on the offline GPU host: installs the carried wheelhouse (built here with
# `../shared/tools/make-wheelhouse.sh .wheelhouse`; the H100 host has Debian's PoCL 5.0, so the
# pocl wheel is not needed there), registers
# the host's OpenCL drivers, installs pyclmatch editable, and prints the devices.
set -e
eval "$(bash .wheelhouse/setup.sh | grep ^export)"
python3 -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | grep -v WARNING || true
python3 -m pyclmatch devices
set +e
