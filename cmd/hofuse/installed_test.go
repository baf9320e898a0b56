package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/pjrt"
)

// TestInstalledBinary walks through what a user of an installed hofuse
// (go install) sees: the binary built into a temporary folder, run from a
// folder outside any module, with its own HOME and cache folder.
func TestInstalledBinary(t *testing.T) {
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin", "hofuse")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	work := filepath.Join(tmp, "work")
	home := filepath.Join(tmp, "home")
	cache := filepath.Join(tmp, "cache")
	for _, d := range []string{work, home} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case pjrt.EnvPluginPath, pjrt.EnvDir, "HOME", "XDG_CACHE_HOME":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "XDG_CACHE_HOME="+cache)
	hofuseBin := func(args ...string) (code int, stdout, stderr string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = work, env
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), out.String(), errb.String()
		}
		require.NoError(t, err)
		return 0, out.String(), errb.String()
	}
	userDir := filepath.Join(cache, "hofuse", "pjrt")

	// No arguments: the help, and success.
	code, out, errs := hofuseBin()
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "hofuse fuses neural-network graphs"), out)
	assert.Contains(t, out, "\n  eval     evaluate a program")
	assert.Empty(t, errs)

	// pjrt path says where it looks: the user cache folder, and how to
	// install there with the installed command, not with go run.
	code, out, errs = hofuseBin("pjrt", "path")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, "hofuse pjrt: no PJRT plugin found; looked at user cache folder "+userDir+
		" (does not exist); run: hofuse pjrt install\n", errs)

	// doctor lists the places it searched.
	code, out, errs = hofuseBin("doctor")
	assert.Equal(t, 0, code, errs)
	assert.Contains(t, out, "  checkout:  none (no go.mod of github.com/hofuse/hofuse at or above the working folder): "+
		"pjrt install puts the plugin in the user cache folder\n"+
		"  searched, in order:\n"+
		"    user cache folder          "+userDir+"\n"+
		"  none found\n")
	assert.Contains(t, out, "  fix:     hofuse pjrt install   (or set $PJRT_PLUGIN_LIBRARY_PATH to a plugin file)\n")
	assert.NotContains(t, out, "go run")

	// eval, with partial reduce, on the interpreter and the native back end.
	inputs := filepath.Join(work, "in.json")
	require.NoError(t, os.WriteFile(inputs, []byte(`{"A": [[1, 2, 3], [4, 5, 6]]}`), 0o644))
	for _, backend := range []string{"interp", "native"} {
		code, out, errs = hofuseBin("eval", "--backend", backend, "--inputs", inputs, "A : f64[2,3]; map (reduce (+)) A")
		assert.Equal(t, 0, code, errs)
		assert.Equal(t, "f64[2][6 15]\n", out, backend)
		assert.Empty(t, errs)
	}
	code, out, errs = hofuseBin("eval", "A : f64[2,3]; map (reduce (+)) A")
	assert.Equal(t, 0, code, errs)
	assert.True(t, strings.HasPrefix(out, "f64[2]["), out)

	// A plugin in the user cache folder is the one every command finds.
	require.NoError(t, os.MkdirAll(userDir, 0o755))
	plugin := filepath.Join(userDir, pjrt.CPUPluginFile)
	require.NoError(t, os.WriteFile(plugin, []byte("a stand-in: pjrt path only looks at names"), 0o644))
	code, out, errs = hofuseBin("pjrt", "path")
	assert.Equal(t, 0, code, errs)
	assert.Equal(t, plugin+"\n", out)
}
