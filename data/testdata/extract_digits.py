#!/usr/bin/env python3
"""Copy scikit-learn's handwritten digits into this directory, unchanged.

The file is the one the scikit-learn wheel ships as
sklearn/datasets/data/digits.csv.gz (1,797 rows of 64 pixel counts in
0..16 and a class label 0..9, comma separated, no header). It is copied
byte for byte; the script checks that it parses to what
sklearn.datasets.load_digits returns, and prints its SHA-256, the label
counts per class and the first row, which README.md records and
data/digits_test.go checks.

Rerun (from the repository root):

    python3 -m venv /tmp/venv-data
    /tmp/venv-data/bin/pip install scikit-learn
    /tmp/venv-data/bin/python data/testdata/extract_digits.py
"""
import gzip
import hashlib
import os
import shutil

import numpy as np
import sklearn
from sklearn import datasets

src = os.path.join(os.path.dirname(datasets.__file__), "data", "digits.csv.gz")
dst = os.path.join(os.path.dirname(os.path.abspath(__file__)), "digits.csv.gz")
shutil.copyfile(src, dst)

with gzip.open(dst, "rt") as f:
    table = np.loadtxt(f, delimiter=",")
x, y = table[:, :-1], table[:, -1].astype(int)
ref = datasets.load_digits()
assert x.shape == (1797, 64), x.shape
assert np.array_equal(x, ref.data) and np.array_equal(y, ref.target)

with open(dst, "rb") as f:
    digest = hashlib.sha256(f.read()).hexdigest()
print("scikit-learn", sklearn.__version__)
print("sha256", digest)
print("rows", x.shape[0], "features", x.shape[1])
print("counts", [int(c) for c in np.bincount(y, minlength=10)])
print("first", [int(v) for v in x[0]], "label", int(y[0]))
print("last label", int(y[-1]))
