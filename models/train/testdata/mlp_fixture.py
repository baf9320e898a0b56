#!/usr/bin/env python3
"""Safetensors fixtures for models/train/checkpoint_python_test.go: an MLP
checkpoint written by Python loads into hofuse, and one written by hofuse
loads in Python.

    mlp_fixture.py write    writes, with Python's safetensors and numpy:
        python_mlp.safetensors     the inference weights of an MLP 4-5-3
                                   with BatchNorm and ReLU, by hofuse's
                                   names (dense1.W [4, 5], dense1.b,
                                   bn1.scale, bn1.shift, bn1.mean, bn1.var,
                                   dense2.W [5, 3], dense2.b), drawn from
                                   numpy's default_rng(7), and the model in
                                   the metadata "hofuse.model"
        python_mlp_io.safetensors  "x" F32 [6, 4], drawn from the same
                                   generator, and "logits" F64 [6, 3]: the
                                   network's output on x computed here in
                                   float64 (the reference; hofuse computes
                                   in f32)
    mlp_fixture.py verify   loads hofuse_mlp.safetensors (a checkpoint of an
                            MLP 64-32-10 BatchNorm ReLU trained 2 epochs
                            with Adam on the digits, written by
                            `go test ./models/train -run TestHofuseCheckpointFixture -write-fixture`)
                            with Python's safetensors, checks its metadata
                            and tensor names and shapes (parameters, Adam's
                            m and v, running statistics), runs the network
                            in numpy on the rows of hofuse_mlp_io.safetensors
                            and checks its logits against the ones hofuse
                            predicted (written beside them by the same test)

Rerun (from the repository root):

    python3 -m venv /tmp/venv-ckpt
    /tmp/venv-ckpt/bin/pip install safetensors numpy
    /tmp/venv-ckpt/bin/python models/train/testdata/mlp_fixture.py write
    go test ./models/train -run TestHofuseCheckpointFixture -write-fixture
    /tmp/venv-ckpt/bin/python models/train/testdata/mlp_fixture.py verify
"""
import json
import os
import sys

import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file, save_file

here = os.path.dirname(os.path.abspath(__file__))
EPS = 1e-5  # layers.DefaultBatchNormEps, PyTorch's


def forward(t, sizes, x):
    """The hofuse MLP in inference mode: dense, then BatchNorm and ReLU
    after every dense layer but the last. Computed in float64."""
    h = x.astype(np.float64)
    n = len(sizes) - 1
    for i in range(1, n + 1):
        w = t[f"dense{i}.W"].astype(np.float64)
        b = t[f"dense{i}.b"].astype(np.float64)
        h = h @ w + b
        if i < n:
            mean, var = t[f"bn{i}.mean"], t[f"bn{i}.var"]
            scale, shift = t[f"bn{i}.scale"], t[f"bn{i}.shift"]
            h = (h - mean) / np.sqrt(var.astype(np.float64) + EPS) * scale + shift
            h = np.maximum(h, 0)
    return h


def write():
    rng = np.random.default_rng(7)
    sizes = [4, 5, 3]
    f32 = lambda a: np.asarray(a, dtype=np.float32)
    t = {
        "dense1.W": f32(rng.uniform(-1, 1, (4, 5))),
        "dense1.b": f32(rng.uniform(-0.5, 0.5, 5)),
        "bn1.scale": f32(rng.uniform(0.5, 1.5, 5)),
        "bn1.shift": f32(rng.uniform(-0.5, 0.5, 5)),
        "bn1.mean": f32(rng.uniform(-0.5, 0.5, 5)),
        "bn1.var": f32(rng.uniform(0.5, 2.0, 5)),
        "dense2.W": f32(rng.uniform(-1, 1, (5, 3))),
        "dense2.b": f32(rng.uniform(-0.5, 0.5, 3)),
    }
    x = f32(rng.uniform(-1, 1, (6, 4)))
    meta = {"hofuse.model": json.dumps({"sizes": sizes, "dtype": "f32", "norm": "batchnorm"}), "by": "python"}
    save_file(t, os.path.join(here, "python_mlp.safetensors"), metadata=meta)
    save_file({"x": x, "logits": forward(t, sizes, x)}, os.path.join(here, "python_mlp_io.safetensors"))
    print("wrote python_mlp.safetensors and python_mlp_io.safetensors")


def verify():
    path = os.path.join(here, "hofuse_mlp.safetensors")
    t = load_file(path)
    with safe_open(path, framework="np") as f:
        meta = f.metadata()
    model = json.loads(meta["hofuse.model"])
    opt = json.loads(meta["hofuse.optimizer"])
    prog = json.loads(meta["hofuse.progress"])
    # Files written since CNNs were added record the kind too.
    assert model.pop("kind", "mlp") == "mlp", model
    assert model == {"sizes": [64, 32, 10], "dtype": "f32", "norm": "batchnorm"}, model
    assert opt["name"] == "adam" and opt["lr"] == 0.01, opt
    assert prog["steps"] == 46 and prog["epoch"] == 2 and prog["batch"] == 64, prog
    params = {"dense1.W": (64, 32), "dense1.b": (32,), "bn1.scale": (32,), "bn1.shift": (32,),
              "dense2.W": (32, 10), "dense2.b": (10,)}
    want = dict(params)
    for k, s in params.items():
        want[k + ".m"] = s
        want[k + ".v"] = s
    want["bn1.mean"] = (32,)
    want["bn1.var"] = (32,)
    assert sorted(t) == sorted(want), sorted(t)
    for k, s in want.items():
        assert t[k].shape == s and t[k].dtype == np.float32, (k, t[k].shape, t[k].dtype)
    io = load_file(os.path.join(here, "hofuse_mlp_io.safetensors"))
    got = forward(t, model["sizes"], io["x"])
    err = np.max(np.abs(got - io["logits"]))
    assert err < 1e-4, err
    print(f"verified {os.path.relpath(path)} with safetensors {__import__('safetensors').__version__}: "
          f"{len(t)} tensors, logits on {io['x'].shape[0]} rows within {err:.2g} of hofuse's")


{"write": write, "verify": verify}[sys.argv[1]]()
