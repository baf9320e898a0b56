"""Writes JAX's lowered StableHLO of the training step that
bench/peers/jax_train_step.py times (MLP 784-512-512-10, BatchNorm in
training mode, ReLU, softmax cross-entropy, Adam), at batch 32 and 256:
jax_step_b32.mlir and jax_step_b256.mlir, the text of
jax.jit(step).lower(...).as_text() (without donation, so that the module
runs on buffers that stay valid). models/train's TestJAXStepModule and
BenchmarkStepJAXModule run it on hofuse's PJRT plugin, beside
BenchmarkStepPJRT's hofuse step: the same XLA, two front ends. It also
writes jax_cnn_step_b128.mlir, the CNN step that
bench/peers/jax_cnn_train_step.py times (lr 0.001), for
BenchmarkStepCNNJAXModule.

How to rerun it (from the repository's root):

    python3 -m venv /tmp/venv-jax
    /tmp/venv-jax/bin/pip install jax numpy
    /tmp/venv-jax/bin/python models/train/testdata/jax_step.py

@main takes the parameters, Adam's two moments and the running statistics
(each a dict, its leaves in sorted key order), then x (f32[batch, 784]),
the labels (i32[batch]) and the step number (f32); it returns the loss and
the next values.
"""

import functools
import os
import sys

import jax
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "bench", "peers"))
import jax_train_step as J  # noqa: E402
import jax_cnn_train_step as C  # noqa: E402


def main():
    for b in (32, 256):
        params, stats, x, y = J.init(np.random.default_rng(1), b)
        m = {k: np.zeros_like(a) for k, a in params.items()}
        v = {k: np.zeros_like(a) for k, a in params.items()}
        text = jax.jit(J.step).lower(params, m, v, stats, x, y, np.float32(1)).as_text()
        with open(os.path.join(here, f"jax_step_b{b}.mlir"), "w") as f:
            f.write(f"// jax {jax.__version__}: written by jax_step.py in this folder\n")
            f.write(text)
    params, stats, x, y = C.init(np.random.default_rng(1), 128)
    m = {k: np.zeros_like(a) for k, a in params.items()}
    step = functools.partial(C.step, 0.001)
    text = jax.jit(step).lower(params, m, m, stats, x, y, np.float32(1)).as_text()
    with open(os.path.join(here, "jax_cnn_step_b128.mlir"), "w") as f:
        f.write(f"// jax {jax.__version__}: written by jax_step.py in this folder\n")
        f.write(text)


if __name__ == "__main__":
    main()
