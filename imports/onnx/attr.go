package onnx

import (
	"github.com/hofuse/hofuse/imports/onnx/onnxpb"
)

// attr returns the node's attribute name, or nil.
func attr(n *onnxpb.NodeProto, name string) *onnxpb.AttributeProto {
	for _, a := range n.GetAttribute() {
		if a.GetName() == name {
			return a
		}
	}
	return nil
}

// attrType is the attribute's type, inferred from the field set for files
// that leave type out (written before IR version 2).
func attrType(a *onnxpb.AttributeProto) onnxpb.AttributeProto_AttributeType {
	if t := a.GetType(); t != onnxpb.AttributeProto_UNDEFINED {
		return t
	}
	switch {
	case len(a.GetFloats()) > 0:
		return onnxpb.AttributeProto_FLOATS
	case len(a.GetInts()) > 0:
		return onnxpb.AttributeProto_INTS
	case len(a.GetStrings()) > 0:
		return onnxpb.AttributeProto_STRINGS
	case a.GetT() != nil:
		return onnxpb.AttributeProto_TENSOR
	case a.GetG() != nil:
		return onnxpb.AttributeProto_GRAPH
	case len(a.GetS()) > 0:
		return onnxpb.AttributeProto_STRING
	case a.GetF() != 0:
		return onnxpb.AttributeProto_FLOAT
	}
	return onnxpb.AttributeProto_INT
}

// attrInt returns the int attribute name, or def when the node does not
// set it.
func (c *ctx) attrInt(name string, def int64) (int64, error) {
	a := attr(c.node, name)
	if a == nil {
		return def, nil
	}
	if attrType(a) != onnxpb.AttributeProto_INT {
		return 0, c.errorf("attribute %s is %v, want an int", name, attrType(a))
	}
	return a.GetI(), nil
}

// attrFloat returns the float attribute name, or def.
func (c *ctx) attrFloat(name string, def float64) (float64, error) {
	a := attr(c.node, name)
	if a == nil {
		return def, nil
	}
	switch attrType(a) {
	case onnxpb.AttributeProto_FLOAT:
		return float64(a.GetF()), nil
	case onnxpb.AttributeProto_INT: // some exporters write whole numbers as ints
		return float64(a.GetI()), nil
	}
	return 0, c.errorf("attribute %s is %v, want a float", name, attrType(a))
}

// attrInts returns the ints attribute name and whether the node sets it.
func (c *ctx) attrInts(name string) ([]int, bool, error) {
	a := attr(c.node, name)
	if a == nil {
		return nil, false, nil
	}
	if t := attrType(a); t != onnxpb.AttributeProto_INTS && !(t == onnxpb.AttributeProto_INT && a.GetType() == onnxpb.AttributeProto_UNDEFINED) {
		return nil, false, c.errorf("attribute %s is %v, want ints", name, t)
	}
	out := make([]int, len(a.GetInts()))
	for i, v := range a.GetInts() {
		out[i] = int(v)
	}
	return out, true, nil
}

// attrString returns the string attribute name, or def.
func (c *ctx) attrString(name, def string) (string, error) {
	a := attr(c.node, name)
	if a == nil {
		return def, nil
	}
	if attrType(a) != onnxpb.AttributeProto_STRING {
		return "", c.errorf("attribute %s is %v, want a string", name, attrType(a))
	}
	return string(a.GetS()), nil
}

// intAttrIs reports whether the node's int attribute name is set to a
// value other than def: for the coverage checks.
func intAttrIs(n *onnxpb.NodeProto, name string, def int64) (int64, bool) {
	a := attr(n, name)
	if a == nil || a.GetI() == def {
		return def, false
	}
	return a.GetI(), true
}
