package pjrt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenDamaged opens damaged plugin files in the test process: Open
// must refuse each before dlopen (which would die of SIGBUS on a truncated
// file) and say how to fix it.
func TestOpenDamaged(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Setenv(EnvDir, dir)
	t.Setenv(EnvPluginPath, "")
	fix := "reinstall it with: " + InstallCommand() + " --force (it installs into $" + EnvDir + ")"
	// Cut short, the file loses its section header table or part of a
	// segment, depending on the linker's layout.
	truncated := fmt.Sprintf("past the end of the file (%d bytes): the file is truncated", len(self)/2)
	for _, c := range []struct {
		name   string
		data   []byte
		reason string // start of the reason
		end    string // end of the reason
	}{
		{"truncated", self[:len(self)/2], "has ", truncated},
		{"random", []byte("\x00\x01\x02\x03 not an ELF file at all, just some bytes"), "does not start with the ELF magic number (its first bytes are 00 01 02 03)", ": it is not a shared library"},
		{"empty", nil, "is empty (0 bytes)", ""},
	} {
		path := filepath.Join(dir, CPUPluginFile)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		// Found through $HOFUSE_PJRT_DIR: Locate names it, Open refuses it.
		got, err := Locate("")
		if err != nil || got != path {
			t.Fatalf("%s: Locate = %q, %v", c.name, got, err)
		}
		err = checkPlugin(path, path)
		var d *DamagedError
		if !errors.As(err, &d) || d.Path != path || !strings.HasPrefix(d.Reason, c.reason) || !strings.HasSuffix(d.Reason, c.end) || d.Fix != fix {
			t.Errorf("%s: check = %v\nwant reason %q...%q and fix %q", c.name, err, c.reason, c.end, fix)
		}
		if !strings.HasPrefix(err.Error(), "pjrt: plugin "+path+" "+c.reason) || !strings.HasSuffix(err.Error(), "; it was not loaded. Fix: "+fix) {
			t.Errorf("%s: message %q", c.name, err)
		}
		if CgoEnabled() {
			if cl, err := Open(path); !errors.As(err, &d) {
				if cl != nil {
					cl.Close()
				}
				t.Errorf("%s: Open = %v, want a *DamagedError", c.name, err)
			}
		}
	}

	// Found through $PJRT_PLUGIN_LIBRARY_PATH: the fix names the variable.
	t.Setenv(EnvPluginPath, dir)
	err = checkPlugin(filepath.Join(dir, CPUPluginFile), filepath.Join(dir, CPUPluginFile))
	want := "pjrt: plugin " + filepath.Join(dir, CPUPluginFile) + " is empty (0 bytes); it was not loaded. Fix: unset $PJRT_PLUGIN_LIBRARY_PATH " +
		"or point it at a sound plugin; or reinstall with: " + InstallCommand() + " --force (it installs into $" + EnvDir + ")"
	if err == nil || err.Error() != want {
		t.Errorf("check via $%s:\n got %v\nwant %s", EnvPluginPath, err, want)
	}
}
