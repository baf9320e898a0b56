package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeExample is one "$ hofuse ..." line of a console block of the
// README, and the output shown under it.
type readmeExample struct {
	line int    // in README.md, from 1
	cmd  string // after "$ "
	want string
}

// readmeExamples reads the console blocks of the README.
func readmeExamples(t *testing.T) []readmeExample {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	defer f.Close()
	var out []readmeExample
	in := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case line == "```console":
			in = true
		case in && line == "```":
			in = false
		case in && strings.HasPrefix(line, "$ "):
			out = append(out, readmeExample{line: n, cmd: line[2:]})
		case in && len(out) > 0:
			out[len(out)-1].want += line + "\n"
		case in:
			t.Fatalf("README.md:%d: output before any command in a console block", n)
		}
	}
	require.NoError(t, sc.Err())
	require.False(t, in, "README.md: a console block is not closed")
	return out
}

// shellWords splits a command line the way sh does for the README's
// examples: words separated by spaces, with '...' taken literally.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for _, r := range s {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			w.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == ' ':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case r == '"' || r == '\\' || r == '$' || r == '`':
			t.Fatalf("%s: only '...' quoting is understood here", s)
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	require.False(t, quoted, "%s: unclosed quote", s)
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// TestReadmeExamples runs every "$ hofuse ..." example in the README's
// console blocks and compares its output with what the README shows, so
// that the README cannot drift from the command.
func TestReadmeExamples(t *testing.T) {
	examples := readmeExamples(t)
	require.GreaterOrEqual(t, len(examples), 20, "the README's console blocks hold fewer examples than expected")
	// The examples name files as a reader at the repository's root does.
	t.Chdir(filepath.Join("..", ".."))
	for _, ex := range examples {
		args := shellWords(t, ex.cmd)
		require.Equal(t, "hofuse", args[0], "README.md:%d: console examples run hofuse", ex.line)
		code, out, errs := hofuse(args[1:]...)
		assert.Equal(t, 0, code, "README.md:%d: %s\n%s", ex.line, ex.cmd, errs)
		assert.Equal(t, ex.want, out, "README.md:%d: %s", ex.line, ex.cmd)
	}
}

// TestReadmeLayout checks that the README's layout table lists every
// package of the module.
func TestReadmeLayout(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	readme := string(b)
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}", "../../...").Output()
	require.NoError(t, err)
	pkgs := strings.Fields(string(out))
	require.NotEmpty(t, pkgs)
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, "github.com/hofuse/hofuse"), "/")
		if rel == "" {
			continue
		}
		assert.True(t, strings.Contains(readme, "| `"+rel+"` |"), "the README's layout table lacks package %s", rel)
	}
}
