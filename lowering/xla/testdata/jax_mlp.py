"""Writes JAX's lowered StableHLO of the benchmark MLP for lowering/xla's
TestJAXModuleMLP and BenchmarkJAXModuleMLP: jax_mlp_b1.mlir and
jax_mlp_b256.mlir, the text of jax.jit(mlp).lower(w, x).as_text() for
784-512-512-10 f32 with BatchNorm (inference) and ReLU, as
bench/peers/jax_infer.py builds it. The tests run this module on hofuse's
PJRT plugin beside hofuse's own module of the same network: the same XLA,
two front ends.

How to rerun it (from the repository's root):

    python3 -m venv /tmp/venv-jax
    /tmp/venv-jax/bin/pip install jax numpy
    /tmp/venv-jax/bin/python lowering/xla/testdata/jax_mlp.py

The parameters of @main are the leaves of the dict w in sorted key order
(bn1.mean, bn1.scale, bn1.shift, bn1.var, bn2.*, dense1.W, dense1.b, ...,
dense3.b), then x.
"""

import os

import jax
import jax.numpy as jnp

SIZES = [784, 512, 512, 10]
EPS = 1e-5


def mlp(w, x):
    h = x
    for i in range(1, len(SIZES)):
        h = h @ w[f"dense{i}.W"] + w[f"dense{i}.b"]
        if i == len(SIZES) - 1:
            break
        h = (h - w[f"bn{i}.mean"]) * jax.lax.rsqrt(w[f"bn{i}.var"] + EPS) * w[f"bn{i}.scale"] + w[f"bn{i}.shift"]
        h = jnp.maximum(h, 0)
    return h


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    w = {}
    for i in range(1, len(SIZES)):
        w[f"dense{i}.W"] = jnp.zeros((SIZES[i - 1], SIZES[i]), jnp.float32)
        w[f"dense{i}.b"] = jnp.zeros((SIZES[i],), jnp.float32)
        if i < len(SIZES) - 1:
            for n in ("mean", "var", "scale", "shift"):
                w[f"bn{i}.{n}"] = jnp.zeros((SIZES[i],), jnp.float32)
    for b in (1, 256):
        x = jnp.zeros((b, SIZES[0]), jnp.float32)
        text = jax.jit(mlp).lower(w, x).as_text()
        with open(os.path.join(here, f"jax_mlp_b{b}.mlir"), "w") as f:
            f.write(f"// jax {jax.__version__}: written by jax_mlp.py in this folder\n")
            f.write(text)


if __name__ == "__main__":
    main()
