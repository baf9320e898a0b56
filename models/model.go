package models

import (
	"hash/fnv"
	"math/rand/v2"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// Model is a network as one term of the graph IR.
type Model struct {
	Name       string           // "mlp", or the name the config gave
	Input      *graph.Input     // the data input "x": dt[batch, features]
	Params     []*graph.Input   // the parameters Output reads, in layer order
	Output     graph.Node       // the network's term
	OutputType *graph.ArrayType // Output's type: dt[batch, features]
	Layers     []string         // layer names in order: the sources of Output's nodes

	init map[*graph.Input]uniformInit
	bns  []*layers.BatchNormParams // the BatchNorm layers, for TrainStep
}

// uniformInit draws a parameter's values uniformly from [Lo, Hi).
type uniformInit struct{ Lo, Hi float64 }

// NumParams is the number of scalar parameters: the sum of the sizes of
// Params.
func (m *Model) NumParams() int {
	n := 0
	for _, p := range m.Params {
		n += p.Type.(*graph.ArrayType).Layout.Size()
	}
	return n
}

// Bytes is what the model's parameters and input take in memory, the
// bytes RandomParams and RandomInput allocate together.
func (m *Model) Bytes() int64 {
	n := graph.TypeBytes(m.Input.Type)
	for _, p := range m.Params {
		n = graph.AddBytes(n, graph.TypeBytes(p.Type))
	}
	return n
}

// stream returns the random generator for the input or parameter name
// under seed. Each name has its own stream, so a parameter's values do not
// change when parameters are added or reordered.
func stream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// RandomParams returns values for every parameter, keyed by name, drawn
// deterministically from seed. Dense weights and biases are drawn from
// U(-1/√in, 1/√in), as PyTorch's nn.Linear initialises them; BatchNorm
// running means from U(-0.1, 0.1) and running variances from U(0.5, 1.5),
// so they are positive; scales from U(0.75, 1.25) and shifts from
// U(-0.1, 0.1). The statistics and scales are not at their training
// defaults (0, 1, 1, 0) so that tests see every parameter act.
func (m *Model) RandomParams(seed uint64) map[string]graph.Value {
	out := make(map[string]graph.Value, len(m.Params))
	for _, p := range m.Params {
		out[p.Name] = randomArray(stream(seed, p.Name), p.Type.(*graph.ArrayType), m.init[p])
	}
	return out
}

// RandomInput returns a value for the input x drawn deterministically from
// seed, uniformly from [-1, 1).
func (m *Model) RandomInput(seed uint64) graph.Value {
	return randomArray(stream(seed, m.Input.Name), m.Input.Type.(*graph.ArrayType), uniformInit{-1, 1})
}

// Bindings returns RandomParams(seed) and RandomInput(seed) in one map:
// the bindings graph.Eval needs for Output.
func (m *Model) Bindings(seed uint64) map[string]graph.Value {
	b := m.RandomParams(seed)
	b[m.Input.Name] = m.RandomInput(seed)
	return b
}

// randomArray makes a row-major array of type t with values drawn from
// init. t is an f32 or f64 array type, which the model guarantees.
func randomArray(r *rand.Rand, t *graph.ArrayType, init uniformInit) *graph.Array {
	extents := t.Layout.Extents()
	n := t.Layout.Size()
	draw := func() float64 { return init.Lo + (init.Hi-init.Lo)*r.Float64() }
	var a *graph.Array
	var err error
	switch t.DType {
	case graph.Float32:
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(draw())
		}
		a, err = graph.FromFloat32(v, extents...)
	case graph.Float64:
		v := make([]float64, n)
		for i := range v {
			v[i] = draw()
		}
		a, err = graph.FromFloat64(v, extents...)
	default:
		panic("models: parameter of element type " + t.DType.String())
	}
	if err != nil {
		panic("models: " + err.Error()) // the model's types are valid
	}
	return a
}
