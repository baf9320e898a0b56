"""Reference gradients of small hofuse MLPs, computed by JAX.

What it does
------------
For every configuration below -- the MLP of sizes 5,4,3 (and two of sizes
6,5,4,3), batch 4, with each normalisation hofuse's models.MLP has (none,
BatchNorm in training mode, BatchNorm in inference mode, LayerNorm) and each
activation layers.ParseActivation reads (none, relu, leaky_relu, sigmoid,
tanh, gelu, gelu_tanh, silu, softmax) -- it draws an input x, the model's
parameters (named, shaped and laid out as models.MLP names them: "dense1.W"
is [in, out], "dense1.b" [out], "bn1.mean", "bn1.var", "bn1.scale",
"bn1.shift", "ln1.scale", "ln1.shift"), and computes in float64 with JAX:

  mlp_grads.json         the loss L = sum(output * c), c a fixed random array
                         of the output's shape (given as input "c"), the
                         model output, and dL/dp for every parameter p.
  mlp_softmax_xent.json  the softmax cross-entropy with integer labels, mean
                         over the batch, through log-sum-exp (shifted by the
                         row maximum), of the model output (the logits): the
                         labels, the loss and dL/dp for every parameter, and
                         dL/dlogits.
  optim_sgd_momentum.json, optim_adam.json
                         parameters after each of ten optimizer steps on
                         L = sum(output * c) (the same x and c every step) for
                         the relu/no-norm and relu/batchnorm-training
                         configurations: SGD with momentum (lr 0.1, momentum
                         0.9, PyTorch's convention v = mu*v + g, p -= lr*v, v
                         starting at 0) and Adam (lr 1e-2, betas 0.9/0.999,
                         eps 1e-8, PyTorch's bias correction:
                         p -= lr * (m/(1-b1^t)) / (sqrt(v/(1-b2^t)) + eps)).

The forward pass mirrors hofuse's layers exactly (layers/dense.go,
batchnorm.go, layernorm.go, activation.go, softmax.go):
  dense      y = x @ W + b, W of shape [in, out]
  batchnorm  training: batch mean m = sum(h, 0)/B, biased variance
             s = sum((h - m)^2, 0)/B; inference: the running mean and var
             parameters; y = (h - m) * rsqrt(s + eps) * scale + shift,
             eps = 1e-5
  layernorm  per row over the features: m = sum(v)/n, s = sum((v-m)^2)/n,
             y = (v - m) * rsqrt(s + eps) * scale + shift, eps = 1e-5
  relu       max(v, 0); leaky_relu: v if v > 0 else 0.01 v
  sigmoid    logistic(v); tanh; silu: v * logistic(v)
  gelu       0.5 v (1 + erf(v / sqrt 2)); gelu_tanh: 0.5 v (1 + tanh(
             sqrt(2/pi) (v + 0.044715 v^3)))
  softmax    exp(v - max) / sum(exp(v - max)) over the features
Each block but the last is dense, norm, activation; the last is dense only.

Each configuration lists "zero_grad_params": the parameters whose gradient
is 0 in exact arithmetic (the dense biases before BatchNorm in training
mode, which the batch mean cancels); their computed gradients are rounding
noise, in JAX as in hofuse, so compare them against the scale of the other
gradients, not relative to themselves. Under Adam that noise divided by
eps moves them (about 1e-9 a step here: in optim_adam.json dense1.b of
the batchnorm config ends 7.5e-9 from its initial value, and ten steps
written out in Go from hofuse's gradients end 5e-9 from JAX's values): the optimizer files give
"zero_grad_atol", the bound within which they stay at their initial values
(exactly, in exact arithmetic); compare those parameters to their initial
values with it, not to JAX's noise-driven values.

Values are float64 written with Python's repr (shortest round-trip), so
Go's encoding/json reads back the exact bits. Arrays are row-major, as
{"shape": [...], "data": [...]}. Parameters are listed in models.MLP's
Model.Params order.

How to rerun (from the repository root; the files are rewritten in place,
bit for bit the same with the versions below on x86-64 CPU):

  python3 -m venv /tmp/hofuse-jax && \
  /tmp/hofuse-jax/bin/pip install jax==0.10.2 jaxlib==0.10.2 numpy==2.4.6 optax==0.2.8 && \
  /tmp/hofuse-jax/bin/python models/testdata/jax/make_fixtures.py

Generated with Python 3.11.7, jax 0.10.2, jaxlib 0.10.2, numpy 2.4.6 and
optax 0.2.8 on CPU. The optimizer steps are written out below from their
formulas, and checked against optax's sgd(momentum=0.9) and adam, which
follow the same conventions; the script stops if they disagree.
The Go tests that read mlp_grads.json and mlp_softmax_xent.json are in
models/jax_test.go; models/jax_optim_test.go reads the optimizer files.
"""

import json
import math
import os
import sys

import jax

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
import optax  # noqa: E402
from jax import lax  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

BATCH = 4
EPS = 1e-5  # layers.DefaultBatchNormEps and layers.DefaultLayerNormEps
LEAKY_ALPHA = 0.01  # layers.DefaultLeakyReLUAlpha

NORMS = [
    ("none", "inference"),
    ("batchnorm", "training"),
    ("batchnorm", "inference"),
    ("layernorm", "inference"),
]
ACTIVATIONS = ["none", "relu", "leaky_relu", "sigmoid", "tanh", "gelu", "gelu_tanh", "silu", "softmax"]


def activate(name, v):
    if name == "none":
        return v
    if name == "relu":
        return jnp.maximum(v, 0.0)
    if name == "leaky_relu":
        return jnp.where(v > 0, v, v * LEAKY_ALPHA)
    if name == "sigmoid":
        return jax.nn.sigmoid(v)
    if name == "tanh":
        return jnp.tanh(v)
    if name == "gelu":
        return 0.5 * v * (1.0 + lax.erf(v * (1.0 / math.sqrt(2.0))))
    if name == "gelu_tanh":
        inner = math.sqrt(2.0 / math.pi) * (v + 0.044715 * (v * v * v))
        return 0.5 * v * (1.0 + jnp.tanh(inner))
    if name == "silu":
        return v * jax.nn.sigmoid(v)
    if name == "softmax":
        e = jnp.exp(v - jnp.max(v, axis=-1, keepdims=True))
        return e / jnp.sum(e, axis=-1, keepdims=True)
    raise ValueError(name)


def param_specs(sizes, norm, mode):
    """(name, shape, (lo, hi)) of every parameter, in Model.Params order,
    with models.RandomParams's init ranges."""
    specs = []
    last = len(sizes) - 1
    for i in range(1, last + 1):
        fin, fout = sizes[i - 1], sizes[i]
        bound = 1.0 / math.sqrt(fin)
        specs.append((f"dense{i}.W", (fin, fout), (-bound, bound)))
        specs.append((f"dense{i}.b", (fout,), (-bound, bound)))
        if i == last:
            break
        if norm == "batchnorm":
            if mode == "inference":
                specs.append((f"bn{i}.mean", (fout,), (-0.1, 0.1)))
                specs.append((f"bn{i}.var", (fout,), (0.5, 1.5)))
            specs.append((f"bn{i}.scale", (fout,), (0.75, 1.25)))
            specs.append((f"bn{i}.shift", (fout,), (-0.1, 0.1)))
        elif norm == "layernorm":
            specs.append((f"ln{i}.scale", (fout,), (0.75, 1.25)))
            specs.append((f"ln{i}.shift", (fout,), (-0.1, 0.1)))
    return specs


def forward(sizes, norm, mode, act, params, x):
    h = x
    last = len(sizes) - 1
    for i in range(1, last + 1):
        h = h @ params[f"dense{i}.W"] + params[f"dense{i}.b"]
        if i == last:
            break
        if norm == "batchnorm":
            if mode == "training":
                m = jnp.sum(h, axis=0) / h.shape[0]
                s = jnp.sum((h - m) * (h - m), axis=0) / h.shape[0]
            else:
                m, s = params[f"bn{i}.mean"], params[f"bn{i}.var"]
            h = (h - m) * lax.rsqrt(s + EPS) * params[f"bn{i}.scale"] + params[f"bn{i}.shift"]
        elif norm == "layernorm":
            n = h.shape[1]
            m = jnp.sum(h, axis=1, keepdims=True) / n
            s = jnp.sum((h - m) * (h - m), axis=1, keepdims=True) / n
            h = (h - m) * lax.rsqrt(s + EPS) * params[f"ln{i}.scale"] + params[f"ln{i}.shift"]
        h = activate(act, h)
    return h


def softmax_xent(logits, labels):
    """Mean over the batch of logsumexp(row) - row[label], the log-sum-exp
    shifted by the row maximum."""
    mx = jnp.max(logits, axis=1, keepdims=True)
    lse = jnp.log(jnp.sum(jnp.exp(logits - mx), axis=1)) + mx[:, 0]
    picked = jnp.take_along_axis(logits, labels[:, None], axis=1)[:, 0]
    return jnp.mean(lse - picked)


def arr(a):
    a = np.asarray(a, dtype=np.float64)
    return {"shape": list(a.shape), "data": [float(v) for v in a.reshape(-1)]}


def config_name(sizes, norm, mode, act):
    n = norm if norm != "batchnorm" else f"batchnorm_{mode}"
    return "mlp_" + "_".join(map(str, sizes)) + f"_{n}_{act}"


def configs():
    out = []
    for norm, mode in NORMS:
        for act in ACTIVATIONS:
            out.append(([5, 4, 3], norm, mode, act))
    # One deeper network, through two normalised blocks.
    out.append(([6, 5, 4, 3], "batchnorm", "training", "gelu"))
    out.append(([6, 5, 4, 3], "layernorm", "inference", "silu"))
    return out


def draw(seed, sizes, norm, mode):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, size=(BATCH, sizes[0]))
    c = rng.uniform(-1.0, 1.0, size=(BATCH, sizes[-1]))
    labels = rng.integers(0, sizes[-1], size=(BATCH,))
    params = {}
    specs = param_specs(sizes, norm, mode)
    for name, shape, (lo, hi) in specs:
        params[name] = rng.uniform(lo, hi, size=shape)
    return x, c, labels, specs, params


def header(loss):
    return {
        "generator": "models/testdata/jax/make_fixtures.py",
        "jax": jax.__version__,
        "numpy": np.__version__,
        "dtype": "f64",
        "loss": loss,
        "eps": EPS,
        "leaky_relu_alpha": LEAKY_ALPHA,
    }


def entry(seed, sizes, norm, mode, act, x, specs, params):
    return {
        "name": config_name(sizes, norm, mode, act),
        "seed": seed,
        "sizes": sizes,
        "batch": BATCH,
        "norm": norm,
        "mode": mode,
        "activation": act,
        "x": arr(x),
        "params": [dict(name=n, **arr(params[n])) for n, _, _ in specs],
    }


def grads_list(specs, g):
    return [dict(name=n, **arr(g[n])) for n, _, _ in specs]


def sum_c_loss(sizes, norm, mode, act, x, c):
    def loss(p):
        return jnp.sum(forward(sizes, norm, mode, act, p, x) * c)

    return loss


def write(name, doc):
    path = os.path.join(HERE, name)
    with open(path, "w") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def main():
    grads_doc = header("sum(output * c)")
    grads_doc["configs"] = []
    xent_doc = header("mean over the batch of logsumexp(output[b]) - output[b, labels[b]]")
    xent_doc["configs"] = []
    for seed, (sizes, norm, mode, act) in enumerate(configs(), start=1):
        x, c, labels, specs, params = draw(seed, sizes, norm, mode)
        p = {k: jnp.asarray(v) for k, v in params.items()}
        out = forward(sizes, norm, mode, act, p, x)

        loss, g = jax.value_and_grad(sum_c_loss(sizes, norm, mode, act, x, c))(p)
        e = entry(seed, sizes, norm, mode, act, x, specs, params)
        e["c"] = arr(c)
        e["output"] = arr(out)
        e["loss"] = float(loss)
        e["grads"] = grads_list(specs, g)
        e["zero_grad_params"] = zero_grad_params(sizes, norm, mode)
        grads_doc["configs"].append(e)

        lab = jnp.asarray(labels)
        xloss, xg = jax.value_and_grad(lambda q: softmax_xent(forward(sizes, norm, mode, act, q, x), lab))(p)
        dlogits = jax.grad(lambda z: softmax_xent(z, lab))(out)
        e = entry(seed, sizes, norm, mode, act, x, specs, params)
        e["labels"] = [int(v) for v in labels]
        e["logits"] = arr(out)
        e["loss"] = float(xloss)
        e["dlogits"] = arr(dlogits)
        e["grads"] = grads_list(specs, xg)
        e["zero_grad_params"] = zero_grad_params(sizes, norm, mode)
        xent_doc["configs"].append(e)
    write("mlp_grads.json", grads_doc)
    write("mlp_softmax_xent.json", xent_doc)
    optimizers()


STEPS = 10
OPT_CONFIGS = [([5, 4, 3], "none", "inference", "relu"), ([5, 4, 3], "batchnorm", "training", "relu")]


def sgd_momentum(grad_fn, p, lr=0.1, mu=0.9):
    v = {k: jnp.zeros_like(a) for k, a in p.items()}
    traj = []
    for _ in range(STEPS):
        loss, g = grad_fn(p)
        v = {k: mu * v[k] + g[k] for k in p}
        p = {k: p[k] - lr * v[k] for k in p}
        traj.append((float(loss), p))
    return traj


def adam(grad_fn, p, lr=1e-2, b1=0.9, b2=0.999, eps=1e-8):
    m = {k: jnp.zeros_like(a) for k, a in p.items()}
    v = {k: jnp.zeros_like(a) for k, a in p.items()}
    traj = []
    for t in range(1, STEPS + 1):
        loss, g = grad_fn(p)
        m = {k: b1 * m[k] + (1 - b1) * g[k] for k in p}
        v = {k: b2 * v[k] + (1 - b2) * g[k] * g[k] for k in p}
        c1, c2 = 1 - b1**t, 1 - b2**t
        p = {k: p[k] - lr * (m[k] / c1) / (jnp.sqrt(v[k] / c2) + eps) for k in p}
        traj.append((float(loss), p))
    return traj


def with_optax(tx, grad_fn, p):
    """The same ten steps through an optax optimizer, as a cross-check."""
    state = tx.init(p)
    traj = []
    for _ in range(STEPS):
        loss, g = grad_fn(p)
        upd, state = tx.update(g, state, p)
        p = optax.apply_updates(p, upd)
        traj.append((float(loss), p))
    return traj


def zero_grad_params(sizes, norm, mode):
    """The parameters whose gradient is 0 in exact arithmetic: under
    BatchNorm in training mode the batch mean subtraction cancels the bias
    of the dense layer before it. Computed gradients there are rounding
    noise (about 1e-16 of the other gradients), in JAX as anywhere."""
    if norm == "batchnorm" and mode == "training":
        return [f"dense{i}.b" for i in range(1, len(sizes) - 1)]
    return []


# ZERO_GRAD_ATOL bounds how far the parameters of zero_grad_params may move
# from their initial values in ten optimizer steps, where the gradient is
# rounding noise g ~ 1e-15: Adam moves them by about lr * g / eps per step
# (1e-9 at lr 1e-2, eps 1e-8); SGD by lr * g.
ZERO_GRAD_ATOL = 1e-7


def agree(name, mine, theirs, initial, zero):
    for step, ((l1, p1), (l2, p2)) in enumerate(zip(mine, theirs), start=1):
        if not np.allclose(l1, l2, rtol=1e-13, atol=0):
            sys.exit(f"{name}: loss before step {step} is {l1!r} here, {l2!r} by optax")
        for k in p1:
            if k in zero:
                # Noise-driven: both must stay at the initial value, in
                # exact arithmetic exactly, here within ZERO_GRAD_ATOL.
                for p in (p1, p2):
                    if not np.allclose(p[k], initial[k], rtol=0, atol=ZERO_GRAD_ATOL):
                        sys.exit(f"{name}: {k} moved from its initial value by step {step}: {p[k]} vs {initial[k]}")
            elif not np.allclose(p1[k], p2[k], rtol=1e-13, atol=1e-15):
                sys.exit(f"{name}: {k} after step {step} differs from optax's: {p1[k]} vs {p2[k]}")


def optimizers():
    for fname, opt, tx, hyper in [
        ("optim_sgd_momentum.json", sgd_momentum, optax.sgd(0.1, momentum=0.9, nesterov=False),
         {"optimizer": "sgd_momentum", "lr": 0.1, "momentum": 0.9, "nesterov": False,
          "convention": "PyTorch: v = momentum*v + g (v starts at 0); p -= lr*v"}),
        ("optim_adam.json", adam, optax.adam(1e-2, b1=0.9, b2=0.999, eps=1e-8),
         {"optimizer": "adam", "lr": 1e-2, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8,
          "convention": "PyTorch: m = b1*m + (1-b1)*g; v = b2*v + (1-b2)*g^2; "
                        "p -= lr * (m/(1-b1^t)) / (sqrt(v/(1-b2^t)) + eps), t from 1"}),
    ]:
        doc = header("sum(output * c)")
        doc.update(hyper)
        doc["steps"] = STEPS
        doc["configs"] = []
        for k, (sizes, norm, mode, act) in enumerate(OPT_CONFIGS):
            seed = 100 + k
            x, c, _, specs, params = draw(seed, sizes, norm, mode)
            p = {n: jnp.asarray(v) for n, v in params.items()}
            grad_fn = jax.value_and_grad(sum_c_loss(sizes, norm, mode, act, x, c))
            traj = opt(grad_fn, p)
            zero = zero_grad_params(sizes, norm, mode)
            agree(f"{fname} {config_name(sizes, norm, mode, act)}", traj, with_optax(tx, grad_fn, p), params, zero)
            e = entry(seed, sizes, norm, mode, act, x, specs, params)
            e["c"] = arr(c)
            e["zero_grad_params"] = zero
            e["zero_grad_atol"] = ZERO_GRAD_ATOL
            # losses[i] is the loss before step i+1, at the parameters after i steps.
            e["losses"] = [l for l, _ in traj]
            e["params_after_1"] = [dict(name=n, **arr(traj[0][1][n])) for n, _, _ in specs]
            e["params_after_10"] = [dict(name=n, **arr(traj[-1][1][n])) for n, _, _ in specs]
            doc["configs"].append(e)
        write(fname, doc)


if __name__ == "__main__":
    if sys.version_info < (3, 9):
        sys.exit("needs Python 3.9 or later")
    main()
