package models_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hofuse/hofuse/autodiff"
	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/models"
)

// The fixtures under testdata/jax were written by JAX (float64), from
// testdata/jax/make_fixtures.py, whose header says how to rerun it. They
// are the reference nobody here wrote for the gradients of models.MLP.

// jaxTol is the agreement the issue asks of f64 gradients against JAX:
// |got - want| <= jaxTol * max(|want|, jaxFloor * G), where G is the
// largest magnitude of any gradient of the configuration (for the loss,
// the loss; for the output, the output's largest element). The floor
// keeps elements that are zero in exact arithmetic from being compared
// relative to their own rounding noise: under BatchNorm in training mode
// the mean subtraction cancels the dense biases before it, so their
// gradients are 0, and JAX and hofuse both give noise near 1e-16 there,
// of the order of the rounding of the other gradients they are computed
// from. Those elements must still be within 1e-12 * G of JAX's.
const (
	jaxTol   = 1e-9
	jaxFloor = 1e-3
	// jaxForwardTol is the agreement of the model output itself: both
	// sides round each operation to float64 and differ only in order.
	jaxForwardTol = 1e-12
)

type jaxArray struct {
	Name  string    `json:"name"`
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

type jaxConfig struct {
	Name       string     `json:"name"`
	Sizes      []int      `json:"sizes"`
	Batch      int        `json:"batch"`
	Norm       string     `json:"norm"`
	Mode       string     `json:"mode"`
	Activation string     `json:"activation"`
	X          jaxArray   `json:"x"`
	C          jaxArray   `json:"c"`
	Output     jaxArray   `json:"output"`
	Params     []jaxArray `json:"params"`
	Loss       float64    `json:"loss"`
	Grads      []jaxArray `json:"grads"`
}

type jaxFile struct {
	Generator string      `json:"generator"`
	JAX       string      `json:"jax"`
	DType     string      `json:"dtype"`
	Loss      string      `json:"loss"`
	Eps       float64     `json:"eps"`
	Alpha     float64     `json:"leaky_relu_alpha"`
	Configs   []jaxConfig `json:"configs"`
}

func readJAX(t *testing.T, name string) *jaxFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "jax", name))
	if err != nil {
		t.Fatalf("reading the JAX fixture: %v (regenerate it with testdata/jax/make_fixtures.py)", err)
	}
	var f jaxFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(f.Configs) == 0 {
		t.Fatalf("%s has no configurations", name)
	}
	if f.DType != "f64" {
		t.Fatalf("%s: dtype %q, want f64", name, f.DType)
	}
	// The script mirrors the layers' defaults; if they change, the
	// fixtures must be regenerated.
	if defaults := []float64{layers.DefaultBatchNormEps, layers.DefaultLayerNormEps}; f.Eps != defaults[0] || f.Eps != defaults[1] {
		t.Fatalf("%s was made with eps %v; the layers' defaults are %v (BatchNorm) and %v (LayerNorm): regenerate it",
			name, f.Eps, layers.DefaultBatchNormEps, layers.DefaultLayerNormEps)
	}
	if f.Alpha != layers.DefaultLeakyReLUAlpha {
		t.Fatalf("%s was made with leaky_relu alpha %v; layers.DefaultLeakyReLUAlpha is %v: regenerate it",
			name, f.Alpha, layers.DefaultLeakyReLUAlpha)
	}
	return &f
}

// array makes the f64 graph array of a fixture array, checking its shape.
func (a jaxArray) array(t *testing.T, want []int) *graph.Array {
	t.Helper()
	if !slices.Equal(a.Shape, want) {
		t.Fatalf("fixture array %s has shape %v, want %v", a.Name, a.Shape, want)
	}
	v, err := graph.FromFloat64(slices.Clone(a.Data), a.Shape...)
	if err != nil {
		t.Fatalf("fixture array %s: %v", a.Name, err)
	}
	return v
}

// mlpOf builds the model a fixture configuration describes.
func (c *jaxConfig) mlpOf(t *testing.T) *models.Model {
	t.Helper()
	norm, err := models.ParseNorm(c.Norm)
	if err != nil {
		t.Fatal(err)
	}
	mode, err := models.ParseMode(c.Mode)
	if err != nil {
		t.Fatal(err)
	}
	act, err := layers.ParseActivation(c.Activation)
	if err != nil {
		t.Fatal(err)
	}
	m, err := models.MLP(models.MLPConfig{Sizes: c.Sizes, Batch: c.Batch, DType: graph.Float64, Norm: norm, Mode: mode, Activation: act})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// bindings binds x, c and the parameters from the fixture, checking that
// the fixture names exactly the model's parameters, in Model.Params order,
// with their extents.
func (c *jaxConfig) bindings(t *testing.T, m *models.Model, cIn *graph.Input) map[string]graph.Value {
	t.Helper()
	if len(c.Params) != len(m.Params) {
		t.Fatalf("fixture has %d parameters, the model %d", len(c.Params), len(m.Params))
	}
	b := map[string]graph.Value{
		m.Input.Name: c.X.array(t, m.Input.Type.(*graph.ArrayType).Layout.Extents()),
		cIn.Name:     c.C.array(t, cIn.Type.(*graph.ArrayType).Layout.Extents()),
	}
	for i, p := range m.Params {
		if c.Params[i].Name != p.Name {
			t.Fatalf("fixture parameter %d is %s, the model's is %s", i, c.Params[i].Name, p.Name)
		}
		b[p.Name] = c.Params[i].array(t, p.Type.(*graph.ArrayType).Layout.Extents())
	}
	return b
}

// sumTimesC is the fixtures' loss: rnz (+) (\y k -> rnz (+) (*) y k) out c,
// the sum over all elements of out * c.
func sumTimesC(t *testing.T, out, c graph.Node) graph.Node {
	t.Helper()
	b := layers.NewBuilder("jax-loss")
	loss := b.RNZ(b.Op(graph.Add), b.Lambda([]string{"y", "k"}, func(vs []graph.Node) graph.Node {
		return b.RNZ(b.Op(graph.Add), b.Op(graph.Mul), vs[0], vs[1])
	}), out, c)
	loss, err := b.Done(loss)
	if err != nil {
		t.Fatal(err)
	}
	return loss
}

// jaxWorst tracks the largest error seen, relative to the bound's scale.
type jaxWorst struct {
	rel  float64
	what string
}

// maxAbs is the largest magnitude in the arrays.
func maxAbs(arrays ...[]float64) float64 {
	m := 0.0
	for _, a := range arrays {
		for _, v := range a {
			m = math.Max(m, math.Abs(v))
		}
	}
	return m
}

// compareJAX compares got with want element by element under the bound
// above, with the given relative tolerance and scale G.
func compareJAX(t *testing.T, what string, got, want []float64, tol, scale float64, w *jaxWorst) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", what, len(got), len(want))
		return
	}
	bad := 0
	for i := range got {
		den := math.Max(math.Abs(want[i]), jaxFloor*scale)
		err := math.Abs(got[i] - want[i])
		if !(err <= tol*den) { // NaN fails
			if bad < 5 {
				t.Errorf("%s[%d] = %.17g, JAX %.17g: error %.3g, %.3g of max(|JAX|, %g * %.3g), tolerance %g",
					what, i, got[i], want[i], err, err/den, jaxFloor, scale, tol)
			}
			bad++
			continue
		}
		if den > 0 && err/den > w.rel {
			w.rel, w.what = err/den, fmt.Sprintf("%s[%d]", what, i)
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d values out of tolerance in all", what, bad)
	}
}

// gradValues splits the value of a gradient term: the loss and the flat
// gradients, checking each gradient's extents against its parameter.
func gradValues(t *testing.T, v graph.Value, params []*graph.Input) (float64, [][]float64) {
	t.Helper()
	tv, ok := v.(graph.TupleValue)
	if !ok || len(tv) != len(params)+1 {
		t.Fatalf("gradient term's value is %T of %d elements, want a tuple of %d", v, len(tv), len(params)+1)
	}
	loss, ok := tv[0].(graph.ScalarValue)
	if !ok {
		t.Fatalf("loss is %T, want a scalar", tv[0])
	}
	grads := make([][]float64, len(params))
	for i, p := range params {
		a, ok := tv[i+1].(*graph.Array)
		if !ok {
			t.Fatalf("gradient of %s is %T, want an array", p.Name, tv[i+1])
		}
		if want := p.Type.(*graph.ArrayType).Layout.Extents(); !slices.Equal(a.Extents(), want) {
			t.Fatalf("gradient of %s has extents %v, want %v", p.Name, a.Extents(), want)
		}
		grads[i] = a.Values()
	}
	return loss.V, grads
}

// fuseOptions are the fusion options for each configuration's gradient
// term. Every configuration fuses with the default rules today; a
// configuration whose gradient term makes fusion loop (the split-let rule
// can undo another rule's work on some gradient terms) would be listed
// here with Disable: []string{"split-let"} and the reason.
var fuseOptions = map[string]fusion.Options{}

// The gradients of models.MLP's output under the loss sum(output * c),
// for every normalisation and activation, agree with JAX's to 1e-9
// relative in f64: from the interpreter on the gradient term, and from the
// native back end on the fused gradient term.
func TestJAXGradients(t *testing.T) {
	f := readJAX(t, "mlp_grads.json")
	configs, params := 0, 0
	var interp, fused, forward jaxWorst
	for i := range f.Configs {
		c := &f.Configs[i]
		t.Run(c.Name, func(t *testing.T) {
			m := c.mlpOf(t)
			ot := m.OutputType
			cIn, err := graph.NewInput("c", graph.ArrayOf(graph.Float64, ot.Layout.Extents()...), false)
			if err != nil {
				t.Fatal(err)
			}
			in := c.bindings(t, m, cIn)

			// The forward pass first: the model is the one JAX computed.
			fwd := maps.Clone(in)
			delete(fwd, cIn.Name)
			out, err := graph.Eval(m.Output, fwd)
			if err != nil {
				t.Fatal(err)
			}
			compareJAX(t, "output", out.(*graph.Array).Values(), c.Output.Data, jaxForwardTol, maxAbs(c.Output.Data), &forward)
			if t.Failed() {
				return
			}

			loss := sumTimesC(t, m.Output, cIn)
			g, err := autodiff.Grad(loss, m.Params)
			if err != nil {
				t.Fatalf("Grad: %v", err)
			}
			v, err := graph.Eval(g, in)
			if err != nil {
				t.Fatalf("evaluating the gradient term: %v", err)
			}
			var all [][]float64
			for _, a := range c.Grads {
				all = append(all, a.Data)
			}
			gscale := maxAbs(all...)
			check := func(how string, v graph.Value, w *jaxWorst) {
				l, grads := gradValues(t, v, m.Params)
				compareJAX(t, how+" loss", []float64{l}, []float64{c.Loss}, jaxTol, math.Abs(c.Loss), w)
				for k, p := range m.Params {
					if c.Grads[k].Name != p.Name {
						t.Fatalf("fixture gradient %d is of %s, the model's parameter is %s", k, c.Grads[k].Name, p.Name)
					}
					compareJAX(t, how+" d loss/d "+p.Name, grads[k], c.Grads[k].Data, jaxTol, gscale, w)
				}
			}
			if len(c.Grads) != len(m.Params) {
				t.Fatalf("fixture has %d gradients, the model %d parameters", len(c.Grads), len(m.Params))
			}
			check("interpreter", v, &interp)

			res, err := fusion.Fuse(g, fuseOptions[c.Name])
			if err != nil {
				t.Fatalf("Fuse of the gradient term: %v", err)
			}
			plan, err := native.New(native.Options{}).Plan(res.Graph)
			if err != nil {
				t.Fatalf("native plan of the fused gradient term: %v", err)
			}
			defer plan.Close()
			nat, err := plan.Run(in)
			if err != nil {
				t.Fatalf("native run of the fused gradient term: %v", err)
			}
			check("native fused", nat, &fused)
			if !t.Failed() {
				configs++
				params += len(m.Params)
			}
		})
	}
	t.Logf("%d of %d configurations agree with JAX (%s), %d parameter gradients each from the interpreter and the fused native plan",
		configs, len(f.Configs), f.JAX, params)
	t.Logf("worst error relative to the bound's denominator: forward %.3g (%s), interpreter %.3g (%s), native fused %.3g (%s)",
		forward.rel, forward.what, interp.rel, interp.what, fused.rel, fused.what)
	if configs != len(f.Configs) {
		t.Errorf("checked %d configurations of the %d in the fixture", configs, len(f.Configs))
	}
}
