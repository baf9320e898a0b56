package pjrt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func touch(t *testing.T, path string) string { return writeFile(t, path, "not really a plugin") }

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLocate(t *testing.T) {
	tmp := t.TempDir()
	cpu := touch(t, filepath.Join(tmp, "a", CPUPluginFile))
	cuda := touch(t, filepath.Join(tmp, "a", "pjrt_c_api_cuda_plugin.so"))
	touch(t, filepath.Join(tmp, "a", CPUPluginFile+".stamp.json"))
	wheelName := touch(t, filepath.Join(tmp, "b", "xla_cpu_pjrt.so"))
	project := touch(t, filepath.Join(tmp, "proj", DefaultDirName, CPUPluginFile))
	writeFile(t, filepath.Join(tmp, "proj", "go.mod"), "module "+ModulePath+"\n\ngo 1.26\n")
	cache := touch(t, filepath.Join(tmp, "cache", "hofuse", "pjrt", CPUPluginFile))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "cache"))
	sub := filepath.Join(tmp, "proj", "x", "y")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	t.Setenv(EnvPluginPath, "")
	t.Setenv(EnvDir, "")

	check := func(explicit, want string) {
		t.Helper()
		got, err := Locate(explicit)
		if err != nil || got != want {
			t.Errorf("Locate(%q) = %q, %v; want %q", explicit, got, err, want)
		}
	}
	check("", project)                        // module root/.pjrt, found from a subfolder
	check(cuda, cuda)                         // an explicit file
	check(filepath.Join(tmp, "a"), cpu)       // an explicit folder: the CPU plugin first
	check(filepath.Join(tmp, "b"), wheelName) // the wheel's own name
	t.Setenv(EnvPluginPath, filepath.Join(tmp, "b")+string(os.PathListSeparator)+filepath.Join(tmp, "a"))
	check("", wheelName)
	all, err := LocateAll("")
	if err != nil || strings.Join(all, " ") != strings.Join([]string{wheelName, cpu, cuda, project, cache}, " ") {
		t.Errorf("LocateAll = %v, %v", all, err)
	}
	t.Setenv(EnvPluginPath, "")
	t.Setenv(EnvDir, filepath.Join(tmp, "a"))
	check("", cpu)
	if d, _ := DefaultDir(); d != filepath.Join(tmp, "a") {
		t.Errorf("DefaultDir with %s = %s", EnvDir, d)
	}
}

func TestLocateNotFound(t *testing.T) {
	tmp := t.TempDir()
	writeFile(t, filepath.Join(tmp, "go.mod"), "module "+ModulePath+"\n")
	t.Chdir(tmp)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "cache"))
	t.Setenv(EnvDir, "")
	t.Setenv(EnvPluginPath, filepath.Join(tmp, "nothere"))
	_, err := Locate("")
	want := "pjrt: $PJRT_PLUGIN_LIBRARY_PATH names " + filepath.Join(tmp, "nothere") +
		", which does not exist; set it to a plugin file or a folder holding one, or unset it"
	if err == nil || err.Error() != want {
		t.Errorf("Locate with a missing $%s:\n got %v\nwant %s", EnvPluginPath, err, want)
	}
	t.Setenv(EnvPluginPath, tmp)
	_, err = Locate("")
	want = "pjrt: $PJRT_PLUGIN_LIBRARY_PATH names the folder " + tmp + ", which holds no plugin file (" +
		strings.Join(pluginPatterns, ", ") + "); set it to a plugin file or a folder holding one, or unset it"
	if err == nil || err.Error() != want {
		t.Errorf("Locate with $%s a folder without plugins:\n got %v\nwant %s", EnvPluginPath, err, want)
	}
	t.Setenv(EnvPluginPath, "")
	_, err = Locate("")
	want = "no PJRT plugin found; looked at project folder " + filepath.Join(tmp, ".pjrt") + " (does not exist); user cache folder " +
		filepath.Join(tmp, "cache", "hofuse", "pjrt") + " (does not exist); run: go run ./cmd/hofuse pjrt install"
	if err == nil || err.Error() != want {
		t.Errorf("Locate:\n got %v\nwant %s", err, want)
	}
	if err := os.Mkdir(filepath.Join(tmp, ".pjrt"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Locate(filepath.Join(tmp, ".pjrt"))
	want = "no PJRT plugin found; looked at explicit path " + filepath.Join(tmp, ".pjrt") +
		" (no plugin file in it); pass the path of a plugin file, or install one with: go run ./cmd/hofuse pjrt install"
	if err == nil || err.Error() != want {
		t.Errorf("Locate(empty folder):\n got %v\nwant %s", err, want)
	}
}

// Outside a checkout of hofuse (no go.mod, or another module's), the plugin
// folder is the user's cache folder, and the install command is the
// installed binary's.
func TestLocateOutsideCheckout(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv(EnvPluginPath, "")
	t.Setenv(EnvDir, "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(tmp, "cache"))
	t.Setenv("HOME", tmp)
	userDir := filepath.Join(tmp, "cache", "hofuse", "pjrt")
	for _, gomod := range []string{"", "module example.com/other\n"} {
		wd := filepath.Join(tmp, "w")
		if err := os.MkdirAll(wd, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(wd, "go.mod"))
		if gomod != "" {
			writeFile(t, filepath.Join(wd, "go.mod"), gomod)
		}
		t.Chdir(wd)
		if _, ok := Checkout(); ok {
			t.Errorf("go.mod %q: Checkout reports a checkout of hofuse", gomod)
		}
		if d, err := DefaultDir(); err != nil || d != userDir {
			t.Errorf("go.mod %q: DefaultDir = %q, %v; want %q", gomod, d, err, userDir)
		}
		if got := InstallCommand(); got != "hofuse pjrt install" {
			t.Errorf("go.mod %q: InstallCommand = %q", gomod, got)
		}
		_, err := Locate("")
		want := "no PJRT plugin found; looked at user cache folder " + userDir + " (does not exist); run: hofuse pjrt install"
		if err == nil || err.Error() != want {
			t.Errorf("go.mod %q: Locate:\n got %v\nwant %s", gomod, err, want)
		}
	}
	plugin := touch(t, filepath.Join(userDir, CPUPluginFile))
	if got, err := Locate(""); err != nil || got != plugin {
		t.Errorf("Locate = %q, %v; want %q", got, err, plugin)
	}
	ps, err := Places("")
	if err != nil || len(ps) != 1 || ps[0] != (Place{"user cache folder", userDir}) {
		t.Errorf("Places = %v, %v", ps, err)
	}
}
