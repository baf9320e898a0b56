package imports

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Unsupported is one node an importer cannot convert, with the reason.
type Unsupported struct {
	Domain string `json:"domain,omitempty"` // the operator's domain ("" is ONNX's default, "ai.onnx.ml", …)
	Op     string `json:"op"`               // the operator ("Conv", "FusedBatchNormV3")
	Opset  int    `json:"opset,omitempty"`  // the domain's operator set version the file imports (ONNX), or 0
	Node   string `json:"node"`             // the node's name
	Reason string `json:"reason"`           // why: "no converter", "training_mode=1 is not supported", …
}

// String writes "Op (opset N, domain D) at node "name": reason".
func (u Unsupported) String() string {
	s := u.Op
	var qual []string
	if u.Opset != 0 {
		qual = append(qual, fmt.Sprintf("opset %d", u.Opset))
	}
	if u.Domain != "" {
		qual = append(qual, "domain "+u.Domain)
	}
	if len(qual) > 0 {
		s += " (" + strings.Join(qual, ", ") + ")"
	}
	return fmt.Sprintf("%s at node %q: %s", s, u.Node, u.Reason)
}

// PrunedNode is a node left out because only outputs nobody asked for
// need it.
type PrunedNode struct {
	Node string `json:"node"`
	Op   string `json:"op"`
}

// Coverage is what an importer reports before it converts anything: how
// many nodes of each operator the kept outputs need, every node it cannot
// convert (all of them, not the first), what was pruned, and warnings
// (an operator set newer than the tested ones, say).
type Coverage struct {
	File          string         `json:"file"`
	Format        string         `json:"format"`          // "onnx" or "tf"
	Opset         int            `json:"opset,omitempty"` // the default domain's operator set (ONNX)
	Nodes         int            `json:"nodes"`           // nodes the kept outputs need
	Ops           map[string]int `json:"ops"`             // kept nodes per operator ("ai.onnx.ml:ArgMax" outside the default domain)
	Unsupported   []Unsupported  `json:"unsupported"`     // nodes that cannot be converted, in graph order
	Outputs       []string       `json:"outputs"`         // the kept outputs
	PrunedOutputs []string       `json:"pruned_outputs"`  // outputs not asked for
	Pruned        []PrunedNode   `json:"pruned"`          // nodes only pruned outputs need, in graph order
	Warnings      []string       `json:"warnings"`        // things tried but not tested
}

// NewCoverage returns an empty report for file in format.
func NewCoverage(file, format string) *Coverage {
	return &Coverage{File: file, Format: format, Ops: map[string]int{},
		Unsupported: []Unsupported{}, Outputs: []string{}, PrunedOutputs: []string{},
		Pruned: []PrunedNode{}, Warnings: []string{}}
}

// OK reports whether every kept node can be converted.
func (c *Coverage) OK() bool { return len(c.Unsupported) == 0 }

// Count records one kept node of operator op (qualified by its domain
// when that is not the default one).
func (c *Coverage) Count(domain, op string) {
	c.Nodes++
	c.Ops[qualified(domain, op)]++
}

// Refuse records a node that cannot be converted.
func (c *Coverage) Refuse(u Unsupported) { c.Unsupported = append(c.Unsupported, u) }

// Warn records a warning.
func (c *Coverage) Warn(format string, args ...any) {
	c.Warnings = append(c.Warnings, fmt.Sprintf(format, args...))
}

// Err returns nil when the report is OK, else a *CoverageError carrying
// it.
func (c *Coverage) Err() error {
	if c.OK() {
		return nil
	}
	return &CoverageError{Coverage: c}
}

func qualified(domain, op string) string {
	if domain == "" || domain == "ai.onnx" {
		return op
	}
	return domain + ":" + op
}

// WriteText writes the report for people:
//
//	model.onnx: onnx, opset 13, 7 nodes, outputs: y
//	  ops: Gemm 2, Relu 1, ...
//	  unsupported (1):
//	    Conv (opset 13) at node "conv1": no converter
//	  pruned outputs: label
//	  pruned nodes (1): ArgMax "argmax" ...
//	  warning: ...
func (c *Coverage) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", c.File, c.Format)
	if c.Opset != 0 {
		fmt.Fprintf(&b, ", opset %d", c.Opset)
	}
	fmt.Fprintf(&b, ", %d node", c.Nodes)
	if c.Nodes != 1 {
		b.WriteString("s")
	}
	fmt.Fprintf(&b, ", outputs: %s\n", strings.Join(c.Outputs, ", "))
	if len(c.Ops) > 0 {
		ops := make([]string, 0, len(c.Ops))
		for op := range c.Ops {
			ops = append(ops, op)
		}
		sort.Strings(ops)
		for i, op := range ops {
			ops[i] = fmt.Sprintf("%s %d", op, c.Ops[op])
		}
		fmt.Fprintf(&b, "  ops: %s\n", strings.Join(ops, ", "))
	}
	if len(c.Unsupported) > 0 {
		fmt.Fprintf(&b, "  unsupported (%d):\n", len(c.Unsupported))
		for _, u := range c.Unsupported {
			fmt.Fprintf(&b, "    %s\n", u)
		}
	} else {
		b.WriteString("  unsupported: none\n")
	}
	if len(c.PrunedOutputs) > 0 {
		fmt.Fprintf(&b, "  pruned outputs: %s\n", strings.Join(c.PrunedOutputs, ", "))
	}
	if len(c.Pruned) > 0 {
		names := make([]string, len(c.Pruned))
		for i, p := range c.Pruned {
			names[i] = fmt.Sprintf("%s %q", p.Op, p.Node)
		}
		fmt.Fprintf(&b, "  pruned nodes (%d): %s\n", len(c.Pruned), strings.Join(names, ", "))
	}
	for _, warn := range c.Warnings {
		fmt.Fprintf(&b, "  warning: %s\n", warn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Text is WriteText into a string.
func (c *Coverage) Text() string {
	var b strings.Builder
	c.WriteText(&b) //nolint: a strings.Builder does not fail
	return b.String()
}

// JSON returns the report as indented JSON, keys as the struct tags say;
// lists are [] rather than null when empty.
func (c *Coverage) JSON() ([]byte, error) {
	cp := *c
	if cp.Ops == nil {
		cp.Ops = map[string]int{}
	}
	for _, l := range []*[]string{&cp.Outputs, &cp.PrunedOutputs, &cp.Warnings} {
		if *l == nil {
			*l = []string{}
		}
	}
	if cp.Unsupported == nil {
		cp.Unsupported = []Unsupported{}
	}
	if cp.Pruned == nil {
		cp.Pruned = []PrunedNode{}
	}
	return json.MarshalIndent(&cp, "", "  ")
}

// CoverageError is the error an importer returns when the coverage pass
// finds nodes it cannot convert. Its message lists every one of them.
type CoverageError struct {
	Coverage *Coverage
}

// Error writes "file: N unsupported nodes: op at node "a": reason; …".
func (e *CoverageError) Error() string {
	c := e.Coverage
	parts := make([]string, len(c.Unsupported))
	for i, u := range c.Unsupported {
		parts[i] = u.String()
	}
	noun := "nodes"
	if len(parts) == 1 {
		noun = "node"
	}
	return fmt.Sprintf("%s: %d unsupported %s: %s", c.File, len(parts), noun, strings.Join(parts, "; "))
}
