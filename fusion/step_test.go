package fusion

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
)

// dotsOver counts the kernels of g that compute a dot product (rnz (+) (*))
// inside a traversal of the rows of the buffer named in, as a forward
// matrix product does; a traversal of a view of it (the weight gradient's
// flip 0 x, its columns) is not counted.
func dotsOver(g *Graph, in string) int {
	n := 0
	for _, k := range g.Kernels {
		found := false
		for m := range graph.All(k.Body) {
			var args []graph.Node
			var fn graph.Node
			switch m := m.(type) {
			case *graph.NZip:
				fn, args = m.Fn, m.Args
			case *graph.RNZ:
				fn, args = m.Fn, m.Args
			default:
				continue
			}
			reads := false
			for _, a := range args {
				if i, ok := a.(*graph.Input); ok && i.Name == in {
					reads = true
				}
			}
			if !reads || fn == nil {
				continue
			}
			for d := range graph.All(fn) {
				if z, ok := d.(*graph.RNZ); ok {
					if op, ok := z.Fn.(*graph.OpRef); ok && op.Op == graph.Mul {
						found = true
					}
				}
			}
		}
		if found {
			n++
		}
	}
	return n
}

// The fused training step of an MLP 16-8-4 (BatchNorm, ReLU, batch 4, f32,
// Adam) computes each matrix product of the forward pass once: one kernel
// runs a dot product over the rows of the input x (the first dense layer)
// and one over the ReLU's output (the second); the backward pass reads
// their buffers. It has 18 kernels (37 before common subterms were shared,
// sibling traversals merged, contractions brought to the matrix product's
// form, BatchNorm's statistics made one traversal and view-only kernels
// dropped):
//
//   - forward, 5: dense1, BatchNorm's statistics (one reduction), its
//     normalisation, relu1, dense2;
//   - the loss gradient: 1; dense2's input gradient (dY·Wᵀ, a matrix
//     product) with relu1's gradient as its epilogue: 1;
//   - BatchNorm's backward, 2: one traversal for its four sums over the
//     batch (the two parameter gradients and the two that feed the input
//     gradient), and the input gradient, which reads two of those sums as
//     a tuple of projections of their buffer (no kernel copies them);
//   - per dense layer, its weight gradient (Xᵀ·dY, a matrix product, run
//     as a GEMM: Adam's update, with its tuple of results, is not its
//     epilogue), Adam's update of the weight, and its bias gradient, a sum
//     over the batch: 2 × 3;
//   - Adam for dense2's bias (4 elements), and for the vectors of 8
//     (dense1's bias, BatchNorm's scale and shift) with the running
//     statistics: 2;
//   - the result tuple with the loss: 1.
//
// The step's value is graph.Eval's.
func TestFuseTrainStepSharesAndMerges(t *testing.T) {
	m, err := models.MLP(models.MLPConfig{Sizes: []int{16, 8, 4}, Batch: 4, DType: graph.Float32, Norm: models.NormBatch, Mode: models.Training})
	require.NoError(t, err)
	s, err := m.TrainStep(models.TrainConfig{Optimizer: optim.NewAdam(1e-3)})
	require.NoError(t, err)
	res, err := Fuse(s.Term, Options{})
	require.NoError(t, err)
	g := res.Graph
	assert.Equal(t, 1, dotsOver(g, "x"), "kernels computing a dot product over x:\n%s", g)
	assert.Equal(t, 1, dotsOver(g, "t4_relu1"), "kernels computing a dot product over relu1's output:\n%s", g)
	assert.Equal(t, 5+1+1+2+2*3+2+1, len(g.Kernels), "kernels:\n%s", g)
	merged := 0
	for _, k := range g.Kernels {
		_, isView := k.Body.(graph.ViewNode)
		assert.False(t, isView, "kernel %s only copies a view: %s", k.Name, graph.Print(k.Body))
		if tup, ok := k.Body.(*graph.Tuple); ok && k != g.Kernels[len(g.Kernels)-1] {
			assert.False(t, onlyViews(tup), "kernel %s only copies views: %s", k.Name, graph.Print(k.Body))
		}
		if _, ok := k.Body.(*graph.RNZ); ok {
			if tt, ok := k.Output.Type.(*graph.TupleType); ok {
				merged += len(tt.Elems)
			}
		}
	}
	// BatchNorm's two statistics and its four backward sums.
	assert.Equal(t, 2+4, merged, "results of merged reductions:\n%s", g)

	info, err := graph.Check(s.Term)
	require.NoError(t, err)
	in := graphtest.Inputs(rand.New(rand.NewPCG(5, 5)), info.Inputs)
	want, err := graph.Eval(s.Term, in)
	require.NoError(t, err)
	got, err := g.Eval(in)
	require.NoError(t, err)
	graphtest.Compare(t, want, got, graph.ToleranceOf(want))
}

// With two BatchNorm layers, the second dense layer's product is computed
// once too. (β-reduction used to copy every closed subterm of the function
// it applied, such as that product inside a gradient's function; the copy
// had one consumer, vertical fusion fused the first ReLU and the product
// into the second BatchNorm's statistics, and the step computed the product
// twice.)
func TestFuseTrainStepTwoBatchNorms(t *testing.T) {
	m, err := models.MLP(models.MLPConfig{Sizes: []int{16, 8, 8, 4}, Batch: 4, DType: graph.Float32, Norm: models.NormBatch, Mode: models.Training})
	require.NoError(t, err)
	s, err := m.TrainStep(models.TrainConfig{Optimizer: optim.NewAdam(1e-3)})
	require.NoError(t, err)
	res, err := Fuse(s.Term, Options{})
	require.NoError(t, err)
	g := res.Graph
	assert.Equal(t, 1, dotsOver(g, "x"), "kernels computing a dot product over x:\n%s", g)
	assert.Equal(t, 1, dotsOver(g, "t4_relu1"), "kernels computing a dot product over relu1's output:\n%s", g)
	assert.Equal(t, 1, dotsOver(g, "t8_relu2"), "kernels computing a dot product over relu2's output:\n%s", g)
	relus := 0
	for _, k := range g.Kernels {
		if graph.Print(k.Body) == "map (map (\\v -> max v 0)) t3_bn1" {
			relus++
		}
	}
	assert.Equal(t, 1, relus, "kernels:\n%s", g)
	// As for one BatchNorm layer (see above), with a second dense-
	// BatchNorm-ReLU block: 9 kernels of forward pass (the step's ReLUs
	// read BatchNorm's output, which the backward pass reads too, so they
	// are kernels of their own), the loss gradient, per block its dense
	// layer's input gradient with the ReLU's gradient as epilogue and
	// BatchNorm's 2, the three dense layers' weight gradients, Adam's
	// updates of their weights and their bias gradients (3 × 3), Adam for
	// dense3's bias and for the vectors of 8 with both layers' running
	// statistics (2), and the result.
	assert.Equal(t, 9+1+2*(1+2)+3*3+2+1, len(g.Kernels), "kernels:\n%s", g)
	info, err := graph.Check(s.Term)
	require.NoError(t, err)
	in := graphtest.Inputs(rand.New(rand.NewPCG(6, 6)), info.Inputs)
	want, err := graph.Eval(s.Term, in)
	require.NoError(t, err)
	got, err := g.Eval(in)
	require.NoError(t, err)
	graphtest.Compare(t, want, got, graph.ToleranceOf(want))
}
