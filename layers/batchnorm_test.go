package layers_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
)

// refNormalize is (x - mean) / sqrt(var + eps) * scale + shift, feature by
// feature, the formula as PyTorch documents it.
func refNormalize(x, mean, variance, scale, shift []float64, batch, f int, eps float64) []float64 {
	y := make([]float64, batch*f)
	for i := range batch {
		for j := range f {
			y[i*f+j] = (x[i*f+j]-mean[j])/math.Sqrt(variance[j]+eps)*scale[j] + shift[j]
		}
	}
	return y
}

// refBatchStats is the mean and the biased variance of every column of x,
// two passes.
func refBatchStats(x []float64, batch, f int) (mean, variance []float64) {
	mean = make([]float64, f)
	variance = make([]float64, f)
	for j := range f {
		for i := range batch {
			mean[j] += x[i*f+j]
		}
		mean[j] /= float64(batch)
		for i := range batch {
			d := x[i*f+j] - mean[j]
			variance[j] += d * d
		}
		variance[j] /= float64(batch)
	}
	return mean, variance
}

// bnCase is one BatchNorm test case: its inputs, already rounded to dt.
type bnCase struct {
	dt                              graph.DType
	batch, f                        int
	x, mean, variance, scale, shift []float64
}

func newBNCase(seed uint64, dt graph.DType, batch, f int) *bnCase {
	r := rng(seed)
	return &bnCase{
		dt: dt, batch: batch, f: f,
		x:        uniform(r, dt, batch*f, -2, 2),
		mean:     uniform(r, dt, f, -0.5, 0.5),
		variance: uniform(r, dt, f, 0.1, 2),
		scale:    uniform(r, dt, f, 0.5, 1.5),
		shift:    uniform(r, dt, f, -0.5, 0.5),
	}
}

func (c *bnCase) bind(t *testing.T, name string, params ...string) map[string]graph.Value {
	m := map[string]graph.Value{"x": array(t, c.dt, c.x, c.batch, c.f)}
	vals := map[string][]float64{"mean": c.mean, "var": c.variance, "scale": c.scale, "shift": c.shift}
	for _, p := range params {
		m[name+"."+p] = array(t, c.dt, vals[p], c.f)
	}
	return m
}

var normSizes = []struct{ batch, f int }{{3, 5}, {4, 7}, {2, 1}, {5, 13}}

func TestBatchNormInference(t *testing.T) {
	for _, dt := range dtypes {
		for si, sz := range normSizes {
			t.Run(fmt.Sprintf("%v/%dx%d", dt, sz.batch, sz.f), func(t *testing.T) {
				c := newBNCase(uint64(si), dt, sz.batch, sz.f)
				for _, eps := range []float64{0, 1e-3} {
					x := input(t, dt, sz.batch, sz.f)
					y, p, err := layers.BatchNorm("bn1", x, sz.f, dt, layers.BatchNormOptions{Eps: eps})
					if err != nil {
						t.Fatal(err)
					}
					if len(p.Params()) != 4 {
						t.Errorf("inference mode reads %d params, want 4", len(p.Params()))
					}
					got := eval(t, y, c.bind(t, "bn1", "mean", "var", "scale", "shift"), dt, sz.batch, sz.f)
					wantEps := eps
					if eps == 0 {
						wantEps = 1e-5 // PyTorch's default
					}
					assertClose(t, dt, got, refNormalize(c.x, c.mean, c.variance, c.scale, c.shift, sz.batch, sz.f, wantEps))
				}
			})
		}
	}
}

func TestBatchNormTraining(t *testing.T) {
	for _, dt := range dtypes {
		for si, sz := range normSizes {
			t.Run(fmt.Sprintf("%v/%dx%d", dt, sz.batch, sz.f), func(t *testing.T) {
				c := newBNCase(uint64(si), dt, sz.batch, sz.f)
				x := input(t, dt, sz.batch, sz.f)
				y, p, err := layers.BatchNorm("bn1", x, sz.f, dt, layers.BatchNormOptions{Training: true})
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Params()) != 2 || p.Params()[0] != p.Scale || p.Params()[1] != p.Shift {
					t.Errorf("training mode reads %v, want scale and shift only", p.Params())
				}
				got := eval(t, y, c.bind(t, "bn1", "scale", "shift"), dt, sz.batch, sz.f)
				mean, variance := refBatchStats(c.x, sz.batch, sz.f)
				assertClose(t, dt, got, refNormalize(c.x, mean, variance, c.scale, c.shift, sz.batch, sz.f, 1e-5))

				// The running statistics after one step, with PyTorch's
				// momentum and with momentum 1, which gives the batch
				// statistics themselves (the variance with Bessel's
				// correction).
				n := float64(sz.batch)
				for _, mom := range []float64{layers.DefaultBatchNormMomentum, 1} {
					st, err := layers.BatchNormRunningStats(p, mom)
					if err != nil {
						t.Fatal(err)
					}
					assertSources(t, st, "bn1")
					if got, want := check(t, st).String(), fmt.Sprintf("(%v[%d], %v[%d])", dt, sz.f, dt, sz.f); got != want {
						t.Errorf("running stats type %s, want %s", got, want)
					}
					v, err := graph.Eval(st, c.bind(t, "bn1", "mean", "var"))
					if err != nil {
						t.Fatal(err)
					}
					tv := v.(graph.TupleValue)
					wantM := make([]float64, sz.f)
					wantV := make([]float64, sz.f)
					for j := range sz.f {
						wantM[j] = (1-mom)*c.mean[j] + mom*mean[j]
						wantV[j] = (1-mom)*c.variance[j] + mom*variance[j]*n/(n-1)
					}
					assertClose(t, dt, tv[0].(*graph.Array).Values(), wantM)
					assertClose(t, dt, tv[1].(*graph.Array).Values(), wantV)
				}
			})
		}
	}
}

// TestBatchNormTrainingShares checks the training-mode term: the batch is
// traversed by one reduction, whose tuple of sums is bound once and read by
// the normalisation, and the shift is one view of the input's first row,
// read by both.
func TestBatchNormTrainingShares(t *testing.T) {
	x := input(t, graph.Float64, 3, 5)
	y, _, err := layers.BatchNorm("bn1", x, 5, graph.Float64, layers.BatchNormOptions{Training: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `let t1 = first 0 x in ` +
		`let t = rnz (\p q -> (zip (+) (fst p) (fst q), zip (+) (snd p) (snd q))) (\r -> zip (\v k -> let d = v - stopgrad k in (d, d * d)) r t1) x in ` +
		`map (\r -> nzip (\v k s1 s2 g b -> let a = s1 / 3 in (v - stopgrad k - a) * rsqrt (s2 / 3 - a * a + 1e-05) * g + b) r t1 (fst t) (snd t) bn1.scale bn1.shift) x`
	if got := graph.Print(y); got != want {
		t.Errorf("Print:\n got %s\nwant %s", got, want)
	}
	assertSources(t, y, "bn1")
	sums, ok := y.(*graph.Let)
	if !ok {
		t.Fatalf("training-mode BatchNorm is %T, want a let of the sums", y)
	}
	if _, ok := sums.Value.(*graph.RNZ); !ok {
		t.Errorf("the sums are %T, want one rnz", sums.Value)
	}
	// One traversal of x by a reduction, and the shift, one node, read by
	// it and by the normalisation.
	reductions, shiftUsers := 0, 0
	for n := range graph.All(y) {
		if r, ok := n.(*graph.RNZ); ok && len(r.Args) == 1 && r.Args[0] == x {
			reductions++
		}
		for _, c := range graph.Children(n) {
			if v, ok := c.(*graph.ViewOp); ok && v.V == (graph.FirstView{Axis: 0}) && v.X == x {
				shiftUsers++
			}
		}
	}
	if reductions != 1 {
		t.Errorf("%d reductions traverse x, want 1", reductions)
	}
	if shiftUsers != 2 {
		t.Errorf("the shift first 0 x has %d users, want 2 (the sums and the normalisation)", shiftUsers)
	}

	// A computed input is bound once, since the layer reads it thrice.
	h, err := layers.ReLU("relu0", x)
	if err != nil {
		t.Fatal(err)
	}
	y, _, err = layers.BatchNorm("bn1", h, 5, graph.Float64, layers.BatchNormOptions{Training: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := graph.Print(y); !strings.HasPrefix(got, `let h = map (\r -> map (\v -> max v 0) r) x in let t = rnz `) {
		t.Errorf("Print: %s", got)
	}
}

// TestBatchNormTrainingStacked checks that stacked training-mode layers
// cost the interpreter time linear in their number: each reads its input
// through a let, so nothing is recomputed per row.
func TestBatchNormTrainingStacked(t *testing.T) {
	const layersN, batch, f = 6, 4, 3
	var h graph.Node = input(t, graph.Float64, batch, f)
	bind := map[string]graph.Value{"x": array(t, graph.Float64, uniform(rng(1), graph.Float64, batch*f, -1, 1), batch, f)}
	for i := range layersN {
		name := fmt.Sprintf("bn%d", i)
		var err error
		if h, _, err = layers.BatchNorm(name, h, f, graph.Float64, layers.BatchNormOptions{Training: true}); err != nil {
			t.Fatal(err)
		}
		bind[name+".scale"] = array(t, graph.Float64, uniform(rng(2), graph.Float64, f, 0.5, 1.5), f)
		bind[name+".shift"] = array(t, graph.Float64, uniform(rng(3), graph.Float64, f, -1, 1), f)
	}
	start := time.Now()
	if _, err := graph.Eval(h, bind); err != nil {
		t.Fatal(err)
	}
	// Six layers of 12 elements take well under a millisecond. Were the
	// input recomputed at every row, each layer would multiply the cost by
	// about 2*batch+1 = 9, and this would run for minutes.
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("evaluating %d stacked layers took %v", layersN, d)
	}
}

func TestBatchNormTerm(t *testing.T) {
	x := input(t, graph.Float32, 3, 5)
	y, _, err := layers.BatchNorm("bn1", x, 5, graph.Float32, layers.BatchNormOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `map (\r -> nzip (\v m s g b -> (v - m) * rsqrt (s + 1e-05) * g + b) r bn1.mean bn1.var bn1.scale bn1.shift) x`
	if got := graph.Print(y); got != want {
		t.Errorf("Print:\n got %s\nwant %s", got, want)
	}
	assertSources(t, y, "bn1")
	if got := check(t, y).String(); got != "f32[3,5]" {
		t.Errorf("type %s, want f32[3,5]", got)
	}
}

func TestBatchNormErrors(t *testing.T) {
	x := input(t, graph.Float32, 3, 5)
	x1 := input(t, graph.Float32, 1, 5)
	vec := input(t, graph.Float32, 5)
	train := layers.BatchNormOptions{Training: true}
	tests := []struct {
		x        graph.Node
		features int
		dt       graph.DType
		opt      layers.BatchNormOptions
		want     string
	}{
		{x, 4, graph.Float32, train, "bn1 (BatchNorm): x has type f32[3,5], want f32[batch,4]: axis 1 (features) has extent 5, not 4"},
		{vec, 5, graph.Float32, train, "bn1 (BatchNorm): x has type f32[5] of rank 1, want rank 2: f32[batch,5]"},
		{x, 5, graph.Float64, layers.BatchNormOptions{}, "bn1 (BatchNorm): x has type f32[3,5], want f64[batch,5]: element type f32 is not the layer's f64"},
		{x1, 5, graph.Float32, train, "bn1 (BatchNorm): training mode needs a batch of at least 2, got 1: the variance of one sample is 0"},
		{x, 5, graph.Float32, layers.BatchNormOptions{Eps: -1}, "bn1 (BatchNorm): eps = -1, want a positive number (0 for the default 1e-05)"},
		{x, 5, graph.Float32, layers.BatchNormOptions{Eps: math.NaN()}, "bn1 (BatchNorm): eps = NaN, want a positive number (0 for the default 1e-05)"},
		{x, 0, graph.Float32, train, "bn1 (BatchNorm): features = 0, want at least 1"},
	}
	for _, tc := range tests {
		_, _, err := layers.BatchNorm("bn1", tc.x, tc.features, tc.dt, tc.opt)
		assertError(t, err, tc.want)
	}
	// A batch of 1 is fine for inference.
	if _, _, err := layers.BatchNorm("bn1", x1, 5, graph.Float32, layers.BatchNormOptions{}); err != nil {
		t.Errorf("inference with a batch of 1: %v", err)
	}

	_, inf, err := layers.BatchNorm("bn1", x, 5, graph.Float32, layers.BatchNormOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = layers.BatchNormRunningStats(inf, 0.1)
	assertError(t, err, "bn1 (BatchNorm): running statistics need a layer built in training mode")
	_, tr, err := layers.BatchNorm("bn1", x, 5, graph.Float32, train)
	if err != nil {
		t.Fatal(err)
	}
	_, err = layers.BatchNormRunningStats(tr, 1.5)
	assertError(t, err, "bn1 (BatchNorm): momentum = 1.5, want a number in [0, 1]")
	_, err = layers.BatchNormRunningStats(nil, 0.1)
	if err == nil || !strings.Contains(err.Error(), "no BatchNorm parameters") {
		t.Errorf("nil params: %v", err)
	}
}
