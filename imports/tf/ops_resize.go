package tf

import (
	"fmt"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/imports/nd"
)

func init() {
	ops["ResizeNearestNeighbor"] = opDef{arity: 2, outputs: 1, check: checkResizeNearest, convert: convResizeNearest}
	ops["Tile"] = opDef{arity: 2, outputs: 1, convert: convTile}
}

// convTile converts Tile(input, multiples): input repeated along each axis
// as often as the constant multiples says (Keras's UpSampling2D writes it
// between two Reshapes, to repeat each pixel): nd.Tile.
func convTile(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.data(in[0])
	if err != nil {
		return nil, err
	}
	mult, err := constInts(in[1], "multiples")
	if err != nil {
		return nil, err
	}
	xe := extentsOf(in[0].typ)
	if len(mult) != len(xe) {
		return nil, fmt.Errorf("multiples %v has %d values for an input of rank %d (%v)", mult, len(mult), len(xe), in[0].typ)
	}
	reps := make([]int, len(mult))
	for i, m := range mult {
		if m < 1 || m > int64(graph.MaxExtent/xe[i]) {
			return nil, fmt.Errorf("multiples %v: %d for axis %d of extent %d; each must be at least 1 and keep the axis within %d", mult, m, i, xe[i], graph.MaxExtent)
		}
		reps[i] = int(m)
	}
	return c.result(nd.Ops{Source: n.name}.Tile(x, reps))
}

// checkResizeNearest refuses align_corners, under which the nearest
// element of an upsampling is not a repetition.
func checkResizeNearest(n *node) string {
	ac, err := attrBool(n, "align_corners", false)
	if err != nil {
		return err.Error()
	}
	if ac {
		return "align_corners is not supported: hofuse resizes by repeating each element a whole number of times"
	}
	return ""
}

// convResizeNearest converts ResizeNearestNeighbor(images [N, H, W, C],
// size [2]), which Keras's UpSampling2D writes, where size is a whole
// multiple (s, t) of (H, W): each pixel repeated s times down and t times
// across. Without align_corners, output row i reads floor((i + 0.5)/s)
// with half_pixel_centers and floor(i/s) without, both the i/s rounded
// down for a whole s: nd.Repeat.
func convResizeNearest(c *converter, n *node, in []value) ([]value, error) {
	x, err := c.floatData(in[0], "images")
	if err != nil {
		return nil, err
	}
	size, err := constInts(in[1], "size")
	if err != nil {
		return nil, err
	}
	xe := extentsOf(in[0].typ)
	if len(xe) != 4 || len(size) != 2 {
		return nil, fmt.Errorf("images %v and size %v: want [N, H, W, C] and [height, width]", in[0].typ, size)
	}
	var s [2]int
	for a := range 2 {
		e := xe[1+a]
		if size[a] < int64(e) || size[a]%int64(e) != 0 || size[a] > int64(graph.MaxExtent) {
			return nil, fmt.Errorf("size %v: axis %d of extent %d to %d is not a whole upsampling; hofuse resizes by repeating each element a whole number of times", size, 1+a, e, size[a])
		}
		s[a] = int(size[a]) / e
	}
	return c.result(nd.Ops{Source: n.name}.Repeat(x, []int{1, s[0], s[1], 1}))
}
