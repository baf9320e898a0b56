package train

import (
	"strings"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/stablehlo"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
)

// TestStepCNNStableHLO checks that the LeNet-like CNN's training step, as
// BenchmarkStepCNN times it, lowers its forward convolutions to
// stablehlo.convolution and its max poolings to stablehlo.reduce_window,
// unfused and fused with the schedule pass off. (With the pass on, its
// time budget decides, under load, whether a convolution's kernel is
// reordered into a weight-stationary form the recogniser does not take.)
func TestStepCNNStableHLO(t *testing.T) {
	m, err := models.CNN(models.CNNConfig{Height: 8, Width: 8, Channels: 1, Batch: 16, DType: graph.Float32, Norm: models.NormBatch, Mode: models.Training})
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.TrainStep(models.TrainConfig{Optimizer: optim.NewAdam(0.001)})
	if err != nil {
		t.Fatal(err)
	}
	for _, unfused := range []bool{false, true} {
		g, err := Kernels(s, Options{Unfused: unfused, Fusion: fusion.Options{Schedule: fusion.ScheduleOptions{Off: true}}})
		if err != nil {
			t.Fatal(err)
		}
		mod, err := stablehlo.Module(g)
		if err != nil {
			t.Fatal(err)
		}
		// Two blocks: each pooling's forward is one reduce_window; the
		// convolutions appear forward and in the gradients.
		t.Logf("unfused %v: %d kernels, %d reduce_window, %d convolution", unfused, len(g.Kernels),
			strings.Count(mod, "stablehlo.reduce_window"), strings.Count(mod, "stablehlo.convolution"))
		if n := strings.Count(mod, "stablehlo.reduce_window"); n < 2 {
			t.Errorf("unfused %v: %d stablehlo.reduce_window in the step's module, want at least 2 (one per pooling)", unfused, n)
		}
		if n := strings.Count(mod, "stablehlo.convolution"); n < 2 {
			t.Errorf("unfused %v: %d stablehlo.convolution in the step's module, want at least 2", unfused, n)
		}
	}
}
