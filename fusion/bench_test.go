package fusion

import (
	"fmt"
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

// BenchmarkFuseLetChain times the pipeline on chains of lets inside a
// lambda (see TestFuseLetChainNearLinear): the time per let should stay
// about flat as the chain grows.
func BenchmarkFuseLetChain(b *testing.B) {
	for _, n := range []int{1000, 4000, graph.MaxDepth - 100} {
		term, _ := letChain(b, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Fuse(term, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
