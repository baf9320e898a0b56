package stablehlo_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/stablehlo"
)

var update = flag.Bool("update", false, "rewrite the golden StableHLO files in testdata")

// TestGolden compares the modules of the golden cases with
// testdata/<case>[_unfused]_<dtype>.mlir; -update rewrites them. Package
// xla's tests compile the same files on a PJRT plugin and run them.
func TestGolden(t *testing.T) {
	for _, g := range lowertest.Goldens() {
		t.Run(g.File, func(t *testing.T) {
			text, err := goldenModule(g)
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

// goldenModule returns the StableHLO text of a golden case.
func goldenModule(g lowertest.Golden) (string, error) {
	_, kg, err := g.Graph()
	if err != nil {
		return "", err
	}
	low, err := stablehlo.LowerGraph(kg)
	if err != nil {
		return "", err
	}
	return low.Text, nil
}
