package native_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/lowering/native/kernels"
)

// TestStreamedRows checks letRow's streaming: a softmax whose output is
// at least half the last cache, taken to be 32 MiB whatever the machine's
// (the five operators, and layers.Softmax; float32 and float64; on all
// cores and on one), computes its row of exponentials into scratch and
// streams the quotients to the destination, and gives the bits of the
// plan that computes the row into the destination and divides in place.
// So does a row program whose last map is no chain (a max after the
// quotient), by streamed copies of its chunks. A small softmax does not
// stream.
func TestStreamedRows(t *testing.T) {
	if !kernels.HasStream() {
		t.Skip("no non-temporal stores here (AVX2): the plans do not stream")
	}
	if testing.Short() {
		t.Skip("runs softmaxes of 32 MiB")
	}
	native.SetLastCache(t, 32<<20)
	for _, kind := range []string{"softmax", "softmax_layer"} {
		for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
			rows := 256 / dt.Size() * 4 // 32 MiB of output in either type
			term, in := rowStack(t, kind, dt, rows, 32768)
			res, err := fusion.Fuse(term, fusion.Options{})
			require.NoError(t, err)
			for _, opts := range []native.Options{{}, {Parallelism: 1}} {
				plan := func(t *testing.T) (graph.Value, string) {
					p, err := native.New(opts).Plan(res.Graph)
					require.NoError(t, err)
					defer p.Close()
					out, err := p.Run(in)
					require.NoError(t, err)
					return graph.CopyValue(out), p.Describe()
				}
				got, d := plan(t)
				require.Contains(t, d, "streamed to the destination", "%s %v: the map streams\n%s", kind, dt, d)
				var want graph.Value
				t.Run("in place", func(t *testing.T) {
					native.DisableStream(t)
					var d0 string
					want, d0 = plan(t)
					require.NotContains(t, d0, "streamed", "%s %v", kind, dt)
				})
				g, w := got.(*graph.Array).Values(), want.(*graph.Array).Values()
				for i := range w {
					if math.Float64bits(g[i]) != math.Float64bits(w[i]) {
						t.Fatalf("%s %v parallelism %d: element %d is %v streamed, %v in place", kind, dt, opts.Parallelism, i, g[i], w[i])
					}
				}
			}
		}
	}
	// A last map that is no chain (the max of the quotient and the
	// element: two arrays, not a bound) stores its chunks by streamed
	// copies (kernels.Stream).
	A, err := graph.NewInput("A", graph.ArrayOf(graph.Float32, 128, 32768), false)
	require.NoError(t, err)
	a, err := graph.RandomArray(rand.New(rand.NewPCG(7, 8)), graph.Float32, 128, 32768)
	require.NoError(t, err)
	term, err := graph.ParseTerm(`map (\a -> let e = (let b = reduce max a in map (\x -> exp (x - b)) a) in let s = reduce (+) e in map (\y -> max (y / s) y) e) A`, A)
	require.NoError(t, err)
	g, err := fusion.Whole(term)
	require.NoError(t, err)
	run := func(t *testing.T) (*graph.Array, string) {
		p, err := native.New(native.Options{}).Plan(g)
		require.NoError(t, err)
		defer p.Close()
		out, err := p.Run(map[string]graph.Value{"A": a})
		require.NoError(t, err)
		return graph.CopyValue(out).(*graph.Array), p.Describe()
	}
	got, d := run(t)
	require.Contains(t, d, "streamed to the destination (non-temporal stores)", d)
	var want *graph.Array
	t.Run("max, in place", func(t *testing.T) {
		native.DisableStream(t)
		want, _ = run(t)
	})
	g0, w0 := got.Values(), want.Values()
	for i := range w0 {
		if math.Float64bits(g0[i]) != math.Float64bits(w0[i]) {
			t.Fatalf("max after the quotient: element %d is %v streamed, %v in place", i, g0[i], w0[i])
		}
	}
	// 8 rows of 4096: nothing to stream.
	term, _ = rowStack(t, "softmax", graph.Float32, 8, 4096)
	res, err := fusion.Fuse(term, fusion.Options{})
	require.NoError(t, err)
	p, err := native.New(native.Options{}).Plan(res.Graph)
	require.NoError(t, err)
	defer p.Close()
	require.False(t, strings.Contains(p.Describe(), "streamed"), p.Describe())
}
