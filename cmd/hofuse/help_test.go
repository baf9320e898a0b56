package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ with the current output")

// helpCases are the help texts kept as golden files: the command list and
// every command's --help, bench's, pjrt's and paper's subcommands included.
var helpCases = [][]string{
	{"help"},
	{"bench", "--help"},
	{"bench", "matmul", "--help"},
	{"bench", "model.onnx", "--help"},
	{"bench", "mlp", "--help"},
	{"bench", "stack", "--help"},
	{"bench", "train", "--help"},
	{"demo", "--help"},
	{"doctor", "--help"},
	{"eval", "--help"},
	{"fuse", "--help"},
	{"import", "--help"},
	{"paper", "--help"},
	{"paper", "matmul", "--help"},
	{"pjrt", "--help"},
	{"pjrt", "install", "--help"},
	{"pjrt", "path", "--help"},
	{"predict", "--help"},
	{"run", "--help"},
	{"show", "--help"},
	{"train", "--help"},
}

// TestHelpGolden compares each help text with its golden file in
// testdata/help; go test ./cmd/hofuse -update rewrites them.
func TestHelpGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, args := range helpCases {
		seen[args[0]] = true
		code, out, errs := hofuse(args...)
		require.Equal(t, 0, code, "%q: %s", args, errs)
		text := out + errs
		name := filepath.Join("testdata", "help", strings.Join(args[:len(args)-1], "_")+".txt")
		if args[0] == "help" {
			name = filepath.Join("testdata", "help", "hofuse.txt")
		}
		if *update {
			require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
			require.NoError(t, os.WriteFile(name, []byte(text), 0o644))
			continue
		}
		want, err := os.ReadFile(name)
		require.NoError(t, err, "run go test ./cmd/hofuse -update to write it")
		assert.Equal(t, string(want), text, "%q differs from %s; if the change is meant, run go test ./cmd/hofuse -update", args, name)
	}
	for name := range commands {
		assert.True(t, seen[name], "command %s has no golden help; add it to helpCases", name)
	}
}
