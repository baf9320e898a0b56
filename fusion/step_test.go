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
// inside a traversal of the buffer named in.
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
				if i, ok := viewBase(a).(*graph.Input); ok && i.Name == in {
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
// runs a dot product over the input x (the first dense layer) and one over
// the ReLU's output (the second); the backward pass reads their buffers.
// It has 18 kernels (37 before common subterms were shared, sibling
// traversals merged, view-only kernels dropped and a refused producer let
// the next one fuse):
//
//   - forward, 6: dense1, BatchNorm's mean, its variance, its
//     normalisation, relu1, dense2;
//   - the loss gradient: 1; dense2's input gradient fused with relu1's
//     gradient: 1;
//   - BatchNorm's backward, 3: one traversal for its four sums over the
//     batch (the two parameter gradients and the two that feed the input
//     gradient), the sum over the centred term, the input gradient (the
//     centred term and the broadcast of the sums fused into it);
//   - dense1's weight and bias gradients, one traversal; dense2's, one: 2;
//   - Adam: one kernel per weight matrix (2), one for dense2's bias (4
//     elements), and one for the vectors of 8 elements (dense1's bias,
//     BatchNorm's scale and shift) with the running statistics: 4;
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
	assert.Equal(t, 1, dotsOver(g, "t5_relu1"), "kernels computing a dot product over relu1's output:\n%s", g)
	assert.Equal(t, 6+1+1+3+2+4+1, len(g.Kernels), "kernels:\n%s", g)
	merged := 0
	for _, k := range g.Kernels {
		_, isView := k.Body.(graph.ViewNode)
		assert.False(t, isView, "kernel %s only copies a view: %s", k.Name, graph.Print(k.Body))
		if _, ok := k.Body.(*graph.RNZ); ok {
			if tt, ok := k.Output.Type.(*graph.TupleType); ok {
				merged += len(tt.Elems)
			}
		}
	}
	// BatchNorm's four sums and the two dense layers' pairs.
	assert.Equal(t, 4+2+2, merged, "results of merged reductions:\n%s", g)

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
	assert.Equal(t, 1, dotsOver(g, "t5_relu1"), "kernels computing a dot product over relu1's output:\n%s", g)
	assert.Equal(t, 1, dotsOver(g, "t10_relu2"), "kernels computing a dot product over relu2's output:\n%s", g)
	relus := 0
	for _, k := range g.Kernels {
		if graph.Print(k.Body) == "map (map (\\v -> max v 0)) t4_bn1" {
			relus++
		}
	}
	assert.Equal(t, 1, relus, "kernels:\n%s", g)
	// As for one BatchNorm layer (see above), with a second ReLU-BatchNorm-
	// dense block: 11 kernels of forward pass (the step's ReLUs read
	// BatchNorm's output, which the backward pass reads too, so they are
	// kernels of their own), the loss gradient, per block its dense
	// layer's input gradient fused with the ReLU's gradient and
	// BatchNorm's 3, the three dense layers' gradient pairs, Adam for the
	// three weight matrices, for dense3's bias, and for the vectors of 8
	// with both layers' running statistics (5), and the result.
	assert.Equal(t, 11+1+2*(1+3)+3+5+1, len(g.Kernels), "kernels:\n%s", g)
	info, err := graph.Check(s.Term)
	require.NoError(t, err)
	in := graphtest.Inputs(rand.New(rand.NewPCG(6, 6)), info.Inputs)
	want, err := graph.Eval(s.Term, in)
	require.NoError(t, err)
	got, err := g.Eval(in)
	require.NoError(t, err)
	graphtest.Compare(t, want, got, graph.ToleranceOf(want))
}
