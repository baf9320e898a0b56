#!/usr/bin/env python3
"""Write the small NumPy fixtures that data/npy_test.go reads.

Every value is a simple function of its position, so the Go test states
what it expects without reading the script:

    x.npy        float32 (5, 3): x[i, j] = 10*i + j
    y.npy        int64   (5,):   y[i] = i % 3
    images.npy   uint8   (4, 2, 3): images[i, r, c] = 6*i + 3*r + c
    images_labels.npy  uint8 (4,): [3, 1, 4, 1]
    fortran.npy  float64 (2, 3) stored column-major: f[i, j] = 10*i + j
    targets.npy  float64 (5, 2): t[i, k] = i + 0.5*k
    small.npz    compressed: x_train = x.npy, y_train = y.npy,
                 notes = int32 (1,) [7]

Rerun (from the repository root):

    python3 -m venv /tmp/venv-data
    /tmp/venv-data/bin/pip install numpy
    /tmp/venv-data/bin/python data/testdata/make_npy.py
"""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
i, j = np.meshgrid(np.arange(5), np.arange(3), indexing="ij")
x = (10 * i + j).astype(np.float32)
y = (np.arange(5) % 3).astype(np.int64)
images = np.arange(24, dtype=np.uint8).reshape(4, 2, 3)
fi, fj = np.meshgrid(np.arange(2), np.arange(3), indexing="ij")
fortran = np.asfortranarray((10 * fi + fj).astype(np.float64))
assert fortran.flags.f_contiguous and not fortran.flags.c_contiguous
targets = np.arange(5)[:, None] + 0.5 * np.arange(2)[None, :]

np.save(os.path.join(here, "x.npy"), x)
np.save(os.path.join(here, "y.npy"), y)
np.save(os.path.join(here, "images.npy"), images)
np.save(os.path.join(here, "images_labels.npy"), np.array([3, 1, 4, 1], dtype=np.uint8))
np.save(os.path.join(here, "fortran.npy"), fortran)
np.save(os.path.join(here, "targets.npy"), targets)
np.savez_compressed(os.path.join(here, "small.npz"), x_train=x, y_train=y,
                    notes=np.array([7], dtype=np.int32))
for name in ["x.npy", "y.npy", "images.npy", "images_labels.npy", "fortran.npy", "targets.npy", "small.npz"]:
    print(name, os.path.getsize(os.path.join(here, name)))
