#!/usr/bin/env python3
"""Write scikit-learn models exported through skl2onnx, which use the
ai.onnx.ml domain's linear operators, and small one-node models of those
operators, with onnxruntime's outputs.

How to rerun (from the repository root; takes a few seconds):

    python3 -m venv /tmp/venv-fixtures
    /tmp/venv-fixtures/bin/pip install onnx==1.23.2 onnxruntime==1.31.1 \
        scikit-learn==1.9.1 skl2onnx==1.20.0
    /tmp/venv-fixtures/bin/python imports/onnx/testdata/make_ml_models.py

It writes into imports/onnx/testdata/ml/ (everything there is replaced):

  <case>.onnx             the model
  <case>_x.npy            the input rows (float32)
  <case>_<output>.npy     onnxruntime's value of each output
  INDEX.json              per case: the file, the input's name and file, and
                          each output's name and file

The scikit-learn models are trained on rows 0-1499 of scikit-learn's digits
data (pixels as they come, 0-16) and run on rows 1500-1515; the one-node
models on inputs from a seeded generator chosen to reach the edge cases
(a row of zeros for Normalizer, a score of exactly 0 for the two-class
LinearClassifier). Everything is deterministic: a rerun writes the same
outputs.
"""

import json
import os
import shutil

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from skl2onnx import to_onnx
from sklearn.datasets import load_digits
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, Normalizer, StandardScaler

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ml")
shutil.rmtree(HERE, ignore_errors=True)
os.makedirs(HERE)
index = []


def save(name, model_bytes, x, input_name):
    with open(os.path.join(HERE, name + ".onnx"), "wb") as f:
        f.write(model_bytes)
    np.save(os.path.join(HERE, name + "_x.npy"), x)
    sess = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    outs = {}
    for o, v in zip(sess.get_outputs(), sess.run(None, {input_name: x})):
        fname = f"{name}_{o.name}.npy"
        np.save(os.path.join(HERE, fname), np.asarray(v))
        outs[o.name] = fname
    index.append({"file": name + ".onnx", "input": input_name, "input_file": name + "_x.npy", "outputs": outs})


X, y = load_digits(return_X_y=True)
X = X.astype(np.float32)
train, test = slice(0, 1500), slice(1500, 1516)

sk = {
    "sk_standard_mlp": (make_pipeline(StandardScaler(), MLPClassifier((32,), max_iter=60, random_state=0)), y),
    "sk_minmax_logistic": (make_pipeline(MinMaxScaler(), LogisticRegression(max_iter=300)), y),
    "sk_logistic_binary": (LogisticRegression(max_iter=300), (y % 2 == 0).astype(np.int64) * 5 + 2),
    "sk_l2_logistic_raw_scores": (make_pipeline(Normalizer("l2"), LogisticRegression(max_iter=300)), y),
    "sk_max_linear_regression": (make_pipeline(Normalizer("max"), LinearRegression()), y.astype(np.float32)),
    "sk_l1_ridge_two_targets": (make_pipeline(Normalizer("l1"), Ridge()), np.stack([y, y % 3], 1).astype(np.float32)),
}
for name, (model, target) in sk.items():
    model.fit(X[train], target[train])
    last = model.steps[-1][1] if hasattr(model, "steps") else model
    options = {id(last): {"zipmap": False}} if hasattr(last, "classes_") else None
    if name.endswith("raw_scores"):
        options[id(last)]["raw_scores"] = True  # the scores, no post_transform
    onx = to_onnx(model, X[:1], options=options, target_opset={"": 17, "ai.onnx.ml": 3})
    save(name, onx.SerializeToString(), X[test], onx.graph.input[0].name)


def node_model(op, attrs, x_shape, outputs, extra_init=None):
    node = helper.make_node(op, ["X"] + ([i.name for i in extra_init] if extra_init else []),
                            [o for o, _ in outputs], domain="ai.onnx.ml", **attrs)
    graph = helper.make_graph(
        [node], op,
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(x_shape))],
        [helper.make_tensor_value_info(o, t, None) for o, t in outputs],
        initializer=extra_init or [])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 3)],
                          ir_version=9)
    return m.SerializeToString()


rng = np.random.default_rng(20261128)
x = rng.uniform(-2, 2, size=(6, 3)).astype(np.float32)
x[1] = 0                      # a row of zeros: Normalizer leaves it
x[2] = [-1, -2, -4]           # all negative: MAX divides by the largest, -1
x[3] = [0, 0.25, 0]           # a binary score of exactly 0 below
F, I = TensorProto.FLOAT, TensorProto.INT64
save("node_scaler_scalar", node_model("Scaler", {"offset": [0.5], "scale": [2.0]}, x.shape, [("Y", F)]), x, "X")
save("node_scaler_vector", node_model("Scaler", {"offset": [0.5, -1, 0], "scale": [2.0, 0.5, -3]}, x.shape, [("Y", F)]), x, "X")
for norm in ["MAX", "L1", "L2"]:
    save(f"node_normalizer_{norm.lower()}", node_model("Normalizer", {"norm": norm}, x.shape, [("Y", F)]), x, "X")
coef3 = [1.0, -1.0, 0.5, 0.5, 0.5, 0.5, -1.0, 2.0, 0.0]
for pt in ["NONE", "LOGISTIC", "SOFTMAX"]:
    save(f"node_linear_classifier_{pt.lower()}",
         node_model("LinearClassifier", {"coefficients": coef3, "intercepts": [0.25, 0.0, -0.5],
                                         "classlabels_ints": [3, 7, 9], "post_transform": pt},
                    x.shape, [("label", I), ("scores", F)]), x, "X")
    save(f"node_linear_classifier_binary_{pt.lower()}",
         node_model("LinearClassifier", {"coefficients": [1.0, -1.0, 0.5], "intercepts": [0.25],
                                         "classlabels_ints": [3, 7], "post_transform": pt},
                    x.shape, [("label", I), ("scores", F)]), x, "X")
save("node_linear_regressor", node_model("LinearRegressor", {"coefficients": coef3[:6], "intercepts": [1.0, -1.0], "targets": 2},
                                          x.shape, [("Y", F)]), x, "X")

with open(os.path.join(HERE, "INDEX.json"), "w") as f:
    json.dump({"cases": index}, f, indent=1)
    f.write("\n")
print(len(index), "cases")
