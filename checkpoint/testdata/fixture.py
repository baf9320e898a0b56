#!/usr/bin/env python3
"""Safetensors fixtures for checkpoint/checkpoint_test.go.

    fixture.py write    writes python.safetensors with Python's safetensors:
                          "dense.w"  F32 [2, 3]: 0.5*k - 1 for k = 0..5, row-major
                          "dense.b"  F64 [3]:    [0.1, -2.5, 1e-300]
                          "labels"   I32 [4]:    [-1, 0, 2147483647, -2147483648]
                          "step"     I32 []:     7
                        and metadata {"model": '{"sizes":[2,3]}', "by": "python"}
    fixture.py verify   loads hofuse.safetensors (written by
                        `go test ./checkpoint -run TestHofuseFixture -write-fixture`)
                        with Python's safetensors and checks every value
                        against the ones the Go test writes:
                          "w"     F32 [3, 2]: k/4 - 1 for k = 0..5, row-major
                          "b"     F64 [2]:    [3.25, -1e-310]
                          "count" I32 [2, 2]: [[1, -2], [3, -2147483648]]
                        and metadata {"config": '{"sizes":[3,2]}', "by": "hofuse"}

Rerun (from the repository root):

    python3 -m venv /tmp/venv-data
    /tmp/venv-data/bin/pip install safetensors numpy
    /tmp/venv-data/bin/python checkpoint/testdata/fixture.py write
    /tmp/venv-data/bin/python checkpoint/testdata/fixture.py verify
"""
import os
import sys

import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file, save_file

here = os.path.dirname(os.path.abspath(__file__))


def write():
    tensors = {
        "dense.w": (0.5 * np.arange(6) - 1).astype(np.float32).reshape(2, 3),
        "dense.b": np.array([0.1, -2.5, 1e-300], dtype=np.float64),
        "labels": np.array([-1, 0, 2147483647, -2147483648], dtype=np.int32),
        "step": np.array(7, dtype=np.int32),
    }
    path = os.path.join(here, "python.safetensors")
    save_file(tensors, path, metadata={"model": '{"sizes":[2,3]}', "by": "python"})
    print("wrote", path, os.path.getsize(path), "bytes")


def verify():
    path = os.path.join(here, "hofuse.safetensors")
    got = load_file(path)
    want = {
        "w": (np.arange(6) / 4 - 1).astype(np.float32).reshape(3, 2),
        "b": np.array([3.25, -1e-310], dtype=np.float64),
        "count": np.array([[1, -2], [3, -2147483648]], dtype=np.int32),
    }
    assert sorted(got) == sorted(want), sorted(got)
    for k, v in want.items():
        g = got[k]
        assert g.dtype == v.dtype and g.shape == v.shape, (k, g.dtype, g.shape)
        assert np.array_equal(g, v), (k, g, v)
    with safe_open(path, framework="np") as f:
        meta = f.metadata()
    assert meta == {"config": '{"sizes":[3,2]}', "by": "hofuse"}, meta
    print("verified", path, "with safetensors", __import__("safetensors").__version__)


{"write": write, "verify": verify}[sys.argv[1]]()
