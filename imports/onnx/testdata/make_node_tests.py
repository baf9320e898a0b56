#!/usr/bin/env python3
"""Write ONNX's own operator tests for the operators hofuse imports.

How to rerun (from the repository root; takes about a minute):

    python3 -m venv /tmp/venv-fixtures
    /tmp/venv-fixtures/bin/pip install onnx==1.23.2 onnxruntime==1.31.1 \
        scikit-learn==1.9.1 skl2onnx==1.20.0 tensorflow-cpu==2.21.0 tf2onnx==1.17.0
    /tmp/venv-fixtures/bin/python imports/onnx/testdata/make_node_tests.py

Versions used for the committed files: onnx 1.23.2, numpy 2.4.6, protobuf 7.36.2,
Python 3.11.7 (see imports/onnx/testdata/MANIFEST). Only the onnx package matters
here: the cases and their expected outputs are ONNX's, not computed by this script.

What it writes (everything under node/ and pytorch/ is replaced):

  node/<case>/model.onnx
  node/<case>/test_data_set_0/input_N.pb, output_N.pb   (serialized TensorProto)
  node/INDEX.json
  pytorch/<case>/...                                   (same layout)
  pytorch/INDEX.json

node/ holds the cases of onnx.backend.test.loader.load_model_tests(kind="node"),
which the onnx wheel builds in memory (the wheel no longer ships them as files);
their tensors are written exactly as onnx's own `backend-test-tools
generate-data` writes them. numpy's global generator is seeded first, so a rerun
writes the same bytes. pytorch/ holds copies of the wheel's
onnx/backend/test/data/pytorch-converted and pytorch-operator directories.

A case is kept when
  * every node is in the default ONNX domain and its operator is in OPS below
    (so an "_expanded" case is kept when its whole function body is),
  * every tensor is float32, float64 or bool, except int64/int32 tensors that
    only feed a shape or axes input (Reshape's and Expand's shape,
    Squeeze/Unsqueeze/Reduce* axes, Pad's pads, Tile's repeats, Split's sizes,
    Slice's starts/ends/axes/steps, Range's inputs) or that are the indices
    ArgMax/ArgMin produce or Range's integer sequence,
  * every input and output has at most MAX_ELEMENTS elements.
A case whose expected outputs the checking runtime does not reproduce (the
training-mode Dropout cases, whose masks are random) is left out and listed as
excluded with the mismatch.
INDEX.json lists, per kept case, the operator under test, every operator in the
graph, the opset, the tolerances ONNX gives the case, each input's and
output's name, dtype and shape, and the runtime the written files were checked
on (onnxruntime, or onnx's reference evaluator where onnxruntime refuses the
opset); and, per excluded case that uses a listed operator, the reason it was
left out.
"""

import json
import os
import shutil
import sys
import warnings

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

OPS = [
    "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Neg", "Relu", "LeakyRelu",
    "Elu", "Selu", "Sigmoid", "Tanh", "Softplus", "Gelu", "Erf", "Exp", "Log",
    "Sqrt", "Pow", "Clip", "Max", "Min", "Softmax", "LogSoftmax",
    "BatchNormalization", "LayerNormalization", "Identity", "Dropout", "Flatten",
    "Reshape", "Transpose", "Squeeze", "Unsqueeze", "ReduceSum", "ReduceMean",
    "ReduceMax", "Constant", "Cast", "Concat", "ArgMax", "ArgMin",
    "Conv", "ConvTranspose", "MaxPool", "AveragePool", "GlobalAveragePool", "Pad", "Resize", "Upsample",
    "PRelu", "HardSigmoid", "HardSwish", "Abs", "Reciprocal", "Floor", "Ceil", "Round",
    "Sign", "Softsign", "ThresholdedRelu", "Mish", "Celu", "Shrink", "Sum",
    "Mean", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSumExp",
    "ReduceSumSquare", "ReduceLogSum", "GlobalMaxPool", "InstanceNormalization",
    "LRN", "Expand", "Tile", "Slice", "Split", "Greater", "Less",
    "GreaterOrEqual", "LessOrEqual", "Equal", "Not", "And", "Or", "Xor", "Where",
    "Einsum", "Range",
]
OPSET = set(OPS)

# Largest input or output kept, in elements.
MAX_ELEMENTS = 4096

FLOAT_TYPES = {TensorProto.FLOAT, TensorProto.DOUBLE}
# bool tensors are kept too: comparisons produce them, Where and the
# logical operators read them.
DATA_TYPES = FLOAT_TYPES | {TensorProto.BOOL}
INDEX_TYPES = {TensorProto.INT64, TensorProto.INT32}

# (operator, input slot) pairs whose input is a shape or a list of axes.
INDEX_SLOTS = {
    ("Reshape", 1),
    ("Squeeze", 1),
    ("Unsqueeze", 1),
    ("ReduceSum", 1),
    ("ReduceMean", 1),
    ("ReduceMax", 1),
    ("ReduceMin", 1),
    ("ReduceProd", 1),
    ("ReduceL1", 1),
    ("ReduceL2", 1),
    ("ReduceLogSumExp", 1),
    ("ReduceSumSquare", 1),
    ("ReduceLogSum", 1),
    ("Pad", 1),
    ("Pad", 3),
    ("Expand", 1),
    ("Tile", 1),
    ("Slice", 1),
    ("Slice", 2),
    ("Slice", 3),
    ("Slice", 4),
    ("Split", 1),
    ("Range", 0),
    ("Range", 1),
    ("Range", 2),
}
# Operators whose first output is integer indices (or, for Range, an
# integer sequence).
INDEX_PRODUCERS = {"ArgMax", "ArgMin", "Range"}

HERE = os.path.dirname(os.path.abspath(__file__))


def dtype_label(elem_type):
    return {
        TensorProto.FLOAT: "float32",
        TensorProto.DOUBLE: "float64",
        TensorProto.INT64: "int64",
        TensorProto.INT32: "int32",
    }.get(elem_type, TensorProto.DataType.Name(elem_type).lower())


def all_nodes(graph):
    """Every node of graph and of its subgraphs."""
    for node in graph.node:
        yield node
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.GRAPH:
                yield from all_nodes(attr.g)
            elif attr.type == onnx.AttributeProto.GRAPHS:
                for g in attr.graphs:
                    yield from all_nodes(g)


def value_types(model):
    """Element type of every named value whose type is known, or None on failure."""
    types = {}
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False)
    except Exception:  # noqa: BLE001 - a case shape inference rejects is judged on its declared types
        inferred = model
    g = inferred.graph
    for vi in list(g.input) + list(g.output) + list(g.value_info):
        t = vi.type
        if t.HasField("tensor_type"):
            types[vi.name] = t.tensor_type.elem_type
        else:
            types[vi.name] = None  # sequence, map, optional: not a tensor
    for init in g.initializer:
        types[init.name] = init.data_type
    for node in g.node:
        if node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value":
                    types[node.output[0]] = attr.t.data_type
                elif attr.name in ("value_float", "value_floats"):
                    types[node.output[0]] = TensorProto.FLOAT
                elif attr.name in ("value_int", "value_ints"):
                    types[node.output[0]] = TensorProto.INT64
                else:
                    types[node.output[0]] = -1  # string or sparse constant
        if node.op_type == "Cast":
            for attr in node.attribute:
                if attr.name == "to":
                    types[node.output[0]] = attr.i
    return types


def graph_reason(model):
    """Why a model is out of scope by its graph, or None."""
    if model.functions:
        return "model-local functions"
    ops = set()
    for node in all_nodes(model.graph):
        if node.domain not in ("", "ai.onnx"):
            return f"operator {node.domain}.{node.op_type} is outside the default domain"
        ops.add(node.op_type)
    outside = sorted(ops - OPSET)
    if outside:
        return "operator(s) outside the list: " + ", ".join(outside)
    g = model.graph
    types = value_types(model)
    consumers = {}
    for node in g.node:
        for slot, name in enumerate(node.input):
            if name:
                consumers.setdefault(name, []).append((node.op_type, slot))
    producers = {}
    for node in g.node:
        for slot, name in enumerate(node.output):
            if name:
                producers[name] = (node.op_type, slot)
    for name, et in sorted(types.items(), key=lambda kv: kv[0]):
        if et is None:
            return f"value {name!r} is not a tensor (sequence, map or optional)"
        if et in DATA_TYPES:
            continue
        if et in INDEX_TYPES:
            uses = consumers.get(name, [])
            if uses and all(u in INDEX_SLOTS for u in uses):
                continue
            prod = producers.get(name)
            if prod is not None and prod[0] in INDEX_PRODUCERS and prod[1] == 0 and not uses:
                continue
            return (f"value {name!r} is {dtype_label(et)} but is neither a shape/axes "
                    "input nor ArgMax/ArgMin indices")
        if et == -1:
            return f"value {name!r} is a string or sparse constant"
        return f"value {name!r} has dtype {dtype_label(et)}"
    return None


def tensor_info(t):
    return {"name": t.name, "dtype": dtype_label(t.data_type), "shape": list(t.dims)}


def positional_info(t, name):
    """tensor_info for a tensor file whose tensor may be unnamed, under the graph's name."""
    info = tensor_info(t)
    info["name"] = name
    info["name_in_file"] = t.name
    return info


def as_tensor(value, name):
    """The TensorProto onnx's generate-data would write for a tensor value."""
    if isinstance(value, TensorProto):
        return value
    if isinstance(value, np.generic):
        value = np.asarray(value)  # a scalar such as Clip's min, a rank-0 tensor
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{name}: {type(value).__name__} is not a tensor")
    return numpy_helper.from_array(value, name)


def data_reason(tensors):
    for t in tensors:
        if t.data_type not in DATA_TYPES | INDEX_TYPES:
            return f"tensor {t.name!r} has dtype {dtype_label(t.data_type)}"
        n = int(np.prod(t.dims)) if len(t.dims) else 1
        if n > MAX_ELEMENTS:
            return f"tensor {t.name!r} has {n} elements (> {MAX_ELEMENTS})"
    return None


def default_opset(model):
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            return imp.version
    return None


def primary_op(name, ops, single_ops):
    """The operator a case tests: its only node, or its unexpanded twin's."""
    if len(ops) == 1:
        return ops[0]
    base = name
    if "_expanded" in base:
        base = base[: base.index("_expanded")]
    if base in single_ops:
        return single_ops[base]
    return "+".join(ops)


def write_case(dst, model, inputs, outputs):
    os.makedirs(os.path.join(dst, "test_data_set_0"))
    with open(os.path.join(dst, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    for kind, tensors in (("input", inputs), ("output", outputs)):
        for j, t in enumerate(tensors):
            with open(os.path.join(dst, "test_data_set_0", f"{kind}_{j}.pb"), "wb") as f:
                f.write(t.SerializeToString())


def reset_dir(path):
    if os.path.exists(path):
        shutil.rmtree(path)
    os.makedirs(path)


def node_cases():
    from onnx.backend.test import loader  # noqa: PLC0415 - imported after seeding

    np.random.seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = loader.load_model_tests(kind="node")
    cases = sorted(cases, key=lambda c: c.name)
    single_ops = {}
    for c in cases:
        ops = sorted({n.op_type for n in all_nodes(c.model.graph)})
        if len(ops) == 1:
            single_ops[c.name] = ops[0]

    out = os.path.join(HERE, "node")
    reset_dir(out)
    kept, excluded, others = [], [], 0
    for c in cases:
        model = c.model
        ops = sorted({n.op_type for n in all_nodes(model.graph)})
        op = primary_op(c.name, ops, single_ops)
        touches = bool(OPSET & set(ops)) or op in OPSET
        reason = graph_reason(model)
        inputs = outputs = None
        if reason is None:
            if len(c.data_sets) != 1:
                reason = f"{len(c.data_sets)} data sets (one expected)"
        if reason is None:
            ins, outs = c.data_sets[0]
            try:
                inputs = [as_tensor(v, model.graph.input[j].name) for j, v in enumerate(ins)]
                outputs = [as_tensor(v, model.graph.output[j].name) for j, v in enumerate(outs)]
            except TypeError as e:
                reason = str(e)
        if reason is None:
            reason = data_reason(inputs + outputs)
        if reason is not None:
            if touches:
                excluded.append({"name": c.name, "op": op, "ops": ops, "reason": reason})
            else:
                others += 1
            continue
        write_case(os.path.join(out, c.name), model, inputs, outputs)
        kept.append({
            "name": c.name,
            "op": op,
            "ops": ops,
            "opset": default_opset(model),
            "rtol": c.rtol,
            "atol": c.atol,
            "inputs": [tensor_info(t) for t in inputs],
            "outputs": [tensor_info(t) for t in outputs],
        })
    return out, kept, excluded, others, len(cases)


def pytorch_cases():
    data = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
    out = os.path.join(HERE, "pytorch")
    reset_dir(out)
    kept, excluded, others, total = [], [], 0, 0
    for kind in ("pytorch-converted", "pytorch-operator"):
        for name in sorted(os.listdir(os.path.join(data, kind))):
            src = os.path.join(data, kind, name)
            if not os.path.isdir(src):
                continue
            total += 1
            model = onnx.load(os.path.join(src, "model.onnx"))
            ops = sorted({n.op_type for n in all_nodes(model.graph)})
            reason = graph_reason(model)
            sets = sorted(d for d in os.listdir(src) if d.startswith("test_data_set_"))
            inputs, outputs = [], []
            if reason is None and sets != ["test_data_set_0"]:
                reason = f"data sets {sets} (one expected)"
            if reason is None:
                ds = os.path.join(src, sets[0])
                for prefix, acc in (("input", inputs), ("output", outputs)):
                    j = 0
                    while os.path.exists(os.path.join(ds, f"{prefix}_{j}.pb")):
                        t = TensorProto()
                        with open(os.path.join(ds, f"{prefix}_{j}.pb"), "rb") as f:
                            t.ParseFromString(f.read())
                        acc.append(t)
                        j += 1
                reason = data_reason(inputs + outputs)
            if reason is not None:
                if OPSET & set(ops):
                    excluded.append({"name": name, "source": kind, "ops": ops, "reason": reason})
                else:
                    others += 1
                continue
            # These files predate named tensors: input_N.pb is the Nth graph input that
            # is not an initializer (old IR versions list initializers as inputs too).
            inits = {t.name for t in model.graph.initializer}
            feeds = [i.name for i in model.graph.input if i.name not in inits]
            if len(feeds) != len(inputs) or len(model.graph.output) != len(outputs):
                raise SystemExit(f"{name}: {len(inputs)} input files for graph inputs {feeds}")
            shutil.copytree(src, os.path.join(out, name))
            rtol, atol = 1e-3, 1e-7  # the loader's defaults; these cases carry no data.json
            kept.append({
                "name": name,
                "source": kind,
                "op": "+".join(ops),
                "ops": ops,
                "opset": default_opset(model),
                "rtol": rtol,
                "atol": atol,
                "inputs": [positional_info(t, n) for t, n in zip(inputs, feeds)],
                "outputs": [positional_info(t, o.name) for t, o in zip(outputs, model.graph.output)],
            })
    return out, kept, excluded, others, total


def check_case(path, info):
    """Runs a written case on onnxruntime, or on onnx's reference evaluator where
    onnxruntime refuses the model (opset or IR version newer than it knows, or an
    opset-6 kernel it no longer has), and compares with the expected outputs at
    the case's tolerances. Returns the name of the runtime that agreed."""
    import onnxruntime as ort  # noqa: PLC0415 - only needed here
    from onnx.reference import ReferenceEvaluator  # noqa: PLC0415

    def load(p):
        t = TensorProto()
        with open(p, "rb") as f:
            t.ParseFromString(f.read())
        return numpy_helper.to_array(t)

    ds = os.path.join(path, "test_data_set_0")
    feeds = {i["name"]: load(os.path.join(ds, f"input_{j}.pb"))
             for j, i in enumerate(info["inputs"])}
    want = [load(os.path.join(ds, f"output_{j}.pb")) for j in range(len(info["outputs"]))]
    model = os.path.join(path, "model.onnx")
    try:
        sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
        got, runtime = sess.run(None, feeds), f"onnxruntime {ort.__version__}"
    except Exception:  # noqa: BLE001 - onnxruntime lacks this opset or IR version
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = ReferenceEvaluator(model).run(None, feeds)
        runtime = f"onnx.reference {onnx.__version__}"
    for g, w, o in zip(got, want, info["outputs"]):
        if g.shape != w.shape or g.dtype != w.dtype:
            raise SystemExit(f"{path}: {o['name']}: {runtime} gives {g.dtype}{list(g.shape)}, "
                             f"expected {w.dtype}{list(w.shape)}")
        np.testing.assert_allclose(g, w, rtol=info["rtol"], atol=info["atol"],
                                   err_msg=f"{path}: {o['name']} ({runtime})")
    return runtime


def write_index(out, kept, excluded, others, total, source):
    checked = []
    for c in kept:
        try:
            c["checked_by"] = check_case(os.path.join(out, c["name"]), c)
        except AssertionError:
            # The case draws random numbers (training-mode Dropout's mask): the
            # runtime does not give ONNX's expected outputs, so it tests nothing.
            shutil.rmtree(os.path.join(out, c["name"]))
            excluded.append({"name": c["name"], "op": c["op"], "ops": c["ops"],
                             "reason": "the checking runtime's outputs differ from the "
                                       "expected ones beyond the case's tolerance (a random "
                                       "operator: training-mode Dropout draws its mask)"})
            continue
        checked.append(c)
    kept[:] = checked
    index = {
        "source": source,
        "onnx_version": onnx.__version__,
        "operators": OPS,
        "max_elements": MAX_ELEMENTS,
        "cases_seen": total,
        "cases_kept": len(kept),
        "cases_excluded_using_listed_ops": len(excluded),
        "cases_excluded_other_ops_only": others,
        "cases": kept,
        "excluded": excluded,
    }
    with open(os.path.join(out, "INDEX.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=False)
        f.write("\n")


def dir_size(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(root, name))
    return total


def summarize(label, kept, excluded, others, total, path):
    per_op = {}
    for c in kept:
        per_op[c["op"]] = per_op.get(c["op"], 0) + 1
    print(f"{label}: {len(kept)} of {total} cases kept, {len(excluded)} excluded that use "
          f"listed operators, {others} use only other operators; {dir_size(path)} bytes")
    for op in sorted(per_op):
        print(f"  {op}: {per_op[op]}")


def main():
    out, kept, excluded, others, total = node_cases()
    write_index(out, kept, excluded, others, total,
                'onnx.backend.test.loader.load_model_tests(kind="node")')
    summarize("node", kept, excluded, others, total, out)
    pout, pkept, pexcluded, pothers, ptotal = pytorch_cases()
    write_index(pout, pkept, pexcluded, pothers, ptotal,
                "onnx/backend/test/data/pytorch-converted and pytorch-operator")
    summarize("pytorch", pkept, pexcluded, pothers, ptotal, pout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
