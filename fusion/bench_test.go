package fusion

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/models"
)

func mlp20(tb testing.TB, mode models.Mode) *models.Model {
	sizes := make([]int, 21)
	for i := range sizes {
		sizes[i] = 64
	}
	m, err := models.MLP(models.MLPConfig{Sizes: sizes, Batch: 8, DType: graph.Float32, Norm: models.NormBatch, Mode: mode})
	require.NoError(tb, err)
	return m
}

// BenchmarkFuseMLP20 times the whole pipeline on a 20-block MLP.
func BenchmarkFuseMLP20(b *testing.B) {
	for _, mode := range []models.Mode{models.Inference, models.Training} {
		m := mlp20(b, mode)
		b.Run("mode="+mode.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Fuse(m.Output, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFuseTerminates runs the pipeline on the 20-block MLP and on many
// random programs: it reaches a normal form (the engine reports a rule loop
// otherwise), and the kernels compute what the program computes.
func TestFuseTerminates(t *testing.T) {
	for _, mode := range []models.Mode{models.Inference, models.Training} {
		res, err := Fuse(mlp20(t, mode).Output, Options{})
		require.NoError(t, err)
		// 20 dense layers: 19 blocks and the last dense; a training block is
		// four kernels (see TestFuseDenseBatchNormReLUTraining).
		want := map[models.Mode]int{models.Inference: 20, models.Training: 19*4 + 1}[mode]
		require.Equal(t, want, res.Report.KernelsAfter, "mode %v", mode)
	}
}
