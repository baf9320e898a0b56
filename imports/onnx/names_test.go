package onnx

import (
	"slices"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/imports"
)

// TestNodeNamesReachKernels: the ONNX node names are the sources of the
// fused kernels, so the fusion report and kernel names say which nodes a
// kernel holds.
func TestNodeNamesReachKernels(t *testing.T) {
	m := importT(t, mlp(), imports.Options{Batch: 4})
	res, err := fusion.Fuse(m.Term, fusion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sources, names []string
	for _, k := range res.Report.Kernels {
		sources = append(sources, k.Sources...)
		names = append(names, k.Name)
	}
	for _, node := range []string{"fc1", "relu1", "fc2", "softmax"} {
		if !slices.Contains(sources, node) {
			t.Errorf("no kernel holds node %s; sources %v", node, sources)
		}
	}
	if !strings.Contains(strings.Join(names, " "), "fc1") {
		t.Errorf("kernel names %v do not name node fc1", names)
	}
}
