"""Bad input gets a clear error naming the problem, never a hang or a wrong answer."""
import numpy as np
import pytest
import scipy.sparse as sp

import pyclmatch
from pyclmatch import InputError, DeviceMemoryError, DeviceError


def test_not_2d(device):
    with pytest.raises(InputError, match="2-D"):
        pyclmatch.maximum_matching(np.ones(5), device=device)
    with pytest.raises(InputError, match="2-D"):
        pyclmatch.maximum_matching(np.ones((2, 2, 2)), device=device)


def test_negative_and_out_of_range_indices(device):
    with pytest.raises(InputError, match="rows holds -1 at position 1") as exc:
        pyclmatch.maximum_matching((np.array([0, -1]), np.array([0, 1])), device=device)
    assert exc.value.argument == "A"
    with pytest.raises(InputError, match="out of range") as exc:
        pyclmatch.maximum_matching((np.array([0, 5]), np.array([0, 1])), shape=(3, 3),
                                   device=device)
    assert exc.value.argument == "shape"
    with pytest.raises(InputError, match="out of range") as exc:
        pyclmatch.maximum_matching((np.array([0, 1]), np.array([0, 3]), (3, 3)),
                                   device=device)
    assert exc.value.argument == "A"


def test_nan_in_edge_arrays(device):
    with pytest.raises(InputError, match="rows holds nan at position 1"):
        pyclmatch.maximum_matching((np.array([0.0, np.nan]), np.array([0, 1])), device=device)
    with pytest.raises(InputError, match="NaN"):
        pyclmatch.maximum_matching(np.array([[1.0, np.nan]]), device=device)
    with pytest.raises(InputError, match="length"):
        pyclmatch.maximum_matching((np.array([0, 1]), np.array([0])), device=device)


def test_non_numeric(device):
    with pytest.raises(InputError):
        pyclmatch.maximum_matching([["a", "b"]], device=device)
    with pytest.raises(InputError):
        pyclmatch.maximum_matching((np.array(["x"]), np.array(["y"])), device=device)


def test_empty_is_valid(device):
    for A in (sp.csr_matrix((0, 0)), sp.csr_matrix((4, 7)), np.zeros((3, 2))):
        res = pyclmatch.maximum_matching(A, device=device)
        assert res.cardinality == 0 and res.verified
        assert np.all(res.row_match == -1) and np.all(res.col_match == -1)


def test_unknown_algorithm_init_param(device):
    A = sp.eye(3, format="csr")
    with pytest.raises(InputError, match="algorithm=.* is not allowed"):
        pyclmatch.maximum_matching(A, algorithm="hungarian", device=device)
    with pytest.raises(InputError, match="init=.* is not allowed"):
        pyclmatch.maximum_matching(A, init="random", device=device)
    with pytest.raises(InputError, match="unknown parameter"):
        pyclmatch.maximum_matching(A, colour="blue", device=device)


def test_graph_larger_than_device(device, monkeypatch):
    A = sp.random(200, 200, density=0.05, random_state=0, format="csr")
    monkeypatch.setattr(device, "max_alloc", 1024)
    with pytest.raises(DeviceMemoryError, match="max allocation") as ei:
        pyclmatch.maximum_matching(A, device=device)
    assert device.name in str(ei.value)
    monkeypatch.setattr(device, "max_alloc", 1 << 40)
    monkeypatch.setattr(device, "global_mem", 4096)
    with pytest.raises(DeviceMemoryError, match="device memory"):
        pyclmatch.maximum_matching(A, device=device)


def test_bad_device_spec():
    with pytest.raises(DeviceError, match="no device matches"):
        pyclmatch.get_device("no-such-device-xyz")
    with pytest.raises(DeviceError, match="platform:device"):
        pyclmatch.get_device("7:9")
    with pytest.raises(DeviceError) as e:     # (a DeviceSpecError: an InputError too)
        pyclmatch.get_device(3.5)
    assert isinstance(e.value, InputError) and e.value.argument == "device"
