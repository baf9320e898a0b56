package tf

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports"
	"github.com/hofuse/hofuse/imports/tf/tfpb"
)

// opDef is how one TensorFlow op converts.
type opDef struct {
	arity   int                  // data inputs it takes; -1 for any number
	outputs int                  // outputs the converter gives (output 0 to outputs-1); -1 for one per data input
	check   func(n *node) string // the reason a node cannot be converted, from its attributes alone; nil or "" when it can
	convert func(c *converter, n *node, in []value) ([]value, error)
}

// ops maps every TensorFlow op hofuse converts to its converter. The
// coverage pass reads it; an op missing here is reported as unsupported.
var ops = map[string]opDef{
	"Placeholder": {arity: 0, outputs: 1, convert: convPlaceholder},
	"Const":       {arity: 0, outputs: 1, convert: convConst},
	"Identity":    {arity: 1, outputs: 1, convert: convIdentity},
	"IdentityN":   {arity: -1, outputs: -1, convert: convIdentityN},
	"NoOp":        {arity: 0, outputs: 0, convert: convNoOp},

	"MatMul":           {arity: 2, outputs: 1, convert: convMatMul},
	"BiasAdd":          {arity: 2, outputs: 1, check: checkNHWC, convert: convBiasAdd},
	"FusedBatchNormV3": {arity: 5, outputs: 1, check: checkBatchNorm, convert: convFusedBatchNorm},
	"FusedBatchNormV2": {arity: 5, outputs: 1, check: checkBatchNorm, convert: convFusedBatchNorm},
	"FusedBatchNorm":   {arity: 5, outputs: 1, check: checkBatchNorm, convert: convFusedBatchNorm},
	"Softmax":          {arity: 1, outputs: 1, convert: convSoftmax},
	"LogSoftmax":       {arity: 1, outputs: 1, convert: convLogSoftmax},

	"Add":     {arity: 2, outputs: 1, convert: convAdd},
	"AddV2":   {arity: 2, outputs: 1, convert: convAdd},
	"Sub":     {arity: 2, outputs: 1, convert: convSub},
	"Mul":     {arity: 2, outputs: 1, convert: convMul},
	"RealDiv": {arity: 2, outputs: 1, convert: convRealDiv},
	"Relu":    {arity: 1, outputs: 1, convert: convRelu},
	"Relu6":   {arity: 1, outputs: 1, convert: convRelu6},
	"Elu":     {arity: 1, outputs: 1, convert: convElu},
	"Selu":    {arity: 1, outputs: 1, convert: convSelu},
	"Sigmoid": {arity: 1, outputs: 1, convert: convSigmoid},
	"Tanh":    {arity: 1, outputs: 1, convert: convTanh},
	"Rsqrt":   {arity: 1, outputs: 1, convert: convRsqrt},
	"Sqrt":    {arity: 1, outputs: 1, convert: convSqrt},
	"Square":  {arity: 1, outputs: 1, convert: convSquare},
	"Erf":     {arity: 1, outputs: 1, convert: convErf},

	"Neg":               {arity: 1, outputs: 1, convert: convNeg},
	"Abs":               {arity: 1, outputs: 1, convert: convAbs},
	"Exp":               {arity: 1, outputs: 1, convert: convExp},
	"Log":               {arity: 1, outputs: 1, convert: convLog},
	"Erfc":              {arity: 1, outputs: 1, convert: convErfc},
	"Softplus":          {arity: 1, outputs: 1, convert: convSoftplus},
	"Softsign":          {arity: 1, outputs: 1, convert: convSoftsign},
	"LeakyRelu":         {arity: 1, outputs: 1, convert: convLeakyRelu},
	"StopGradient":      {arity: 1, outputs: 1, convert: convStopGradient},
	"SquaredDifference": {arity: 2, outputs: 1, convert: convSquaredDifference},
	"Maximum":           {arity: 2, outputs: 1, convert: convMaximum},
	"Minimum":           {arity: 2, outputs: 1, convert: convMinimum},
	"Pow":               {arity: 2, outputs: 1, convert: convPow},

	"Mean":       {arity: 2, outputs: 1, convert: convMean},
	"Sum":        {arity: 2, outputs: 1, convert: convSum},
	"Max":        {arity: 2, outputs: 1, convert: convMax},
	"Reshape":    {arity: 2, outputs: 1, convert: convReshape},
	"Squeeze":    {arity: 1, outputs: 1, convert: convSqueeze},
	"ExpandDims": {arity: 2, outputs: 1, convert: convExpandDims},

	// Folded at import time: shapes, and slices, stacks and joins of
	// constants.
	"Shape":        {arity: 1, outputs: 1, convert: convShape},
	"StridedSlice": {arity: 4, outputs: 1, convert: convStridedSlice},
	"Pack":         {arity: -1, outputs: 1, convert: convPack},
	"ConcatV2":     {arity: -1, outputs: 1, convert: convConcatV2},
}

// one returns the single output v.
func one(v value) []value { return []value{v} }

// convPlaceholder converts Placeholder(dtype, shape): a data input fed at
// every run, named after the node. TensorFlow writes an unknown dimension
// (the batch, usually) as -1; it takes Options.Batch (1 when that is 0)
// and the model records it in Symbolic. A placeholder without a shape, or
// of unknown rank, is refused: hofuse's extents are static.
func convPlaceholder(c *converter, n *node, _ []value) ([]value, error) {
	tdt, present, err := attrType(n, "dtype")
	if err != nil {
		return nil, err
	}
	if !present {
		return nil, fmt.Errorf("attribute dtype is missing")
	}
	dt, err := elemType(tdt)
	if err != nil {
		return nil, err
	}
	shp, err := attrShape(n, "shape")
	if err != nil {
		return nil, err
	}
	if shp == nil || shp.GetUnknownRank() {
		return nil, fmt.Errorf("the placeholder's shape is unknown; hofuse needs its rank and extents (give the input a shape when exporting, with -1 for the batch)")
	}
	fixed := shp.GetDim()
	var syms []imports.SymbolicDim
	extents := make([]int, len(fixed))
	for i, d := range fixed {
		size := d.GetSize()
		if size == -1 {
			b := c.opt.BatchOrDefault()
			syms = append(syms, imports.SymbolicDim{Input: n.name, Axis: i, Name: d.GetName(), Extent: b})
			extents[i] = b
			continue
		}
		if size < -1 || size == 0 || size > graph.MaxExtent {
			return nil, fmt.Errorf("dimension %d of the placeholder's shape is %d; it must be -1 (unknown) or from 1 to %d (graph.MaxExtent)", i, size, int64(graph.MaxExtent))
		}
		extents[i] = int(size)
	}
	var t graph.Type = graph.Scalar(dt)
	if len(extents) > 0 {
		at := graph.ArrayOf(dt, extents...)
		if err := at.Layout.Validate(); err != nil {
			return nil, fmt.Errorf("the placeholder's shape %v: %v", extents, err)
		}
		t = at
	}
	in, err := graph.NewInput(n.name, t, false)
	if err != nil {
		return nil, err
	}
	c.model.Inputs = append(c.model.Inputs, in)
	c.model.Symbolic = append(c.model.Symbolic, syms...)
	return one(value{term: in, typ: t}), nil
}

// convConst converts Const(value, dtype): a tensor known at import time.
// An op that takes it as an attribute-like operand (Reshape's shape, a
// reduction's axes) reads the value; read as data, an array becomes a
// parameter named after the node, its value in Model.Values, and a scalar
// number a typed literal in the term.
func convConst(c *converter, n *node, _ []value) ([]value, error) {
	p, err := attrTensor(n, "value")
	if err != nil {
		return nil, err
	}
	if want, present, err := attrType(n, "dtype"); err != nil {
		return nil, err
	} else if present && want != p.GetDtype() {
		return nil, fmt.Errorf("attribute dtype is %s but the value is a %s tensor", dtypeName(want), dtypeName(p.GetDtype()))
	}
	if t, ok := emptyIndex(p); ok {
		// An empty shape, as Keras writes to reshape a count into a
		// scalar: folded, never an array.
		return one(value{typ: graph.ArrayOf(graph.Int32, 0), konst: t, from: n}), nil
	}
	t, err := decodeTensor(p, c.budget)
	if err != nil {
		return nil, fmt.Errorf("the value: %v", err)
	}
	c.budget -= int64(t.size() * byteSize(t.dtype))
	dt, err := elemType(t.dtype)
	if err != nil {
		return nil, err
	}
	var typ graph.Type = graph.Scalar(dt)
	if len(t.shape) > 0 {
		typ = graph.ArrayOf(dt, t.shape...)
	}
	return one(value{typ: typ, konst: t, from: n}), nil
}

// emptyIndex returns the empty integer vector p holds, of shape [0],
// which a graph uses as the shape of a scalar (Reshape(x, [])). hofuse's
// arrays have no empty axes, so such a constant can only be folded into
// the ops that read it as a shape; c.data refuses it as data.
func emptyIndex(p *tfpb.TensorProto) (*tensor, bool) {
	dims := p.GetTensorShape().GetDim()
	if len(dims) != 1 || dims[0].GetSize() != 0 || len(p.GetTensorContent()) != 0 {
		return nil, false
	}
	switch dt := p.GetDtype(); dt {
	case tfpb.DataType_DT_INT32, tfpb.DataType_DT_INT64:
		return &tensor{dtype: dt, shape: []int{0}}, true
	}
	return nil, false
}

// convIdentity converts Identity(input): its input, unchanged. A constant
// stays a constant (and keeps the name of its Const node).
func convIdentity(_ *converter, _ *node, in []value) ([]value, error) {
	return one(in[0]), nil
}

// convIdentityN converts IdentityN(input...): its N inputs, unchanged, as
// its N outputs (node:k is input k). Keras 3 writes it around every
// tf.custom_gradient (the swish activation, SeparableConv2D), where it
// only carries the gradient function, which an imported inference graph
// does not take. TensorFlow requires N ≥ 1.
func convIdentityN(_ *converter, _ *node, in []value) ([]value, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("no data inputs; IdentityN takes at least one")
	}
	return in, nil
}

// outputsOf returns how many outputs op gives at node n: op.outputs, or
// one per data input for an op of any number of outputs (IdentityN).
func outputsOf(op opDef, n *node) int {
	if op.outputs < 0 {
		return len(n.inputs)
	}
	return op.outputs
}

// convNoOp converts NoOp, which computes nothing and has no output; graphs
// use it as a target of control inputs.
func convNoOp(*converter, *node, []value) ([]value, error) { return nil, nil }

// result wraps what an nd or layers call returned as the node's one
// output: the term (whose nodes nd and layers named after the node) and
// its type.
func (c *converter) result(t graph.Node, err error) ([]value, error) {
	if err != nil {
		return nil, err
	}
	typ, err := graph.TypeOf(t, nil)
	if err != nil {
		return nil, fmt.Errorf("the term built does not check: %v", err)
	}
	typ = graph.Concrete(typ)
	if in, ok := t.(*graph.Input); ok {
		// An operand returned as it is (a reduction over no axes).
		return one(value{term: in, typ: typ}), nil
	}
	s, err := c.standIn(c.current, t, typ)
	if err != nil {
		return nil, err
	}
	return one(value{term: s, typ: typ}), nil
}

// rankOf returns the rank of an array type, 0 for a scalar.
func rankOf(t graph.Type) int { return len(extentsOf(t)) }

// extentsOf returns the extents of an array type, none for a scalar.
func extentsOf(t graph.Type) []int {
	if at, ok := t.(*graph.ArrayType); ok {
		return at.Layout.Extents()
	}
	return nil
}
