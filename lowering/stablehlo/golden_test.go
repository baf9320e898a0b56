package stablehlo_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/stablehlo"
	"github.com/hofuse/hofuse/lowering/stablehlo/stablehlotest"
)

var update = flag.Bool("update", false, "rewrite the golden StableHLO files in testdata")

// TestGolden compares the modules of the golden cases with
// testdata/<case>[_unfused]_<dtype>.mlir; -update rewrites them. Package
// xlarun's tests compile the same files on a PJRT plugin and run them.
func TestGolden(t *testing.T) {
	for _, g := range stablehlotest.Goldens() {
		t.Run(g.File, func(t *testing.T) {
			text, err := g.Module()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", g.File)
			if *update {
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./lowering/stablehlo/ -update to write it)", err)
			}
			if string(want) != text {
				t.Errorf("module differs from %s (run with -update if the change is intended):\n%s", path, text)
			}
		})
	}
}

func TestDebugPrint(t *testing.T) {
	name := os.Getenv("CASE")
	if name == "" {
		t.Skip("set CASE=<case name> to print its module")
	}
	for _, c := range stablehlotest.Cases() {
		if c.Name != name {
			continue
		}
		term, err := c.Term(graph.Float32)
		if err != nil {
			t.Fatal(err)
		}
		g, err := fusion.Whole(term)
		if err != nil {
			t.Fatal(err)
		}
		text, err := stablehlo.Module(g)
		if err != nil {
			t.Fatal(err)
		}
		t.Log("\n" + text)
	}
}
