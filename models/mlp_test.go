package models_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/models"
)

// Tolerances, as in the layers tests: a result is accepted when
// |got - want| <= tol * max(1, |want|). The reference below computes in
// float64 from the same values the interpreter gets.
//
//   - f64: 1e-12; both sides round to float64, only the order differs.
//   - f32: 1e-5. The interpreter rounds every operation to float32 (unit
//     roundoff 6e-8). Through three dense layers of at most 13 terms,
//     two normalisations and activations the error stays near 1e-6 (the
//     tests log the worst they see, about 5e-7); BatchNorm in training
//     mode over a batch of 4 divides by a batch standard deviation that
//     can be small, which is where the margin goes.
var tolerance = map[graph.DType]float64{graph.Float32: 1e-5, graph.Float64: 1e-12}

// values returns the elements of the array bound to name.
func values(t *testing.T, b map[string]graph.Value, name string) []float64 {
	t.Helper()
	a, ok := b[name].(*graph.Array)
	if !ok {
		t.Fatalf("no array bound to %s", name)
	}
	return a.Values()
}

// refActivation is the activation a at v, from its definition.
func refActivation(a layers.Activation, v float64) float64 {
	switch a {
	case layers.ActNone:
		return v
	case layers.ActDefault, layers.ActReLU:
		return math.Max(v, 0)
	case layers.ActTanh:
		return math.Tanh(v)
	case layers.ActSigmoid:
		return 1 / (1 + math.Exp(-v))
	case layers.ActGELU:
		return 0.5 * v * (1 + math.Erf(v/math.Sqrt2))
	case layers.ActSiLU:
		return v / (1 + math.Exp(-v))
	}
	panic(fmt.Sprintf("no reference for %v", a))
}

// refMLP runs the MLP of cfg with plain loops in float64: dense, then
// normalisation and activation for every layer but the last.
func refMLP(t *testing.T, cfg models.MLPConfig, b map[string]graph.Value) []float64 {
	batch := cfg.Batch
	h := values(t, b, "x")
	eps := cfg.Eps
	if eps == 0 {
		eps = 1e-5
	}
	for i := 1; i < len(cfg.Sizes); i++ {
		in, out := cfg.Sizes[i-1], cfg.Sizes[i]
		w := values(t, b, fmt.Sprintf("dense%d.W", i))
		bias := values(t, b, fmt.Sprintf("dense%d.b", i))
		y := make([]float64, batch*out)
		for r := range batch {
			for c := range out {
				s := 0.0
				for k := range in {
					s += h[r*in+k] * w[k*out+c]
				}
				y[r*out+c] = s + bias[c]
			}
		}
		h = y
		if i == len(cfg.Sizes)-1 {
			break
		}
		switch cfg.Norm {
		case models.NormBatch:
			scale := values(t, b, fmt.Sprintf("bn%d.scale", i))
			shift := values(t, b, fmt.Sprintf("bn%d.shift", i))
			var mean, variance []float64
			if cfg.Mode == models.Training {
				mean = make([]float64, out)
				variance = make([]float64, out)
				for c := range out {
					for r := range batch {
						mean[c] += h[r*out+c]
					}
					mean[c] /= float64(batch)
					for r := range batch {
						d := h[r*out+c] - mean[c]
						variance[c] += d * d
					}
					variance[c] /= float64(batch)
				}
			} else {
				mean = values(t, b, fmt.Sprintf("bn%d.mean", i))
				variance = values(t, b, fmt.Sprintf("bn%d.var", i))
			}
			for r := range batch {
				for c := range out {
					h[r*out+c] = (h[r*out+c]-mean[c])/math.Sqrt(variance[c]+eps)*scale[c] + shift[c]
				}
			}
		case models.NormLayer:
			scale := values(t, b, fmt.Sprintf("ln%d.scale", i))
			shift := values(t, b, fmt.Sprintf("ln%d.shift", i))
			for r := range batch {
				row := h[r*out : (r+1)*out]
				mean, variance := 0.0, 0.0
				for _, v := range row {
					mean += v
				}
				mean /= float64(out)
				for _, v := range row {
					variance += (v - mean) * (v - mean)
				}
				variance /= float64(out)
				for c, v := range row {
					row[c] = (v-mean)/math.Sqrt(variance+eps)*scale[c] + shift[c]
				}
			}
		}
		for k, v := range h {
			h[k] = refActivation(cfg.Activation, v)
		}
	}
	return h
}

// runMLP builds the MLP of cfg, evaluates it on seeded random values and
// compares it with refMLP.
func runMLP(t *testing.T, cfg models.MLPConfig, seed uint64) *models.Model {
	t.Helper()
	m, err := models.MLP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b := m.Bindings(seed)
	v, err := graph.Eval(m.Output, b)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := v.(*graph.Array)
	out := cfg.Sizes[len(cfg.Sizes)-1]
	if !ok || a.DType() != cfg.DType || !slices.Equal(a.Extents(), []int{cfg.Batch, out}) {
		t.Fatalf("result %v, want %v[%d,%d]", v, cfg.DType, cfg.Batch, out)
	}
	got, want := a.Values(), refMLP(t, cfg, b)
	tol := tolerance[cfg.DType]
	worst := 0.0
	for i := range got {
		e := math.Abs(got[i]-want[i]) / math.Max(1, math.Abs(want[i]))
		if !(e <= tol) {
			t.Errorf("element %d: got %v, want %v (scaled error %.3g > %.0e)", i, got[i], want[i], e, tol)
		}
		worst = math.Max(worst, e)
	}
	t.Logf("worst scaled error %.3g (tolerance %.0e)", worst, tol)
	return m
}

func TestMLP(t *testing.T) {
	for _, dt := range []graph.DType{graph.Float32, graph.Float64} {
		for _, norm := range []models.Norm{models.NormNone, models.NormBatch, models.NormLayer} {
			for _, mode := range []models.Mode{models.Inference, models.Training} {
				for _, act := range []layers.Activation{layers.ActDefault, layers.ActGELU, layers.ActTanh} {
					cfg := models.MLPConfig{
						Sizes: []int{13, 11, 7, 5}, Batch: 4, DType: dt,
						Norm: norm, Mode: mode, Activation: act,
					}
					t.Run(fmt.Sprintf("%v/%v/%v/%v", dt, norm, mode, act.OrDefault()), func(t *testing.T) {
						runMLP(t, cfg, 1)
					})
				}
			}
		}
	}
	// Odd corners: no hidden layer, one sample, no activation, a custom eps.
	for _, cfg := range []models.MLPConfig{
		{Sizes: []int{3, 2}, Batch: 1, DType: graph.Float32},
		{Sizes: []int{5, 3, 4}, Batch: 1, DType: graph.Float64, Norm: models.NormBatch},
		{Sizes: []int{6, 9, 2}, Batch: 2, DType: graph.Float32, Norm: models.NormBatch, Mode: models.Training, Activation: layers.ActSiLU, Eps: 1e-3},
		{Sizes: []int{4, 4, 4, 4, 4}, Batch: 3, DType: graph.Float64, Norm: models.NormLayer, Activation: layers.ActNone},
	} {
		t.Run(fmt.Sprintf("%v/%v/%v/%v", cfg.Sizes, cfg.Batch, cfg.DType, cfg.Norm), func(t *testing.T) {
			runMLP(t, cfg, 2)
		})
	}
}

// TestMLPLarge runs the MNIST-sized MLP at batch 1: the interpreter is
// slow on purpose, so the large sizes get only this one run.
func TestMLPLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in -short mode: evaluates a 784-512-512-10 MLP with the interpreter")
	}
	start := time.Now()
	m := runMLP(t, models.MLPConfig{Sizes: []int{784, 512, 512, 10}, Batch: 1, DType: graph.Float32, Norm: models.NormBatch}, 3)
	t.Logf("%d parameters, evaluated and checked in %v", m.NumParams(), time.Since(start))
}

func TestMLPStructure(t *testing.T) {
	cfg := models.MLPConfig{Sizes: []int{13, 11, 7, 5}, Batch: 4, DType: graph.Float32, Norm: models.NormBatch}
	m, err := models.MLP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantLayers := []string{"dense1", "bn1", "relu1", "dense2", "bn2", "relu2", "dense3"}
	if !slices.Equal(m.Layers, wantLayers) {
		t.Errorf("layers %v, want %v", m.Layers, wantLayers)
	}
	var names []string
	for _, p := range m.Params {
		if !p.Param {
			t.Errorf("%s is not marked as a parameter", p.Name)
		}
		names = append(names, p.Name)
	}
	wantParams := []string{
		"dense1.W", "dense1.b", "bn1.mean", "bn1.var", "bn1.scale", "bn1.shift",
		"dense2.W", "dense2.b", "bn2.mean", "bn2.var", "bn2.scale", "bn2.shift",
		"dense3.W", "dense3.b",
	}
	if !slices.Equal(names, wantParams) {
		t.Errorf("params %v, want %v", names, wantParams)
	}
	if n, want := m.NumParams(), 13*11+11+4*11+11*7+7+4*7+7*5+5; n != want {
		t.Errorf("NumParams %d, want %d", n, want)
	}
	if m.Name != "mlp" || m.Input.Name != "x" || m.Input.Param || m.Input.Type.String() != "f32[4,13]" {
		t.Errorf("name %q, input %s %v (param %v)", m.Name, m.Input.Name, m.Input.Type, m.Input.Param)
	}
	if m.OutputType.String() != "f32[4,5]" {
		t.Errorf("output type %v", m.OutputType)
	}

	// Check passes, the term reads exactly x and the parameters, and
	// every node built carries the name of one of the layers, each layer
	// naming at least one node.
	info, err := graph.Check(m.Output)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Inputs) != len(m.Params)+1 {
		t.Errorf("the term reads %d inputs, want %d", len(info.Inputs), len(m.Params)+1)
	}
	seen := map[string]int{}
	for n := range graph.All(m.Output) {
		switch n.(type) {
		case *graph.Input, *graph.Var:
			continue
		}
		if !slices.Contains(m.Layers, n.Source()) {
			t.Errorf("node %s has source %q, not a layer", graph.Abbrev(n, 60), n.Source())
		}
		seen[n.Source()]++
	}
	for _, l := range m.Layers {
		if seen[l] == 0 {
			t.Errorf("no node carries the source %s", l)
		}
	}

	// Print writes the whole network; with sources, every layer shows.
	s := graph.Print(m.Output)
	for _, p := range wantParams {
		if !strings.Contains(s, p) {
			t.Errorf("Print does not mention %s:\n%s", p, s)
		}
	}
	dense := func(i int, x string) string {
		return fmt.Sprintf(`map (\r -> zip (+) (map (\c -> rnz (+) (*) r c) (flip 0 dense%d.W)) dense%d.b) %s`, i, i, x)
	}
	bn := func(i int, x string) string {
		return fmt.Sprintf(`map (\r -> nzip (\v m s g b -> (v - m) * rsqrt (s + 1e-05) * g + b) r bn%d.mean bn%d.var bn%d.scale bn%d.shift) (%s)`, i, i, i, i, x)
	}
	relu := func(x string) string { return `map (\r -> map (\v -> max v 0) r) (` + x + `)` }
	if want := dense(3, "("+relu(bn(2, dense(2, "("+relu(bn(1, dense(1, "x")))+")")))+")"); s != want {
		t.Errorf("Print:\n got %s\nwant %s", s, want)
	}
	ss := graph.PrintWith(m.Output, graph.PrintOptions{Sources: true})
	for _, l := range m.Layers {
		if !strings.Contains(ss, "@"+l+" ") {
			t.Errorf("Print with sources does not mention @%s:\n%s", l, ss)
		}
	}

	// In training mode BatchNorm reads no running statistics.
	cfg.Mode = models.Training
	tm, err := models.MLP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tm.Params {
		if strings.HasSuffix(p.Name, ".mean") || strings.HasSuffix(p.Name, ".var") {
			t.Errorf("training mode lists the running statistic %s", p.Name)
		}
	}
	if _, err := graph.Eval(tm.Output, tm.Bindings(5)); err != nil {
		t.Errorf("training mode bindings: %v", err)
	}
}

func TestMLPLayerNames(t *testing.T) {
	for _, tc := range []struct {
		norm models.Norm
		act  layers.Activation
		want []string
	}{
		{models.NormLayer, layers.ActGELUTanh, []string{"dense1", "ln1", "gelu_tanh1", "dense2"}},
		{models.NormNone, layers.ActNone, []string{"dense1", "dense2"}},
		{models.NormNone, layers.ActSigmoid, []string{"dense1", "sigmoid1", "dense2"}},
	} {
		m, err := models.MLP(models.MLPConfig{Sizes: []int{3, 4, 2}, Batch: 2, DType: graph.Float64, Norm: tc.norm, Activation: tc.act})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(m.Layers, tc.want) {
			t.Errorf("%v %v: layers %v, want %v", tc.norm, tc.act, m.Layers, tc.want)
		}
	}
}

func TestRandomParams(t *testing.T) {
	m, err := models.MLP(models.MLPConfig{Sizes: []int{9, 6, 3}, Batch: 2, DType: graph.Float64, Norm: models.NormBatch})
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := m.RandomParams(1), m.RandomParams(1), m.RandomParams(2)
	if len(a) != len(m.Params) {
		t.Fatalf("%d values for %d params", len(a), len(m.Params))
	}
	for _, p := range m.Params {
		va, vb, vc := values(t, a, p.Name), values(t, b, p.Name), values(t, c, p.Name)
		if !slices.Equal(va, vb) {
			t.Errorf("%s: the same seed gives different values", p.Name)
		}
		if slices.Equal(va, vc) {
			t.Errorf("%s: seeds 1 and 2 give the same values", p.Name)
		}
		lo, hi := -1.0, 1.0
		switch {
		case p.Name == "dense1.W" || p.Name == "dense1.b":
			lo, hi = -1/3.0, 1/3.0 // 1/sqrt(9)
		case p.Name == "dense2.W" || p.Name == "dense2.b":
			lo, hi = -1/math.Sqrt(6), 1/math.Sqrt(6)
		case strings.HasSuffix(p.Name, ".var"):
			lo, hi = 0.5, 1.5
		case strings.HasSuffix(p.Name, ".scale"):
			lo, hi = 0.75, 1.25
		case strings.HasSuffix(p.Name, ".mean"), strings.HasSuffix(p.Name, ".shift"):
			lo, hi = -0.1, 0.1
		}
		for _, v := range va {
			if v < lo || v >= hi {
				t.Errorf("%s: value %v outside [%v, %v)", p.Name, v, lo, hi)
				break
			}
		}
	}
	x1, x2 := m.RandomInput(7).(*graph.Array), m.RandomInput(7).(*graph.Array)
	if !slices.Equal(x1.Values(), x2.Values()) || x1.DType() != graph.Float64 || !slices.Equal(x1.Extents(), []int{2, 9}) {
		t.Errorf("RandomInput: %v and %v", x1, x2)
	}
	if len(m.Bindings(1)) != len(m.Params)+1 {
		t.Errorf("Bindings has %d entries", len(m.Bindings(1)))
	}
}

func TestMLPConfigErrors(t *testing.T) {
	ok := models.MLPConfig{Sizes: []int{4, 3, 2}, Batch: 2, DType: graph.Float32}
	for _, tc := range []struct {
		edit func(*models.MLPConfig)
		want string
	}{
		{func(c *models.MLPConfig) { c.Sizes = []int{4} }, "MLPConfig.Sizes: 1 sizes [4], want at least 2 (input and output features)"},
		{func(c *models.MLPConfig) { c.Sizes = nil }, "MLPConfig.Sizes: 0 sizes [], want at least 2 (input and output features)"},
		{func(c *models.MLPConfig) { c.Sizes = []int{4, 0, 2} }, "MLPConfig.Sizes[1]: 0 features, want at least 1"},
		{func(c *models.MLPConfig) { c.Batch = 0 }, "MLPConfig.Batch: 0, want at least 1"},
		{func(c *models.MLPConfig) { c.DType = graph.Invalid }, "MLPConfig.DType: invalid, want f32 or f64"},
		{func(c *models.MLPConfig) { c.DType = graph.Int32 }, "MLPConfig.DType: i32, want f32 or f64"},
		{func(c *models.MLPConfig) { c.Norm = 7 }, "MLPConfig.Norm: invalid normalisation norm(7)"},
		{func(c *models.MLPConfig) { c.Mode = 3 }, "MLPConfig.Mode: invalid mode mode(3)"},
		{func(c *models.MLPConfig) { c.Activation = 42 }, "MLPConfig.Activation: invalid activation activation(42)"},
		{func(c *models.MLPConfig) { c.Eps = -1 }, "MLPConfig.Eps: -1, want a positive number (0 for the layer default)"},
		{func(c *models.MLPConfig) { c.Norm, c.Mode, c.Batch = models.NormBatch, models.Training, 1 },
			"MLPConfig.Batch: 1: BatchNorm in training mode needs a batch of at least 2"},
		// Sizes past the caps on extents and elements (show mlp --sizes
		// 9223372036854775807,2 printed a type the parser rejects).
		{func(c *models.MLPConfig) { c.Sizes = []int{9223372036854775807, 2} },
			"MLPConfig.Sizes[0]: 9223372036854775807 features, past the cap of 1099511627776 (graph.MaxExtent)"},
		{func(c *models.MLPConfig) { c.Batch = 1<<40 + 1 },
			"MLPConfig.Batch: 1099511627777, past the cap of 1099511627776 (graph.MaxExtent)"},
		{func(c *models.MLPConfig) { c.Batch, c.Sizes = 1<<30, []int{1 << 11, 2} },
			"MLPConfig.Sizes[0]: a batch of 1073741824 by 2048 features has more than 1099511627776 elements (graph.MaxElements)"},
		{func(c *models.MLPConfig) { c.Batch, c.Sizes = 1, []int{100000000, 100000000} },
			"MLPConfig.Sizes[1]: the weights of dense1, 100000000 by 100000000, have more than 1099511627776 elements (graph.MaxElements)"},
		// Parameters and input past the memory limit: x 1×100000, W
		// 100000×100000 and b 100000, four bytes each.
		{func(c *models.MLPConfig) { c.Batch, c.Sizes = 1, []int{100000, 100000} },
			"MLPConfig.Sizes: sizes [100000 100000] with batch 1: the parameters and input need 40000800000 bytes, past the memory limit of 4294967296 bytes (raise MLPConfig.MaxMemory)"},
		// x 1×1000, W 1000×1000 and b 1000 in f64: 8016000 bytes.
		{func(c *models.MLPConfig) {
			c.Batch, c.Sizes, c.DType, c.MaxMemory = 1, []int{1000, 1000}, graph.Float64, 8015999
		},
			"MLPConfig.Sizes: sizes [1000 1000] with batch 1: the parameters and input need 8016000 bytes, past the memory limit of 8015999 bytes (raise MLPConfig.MaxMemory)"},
		{func(c *models.MLPConfig) { c.MaxMemory = -1 },
			"MLPConfig.MaxMemory: -1, want a positive number of bytes (0 for graph.DefaultMemoryLimit)"},
	} {
		cfg := ok
		tc.edit(&cfg)
		m, err := models.MLP(cfg)
		if err == nil {
			t.Errorf("no error, want %q", tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("error\n got: %s\nwant: %s", err, tc.want)
		}
		if _, isConfig := err.(*models.ConfigError); !isConfig || m != nil {
			t.Errorf("%v: got %T and model %v, want a *ConfigError and no model", err, err, m)
		}
	}
}

// A model exactly at its memory limit builds, and its parameters and input
// take what Bytes says.
func TestMLPAtMemoryLimit(t *testing.T) {
	m, err := models.MLP(models.MLPConfig{Sizes: []int{1000, 1000}, Batch: 1, DType: graph.Float64, MaxMemory: 8016000})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Bytes(); got != 8016000 {
		t.Errorf("Bytes = %d, want 8016000", got)
	}
}

func TestParseNames(t *testing.T) {
	for _, n := range []models.Norm{models.NormNone, models.NormBatch, models.NormLayer} {
		if got, err := models.ParseNorm(n.String()); err != nil || got != n {
			t.Errorf("ParseNorm(%q) = %v, %v", n.String(), got, err)
		}
	}
	for s, want := range map[string]models.Norm{"BN": models.NormBatch, "ln": models.NormLayer, "": models.NormNone} {
		if got, err := models.ParseNorm(s); err != nil || got != want {
			t.Errorf("ParseNorm(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, m := range []models.Mode{models.Inference, models.Training} {
		if got, err := models.ParseMode(m.String()); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if got, err := models.ParseMode("train"); err != nil || got != models.Training {
		t.Errorf("ParseMode(train) = %v, %v", got, err)
	}
	if _, err := models.ParseNorm("groupnorm"); err == nil || err.Error() != `unknown normalisation "groupnorm" (want none, batchnorm or layernorm)` {
		t.Errorf("ParseNorm(groupnorm): %v", err)
	}
	if _, err := models.ParseMode("fit"); err == nil || err.Error() != `unknown mode "fit" (want inference or training)` {
		t.Errorf("ParseMode(fit): %v", err)
	}
}
