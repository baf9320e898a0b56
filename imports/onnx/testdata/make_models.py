#!/usr/bin/env python3
"""Write small real exported models, with reference outputs, for the importers.

How to rerun (from the repository root; takes about a minute on two cores):

    python3 -m venv /tmp/venv-fixtures
    /tmp/venv-fixtures/bin/pip install onnx==1.23.2 onnxruntime==1.31.1 \
        scikit-learn==1.9.1 skl2onnx==1.20.0 tensorflow-cpu==2.21.0 tf2onnx==1.17.0
    /tmp/venv-fixtures/bin/python imports/onnx/testdata/make_models.py

With --ops-cnn-only it writes only ops_cnn_digits.onnx and its output and puts
that model's entry into models/INDEX.json (needs onnx, onnxruntime, numpy and
scikit-learn, for the digits data). --convbn-only does the same for
convbn_digits.onnx.

Versions used for the committed files (pip resolved the rest; full list in
imports/onnx/testdata/MANIFEST): Python 3.11.7, onnx 1.23.2, onnxruntime 1.31.1,
numpy 2.4.6, scikit-learn 1.9.1, skl2onnx 1.20.0, tensorflow-cpu 2.21.0,
keras 3.15.1, tf2onnx 1.17.0, protobuf 7.36.2.

What it writes (files of the same names are replaced):

imports/onnx/testdata/models/
  digits_input.npy, digits_labels.npy    16 held-out digits rows (float32 [16,64],
                                         pixels/16) and their true classes (int64)
  sklearn_mlp_digits.onnx                scikit-learn MLPClassifier (64-32-10) exported
                                         by skl2onnx as it comes: output_label (the
                                         ai.onnx.ml label branch) and output_probability
                                         (ZipMap, a sequence of maps); the probability
                                         tensor feeding ZipMap is "out_activations_result"
  sklearn_mlp_digits_nozipmap.onnx       the same model exported with zipmap=False:
                                         output_probability is a float32 tensor
  sklearn_mlp_digits_ort_probabilities.npy   onnxruntime's probabilities (float32 [16,10])
  sklearn_mlp_digits_ort_label.npy       onnxruntime's output_label (int64 [16])
  keras_digits_tf2onnx.onnx              the Keras model below converted by tf2onnx
  keras_digits_tf2onnx_ort_output.npy    onnxruntime's output (float32 [16,10])
  softmax_opset11_*.onnx, logsoftmax_opset11_axis1.onnx, softmax_opset13_axis1.onnx
                                         one-node models on a rank-3 input, where opset
                                         <= 12 flattens from the axis and opset 13 does not
  opset11_input.npy, <model>_ort_output.npy   their input (float32 [2,3,4]) and outputs
  ops_cnn_digits.onnx                    a small CNN written with onnx.helper as PyTorch
                                         exports one (opset 18): Conv, InstanceNormalization,
                                         PRelu, LRN, Slice, Split, HardSwish, Mish, Concat,
                                         GlobalMaxPool, GlobalAveragePool, Gemm, Softmax
  ops_cnn_digits_ort_probabilities.npy   onnxruntime's output (float32 [16,10])
  convbn_digits.onnx                     a channels-first conv block written with onnx.helper
                                         as PyTorch exports one in eval mode with
                                         BatchNormalization unfolded (opset 18): Conv (bias),
                                         BatchNormalization, Relu; depthwise Conv (group 8),
                                         BatchNormalization, Clip [0,6]; 1x1 Conv, Add of a
                                         [40,1,1] bias, Mul by a [1,40,1,1] scale, Relu;
                                         depthwise Conv (group 40, stride 2, bias),
                                         BatchNormalization, Relu; GlobalAveragePool,
                                         Flatten, Gemm, Softmax
  convbn_digits_ort_probabilities.npy    onnxruntime's output (float32 [16,10])
  INDEX.json                             every model: inputs, outputs, opsets, reference files
imports/tf/testdata/
  digits_input.npy                       the same 16 rows
  keras_digits.pb                        Keras Sequential Dense(32), BatchNormalization,
                                         ReLU, Dense(10), Softmax trained 3 epochs on
                                         digits, frozen (convert_variables_to_constants_v2)
  keras_digits_tf_output.npy             TensorFlow's output of the frozen graph
  digits_fused_bn.pb                     the same trained weights written with MatMul
                                         (transpose_b), BiasAdd, Reshape, FusedBatchNormV3,
                                         Relu, Add, Softmax, frozen the same way
  digits_fused_bn_tf_output.npy          TensorFlow's output of that graph
  INDEX.json                             inputs, outputs and reference files of both

Every reference output is computed by the runtime named from the file just
written, and cross-checked here: onnxruntime against scikit-learn's
predict_proba, TensorFlow's frozen graphs against Keras's predict, onnxruntime
on the tf2onnx model against TensorFlow, the opset-11 models against a numpy
evaluation of the flattening semantics (which must differ from opset 13's). The
CNN's reference is onnxruntime's alone (onnx.reference's LRN loops over the batch
axis instead of the channels, so it cannot check it); the conv block's is checked
against a float64 numpy evaluation of the same network within 1e-4.
Seeds are fixed (numpy, scikit-learn random_state, keras.utils.set_random_seed,
TensorFlow op determinism, one thread), so a rerun on the same versions writes
the same numbers.
"""

import json
import os
import sys
import warnings

# Fixed before numpy and TensorFlow load, so that training is repeatable.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnxruntime as ort  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "models")
TF_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "tf", "testdata"))

# Rows [TRAIN, TRAIN+ROWS) of the digits data are the fixture rows; the model
# never sees them in training.
TRAIN = 1500
ROWS = 16
MAX_FILE = 500 * 1024


def save_npy(path, array):
    np.save(path, array, allow_pickle=False)
    return os.path.basename(path)


def write_proto(path, message):
    """Serializes with maps in key order (GraphDef attributes are a map) and a
    model's opset imports in domain order (skl2onnx lists them in set order), so
    a rerun writes the same bytes."""
    if isinstance(message, onnx.ModelProto):
        imports = sorted(message.opset_import, key=lambda o: o.domain)
        del message.opset_import[:]
        message.opset_import.extend(imports)
    with open(path, "wb") as f:
        f.write(message.SerializeToString(deterministic=True))
    return os.path.basename(path)


def ort_run(path, feeds):
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def value_infos(values):
    out = []
    for v in values:
        t = v.type
        if t.HasField("tensor_type"):
            shape = []
            for d in t.tensor_type.shape.dim:
                if d.HasField("dim_value"):
                    shape.append(d.dim_value)
                else:
                    shape.append(d.dim_param or None)
            out.append({"name": v.name,
                        "dtype": helper.tensor_dtype_to_np_dtype(t.tensor_type.elem_type).name,
                        "shape": shape})
        else:
            out.append({"name": v.name, "type": "sequence/map/optional (not a tensor)"})
    return out


def onnx_entry(path, **extra):
    m = onnx.load(path)
    entry = {
        "file": os.path.basename(path),
        "producer": f"{m.producer_name} {m.producer_version}".strip(),
        "ir_version": m.ir_version,
        "opset_import": {(o.domain or "ai.onnx"): o.version for o in m.opset_import},
        "ops": sorted({(n.domain + "." if n.domain else "") + n.op_type for n in m.graph.node}),
        "inputs": value_infos(m.graph.input),
        "outputs": value_infos(m.graph.output),
    }
    entry.update(extra)
    produced = {o for n in m.graph.node for o in n.output}
    for name in entry.get("references", {}):
        if name not in produced:
            raise SystemExit(f"{path}: reference for {name!r}, which no node produces")
    return entry


def digits():
    from sklearn.datasets import load_digits  # noqa: PLC0415

    x, y = load_digits(return_X_y=True)
    x = (x / 16.0).astype(np.float32)
    return x, y.astype(np.int64)


def sklearn_models(x, y, rows, index):
    from skl2onnx import convert_sklearn  # noqa: PLC0415
    from skl2onnx.common.data_types import FloatTensorType  # noqa: PLC0415
    from sklearn.neural_network import MLPClassifier  # noqa: PLC0415

    clf = MLPClassifier(hidden_layer_sizes=(32,), random_state=0, max_iter=300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning: 300 iterations are plenty here
        clf.fit(x[:TRAIN], y[:TRAIN])
    acc = clf.score(x[TRAIN:], y[TRAIN:])
    opset = {"": 21, "ai.onnx.ml": 3}
    types = [("input", FloatTensorType([None, 64]))]
    # A fixed graph name: skl2onnx otherwise names the graph with a random uuid.
    plain = convert_sklearn(clf, name="sklearn_mlp_digits", initial_types=types,
                            target_opset=opset)
    nozip = convert_sklearn(clf, name="sklearn_mlp_digits", initial_types=types,
                            target_opset=opset, options={id(clf): {"zipmap": False}})
    p_plain = os.path.join(MODELS, "sklearn_mlp_digits.onnx")
    p_nozip = os.path.join(MODELS, "sklearn_mlp_digits_nozipmap.onnx")
    write_proto(p_plain, plain)
    write_proto(p_nozip, nozip)

    label, zipped = ort_run(p_plain, {"input": rows})
    label2, probs = ort_run(p_nozip, {"input": rows})
    from_zip = np.array([[d[k] for k in range(10)] for d in zipped], dtype=np.float32)
    np.testing.assert_array_equal(from_zip, probs)
    np.testing.assert_array_equal(label, label2)
    np.testing.assert_allclose(probs, clf.predict_proba(rows), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(label, clf.predict(rows))
    f_probs = save_npy(os.path.join(MODELS, "sklearn_mlp_digits_ort_probabilities.npy"), probs)
    f_label = save_npy(os.path.join(MODELS, "sklearn_mlp_digits_ort_label.npy"), label)
    about = {
        "trained": "sklearn MLPClassifier(hidden_layer_sizes=(32,), random_state=0, "
                   f"max_iter=300) on digits rows [0,{TRAIN}), pixels/16",
        "heldout_accuracy": round(float(acc), 4),
        "target_opset": opset,
        "input_file": "digits_input.npy",
    }
    index.append(onnx_entry(
        p_plain, **about,
        probabilities_tensor="out_activations_result",
        note="output_probability is ZipMap's sequence of maps; the probability tensor is "
             "out_activations_result (Softmax's output). output_label comes from the "
             "ai.onnx.ml label branch (ArgMax, ArrayFeatureExtractor, Reshape, Cast).",
        references={"out_activations_result": f_probs, "output_label": f_label},
        reference_runtime=f"onnxruntime {ort.__version__}"))
    index.append(onnx_entry(
        p_nozip, **about,
        note="exported with options zipmap=False: the outputs are the tensors "
             "probabilities and label",
        references={"probabilities": f_probs, "label": f_label},
        reference_runtime=f"onnxruntime {ort.__version__}"))
    return acc


def keras_models(x, y, rows, onnx_index, tf_index):
    import keras  # noqa: PLC0415
    import tensorflow as tf  # noqa: PLC0415
    import tf2onnx  # noqa: PLC0415
    from tensorflow.python.framework.convert_to_constants import (  # noqa: PLC0415
        convert_variables_to_constants_v2,
    )

    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    keras.utils.set_random_seed(0)
    tf.config.experimental.enable_op_determinism()

    model = keras.Sequential([
        keras.Input((64,), name="input"),
        keras.layers.Dense(32, name="dense"),
        keras.layers.BatchNormalization(name="batchnorm"),
        keras.layers.ReLU(name="relu"),
        keras.layers.Dense(10, name="logits"),
        keras.layers.Softmax(name="softmax"),
    ])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.fit(x[:TRAIN], y[:TRAIN], epochs=3, batch_size=32, shuffle=True, verbose=0)
    acc = float(model.evaluate(x[TRAIN:], y[TRAIN:], verbose=0)[1])
    keras_out = model.predict(rows, verbose=0)

    def freeze(fn):
        spec = tf.TensorSpec([None, 64], tf.float32, name="input")
        frozen = convert_variables_to_constants_v2(tf.function(fn).get_concrete_function(spec))
        gd = frozen.graph.as_graph_def()
        outs = [t.name for t in frozen.outputs]
        return gd, outs

    def run_pb(path, output):
        gd = tf.compat.v1.GraphDef()
        with open(path, "rb") as f:
            gd.ParseFromString(f.read())
        g = tf.Graph()
        with g.as_default():
            tf.import_graph_def(gd, name="")
        with tf.compat.v1.Session(graph=g) as s:
            return s.run(output, {"input:0": rows})

    def tf_entry(path, gd, outs, ref, **extra):
        entry = {
            "file": os.path.basename(path),
            "producer": f"tensorflow {tf.__version__} (GraphDef producer {gd.versions.producer})",
            "ops": sorted({n.op for n in gd.node}),
            "inputs": [{"name": "input", "tensor": "input:0", "dtype": "float32",
                        "shape": [None, 64]}],
            "outputs": [{"name": o.split(":")[0], "tensor": o, "dtype": "float32",
                         "shape": [None, 10]} for o in outs],
            "input_file": "digits_input.npy",
            "references": {outs[0].split(":")[0]: ref},
            "reference_runtime": f"tensorflow {tf.__version__}",
        }
        entry.update(extra)
        return entry

    # The Keras model, frozen as it is.
    gd, outs = freeze(lambda t: model(t, training=False))
    pb = os.path.join(TF_DIR, "keras_digits.pb")
    write_proto(pb, gd)
    tf_out = run_pb(pb, outs[0])
    np.testing.assert_allclose(tf_out, keras_out, rtol=1e-5, atol=1e-6)
    ref = save_npy(os.path.join(TF_DIR, "keras_digits_tf_output.npy"), tf_out)
    about = {
        "trained": "keras Sequential Dense(32), BatchNormalization, ReLU, Dense(10), Softmax; "
                   f"adam, 3 epochs, batch 32, seed 0, digits rows [0,{TRAIN}), pixels/16",
        "heldout_accuracy": round(acc, 4),
    }
    tf_index.append(tf_entry(
        pb, gd, outs, ref, **about,
        note="frozen with convert_variables_to_constants_v2 from model(x, training=False); "
             "Keras 3 writes BatchNormalization as AddV2/Rsqrt/Mul/Sub, and the output "
             "Identity has a control input ^NoOp"))

    # tf2onnx from the same frozen graph.
    proto, _ = tf2onnx.convert.from_graph_def(gd, input_names=["input:0"],
                                              output_names=[outs[0]], opset=17)
    po = os.path.join(MODELS, "keras_digits_tf2onnx.onnx")
    write_proto(po, proto)
    (ort_out,) = ort_run(po, {"input:0": rows})
    np.testing.assert_allclose(ort_out, tf_out, rtol=1e-5, atol=1e-6)
    ref_o = save_npy(os.path.join(MODELS, "keras_digits_tf2onnx_ort_output.npy"), ort_out)
    onnx_index.append(onnx_entry(
        po, **about, input_file="digits_input.npy", converter=f"tf2onnx {tf2onnx.__version__}",
        note="converted from imports/tf/testdata/keras_digits.pb at opset 17 "
             "(tf2onnx folds BatchNormalization into Mul and Add)",
        references={outs[0]: ref_o},
        reference_runtime=f"onnxruntime {ort.__version__}"))

    # The same weights written with the ops a TensorFlow 1 style export uses.
    dense, bn, logits = (model.get_layer(n) for n in ("dense", "batchnorm", "logits"))
    w1, b1 = (np.asarray(v) for v in dense.get_weights())
    gamma, beta, mean, var = (np.asarray(v) for v in bn.get_weights())
    w2, b2 = (np.asarray(v) for v in logits.get_weights())
    eps = float(bn.epsilon)

    def fused(t):
        h = tf.linalg.matmul(t, tf.constant(np.ascontiguousarray(w1.T)), transpose_b=True,
                             name="dense/MatMul")
        h = tf.nn.bias_add(h, tf.constant(b1), name="dense/BiasAdd")
        h = tf.reshape(h, [-1, 1, 1, 32], name="bn/to_nhwc")
        h, _, _ = tf.compat.v1.nn.fused_batch_norm(
            h, tf.constant(gamma), tf.constant(beta), mean=tf.constant(mean),
            variance=tf.constant(var), epsilon=eps, is_training=False, name="bn/FusedBatchNormV3")
        h = tf.reshape(h, [-1, 32], name="bn/to_nc")
        h = tf.nn.relu(h, name="relu")
        h = tf.linalg.matmul(h, tf.constant(w2), name="logits/MatMul")
        h = tf.raw_ops.Add(x=h, y=tf.constant(b2), name="logits/Add")
        return tf.nn.softmax(h, name="softmax")

    gd2, outs2 = freeze(fused)
    pb2 = os.path.join(TF_DIR, "digits_fused_bn.pb")
    write_proto(pb2, gd2)
    tf_out2 = run_pb(pb2, outs2[0])
    np.testing.assert_allclose(tf_out2, keras_out, rtol=1e-5, atol=1e-6)
    ref2 = save_npy(os.path.join(TF_DIR, "digits_fused_bn_tf_output.npy"), tf_out2)
    tf_index.append(tf_entry(
        pb2, gd2, outs2, ref2, **about,
        note="the trained Keras weights rewritten with MatMul(transpose_b=true), BiasAdd, "
             "Reshape to NHWC [-1,1,1,32], FusedBatchNormV3 (is_training=false, epsilon "
             f"{eps}), Reshape back, Relu, MatMul, Add, Softmax; frozen the same way"))
    return acc


def fit_digits_classifier(name, feature_nodes, nfeat, consts, opsets, x, y, rows):
    """Completes a digits model written with onnx.helper whose feature_nodes
    end in "features" [batch, nfeat]: a Gemm fitted by ridge regression to
    one-hot labels on onnxruntime's features of the training rows, then a
    Softmax giving "probabilities". It writes MODELS/name.onnx (consts are
    its initializers, fc_W and fc_B added) and returns its path,
    onnxruntime's probabilities on rows and the held-out accuracy."""
    n = helper.make_node

    def model(nodes, outputs, inits):
        graph = helper.make_graph(
            nodes, name,
            [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 64])],
            outputs,
            [onnx.numpy_helper.from_array(v, k) for k, v in inits.items()])
        m = helper.make_model_gen_version(graph, producer_name="make_models.py", opset_imports=opsets)
        onnx.checker.check_model(m, full_check=True)
        return m

    feat_model = model(feature_nodes, [helper.make_tensor_value_info("features", TensorProto.FLOAT,
                                                                     ["batch", nfeat])], consts)
    sess = ort.InferenceSession(feat_model.SerializeToString(), providers=["CPUExecutionProvider"])
    (feats,) = sess.run(None, {"input": x[:TRAIN]})
    a = np.hstack([feats.astype(np.float64), np.ones((TRAIN, 1))])
    target = np.eye(10)[y[:TRAIN]] * 8 - 4
    coef = np.linalg.solve(a.T @ a + 1e-2 * np.eye(a.shape[1]), a.T @ target)
    consts["fc_W"] = coef[:-1].astype(np.float32)
    consts["fc_B"] = coef[-1].astype(np.float32)
    nodes = feature_nodes + [
        n("Gemm", ["features", "fc_W", "fc_B"], ["logits"], name="/fc/Gemm"),
        n("Softmax", ["logits"], ["probabilities"], name="/Softmax", axis=1),
    ]
    full = model(nodes, [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT,
                                                       ["batch", 10])], consts)
    path = os.path.join(MODELS, f"{name}.onnx")
    write_proto(path, full)
    (probs,) = ort_run(path, {"input": rows})
    (heldout,) = ort_run(path, {"input": x[TRAIN:]})
    acc = float((heldout.argmax(axis=1) == y[TRAIN:]).mean())
    return path, probs, acc


def ops_cnn_model(x, y, rows, index):
    """A small CNN written with onnx.helper in the form PyTorch's exporter gives
    (opset 18, NCHW, per-channel PRelu slopes of shape [C,1,1]), over the
    operators an MLP or CNN export uses beyond the basic ones: Reshape, Conv,
    InstanceNormalization, PRelu, LRN, Slice of a data tensor (a crop), Split
    into two channel groups, HardSwish on one and Mish on the other, Concat,
    Conv, GlobalMaxPool and GlobalAveragePool concatenated, Flatten, Gemm,
    Softmax. The convolutions' weights are random (seeded); the Gemm is fitted
    to the training rows by ridge regression on the features onnxruntime
    computes, so that the model classifies digits."""
    rng = np.random.default_rng(5)
    f32 = np.float32
    w1 = (rng.standard_normal((6, 1, 3, 3)) / 3).astype(f32)
    b1 = (rng.standard_normal(6) * 0.1).astype(f32)
    scale = (1 + 0.2 * rng.standard_normal(6)).astype(f32)
    shift = (0.1 * rng.standard_normal(6)).astype(f32)
    slope = np.array([0.25, 0.1, 0.3, 0.05, 0.2, 0.15], f32).reshape(6, 1, 1)
    w2 = (rng.standard_normal((16, 6, 3, 3)) / np.sqrt(54)).astype(f32)
    b2 = (rng.standard_normal(16) * 0.1).astype(f32)
    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
    consts = {
        "shape": i64(-1, 1, 8, 8), "W1": w1, "B1": b1, "in_scale": scale, "in_bias": shift,
        "slope": slope, "crop_starts": i64(1, 1), "crop_ends": i64(7, 7), "crop_axes": i64(2, 3),
        "groups": i64(3, 3), "W2": w2, "B2": b2,
    }
    n = helper.make_node
    feature_nodes = [
        n("Reshape", ["input", "shape"], ["image"], name="/Reshape"),
        n("Conv", ["image", "W1", "B1"], ["c1"], name="/conv1/Conv", kernel_shape=[3, 3],
          pads=[1, 1, 1, 1]),
        n("InstanceNormalization", ["c1", "in_scale", "in_bias"], ["n1"], name="/norm/InstanceNormalization",
          epsilon=1e-5),
        n("PRelu", ["n1", "slope"], ["a1"], name="/act/PRelu"),
        n("LRN", ["a1"], ["l1"], name="/lrn/LRN", size=3, alpha=0.5, beta=0.75, bias=1.0),
        n("Slice", ["l1", "crop_starts", "crop_ends", "crop_axes"], ["crop"], name="/Slice"),
        n("Split", ["crop", "groups"], ["g1", "g2"], name="/Split", axis=1),
        n("HardSwish", ["g1"], ["h1"], name="/HardSwish"),
        n("Mish", ["g2"], ["h2"], name="/Mish"),
        n("Concat", ["h1", "h2"], ["joined"], name="/Concat", axis=1),
        n("Conv", ["joined", "W2", "B2"], ["c2"], name="/conv2/Conv", kernel_shape=[3, 3]),
        n("GlobalMaxPool", ["c2"], ["gmax"], name="/GlobalMaxPool"),
        n("GlobalAveragePool", ["c2"], ["gavg"], name="/GlobalAveragePool"),
        n("Concat", ["gmax", "gavg"], ["pooled"], name="/Concat_1", axis=1),
        n("Flatten", ["pooled"], ["features"], name="/Flatten", axis=1),
    ]
    opsets = [helper.make_opsetid("", 18)]

    path, probs, acc = fit_digits_classifier("ops_cnn_digits", feature_nodes, 32, consts, opsets, x, y, rows)
    ref = save_npy(os.path.join(MODELS, "ops_cnn_digits_ort_probabilities.npy"), probs)
    index.append(onnx_entry(
        path, input_file="digits_input.npy", references={"probabilities": ref},
        reference_runtime=f"onnxruntime {ort.__version__}",
        heldout_accuracy=round(acc, 4),
        note="written with onnx.helper in the form of a PyTorch export (opset 18): "
             "Reshape, Conv, InstanceNormalization, PRelu ([C,1,1] slope), LRN, Slice "
             "(crop of a data tensor), Split, HardSwish, Mish, Concat, Conv, GlobalMaxPool, "
             "GlobalAveragePool, Flatten, Gemm, Softmax; random seeded convolutions, the "
             "Gemm fitted by ridge regression on the training rows' features"))
    return acc


def numpy_conv(x, w, b=None, stride=1, pad=0, group=1):
    """NCHW convolution in float64 by a loop over the kernel taps, for checking."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, m, oh, ow))
    mg = m // group
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        ws = w[g * mg:(g + 1) * mg].astype(np.float64)
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
                out[:, g * mg:(g + 1) * mg] += np.einsum("nchw,mc->nmhw", patch, ws[:, :, i, j])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def convbn_model(x, y, rows, index):
    """A channels-first convolutional block written with onnx.helper in the form
    PyTorch's exporter gives in eval mode without folding BatchNormalization
    into the convolutions (opset 18, NCHW, initializers named as PyTorch names
    parameters): Reshape, Conv with bias, BatchNormalization, Relu; depthwise
    Conv (group 8) without bias, BatchNormalization, Clip to [0,6] (ReLU6, min
    and max as inputs); pointwise Conv without bias, Add of a [40,1,1] bias and
    Mul by a [1,40,1,1] scale (per-channel broadcasts), Relu; depthwise Conv
    (group 40, stride 2) with bias, BatchNormalization, Relu; GlobalAveragePool,
    Flatten, Gemm, Softmax. The weights are random (seeded); the Gemm is fitted
    to the training rows by ridge regression on the features onnxruntime
    computes, and the whole network is checked against a numpy evaluation."""
    rng = np.random.default_rng(23)
    f32 = np.float32

    def bn(c):
        return ((rng.uniform(0.5, 1.5, c)).astype(f32),       # weight (scale)
                (0.1 * rng.standard_normal(c)).astype(f32),   # bias (B)
                (0.1 * rng.standard_normal(c)).astype(f32),   # running_mean
                (rng.uniform(0.5, 1.5, c)).astype(f32))       # running_var, positive

    w1 = (rng.standard_normal((8, 1, 3, 3)) * 0.3).astype(f32)
    b1 = (rng.standard_normal(8) * 0.1).astype(f32)
    bn1 = bn(8)
    w2 = (rng.standard_normal((8, 1, 3, 3)) * 0.3).astype(f32)
    bn2 = bn(8)
    w3 = (rng.standard_normal((40, 8, 1, 1)) * 0.3).astype(f32)
    b3 = (rng.standard_normal((40, 1, 1)) * 0.1).astype(f32)
    s3 = (rng.uniform(0.5, 1.5, (1, 40, 1, 1))).astype(f32)
    w4 = (rng.standard_normal((40, 1, 3, 3)) * 0.3).astype(f32)
    b4 = (rng.standard_normal(40) * 0.1).astype(f32)
    bn4 = bn(40)
    eps = 1e-5
    consts = {"shape": np.array([-1, 1, 8, 8], np.int64), "conv1.weight": w1, "conv1.bias": b1}
    for name, p in (("bn1", bn1), ("bn2", bn2), ("bn4", bn4)):
        for suffix, v in zip(("weight", "bias", "running_mean", "running_var"), p):
            consts[f"{name}.{suffix}"] = v
    consts.update({
        "dw2.weight": w2, "clip_min": np.array(0, f32), "clip_max": np.array(6, f32),
        "pw3.weight": w3, "pw3.bias": b3, "pw3.scale": s3, "dw4.weight": w4, "dw4.bias": b4,
    })

    n = helper.make_node

    def bn_node(x_in, name, out):
        return n("BatchNormalization", [x_in, f"{name}.weight", f"{name}.bias",
                                        f"{name}.running_mean", f"{name}.running_var"], [out],
                 name=f"/{name}/BatchNormalization", epsilon=eps, momentum=0.9)

    feature_nodes = [
        n("Reshape", ["input", "shape"], ["image"], name="/Reshape"),
        n("Conv", ["image", "conv1.weight", "conv1.bias"], ["c1"], name="/conv1/Conv",
          kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[1, 1], dilations=[1, 1], group=1),
        bn_node("c1", "bn1", "n1"),
        n("Relu", ["n1"], ["a1"], name="/act1/Relu"),
        n("Conv", ["a1", "dw2.weight"], ["c2"], name="/dw2/Conv", kernel_shape=[3, 3],
          pads=[1, 1, 1, 1], strides=[1, 1], dilations=[1, 1], group=8),
        bn_node("c2", "bn2", "n2"),
        n("Clip", ["n2", "clip_min", "clip_max"], ["a2"], name="/act2/Clip"),
        n("Conv", ["a2", "pw3.weight"], ["c3"], name="/pw3/Conv", kernel_shape=[1, 1],
          pads=[0, 0, 0, 0], strides=[1, 1], dilations=[1, 1], group=1),
        n("Add", ["c3", "pw3.bias"], ["biased"], name="/pw3/Add"),
        n("Mul", ["biased", "pw3.scale"], ["scaled"], name="/pw3/Mul"),
        n("Relu", ["scaled"], ["a3"], name="/act3/Relu"),
        n("Conv", ["a3", "dw4.weight", "dw4.bias"], ["c4"], name="/dw4/Conv",
          kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2], dilations=[1, 1], group=40),
        bn_node("c4", "bn4", "n4"),
        n("Relu", ["n4"], ["a4"], name="/act4/Relu"),
        n("GlobalAveragePool", ["a4"], ["pooled"], name="/GlobalAveragePool"),
        n("Flatten", ["pooled"], ["features"], name="/Flatten", axis=1),
    ]
    opsets = [helper.make_opsetid("", 18)]

    path, probs, acc = fit_digits_classifier("convbn_digits", feature_nodes, 40, consts, opsets, x, y, rows)

    # The same network in float64 numpy, from the float32 initializers.
    def np_bn(t, p):
        scale, bias, mean, var = (v.astype(np.float64).reshape(1, -1, 1, 1) for v in p)
        return (t - mean) / np.sqrt(var + eps) * scale + bias

    t = rows.astype(np.float64).reshape(-1, 1, 8, 8)
    t = np.maximum(np_bn(numpy_conv(t, w1, b1, pad=1), bn1), 0)
    t = np.clip(np_bn(numpy_conv(t, w2, pad=1, group=8), bn2), 0, 6)
    t = np.maximum((numpy_conv(t, w3) + b3) * s3, 0)
    t = np.maximum(np_bn(numpy_conv(t, w4, b4, stride=2, pad=1, group=40), bn4), 0)
    logits = t.mean(axis=(2, 3)) @ consts["fc_W"].astype(np.float64) + consts["fc_B"]
    want = numpy_softmax(logits, 1, flatten=False, log=False)
    np.testing.assert_allclose(probs, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(probs.sum(axis=1), 1, rtol=1e-5)
    if float(np.ptp(probs, axis=0).min()) < 1e-3:
        raise SystemExit("convbn_digits: a class's probability hardly varies over the rows")
    ref = save_npy(os.path.join(MODELS, "convbn_digits_ort_probabilities.npy"), probs)
    index.append(onnx_entry(
        path, input_file="digits_input.npy", references={"probabilities": ref},
        reference_runtime=f"onnxruntime {ort.__version__}",
        heldout_accuracy=round(acc, 4),
        note="written with onnx.helper in the form of a PyTorch export (opset 18, NCHW) "
             "with BatchNormalization left unfolded: Reshape, Conv (bias), "
             "BatchNormalization, Relu, depthwise Conv (group 8, no bias), "
             "BatchNormalization, Clip [0,6] (min and max inputs), 1x1 Conv (no bias), "
             "Add ([40,1,1] bias), Mul ([1,40,1,1] scale), Relu, depthwise Conv (group 40, "
             "stride 2, bias), BatchNormalization, Relu, GlobalAveragePool, Flatten, Gemm, "
             "Softmax; random seeded weights, the Gemm fitted by ridge regression on the "
             "training rows' features; checked against a numpy evaluation within 1e-4"))
    return acc


def numpy_softmax(x, axis, flatten, log):
    """Softmax of x by opset <= 12 (flatten from axis) or opset 13 (one axis) rules."""
    x64 = x.astype(np.float64)
    if flatten:
        lead = int(np.prod(x.shape[:axis]))
        z = x64.reshape(lead, -1)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        s = e.sum(axis=1, keepdims=True)
        r = z - np.log(s) if log else e / s
        return r.reshape(x.shape)
    z = x64 - x64.max(axis=axis, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=axis, keepdims=True)
    return z - np.log(s) if log else e / s


def old_opset_models(index):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    f_in = save_npy(os.path.join(MODELS, "opset11_input.npy"), x)
    cases = [
        # file stem, op, opset, axis attribute (None: absent), axis the semantics use
        ("softmax_opset11_axis1", "Softmax", 11, 1, 1),
        ("softmax_opset11_noaxis", "Softmax", 11, None, 1),  # default axis is 1 before 13
        ("logsoftmax_opset11_axis1", "LogSoftmax", 11, 1, 1),
        ("softmax_opset13_axis1", "Softmax", 13, 1, 1),
    ]
    for stem, op, opset, attr, axis in cases:
        kwargs = {} if attr is None else {"axis": attr}
        node = helper.make_node(op, ["x"], ["y"], name=stem, **kwargs)
        graph = helper.make_graph(
            [node], stem,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])])
        model = helper.make_model_gen_version(
            graph, producer_name="make_models.py",
            opset_imports=[helper.make_opsetid("", opset)])
        onnx.checker.check_model(model, full_check=True)
        path = os.path.join(MODELS, stem + ".onnx")
        write_proto(path, model)
        (y,) = ort_run(path, {"x": x})
        log = op == "LogSoftmax"
        flat = opset <= 12
        want = numpy_softmax(x, axis, flatten=flat, log=log)
        other = numpy_softmax(x, axis, flatten=not flat, log=log)
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
        gap = float(np.abs(want - other).max())
        if gap < 1e-2:
            raise SystemExit(f"{stem}: the two semantics differ by only {gap}")
        ref = save_npy(os.path.join(MODELS, stem + "_ort_output.npy"), y)
        index.append(onnx_entry(
            path, input_file=f_in, references={"y": ref},
            reference_runtime=f"onnxruntime {ort.__version__}",
            note=(f"{op} at opset {opset} on a rank-3 input, axis attribute "
                  f"{'absent (default 1 before opset 13)' if attr is None else attr}: "
                  + ("coerces to 2-D [d0*..*d(axis-1), d(axis)*..*dn] and normalizes each row"
                     if flat else "normalizes along the one axis")
                  + f"; the other semantics differs by up to {gap:.3f}")))


def check_sizes(paths):
    sizes = {}
    for p in paths:
        n = os.path.getsize(p)
        if n > MAX_FILE:
            raise SystemExit(f"{p} is {n} bytes, over the {MAX_FILE}-byte limit for a fixture")
        sizes[os.path.relpath(p, os.path.join(HERE, "..", "..", ".."))] = n
    return sizes


def one_model_only(build, stem, what):
    """Writes one digits model alone (build is ops_cnn_model or convbn_model)
    and puts its entry into models/INDEX.json, leaving the other models' files
    and entries as they are."""
    x, y = digits()
    rows = x[TRAIN:TRAIN + ROWS]
    entries = []
    acc = build(x, y, rows, entries)
    path = os.path.join(MODELS, "INDEX.json")
    with open(path) as f:
        index = json.load(f)
    index["models"] = [m for m in index["models"] if m["file"] != entries[0]["file"]] + entries
    with open(path, "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")
    sizes = check_sizes([os.path.join(MODELS, stem + ".onnx"),
                         os.path.join(MODELS, stem + "_ort_probabilities.npy")])
    for p, n in sizes.items():
        print(f"{n:8d}  {p}")
    print(f"held-out accuracy: {what} {acc:.4f}")
    return 0


def main():
    if sys.argv[1:] == ["--ops-cnn-only"]:
        return one_model_only(ops_cnn_model, "ops_cnn_digits", "ops CNN")
    if sys.argv[1:] == ["--convbn-only"]:
        return one_model_only(convbn_model, "convbn_digits", "conv-BN block")
    os.makedirs(MODELS, exist_ok=True)
    os.makedirs(TF_DIR, exist_ok=True)
    x, y = digits()
    rows = x[TRAIN:TRAIN + ROWS]
    save_npy(os.path.join(MODELS, "digits_input.npy"), rows)
    save_npy(os.path.join(MODELS, "digits_labels.npy"), y[TRAIN:TRAIN + ROWS])
    save_npy(os.path.join(TF_DIR, "digits_input.npy"), rows)

    onnx_index, tf_index = [], []
    skl_acc = sklearn_models(x, y, rows, onnx_index)
    keras_acc = keras_models(x, y, rows, onnx_index, tf_index)
    old_opset_models(onnx_index)
    ops_acc = ops_cnn_model(x, y, rows, onnx_index)
    convbn_acc = convbn_model(x, y, rows, onnx_index)

    common = {
        "generator": "imports/onnx/testdata/make_models.py",
        "data": "sklearn.datasets.load_digits, pixels/16 as float32; fixture rows "
                f"[{TRAIN},{TRAIN + ROWS}) are held out of training",
        "tolerance": "reference outputs are float32; agreement is expected within 1e-5 relative",
    }
    for folder, models in ((MODELS, onnx_index), (TF_DIR, tf_index)):
        with open(os.path.join(folder, "INDEX.json"), "w") as f:
            json.dump(dict(common, models=models), f, indent=1)
            f.write("\n")

    written = sorted(
        [os.path.join(MODELS, n) for n in os.listdir(MODELS)]
        + [os.path.join(TF_DIR, n) for n in os.listdir(TF_DIR)
           if n.endswith((".pb", ".npy", ".json"))])
    sizes = check_sizes(written)
    for p, n in sizes.items():
        print(f"{n:8d}  {p}")
    print(f"{sum(sizes.values()):8d}  total; held-out accuracy: scikit-learn {skl_acc:.4f}, "
          f"keras {keras_acc:.4f}, ops CNN {ops_acc:.4f}, conv-BN block {convbn_acc:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
