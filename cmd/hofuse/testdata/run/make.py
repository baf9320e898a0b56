# Writes the .npy files of hofuse run's tests from ONNX's own test data:
# the PyTorch Linear case of the onnx wheel (copied under
# imports/onnx/testdata/pytorch), its input and the output ONNX expects.
#
# Run by hand from the repository root, with numpy and onnx installed:
#   python3 cmd/hofuse/testdata/run/make.py
import os

import numpy as np
from onnx import TensorProto, numpy_helper

case = "imports/onnx/testdata/pytorch/test_Linear/test_data_set_0"
out = "cmd/hofuse/testdata/run"
for src, dst in [("input_0.pb", "linear_x.npy"), ("output_0.pb", "linear_want.npy")]:
    t = TensorProto()
    with open(os.path.join(case, src), "rb") as f:
        t.ParseFromString(f.read())
    np.save(os.path.join(out, dst), numpy_helper.to_array(t))
