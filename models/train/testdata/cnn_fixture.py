#!/usr/bin/env python3
"""JAX fixtures for TestCNNCheckpointFixture (models/train/checkpoint_python_test.go):
CNN checkpoints written by hofuse are run in JAX from the file alone, and a
CNN whose weights Python drew loads into hofuse.

Reads, with Python's safetensors:
    hofuse_cnn.safetensors        the digits CNN (8x8x1, conv 8,16, 3x3 same,
                                  BatchNorm, ReLU, 2x2 max pooling, 10
                                  classes) after an epoch of Adam
    hofuse_cnn_valid.safetensors  8x8x1, conv 4 (3x3 valid, with a bias), no
                                  BatchNorm, tanh, 2x2 max pooling, a hidden
                                  dense layer of 12, 10 classes, after an
                                  epoch of SGD with momentum
    hofuse_cnn_io.safetensors     "x": eight test rows of the digits
(all written by `go test ./models/train -run TestCNNCheckpointFixture -write-fixture`),
checks each file's metadata and tensor names and shapes (parameters, the
optimizer's slots, running statistics), builds the network from the metadata
"hofuse.model" alone and computes its logits on x in float64 with
jax.lax.conv_general_dilated (NHWC, HWIO, padding "SAME" or "VALID"),
jax.lax.reduce_window (max, VALID) and BatchNorm's inference formula.

Writes:
    jax_cnn_logits.safetensors  one F64 [8, 10] tensor of logits per
                                checkpoint, named after it
    python_cnn.safetensors      the inference weights of a CNN on 6x5x2
                                images (conv 3, 3x3 same, BatchNorm, ReLU,
                                2x2 max pooling, hidden 4, 3 classes) by
                                hofuse's names, drawn from numpy's
                                default_rng(11), with the model in the
                                metadata "hofuse.model"
    python_cnn_io.safetensors   "x" F32 [5, 60] drawn from the same
                                generator, and "logits" F64 [5, 3]: that
                                network's output computed here

Rerun (from the repository root):

    python3 -m venv /tmp/venv-jax
    /tmp/venv-jax/bin/pip install jax numpy safetensors
    go test ./models/train -run TestCNNCheckpointFixture -write-fixture
    /tmp/venv-jax/bin/python models/train/testdata/cnn_fixture.py
    go test ./models/train -run TestCNNCheckpointFixture
"""
import json
import os

import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp
import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file, save_file

here = os.path.dirname(os.path.abspath(__file__))
EPS = 1e-5  # layers.DefaultBatchNormEps, PyTorch's

ACTIVATIONS = {"relu": lambda h: jnp.maximum(h, 0), "tanh": jnp.tanh}


def param_shapes(model):
    """The inference tensors of a hofuse CNN (models.CNN) by name, and the
    names of the trained parameters among them."""
    shapes, params = {}, []
    bn = model["norm"] == "batchnorm"
    h, w, c = model["height"], model["width"], model["channels"]
    k, pool = model["kernel"], model["pool"]

    def norm(i, n):
        if bn:
            for s in ("scale", "shift"):
                shapes[f"bn{i}.{s}"] = (n,)
                params.append(f"bn{i}.{s}")
            shapes[f"bn{i}.mean"] = (n,)
            shapes[f"bn{i}.var"] = (n,)

    for i, out in enumerate(model["conv"], 1):
        shapes[f"conv{i}.K"] = (k, k, c, out)
        params.append(f"conv{i}.K")
        if not bn:
            shapes[f"conv{i}.b"] = (out,)
            params.append(f"conv{i}.b")
        norm(i, out)
        if model.get("valid"):
            h, w = h - k + 1, w - k + 1
        if pool > 1:
            h, w = h // pool, w // pool
        c = out
    blocks = len(model["conv"])
    sizes = [h * w * c] + model.get("hidden", []) + [model["classes"]]
    for i in range(1, len(sizes)):
        shapes[f"dense{i}.W"] = (sizes[i - 1], sizes[i])
        shapes[f"dense{i}.b"] = (sizes[i],)
        params += [f"dense{i}.W", f"dense{i}.b"]
        if i < len(sizes) - 1:
            norm(blocks + i, sizes[i])
    return shapes, params


def forward(t, model, x):
    """The hofuse CNN in inference mode, in float64: x is [rows, H*W*C],
    row-major channels last."""
    f64 = lambda a: jnp.asarray(a, dtype=jnp.float64)
    act = ACTIVATIONS[model.get("activation") or "relu"]
    bn = model["norm"] == "batchnorm"
    eps = model.get("eps") or EPS
    pool = model["pool"]

    def norm(i, h):
        if not bn:
            return h
        mean, var = f64(t[f"bn{i}.mean"]), f64(t[f"bn{i}.var"])
        scale, shift = f64(t[f"bn{i}.scale"]), f64(t[f"bn{i}.shift"])
        return (h - mean) / jnp.sqrt(var + eps) * scale + shift

    h = f64(x).reshape(x.shape[0], model["height"], model["width"], model["channels"])
    for i in range(1, len(model["conv"]) + 1):
        h = jax.lax.conv_general_dilated(h, f64(t[f"conv{i}.K"]), window_strides=(1, 1),
                                         padding="VALID" if model.get("valid") else "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
        if not bn:
            h = h + f64(t[f"conv{i}.b"])
        h = act(norm(i, h))
        if pool > 1:
            h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, pool, pool, 1), (1, pool, pool, 1), "VALID")
    h = h.reshape(h.shape[0], -1)
    blocks = len(model["conv"])
    n = len(model.get("hidden", [])) + 1
    for i in range(1, n + 1):
        h = h @ f64(t[f"dense{i}.W"]) + f64(t[f"dense{i}.b"])
        if i < n:
            h = act(norm(blocks + i, h))
    return np.asarray(h)


def check_checkpoint(name):
    path = os.path.join(here, name + ".safetensors")
    t = load_file(path)
    with safe_open(path, framework="np") as f:
        meta = f.metadata()
    model = json.loads(meta["hofuse.model"])
    opt = json.loads(meta["hofuse.optimizer"])
    assert model["kind"] == "cnn" and "sizes" not in model, model
    shapes, params = param_shapes(model)
    want = dict(shapes)
    slots = {"adam": ["m", "v"], "adamw": ["m", "v"], "sgd": ["momentum"] if opt.get("momentum") else []}[opt["name"]]
    for p in params:
        for s in slots:
            want[f"{p}.{s}"] = shapes[p]
    assert sorted(t) == sorted(want), (sorted(t), sorted(want))
    for k, s in want.items():
        assert t[k].shape == s and t[k].dtype == np.float32, (k, t[k].shape, t[k].dtype)
    return model, t, len(t)


def main():
    x = load_file(os.path.join(here, "hofuse_cnn_io.safetensors"))["x"]
    out = {}
    for name in ("hofuse_cnn", "hofuse_cnn_valid"):
        model, t, n = check_checkpoint(name)
        out[name] = forward(t, model, x)
        print(f"{name}: {n} tensors, model {json.dumps(model)}")
    save_file(out, os.path.join(here, "jax_cnn_logits.safetensors"))

    rng = np.random.default_rng(11)
    model = {"kind": "cnn", "dtype": "f32", "norm": "batchnorm", "height": 6, "width": 5, "channels": 2,
             "conv": [3], "kernel": 3, "pool": 2, "hidden": [4], "classes": 3}
    shapes, _ = param_shapes(model)
    t = {}
    for k, s in sorted(shapes.items()):
        lo, hi = {"var": (0.5, 2.0), "scale": (0.5, 1.5)}.get(k.split(".")[1], (-1.0, 1.0))
        t[k] = rng.uniform(lo, hi, s).astype(np.float32)
    x = rng.uniform(-1, 1, (5, 6 * 5 * 2)).astype(np.float32)
    save_file(t, os.path.join(here, "python_cnn.safetensors"), metadata={"hofuse.model": json.dumps(model), "by": "python"})
    save_file({"x": x, "logits": forward(t, model, x)}, os.path.join(here, "python_cnn_io.safetensors"))
    print(f"wrote jax_cnn_logits.safetensors, python_cnn.safetensors ({len(t)} tensors) and python_cnn_io.safetensors "
          f"with jax {jax.__version__}, safetensors {__import__('safetensors').__version__}")


main()
