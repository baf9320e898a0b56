package tf

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
)

func init() {
	ops["Einsum"] = opDef{arity: -1, outputs: 1, check: checkEinsum, convert: convEinsum}
}

// checkEinsum refuses an Einsum without its equation.
func checkEinsum(n *node) string {
	if eq, err := attrString(n, "equation", ""); err != nil || eq == "" {
		return "attribute equation is missing"
	}
	return ""
}

// convEinsum converts Einsum(inputs...; equation): numpy.einsum's
// semantics, which tf.einsum follows (Keras's MultiHeadAttention and
// EinsumDense write it), through nd.Einsum, which refuses a label repeated
// within one term (a diagonal).
func convEinsum(c *converter, n *node, in []value) ([]value, error) {
	eq, err := attrString(n, "equation", "")
	if err != nil {
		return nil, err
	}
	if len(in) == 0 {
		return nil, fmt.Errorf("no inputs; an einsum takes at least one operand")
	}
	xs := make([]graph.Node, len(in))
	for i, v := range in {
		if xs[i], err = c.data(v); err != nil {
			return nil, err
		}
	}
	return c.result(nd.Ops{Source: n.name}.Einsum(eq, xs...))
}
