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
// from. Those elements must still be within 1e-12 * G of JAX's. (Measured
// against each element alone, with no floor, the f64 gradients of the
// other parameters agree to 2.9e-11 at worst, on a gradient of 7e-7 that
// is a sum with cancellation; the floor keeps the test from depending on
// such noise.)
const (
	jaxTol   = 1e-9
	jaxFloor = 1e-3
	// jaxForwardTol is the agreement of the model output itself: both
	// sides round each operation to float64 and differ only in order.
	jaxForwardTol = 1e-12
	// jaxTol32 is the agreement in f32, with the same bound, of values
	// computed from the fixture's inputs rounded to f32 with every
	// operation rounded to f32, against JAX's f64 values of the unrounded
	// inputs. The worst seen: 2.3e-5 relative where |JAX| is above the
	// floor; at the zero dense biases under BatchNorm in training mode
	// the f32 noise is about 3e-7 of G, 3.3e-4 of the bound's floor.
	jaxTol32 = 1e-3
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
	Logits     jaxArray   `json:"logits"`
	Labels     []int      `json:"labels"`
	DLogits    jaxArray   `json:"dlogits"`
	ZeroGrad   []string   `json:"zero_grad_params"`
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

// array makes the graph array of a fixture array in dt (f64, or f32
// rounded to nearest), checking its shape.
func (a jaxArray) array(t *testing.T, dt graph.DType, want []int) *graph.Array {
	t.Helper()
	if !slices.Equal(a.Shape, want) {
		t.Fatalf("fixture array %s has shape %v, want %v", a.Name, a.Shape, want)
	}
	var v *graph.Array
	var err error
	if dt == graph.Float32 {
		f := make([]float32, len(a.Data))
		for i, x := range a.Data {
			f[i] = float32(x)
		}
		v, err = graph.FromFloat32(f, a.Shape...)
	} else {
		v, err = graph.FromFloat64(slices.Clone(a.Data), a.Shape...)
	}
	if err != nil {
		t.Fatalf("fixture array %s: %v", a.Name, err)
	}
	return v
}

// mlpOf builds the model a fixture configuration describes, in dt.
func (c *jaxConfig) mlpOf(t *testing.T, dt graph.DType) *models.Model {
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
	m, err := models.MLP(models.MLPConfig{Sizes: c.Sizes, Batch: c.Batch, DType: dt, Norm: norm, Mode: mode, Activation: act})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// bindings binds x and the parameters from the fixture, checking that
// the fixture names exactly the model's parameters, in Model.Params order,
// with their extents.
func (c *jaxConfig) bindings(t *testing.T, m *models.Model) map[string]graph.Value {
	t.Helper()
	if len(c.Params) != len(m.Params) {
		t.Fatalf("fixture has %d parameters, the model %d", len(c.Params), len(m.Params))
	}
	dt := m.OutputType.DType
	b := map[string]graph.Value{m.Input.Name: c.X.array(t, dt, m.Input.Type.(*graph.ArrayType).Layout.Extents())}
	for i, p := range m.Params {
		if c.Params[i].Name != p.Name {
			t.Fatalf("fixture parameter %d is %s, the model's is %s", i, c.Params[i].Name, p.Name)
		}
		b[p.Name] = c.Params[i].array(t, dt, p.Type.(*graph.ArrayType).Layout.Extents())
	}
	return b
}

// jaxLoss builds a fixture's loss over the model's output, with the
// values of the inputs it reads besides the model's.
type jaxLoss func(t *testing.T, m *models.Model, c *jaxConfig) (graph.Node, map[string]graph.Value)

// sumTimesC is mlp_grads.json's loss: rnz (+) (\y k -> rnz (+) (*) y k)
// out c, the sum over all elements of out * c, with c from the fixture.
func sumTimesC(t *testing.T, m *models.Model, c *jaxConfig) (graph.Node, map[string]graph.Value) {
	t.Helper()
	ot := m.OutputType
	cIn, err := graph.NewInput("c", graph.ArrayOf(ot.DType, ot.Layout.Extents()...), false)
	if err != nil {
		t.Fatal(err)
	}
	b := layers.NewBuilder("jax-loss")
	loss := b.RNZ(b.Op(graph.Add), b.Lambda([]string{"y", "k"}, func(vs []graph.Node) graph.Node {
		return b.RNZ(b.Op(graph.Add), b.Op(graph.Mul), vs[0], vs[1])
	}), m.Output, cIn)
	loss, err = b.Done(loss)
	if err != nil {
		t.Fatal(err)
	}
	return loss, map[string]graph.Value{cIn.Name: c.C.array(t, ot.DType, ot.Layout.Extents())}
}

// softmaxXent is mlp_softmax_xent.json's loss, written out here with graph
// constructors (hofuse's own loss is checked against the fixture where it
// is built): the mean over the batch of log-sum-exp of each row of logits,
// shifted by the row's maximum, less the row's logit at its label, picked
// as a dot product with the one-hot row of onehot.
func softmaxXent(t *testing.T, logits, onehot graph.Node, batch int) graph.Node {
	t.Helper()
	b := layers.NewBuilder("jax-xent")
	row := b.Lambda([]string{"r", "o"}, func(vs []graph.Node) graph.Node {
		r, o := vs[0], vs[1]
		return b.Let("m", b.Reduce(b.Op(graph.Max), r), func(m graph.Node) graph.Node {
			sum := b.RNZ(b.Op(graph.Add), b.Lambda1("v", func(v graph.Node) graph.Node {
				return b.Call(graph.Exp, b.Sub(v, m))
			}), r)
			lse := b.Add(b.Call(graph.Log, sum), m)
			return b.Sub(lse, b.RNZ(b.Op(graph.Add), b.Op(graph.Mul), r, o))
		})
	})
	loss, err := b.Done(b.Div(b.RNZ(b.Op(graph.Add), row, logits, onehot), b.Const(float64(batch))))
	if err != nil {
		t.Fatal(err)
	}
	return loss
}

// oneHot is the input "onehot" for the fixture's labels and its value.
func (c *jaxConfig) oneHot(t *testing.T, dt graph.DType) (*graph.Input, *graph.Array) {
	t.Helper()
	classes := c.Sizes[len(c.Sizes)-1]
	if len(c.Labels) != c.Batch {
		t.Fatalf("%d labels for a batch of %d", len(c.Labels), c.Batch)
	}
	data := make([]float64, c.Batch*classes)
	for i, l := range c.Labels {
		if l < 0 || l >= classes {
			t.Fatalf("label %d of row %d is out of range [0, %d)", l, i, classes)
		}
		data[i*classes+l] = 1
	}
	in, err := graph.NewInput("onehot", graph.ArrayOf(dt, c.Batch, classes), false)
	if err != nil {
		t.Fatal(err)
	}
	return in, jaxArray{Name: "onehot", Shape: []int{c.Batch, classes}, Data: data}.array(t, dt, []int{c.Batch, classes})
}

// xentOfModel is softmaxXent over the model's output.
func xentOfModel(t *testing.T, m *models.Model, c *jaxConfig) (graph.Node, map[string]graph.Value) {
	t.Helper()
	oh, v := c.oneHot(t, m.OutputType.DType)
	return softmaxXent(t, m.Output, oh, c.Batch), map[string]graph.Value{oh.Name: v}
}

// jaxWorst tracks the largest error seen, relative to the bound's scale.
// pure is the worst among elements compared relative to themselves
// (|want| above the floor).
type jaxWorst struct {
	rel, pure      float64
	what, pureWhat string
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
		if den > jaxFloor*scale && err/den > w.pure {
			w.pure, w.pureWhat = err/den, fmt.Sprintf("%s[%d]", what, i)
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
// configuration whose gradient term made fusion loop (the split-let rule
// can undo another rule's work on some gradient terms) would be listed
// here with Disable: []string{"split-let"} and the reason.
var fuseOptions = map[string]fusion.Options{}

// jaxRun is how a fixture file is checked.
type jaxRun struct {
	DType      graph.DType
	ForwardTol float64 // the model output against the fixture's
	Tol        float64 // the loss and gradients against the fixture's
	Loss       jaxLoss

	configs, params        int
	forward, interp, fused jaxWorst
}

// check checks one configuration: the model's output, then the loss and
// every parameter gradient, from the interpreter on the gradient term and
// from the native back end on the fused gradient term.
func (r *jaxRun) check(t *testing.T, c *jaxConfig) {
	m := c.mlpOf(t, r.DType)
	in := c.bindings(t, m)

	// The forward pass first: the model is the one JAX computed.
	want := c.Output
	if want.Data == nil {
		want = c.Logits
	}
	out, err := graph.Eval(m.Output, in)
	if err != nil {
		t.Fatal(err)
	}
	compareJAX(t, "output", out.(*graph.Array).Values(), want.Data, r.ForwardTol, maxAbs(want.Data), &r.forward)
	if t.Failed() {
		return
	}

	loss, extra := r.Loss(t, m, c)
	maps.Copy(in, extra)
	g, err := autodiff.Grad(loss, m.Params)
	if err != nil {
		t.Fatalf("Grad: %v", err)
	}
	if len(c.Grads) != len(m.Params) {
		t.Fatalf("fixture has %d gradients, the model %d parameters", len(c.Grads), len(m.Params))
	}
	var all [][]float64
	for k, p := range m.Params {
		if c.Grads[k].Name != p.Name {
			t.Fatalf("fixture gradient %d is of %s, the model's parameter is %s", k, c.Grads[k].Name, p.Name)
		}
		all = append(all, c.Grads[k].Data)
	}
	scale := maxAbs(all...)
	// The gradients the fixture says are 0 in exact arithmetic (the dense
	// biases before BatchNorm in training mode) are rounding noise in
	// JAX's values too, far below the floor of the bound.
	for _, name := range c.ZeroGrad {
		k := slices.IndexFunc(m.Params, func(p *graph.Input) bool { return p.Name == name })
		if k < 0 {
			t.Fatalf("fixture lists %s as a zero gradient; the model has no such parameter", name)
		}
		if a := maxAbs(c.Grads[k].Data); a > 1e-12*scale {
			t.Fatalf("fixture gradient of %s is %g, not 0 up to rounding (1e-12 of %g)", name, a, scale)
		}
	}
	compare := func(how string, v graph.Value, w *jaxWorst) {
		l, grads := gradValues(t, v, m.Params)
		compareJAX(t, how+" loss", []float64{l}, []float64{c.Loss}, r.Tol, math.Abs(c.Loss), w)
		for k, p := range m.Params {
			compareJAX(t, how+" d loss/d "+p.Name, grads[k], c.Grads[k].Data, r.Tol, scale, w)
		}
	}

	v, err := graph.Eval(g, in)
	if err != nil {
		t.Fatalf("evaluating the gradient term: %v", err)
	}
	compare("interpreter", v, &r.interp)

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
	compare("native fused", nat, &r.fused)
	if !t.Failed() {
		r.configs++
		r.params += len(m.Params)
	}
}

// all checks every configuration of f and requires each to pass.
func (r *jaxRun) all(t *testing.T, f *jaxFile) {
	for i := range f.Configs {
		c := &f.Configs[i]
		t.Run(c.Name, func(t *testing.T) { r.check(t, c) })
	}
	t.Logf("%v: %d of %d configurations agree with JAX %s on %s, %d parameter gradients each from the interpreter and the fused native plan",
		r.DType, r.configs, len(f.Configs), f.JAX, f.Loss, r.params)
	for _, w := range []struct {
		how string
		w   *jaxWorst
	}{{"forward", &r.forward}, {"interpreter", &r.interp}, {"native fused", &r.fused}} {
		t.Logf("%s: worst error %.3g of the bound's denominator (%s); %.3g relative where |JAX| is above the floor (%s)",
			w.how, w.w.rel, w.w.what, w.w.pure, w.w.pureWhat)
	}
	if r.configs != len(f.Configs) {
		t.Errorf("checked %d configurations of the %d in the fixture", r.configs, len(f.Configs))
	}
}

// The gradients of models.MLP's output under the loss sum(output * c),
// for every normalisation and activation, agree with JAX's to 1e-9
// relative in f64: from the interpreter on the gradient term, and from the
// native back end on the fused gradient term.
func TestJAXGradients(t *testing.T) {
	r := &jaxRun{DType: graph.Float64, ForwardTol: jaxForwardTol, Tol: jaxTol, Loss: sumTimesC}
	r.all(t, readJAX(t, "mlp_grads.json"))
}

// The same in f32, from the fixture's values rounded to f32, against JAX's
// f64 gradients of the unrounded values, to what f32 allows (jaxTol32).
func TestJAXGradientsF32(t *testing.T) {
	r := &jaxRun{DType: graph.Float32, ForwardTol: jaxTol32, Tol: jaxTol32, Loss: sumTimesC}
	r.all(t, readJAX(t, "mlp_grads.json"))
}

// The softmax cross-entropy fixture, which hofuse's own loss is to be
// checked against, agrees with the same loss written out with graph
// constructors (softmaxXent) and differentiated by autodiff, through every
// model and directly in the logits.
func TestJAXSoftmaxCrossEntropyFixture(t *testing.T) {
	f := readJAX(t, "mlp_softmax_xent.json")
	r := &jaxRun{DType: graph.Float64, ForwardTol: jaxForwardTol, Tol: jaxTol, Loss: xentOfModel}
	r.all(t, f)
	var w jaxWorst
	n := 0
	for i := range f.Configs {
		c := &f.Configs[i]
		shape := []int{c.Batch, c.Sizes[len(c.Sizes)-1]}
		logits, err := graph.NewInput("logits", graph.ArrayOf(graph.Float64, shape...), false)
		if err != nil {
			t.Fatal(err)
		}
		oh, ohv := c.oneHot(t, graph.Float64)
		g, err := autodiff.Grad(softmaxXent(t, logits, oh, c.Batch), []*graph.Input{logits})
		if err != nil {
			t.Fatal(err)
		}
		v, err := graph.Eval(g, map[string]graph.Value{logits.Name: c.Logits.array(t, graph.Float64, shape), oh.Name: ohv})
		if err != nil {
			t.Fatal(err)
		}
		l, grads := gradValues(t, v, []*graph.Input{logits})
		compareJAX(t, c.Name+" loss of the logits", []float64{l}, []float64{c.Loss}, jaxTol, math.Abs(c.Loss), &w)
		compareJAX(t, c.Name+" d loss/d logits", grads[0], c.DLogits.Data, jaxTol, maxAbs(c.DLogits.Data), &w)
		n++
	}
	t.Logf("%d logit gradients agree with JAX's; worst %.3g (%s)", n, w.rel, w.what)
}
