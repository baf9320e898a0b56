package onnx

import (
	"slices"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/lowering/stablehlo"
)

// TestNodeNamesReachKernels: the ONNX node names are the sources of the
// fused kernels, so the fusion report, the kernel names, the DOT graph and
// the StableHLO locations say which nodes a kernel holds.
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
	// The StableHLO module carries them as locations, and the DOT graph
	// as cluster labels.
	mod, err := stablehlo.Module(res.Graph)
	if err != nil {
		t.Fatal(err)
	}
	var dot strings.Builder
	if err := res.Graph.WriteDOT(&dot); err != nil {
		t.Fatal(err)
	}
	for _, node := range []string{"fc1", "relu1", "fc2", "softmax"} {
		if !strings.Contains(mod, `loc("`+node+`")`) {
			t.Errorf("the StableHLO module has no location %q", node)
		}
		if !strings.Contains(dot.String(), node) {
			t.Errorf("the DOT graph does not name node %s", node)
		}
	}
}
