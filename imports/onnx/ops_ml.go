package onnx

import (
	"fmt"
	"math"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
	"github.com/hofuse/hofuse/layers"
)

// The linear operators of the ai.onnx.ml domain that scikit-learn models
// export through skl2onnx: StandardScaler and MinMaxScaler (Scaler),
// Normalizer, LinearRegression and Ridge (LinearRegressor),
// LogisticRegression and the linear classifiers (LinearClassifier). Their
// results are onnxruntime's, which the ONNX specification leaves open in
// places (Normalizer's MAX norm, the two-class LinearClassifier): each
// converter says what it computes.

func init() {
	register(
		&converter{domain: "ai.onnx.ml", op: "Scaler", since: 1, convert: convScaler},
		&converter{domain: "ai.onnx.ml", op: "Normalizer", since: 1, check: checkNormalizer, convert: convNormalizer},
		&converter{domain: "ai.onnx.ml", op: "LinearRegressor", since: 1, check: checkLinearRegressor, convert: convLinearRegressor},
		&converter{domain: "ai.onnx.ml", op: "LinearClassifier", since: 1, check: checkLinearClassifier, convert: convLinearClassifier},
		&converter{domain: "ai.onnx.ml", op: "ArrayFeatureExtractor", since: 1, needKnown: []int{0},
			why: "hofuse picks from a table known when the model is imported (the class labels scikit-learn's classifiers look up); the IR has no gather of data", convert: convArrayFeatureExtractor},
	)
}

// floatsAttr returns the floats attribute name, and whether the node sets it.
func (c *ctx) floatsAttr(name string) ([]float64, bool, error) {
	a := attr(c.node, name)
	if a == nil {
		return nil, false, nil
	}
	if attrType(a) != onnxpb.AttributeProto_FLOATS {
		return nil, false, c.errorf("attribute %s is %v, want floats", name, attrType(a))
	}
	out := make([]float64, len(a.GetFloats()))
	for i, v := range a.GetFloats() {
		out[i] = float64(v)
	}
	return out, true, nil
}

// floatInput returns input 0 as float32 (Scaler, Normalizer and the linear
// models take f32, f64 and integers and compute in float32, the element
// type of their outputs).
func (c *ctx) floatInput() (graph.Node, []int, error) {
	x, err := c.in(0)
	if err != nil {
		return nil, nil, err
	}
	dt, ext, err := c.ops().Shape(x)
	if err != nil {
		return nil, nil, c.wrap(err, "input 0")
	}
	if len(ext) == 0 {
		return nil, nil, c.errorf("input 0 is a scalar; want features along the last axis")
	}
	if dt != graph.Float32 {
		if x, err = c.ops().Cast(x, graph.Float32); err != nil {
			return nil, nil, c.wrap(err, "input 0 to f32")
		}
	}
	return x, ext, nil
}

// constParam returns vals as a float32 parameter of the given extents, or
// as a literal when it is one value and extents is empty, named after the
// node and what.
func (c *ctx) constParam(what string, extents []int, vals []float64) (graph.Node, error) {
	if len(extents) == 0 {
		return nd.Literal(graph.Float32, float64(float32(vals[0])))
	}
	t := &tensor{elem: tFloat, dims: extents, f: make([]float64, len(vals))}
	for i, v := range vals {
		t.f[i] = float64(float32(v))
	}
	v := &value{name: c.name + "_" + what, k: t}
	if err := c.imp.materialize(v); err != nil {
		return nil, c.wrap(err, "attribute %s", what)
	}
	return v.term, nil
}

// perFeature returns attribute name as a scalar (one value) or a vector
// of the c features, and an error for any other length.
func (c *ctx) perFeature(name string, vals []float64, features int) (graph.Node, error) {
	switch len(vals) {
	case 1:
		return c.constParam(name, nil, vals)
	case features:
		return c.constParam(name, []int{features}, vals)
	}
	return nil, c.errorf("attribute %s has %d values; want 1 or one per feature (%d, the extent of the last axis)", name, len(vals), features)
}

// convScaler converts Scaler(X; offset, scale): Y = (X − offset) · scale
// in float32, offset and scale each one value or one per feature (the
// last axis). A missing offset is 0 and a missing scale 1.
func convScaler(c *ctx) error {
	x, ext, err := c.floatInput()
	if err != nil {
		return err
	}
	features := ext[len(ext)-1]
	y := x
	if off, ok, err := c.floatsAttr("offset"); err != nil {
		return err
	} else if ok {
		o, err := c.perFeature("offset", off, features)
		if err != nil {
			return err
		}
		if y, err = c.ops().Binary(graph.Sub, y, o); err != nil {
			return c.wrap(err, "X − offset")
		}
	}
	if sc, ok, err := c.floatsAttr("scale"); err != nil {
		return err
	} else if ok {
		s, err := c.perFeature("scale", sc, features)
		if err != nil {
			return err
		}
		if y, err = c.ops().Binary(graph.Mul, y, s); err != nil {
			return c.wrap(err, "(X − offset) · scale")
		}
	}
	c.out(0, y)
	return nil
}

func checkNormalizer(n *onnxpb.NodeProto, _ int) string {
	switch norm := string(attrS(n, "norm", "MAX")); norm {
	case "MAX", "L1", "L2":
		return ""
	default:
		return fmt.Sprintf("norm %q; want MAX, L1 or L2", norm)
	}
}

// attrS returns the string attribute name of n, or def.
func attrS(n *onnxpb.NodeProto, name, def string) string {
	if a := attr(n, name); a != nil {
		return string(a.GetS())
	}
	return def
}

// convNormalizer converts Normalizer(X; norm) over the last axis (each
// row of [N,C], or the vector [C]), as onnxruntime computes it: the row
// divided by its norm d, where d is the row's largest element (MAX, not
// its largest magnitude), the sum of its magnitudes (L1) or the square
// root of the sum of its squares (L2), and the row unchanged where d is
// 0.
func convNormalizer(c *ctx) error {
	x, _, err := c.floatInput()
	if err != nil {
		return err
	}
	kind := map[string]nd.ReduceKind{"MAX": nd.Max, "L1": nd.L1, "L2": nd.L2}[attrS(c.node, "norm", "MAX")]
	d, err := c.ops().Reduce(kind, x, []int{-1}, true)
	if err != nil {
		return c.wrap(err, "the norm")
	}
	y, err := c.ops().ZipWith(func(b *layers.Builder, v ...graph.Node) graph.Node {
		return b.Call(graph.Select, b.Call(graph.Ne, v[1], b.Const(0)), b.Div(v[0], v[1]), v[0])
	}, x, d)
	if err != nil {
		return c.wrap(err, "X / norm")
	}
	c.out(0, y)
	return nil
}

// linearWeights reads a linear model's coefficients (rows × the features
// of x) and intercepts (rows, or none) as a matrix and a vector.
func (c *ctx) linearWeights(features int) (w, b graph.Node, rows int, err error) {
	coef, ok, err := c.floatsAttr("coefficients")
	if err != nil {
		return nil, nil, 0, err
	}
	if !ok || len(coef) == 0 {
		return nil, nil, 0, c.errorf("attribute coefficients is missing")
	}
	if len(coef)%features != 0 {
		return nil, nil, 0, c.errorf("attribute coefficients has %d values, not a multiple of the %d features of X", len(coef), features)
	}
	rows = len(coef) / features
	if w, err = c.constParam("coefficients", []int{rows, features}, coef); err != nil {
		return nil, nil, 0, err
	}
	icpt, ok, err := c.floatsAttr("intercepts")
	if err != nil {
		return nil, nil, 0, err
	}
	if ok {
		if len(icpt) != rows {
			return nil, nil, 0, c.errorf("attribute intercepts has %d values; want one per row of coefficients (%d)", len(icpt), rows)
		}
		if b, err = c.constParam("intercepts", []int{rows}, icpt); err != nil {
			return nil, nil, 0, err
		}
	}
	return w, b, rows, nil
}

// matrixInput returns input 0 as an f32 matrix [N,C].
func (c *ctx) matrixInput() (graph.Node, int, error) {
	x, ext, err := c.floatInput()
	if err != nil {
		return nil, 0, err
	}
	if len(ext) != 2 {
		return nil, 0, c.errorf("input 0 has shape %v; want a matrix [N,C], one row per sample", ext)
	}
	return x, ext[1], nil
}

func checkLinearRegressor(n *onnxpb.NodeProto, _ int) string {
	if pt := attrS(n, "post_transform", "NONE"); pt != "NONE" {
		return fmt.Sprintf("post_transform %q; hofuse converts NONE only", pt)
	}
	return ""
}

// convLinearRegressor converts LinearRegressor(X; coefficients,
// intercepts, targets): Y = X·Wᵀ + b, W the coefficients as targets rows
// of the features of X, b the intercepts (or none), in float32.
func convLinearRegressor(c *ctx) error {
	y, rows, features, err := c.linearScores()
	if err != nil {
		return err
	}
	if targets, err := c.attrInt("targets", 1); err != nil {
		return err
	} else if targets != int64(rows) {
		return c.errorf("attribute targets is %d but coefficients has %d rows of the %d features", targets, rows, features)
	}
	c.out(0, y)
	return nil
}

// linearScores returns a linear model's X·Wᵀ + b (input 0 a matrix
// [N,C], W its coefficients, b its intercepts or none) and the rows of W
// and the features C.
func (c *ctx) linearScores() (graph.Node, int, int, error) {
	x, features, err := c.matrixInput()
	if err != nil {
		return nil, 0, 0, err
	}
	w, b, rows, err := c.linearWeights(features)
	if err != nil {
		return nil, 0, 0, err
	}
	s, err := c.ops().Gemm(x, w, b, 1, 1, false, true)
	if err != nil {
		return nil, 0, 0, c.wrap(err, "X·Wᵀ + b")
	}
	return s, rows, features, nil
}

func checkLinearClassifier(n *onnxpb.NodeProto, _ int) string {
	switch pt := attrS(n, "post_transform", "NONE"); pt {
	case "NONE", "LOGISTIC", "SOFTMAX":
	default:
		return fmt.Sprintf("post_transform %q; hofuse converts NONE, LOGISTIC and SOFTMAX", pt)
	}
	return ""
}

// convLinearClassifier converts LinearClassifier(X; coefficients,
// intercepts, classlabels_ints or classlabels_strings, post_transform) as
// onnxruntime computes it, in float32. The scores are s = X·Wᵀ + b, one
// column per row of the coefficients, then the logistic function of each
// (LOGISTIC) or the softmax of each row (SOFTMAX). The label is the class
// label of the largest score (the first of equal ones). With one row of
// coefficients and two class labels (a binary model) the scores are
// [1 − t, t], t = s (NONE, SOFTMAX) or its logistic function, and the
// label is the second class where s > 0. The label output needs
// classlabels_ints (string labels have no counterpart in the IR; the
// scores can still be imported).
func convLinearClassifier(c *ctx) error {
	s, rows, _, err := c.linearScores()
	if err != nil {
		return err
	}
	var labels []int64
	nlabels := 0
	if a := attr(c.node, "classlabels_ints"); a != nil {
		labels = a.GetInts()
		nlabels = len(labels)
	} else if a := attr(c.node, "classlabels_strings"); a != nil {
		nlabels = len(a.GetStrings())
	}
	binary := rows == 1 && nlabels == 2
	if !binary && nlabels != rows {
		return c.errorf("%d class labels for %d rows of coefficients; want one label per row, or two for one row (a binary model)", nlabels, rows)
	}
	for _, l := range labels {
		if l < math.MinInt32 || l > math.MaxInt32 {
			return c.errorf("class label %d is past the range of i32, hofuse's integers", l)
		}
	}
	pt := attrS(c.node, "post_transform", "NONE")
	o := c.ops()
	var scores, label graph.Node
	if binary {
		t := s
		if pt == "LOGISTIC" {
			if t, err = o.Unary(graph.Logistic, s); err != nil {
				return c.wrap(err, "logistic")
			}
		}
		one, err := nd.Literal(graph.Float32, 1)
		if err != nil {
			return err
		}
		u, err := o.Binary(graph.Sub, one, t)
		if err != nil {
			return c.wrap(err, "1 − t")
		}
		if scores, err = o.Concat(1, u, t); err != nil {
			return c.wrap(err, "the scores [1 − t, t]")
		}
		if labels != nil {
			col, err := o.Squeeze(s, []int{1})
			if err != nil {
				return c.wrap(err, "the label")
			}
			if label, err = o.Map(col, func(bl *layers.Builder, v graph.Node) graph.Node {
				return bl.Call(graph.Select, bl.Call(graph.Gt, v, bl.Const(0)),
					bl.Call(graph.ToI32, bl.Const(float64(labels[1]))), bl.Call(graph.ToI32, bl.Const(float64(labels[0]))))
			}); err != nil {
				return c.wrap(err, "the label")
			}
		}
	} else {
		switch pt {
		case "LOGISTIC":
			scores, err = o.Unary(graph.Logistic, s)
		case "SOFTMAX":
			scores, err = o.Softmax(s, 1)
		default:
			scores = s
		}
		if err != nil {
			return c.wrap(err, "post_transform %s", pt)
		}
		if labels != nil {
			idx, err := o.ArgMax(scores, 1, false, false)
			if err != nil {
				return c.wrap(err, "the label")
			}
			if label, err = o.Map(idx, func(bl *layers.Builder, i graph.Node) graph.Node {
				return tableLookup(bl, i, graph.Int32, toFloats(labels))
			}); err != nil {
				return c.wrap(err, "the label")
			}
		}
	}
	if label != nil {
		c.out(0, label)
	} else {
		c.leaveOut(0, "its class labels are strings (classlabels_strings), which have no counterpart in the IR; keep only the scores (Options.Outputs, --output on the command line), or export the model with integer labels")
	}
	c.out(1, scores)
	return nil
}

// tableLookup is table[i], of element type dt, for an i32 index i: i itself
// when dt is i32 and the table is 0, 1, …, else a tree of selects that
// halves the range at each step, as deep as log₂ of the table. An index
// below 0 gives table[0] and one past the end the last element.
func tableLookup(b *layers.Builder, i graph.Node, dt graph.DType, table []float64) graph.Node {
	identity := dt == graph.Int32
	for k, v := range table {
		identity = identity && v == float64(k)
	}
	if identity {
		return i
	}
	conv := map[graph.DType]graph.Op{graph.Int32: graph.ToI32, graph.Float32: graph.ToF32, graph.Float64: graph.ToF64}[dt]
	var pick func(lo, hi int) graph.Node
	pick = func(lo, hi int) graph.Node {
		if hi-lo == 1 {
			return b.Call(conv, b.Const(table[lo]))
		}
		mid := (lo + hi) / 2
		return b.Call(graph.Select, b.Call(graph.Lt, i, b.Call(graph.ToI32, b.Const(float64(mid)))), pick(lo, mid), pick(mid, hi))
	}
	return pick(0, len(table))
}

func toFloats(xs []int64) []float64 {
	out := make([]float64, len(xs))
	for k, x := range xs {
		out[k] = float64(x)
	}
	return out
}

// convArrayFeatureExtractor converts ArrayFeatureExtractor(X, Y) for a
// vector X known when the model is imported (the class labels a
// scikit-learn classifier's label output looks up by the index of its
// largest probability): Z[0, k] = X[Y_k], Y flattened, Z of shape
// [1, the elements of Y], as onnxruntime computes it. Indices outside X
// give its first element (below 0) or its last (past the end), where
// onnxruntime fails.
func convArrayFeatureExtractor(c *ctx) error {
	tbl, err := c.constIn(0, "X")
	if err != nil {
		return err
	}
	if len(tbl.dims) != 1 {
		return c.errorf("input 0 (X) has shape %v; hofuse looks up in a vector only", tbl.dims)
	}
	dt, ok := dtypeOf(tbl.elem)
	if !ok || dt == graph.Bool {
		return c.errorf("input 0 (X) has element type %s; want a number", elemName(tbl.elem))
	}
	table := make([]float64, tbl.size())
	for k := range table {
		table[k] = tbl.at(k)
	}
	if dt == graph.Int32 {
		for _, v := range table {
			if v < math.MinInt32 || v > math.MaxInt32 {
				return c.errorf("input 0 (X) holds %v, past the range of i32, hofuse's integers", v)
			}
		}
	}
	y, err := c.in(1)
	if err != nil {
		return err
	}
	ydt, yext, err := c.ops().Shape(y)
	if err != nil {
		return c.wrap(err, "input 1 (Y)")
	}
	if ydt != graph.Int32 {
		return c.errorf("input 1 (Y) has element type %v; want integer indices", ydt)
	}
	n := 1
	for _, e := range yext {
		n *= e
	}
	if len(yext) != 1 {
		if y, err = c.ops().Reshape(y, []int{n}); err != nil {
			return c.wrap(err, "input 1 (Y) flattened")
		}
	}
	z, err := c.ops().Map(y, func(bl *layers.Builder, i graph.Node) graph.Node { return tableLookup(bl, i, dt, table) })
	if err != nil {
		return c.wrap(err, "X[Y]")
	}
	if z, err = c.ops().Unsqueeze(z, []int{0}); err != nil {
		return c.wrap(err, "X[Y] as one row")
	}
	c.out(0, z)
	return nil
}
