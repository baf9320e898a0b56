package xla_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/stablehlo"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// TestConvolution checks convolutions built by layers (odd sizes,
// strides, dilations, every padding, one and two spatial axes, with and
// without BatchNorm and ReLU after them) on PJRT against the interpreter,
// fused and unfused, and that they lower to stablehlo.convolution,
// grouped and depthwise ones with a feature_group_count.
func TestConvolution(t *testing.T) {
	client := pjrttest.Client(t)
	for _, cc := range lowertest.ConvCases() {
		t.Run(cc.Name, func(t *testing.T) {
			y, err := cc.Build()
			if err != nil {
				t.Fatal(err)
			}
			in, err := lowertest.Inputs(y, 7, 0, lowertest.Dense)
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range lowertest.FusedAndUnfused(t, y) {
				lowertest.Check(t, xla.New(client, xla.Options{}), g, y, in, 0)
				m, err := stablehlo.Module(g)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(m, "stablehlo.convolution") {
					t.Errorf("no stablehlo.convolution in the module:\n%s", m)
				}
				if g := max(cc.Opt.Groups, 1); g > 1 && !strings.Contains(m, fmt.Sprintf("feature_group_count = %d", g)) {
					t.Errorf("no feature_group_count = %d in the module:\n%s", g, m)
				}
			}
		})
	}
}
