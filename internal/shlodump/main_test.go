package main

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in the output, or in the error when err is set
		err  bool
	}{
		{[]string{"-case", "eq1", "-dtype", "f64"}, "func.func @main(", false},
		{[]string{"-case", "dense_bn_relu", "-unfused"}, "func.func @k2_bn1(", false},
		{[]string{"-program", `u : f32[4]; map (\x -> x * 2) u`, "-per-kernel"}, "// kernel k1_kernel", false},
		{[]string{"-list"}, "matvec_row_subdiv\n", false},
		{[]string{"-case", "nope"}, `-case "nope": no such case in the back-end suite (see -list)`, true},
		{[]string{"-case", "eq1", "-dtype", "i32"}, `-dtype "i32": want f32 or f64`, true},
		{[]string{}, "give -case NAME (see -list) or -program TEXT", true},
		{[]string{"-case", "eq1", "-program", "x"}, "-case and -program exclude each other", true},
		{[]string{"-program", "u : f32[4]; ("}, "-program: ", true},
	} {
		var out strings.Builder
		err := run(tc.args, &out)
		if tc.err {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v: error %v, want one containing %q", tc.args, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: output lacks %q:\n%s", tc.args, tc.want, out.String())
		}
	}
}
