package xla

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
	"github.com/hofuse/hofuse/pjrt"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// rejecting plays a plugin that rejects every module whose text contains
// one of words, for the length of a test.
func rejecting(t *testing.T, words ...string) {
	t.Helper()
	orig := compileText
	compileText = func(c *pjrt.Client, text string) (*pjrt.Executable, error) {
		for _, w := range words {
			if strings.Contains(text, w) {
				return nil, errors.New("pjrt: compile: the test's plugin rejects " + w)
			}
		}
		return orig(c, text)
	}
	t.Cleanup(func() { compileText = orig })
}

// TestWholeModuleRejected: when the plugin rejects the module of the
// whole graph, the graph is compiled as one executable per kernel, which
// Stats and Describe say, and it runs, as a plain executable and as a
// loop; when the plugin rejects the kernels' modules too, the error gives
// both reasons.
func TestWholeModuleRejected(t *testing.T) {
	c := pjrttest.Client(t)
	m, err := models.MLP(models.MLPConfig{Sizes: []int{4, 3, 2}, Batch: 3, DType: graph.Float64, Norm: models.NormBatch, Mode: models.Training})
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.TrainStep(models.TrainConfig{Optimizer: optim.SGD{LR: 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := fusion.Unfused(s.Term)
	if err != nil {
		t.Fatal(err)
	}
	init, err := s.InitialValues(m.RandomParams(1))
	if err != nil {
		t.Fatal(err)
	}
	labels, _ := graph.FromFloat64([]float64{0, 1, 1}, 3)
	y, _ := graph.Zeros(graph.Int32, 3)
	for i := range 3 {
		y.Set(labels.At(i), i)
	}
	in, err := s.Bindings(init, m.RandomInput(2), y, 1)
	if err != nil {
		t.Fatal(err)
	}
	want, err := graph.Eval(s.Term, in)
	if err != nil {
		t.Fatal(err)
	}
	rejecting(t, `"func.call"`)
	be := New(c, Options{})
	x, err := be.CompileGraph(g)
	if err != nil {
		t.Fatal(err)
	}
	st := x.Stats()
	if st.Whole != `xla: pjrt: compile: the test's plugin rejects "func.call"` || st.Executables != len(g.Kernels) || len(g.Kernels) < 2 {
		t.Errorf("Stats: Whole %q, %d executables; want the rejection and %d (more than 1)", st.Whole, st.Executables, len(g.Kernels))
	}
	if d := x.Describe(); !strings.Contains(d, "one executable per kernel: the plugin rejected the whole module: xla: pjrt: compile: the test's plugin rejects") {
		t.Errorf("Describe does not say so:\n%s", d)
	}
	got, err := x.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := graph.Diff(want, got, graph.Tolerance(graph.Float64)); err != nil {
		t.Errorf("per-kernel run: %v", err)
	}
	spec := lowering.LoopSpec{Carried: []string{""}, CheckFinite: true}
	for _, o := range s.Outputs {
		spec.Carried = append(spec.Carried, o.Name)
		delete(in, o.Name)
	}
	l, err := be.CompileLoopGraph(g, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Bind(init); err != nil {
		t.Fatal(err)
	}
	res, err := l.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := graph.Diff(want.(graph.TupleValue)[0], res.Results[0], graph.Tolerance(graph.Float64)); err != nil || res.NonFinite != "" {
		t.Errorf("the loop's loss: %v, non-finite %q", err, res.NonFinite)
	}

	rejecting(t, "module")
	_, err = be.CompileGraph(g)
	major, minor := c.APIVersion()
	if want := "xla: pjrt: compile: the test's plugin rejects module; one executable per kernel instead: xla: kernel k1_dense1: pjrt: compile: the test's plugin rejects module\n" +
		fmt.Sprintf("(plugin %s, PJRT C API %d.%d); the native back end runs this program without PJRT: --backend native", c.PluginPath(), major, minor); err == nil || err.Error() != want {
		t.Errorf("both rejected: %v", err)
	}
}
