package tf

import (
	"fmt"

	"github.com/hofuse/hofuse/imports/tf/tfpb"
)

// The attribute readers below return an error naming the attribute when it
// is present with a value of another kind; an absent attribute gives the
// default TensorFlow's op registry gives it.

func attrBool(n *node, key string, def bool) (bool, error) {
	a, ok := n.def.GetAttr()[key]
	if !ok {
		return def, nil
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_B)
	if !ok {
		return false, fmt.Errorf("attribute %s is %s, want a bool", key, attrKind(a))
	}
	return v.B, nil
}

func attrFloat(n *node, key string, def float32) (float32, error) {
	a, ok := n.def.GetAttr()[key]
	if !ok {
		return def, nil
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_F)
	if !ok {
		return 0, fmt.Errorf("attribute %s is %s, want a float", key, attrKind(a))
	}
	return v.F, nil
}

func attrString(n *node, key string, def string) (string, error) {
	a, ok := n.def.GetAttr()[key]
	if !ok {
		return def, nil
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_S)
	if !ok {
		return "", fmt.Errorf("attribute %s is %s, want a string", key, attrKind(a))
	}
	return string(v.S), nil
}

// attrType returns a type attribute; present reports whether it was set.
func attrType(n *node, key string) (dt tfpb.DataType, present bool, err error) {
	a, ok := n.def.GetAttr()[key]
	if !ok {
		return tfpb.DataType_DT_INVALID, false, nil
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_Type)
	if !ok {
		return 0, true, fmt.Errorf("attribute %s is %s, want a type", key, attrKind(a))
	}
	return v.Type, true, nil
}

// attrInts returns a list-of-ints attribute (nil when absent).
func attrInts(n *node, key string) ([]int64, error) {
	a, ok := n.def.GetAttr()[key]
	if !ok {
		return nil, nil
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_List)
	if !ok {
		return nil, fmt.Errorf("attribute %s is %s, want a list of ints", key, attrKind(a))
	}
	return v.List.GetI(), nil
}

// attrShape returns a shape attribute, or nil when absent.
func attrShape(n *node, key string) (*tfpb.TensorShapeProto, error) {
	a, ok := n.def.GetAttr()[key]
	if !ok {
		return nil, nil
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_Shape)
	if !ok {
		return nil, fmt.Errorf("attribute %s is %s, want a shape", key, attrKind(a))
	}
	return v.Shape, nil
}

// attrTensor returns a tensor attribute.
func attrTensor(n *node, key string) (*tfpb.TensorProto, error) {
	a, ok := n.def.GetAttr()[key]
	if !ok {
		return nil, fmt.Errorf("attribute %s is missing", key)
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_Tensor)
	if !ok {
		return nil, fmt.Errorf("attribute %s is %s, want a tensor", key, attrKind(a))
	}
	return v.Tensor, nil
}

// attrKind names the kind of value an attribute holds.
func attrKind(a *tfpb.AttrValue) string {
	switch a.GetValue().(type) {
	case *tfpb.AttrValue_S:
		return "a string"
	case *tfpb.AttrValue_I:
		return "an int"
	case *tfpb.AttrValue_F:
		return "a float"
	case *tfpb.AttrValue_B:
		return "a bool"
	case *tfpb.AttrValue_Type:
		return "a type"
	case *tfpb.AttrValue_Shape:
		return "a shape"
	case *tfpb.AttrValue_Tensor:
		return "a tensor"
	case *tfpb.AttrValue_List:
		return "a list"
	case *tfpb.AttrValue_Func:
		return "a function"
	case *tfpb.AttrValue_Placeholder:
		return "a placeholder"
	}
	return "empty"
}

func attrInt(n *node, key string, def int64) (int64, error) {
	a, ok := n.def.GetAttr()[key]
	if !ok {
		return def, nil
	}
	v, ok := a.GetValue().(*tfpb.AttrValue_I)
	if !ok {
		return 0, fmt.Errorf("attribute %s is %s, want an int", key, attrKind(a))
	}
	return v.I, nil
}
