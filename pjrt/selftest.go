package pjrt

import (
	"fmt"
	"time"

	"github.com/hofuse/hofuse/graph"
)

// selfTestProgram computes x*y + x on f32[4].
const selfTestProgram = `module @hofuse_selftest {
  func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.multiply %x, %y : tensor<4xf32>
    %1 = stablehlo.add %0, %x : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}`

// SelfTestReport is what SelfTest measured.
type SelfTestReport struct {
	Compile time.Duration // compiling the program (0 when it was cached)
	Run     time.Duration // one Run: transfers, execution, read-back
}

// SelfTest compiles and runs a tiny program (x*y + x on four f32 values)
// and checks the result exactly. It is what "hofuse pjrt install" and
// "hofuse doctor" run to show that a plugin works end to end.
func (c *Client) SelfTest() (SelfTestReport, error) {
	var rep SelfTestReport
	_, misses := c.CacheStats()
	e, err := c.Compile(selfTestProgram)
	if err != nil {
		return rep, err
	}
	if _, m := c.CacheStats(); m > misses {
		rep.Compile = e.CompileTime()
	}
	xs := []float32{1, 2, -3, 0.5}
	ys := []float32{4, -0.25, 2, 8}
	x, _ := graph.FromFloat32(xs, 4)
	y, _ := graph.FromFloat32(ys, 4)
	start := time.Now()
	outs, err := e.Run(x, y)
	rep.Run = time.Since(start)
	if err != nil {
		return rep, err
	}
	got, ok := outs[0].(*graph.Array)
	if !ok || got.DType() != graph.Float32 || got.Size() != 4 {
		return rep, fmt.Errorf("pjrt: self-test: result is %s, want f32[4]", describeValue(outs[0]))
	}
	for i := range xs {
		if want := xs[i]*ys[i] + xs[i]; got.Float32s()[i] != want {
			return rep, fmt.Errorf("pjrt: self-test: result %v, want x*y+x = %v at %d", got, want, i)
		}
	}
	return rep, nil
}
