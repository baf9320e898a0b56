package pjrt

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// go-xla's messages name the file up to four times; Open's names it once.
func TestLoadErrorNamesPathOnce(t *testing.T) {
	t.Chdir(t.TempDir()) // outside a checkout: the install command is hofuse's
	t.Setenv(EnvPluginPath, "")
	abs := "/x/pjrt_c_api_cpu_plugin.so"
	for _, tc := range []struct{ xla, want string }{
		{`failed to load PJRT plugin for name "/x/pjrt_c_api_cpu_plugin.so": tried to load "/x/pjrt_c_api_cpu_plugin.so", but failed to find symbol "GetPjrtApi", skipping: error resolving symbol "GetPjrtApi": /x/pjrt_c_api_cpu_plugin.so: undefined symbol: GetPjrtApi`,
			"pjrt: open plugin /x/pjrt_c_api_cpu_plugin.so: not a PJRT plugin: it has no GetPjrtApi function; reinstall with: hofuse pjrt install --force"},
		{`failed to load PJRT plugin for name "/x/pjrt_c_api_cpu_plugin.so": failed to dynamically load PJRT plugin from "/x/pjrt_c_api_cpu_plugin.so: libfoo.so.1: cannot open shared object file: No such file or directory": "/x/pjrt_c_api_cpu_plugin.so" -- check with ` + "`ldd /x/pjrt_c_api_cpu_plugin.so`" + ` in case there are missing required libraries.`,
			"pjrt: open plugin /x/pjrt_c_api_cpu_plugin.so: the dynamic loader refused it: libfoo.so.1: cannot open shared object file: No such file or directory; check the libraries it needs with ldd, or reinstall with: hofuse pjrt install --force"},
		{`loaded PJRT plugin for name "/x/pjrt_c_api_cpu_plugin.so", but it returned a nil plugin!?`,
			`pjrt: open plugin /x/pjrt_c_api_cpu_plugin.so: loaded PJRT plugin for name it, but it returned a nil plugin!?`},
	} {
		inner := errors.New(tc.xla)
		err := loadError(abs, inner)
		if err.Error() != tc.want {
			t.Errorf("loadError:\n got %s\nwant %s", err, tc.want)
		}
		if n := strings.Count(err.Error(), abs); n != 1 {
			t.Errorf("the path appears %d times in %s", n, err)
		}
		if !errors.Is(err, inner) {
			t.Errorf("loadError does not wrap go-xla's error")
		}
	}
	t.Setenv(EnvPluginPath, "/x")
	if got, want := loadError(abs, errors.New(`symbol "GetPjrtApi"`)).Error(),
		"pjrt: open plugin /x/pjrt_c_api_cpu_plugin.so: not a PJRT plugin: it has no GetPjrtApi function; unset $PJRT_PLUGIN_LIBRARY_PATH or point it at a PJRT plugin file; or reinstall with: hofuse pjrt install --force"; got != want {
		t.Errorf("with $%s:\n got %s\nwant %s", EnvPluginPath, got, want)
	}
}

// Opening a shared library that is not a plugin (this process's own C
// library, copied under the plugin's name) fails with the path named once.
func TestOpenNotAPlugin(t *testing.T) {
	if !cgoEnabled || runtime.GOOS != "linux" {
		t.Skip("needs cgo on Linux, to load a shared library")
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	var lib string
	for _, line := range strings.Split(string(maps), "\n") {
		f := strings.Fields(line)
		if len(f) == 6 && strings.Contains(filepath.Base(f[5]), "libc.so") {
			lib = f[5]
			break
		}
	}
	if lib == "" {
		t.Fatal("a cgo test binary on Linux maps no libc.so")
	}
	b, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, CPUPluginFile)
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv(EnvPluginPath, path)
	_, err = Open(path)
	want := "pjrt: open plugin " + path + ": not a PJRT plugin: it has no GetPjrtApi function; unset $PJRT_PLUGIN_LIBRARY_PATH or point it at a PJRT plugin file; or reinstall with: hofuse pjrt install --force"
	if err == nil || err.Error() != want {
		t.Errorf("Open(libc):\n got %v\nwant %s", err, want)
	}
}
