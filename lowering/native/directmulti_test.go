package native_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestDirectStoreTuple checks that a vector loop with several results
// computes each straight into its destination when each is an
// instruction's own (an optimizer's update), and copies them otherwise: a
// result that is an input element, or two results of one register.
// Every case equals the interpreter, float32 and float64, on lengths with
// a partial chunk.
func TestDirectStoreTuple(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		for _, n := range []int{7, 1030, 2048} {
			X, err := graph.NewInput("X", graph.ArrayOf(dt, n), false)
			require.NoError(t, err)
			Y, err := graph.NewInput("Y", graph.ArrayOf(dt, n), false)
			require.NoError(t, err)
			xv, err := graph.RandomArray(r, dt, n)
			require.NoError(t, err)
			yv, err := graph.RandomArray(r, dt, n)
			require.NoError(t, err)
			in := map[string]graph.Value{"X": xv, "Y": yv}
			for _, c := range []struct {
				src    string
				direct string // the note, or "" for none
			}{
				{`nzip (\x y -> (x * 2.0 + y, x - y * y, (x + 1.0) / (y * y + 1.0))) X Y`, "3 results computed in place"},
				{`nzip (\x y -> (x * y - 1.0, y)) X Y`, ""},              // a result is an input element
				{`nzip (\x y -> let s = x * y + 1.0 in (s, s)) X Y`, ""}, // two results of one register
			} {
				term, err := graph.ParseTerm(c.src, X, Y)
				require.NoError(t, err)
				g, err := fusion.Whole(term)
				require.NoError(t, err)
				p, err := native.New(native.Options{}).Plan(g)
				require.NoError(t, err)
				d := p.Describe()
				p.Close()
				if c.direct != "" {
					require.Contains(t, d, c.direct, "%v n=%d %s", dt, n, c.src)
				} else {
					require.False(t, strings.Contains(d, "results computed in place"), "%v n=%d %s:\n%s", dt, n, c.src, d)
				}
				lowertest.Check(t, native.New(native.Options{}), g, term, in, 0)
			}
		}
	}
}
