package pjrt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hofuse/hofuse/internal/pluginfile"
)

// DamagedError is Open's error for a plugin file that is truncated,
// corrupt, or not a plugin for this machine. Loading such a file can kill
// the process inside dlopen (SIGBUS), so Open refuses it.
type DamagedError struct {
	Path   string // the plugin file as given (absolute)
	Reason string // what is wrong with it
	Fix    string // what to do
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("pjrt: plugin %s %s; it was not loaded. Fix: %s", e.Path, e.Reason, e.Fix)
}

// checkPlugin checks the file abs (real, with links resolved) before it
// is loaded.
func checkPlugin(abs, real string) error {
	_, err := pluginfile.Check(real)
	var p *pluginfile.Problem
	if errors.As(err, &p) {
		return &DamagedError{Path: abs, Reason: p.Reason, Fix: damagedFix(abs)}
	}
	if err != nil {
		return fmt.Errorf("pjrt: check plugin %s: %v", abs, err)
	}
	return nil
}

// damagedFix says how to replace the damaged plugin at path: reinstall it,
// or, when $PJRT_PLUGIN_LIBRARY_PATH led to it, unset the variable.
func damagedFix(path string) string {
	install := InstallCommand() + " --force"
	if strings.Contains(filepath.Base(path), "cuda") {
		install = InstallCommand() + " --gpu --force"
	}
	if os.Getenv(EnvDir) != "" {
		install += " (it installs into $" + EnvDir + ")"
	}
	for _, e := range filepath.SplitList(os.Getenv(EnvPluginPath)) {
		if e == "" {
			continue
		}
		if a, err := filepath.Abs(e); err == nil && (a == path || a == filepath.Dir(path)) {
			return fmt.Sprintf("unset $%s or point it at a sound plugin; or reinstall with: %s", EnvPluginPath, install)
		}
	}
	return "reinstall it with: " + install
}
