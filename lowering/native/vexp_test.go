package native_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native"
)

// TestVectorExpEdges runs exp and logistic in a fused vector program over
// the edge cases of the scalar semantics (±Inf, NaN, ±0, the overflow and
// underflow thresholds, subnormal results, subnormal arguments) and
// compares with math.Exp, rounded to the type: equal but for at most 1
// ulp in f32 and 2 in f64 (the vector exp is a polynomial of its own), NaN
// for NaN, and exact 0, 1 and +Inf where those are the answer. 21
// arguments make the vector loop and its scalar tail both run.
func TestVectorExpEdges(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	xs := []float64{0, math.Copysign(0, -1), 1, -1, inf, -inf, nan, 88.72, 89, -87.3, -100, -103, -104,
		709.78, 710, -745, -746, 5e-324, 1e-40, -710, -720}
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		for _, op := range []string{"exp", "logistic"} {
			t.Run(fmt.Sprintf("%v/%s", dt, op), func(t *testing.T) {
				prog, err := graph.Parse(fmt.Sprintf(`x : %v[%d]; map (\v -> %s v) x`, dt, len(xs), op))
				if err != nil {
					t.Fatal(err)
				}
				in := map[string]graph.Value{}
				var a *graph.Array
				if dt == graph.Float32 {
					x32 := make([]float32, len(xs))
					for i, x := range xs {
						x32[i] = float32(x)
					}
					a, err = graph.FromFloat32(x32, len(xs))
				} else {
					a, err = graph.FromFloat64(xs, len(xs))
				}
				if err != nil {
					t.Fatal(err)
				}
				in["x"] = a
				res, err := fusion.Fuse(prog.Body, fusion.Options{})
				if err != nil {
					t.Fatal(err)
				}
				p, err := native.New(native.Options{Parallelism: 1}).Plan(res.Graph)
				if err != nil {
					t.Fatal(err)
				}
				defer p.Close()
				out, err := p.Run(in)
				if err != nil {
					t.Fatal(err)
				}
				got := out.(*graph.Array)
				for i, x := range xs {
					x = dt.Round(x)
					want := math.Exp(x)
					if x > 709 && x < 709.8 {
						want = 1.7928227943945155e308 // e**709.78, beyond amd64 math.Exp's range
					}
					if op == "logistic" {
						want = 1 / (1 + math.Exp(-x))
					}
					want = dt.Round(want)
					var g float64
					var ulps float64
					if dt == graph.Float32 {
						g32 := got.Float32s()[i]
						g = float64(g32)
						ulps = math.Abs(float64(int64(math.Float32bits(g32)) - int64(math.Float32bits(float32(want)))))
					} else {
						g = got.Float64s()[i]
						ulps = math.Abs(float64(int64(math.Float64bits(g)) - int64(math.Float64bits(want))))
					}
					limit := 1.0
					if dt == graph.Float64 {
						limit = 2
					}
					switch {
					case want != want:
						if g == g {
							t.Errorf("%s(%v) = %v, want NaN", op, x, g)
						}
					case want == 0 || want == 1 || math.IsInf(want, 1):
						if g != want || math.Signbit(g) {
							t.Errorf("%s(%v) = %v, want %v exactly", op, x, g, want)
						}
					case math.Signbit(g) || ulps > limit:
						t.Errorf("%s(%v) = %v, want %v (%v ulp apart, at most %v allowed)", op, x, g, want, ulps, limit)
					}
				}
			})
		}
	}
}
