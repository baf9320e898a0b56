package pjrt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Environment variables that steer where plugins are looked for.
const (
	// EnvPluginPath names a plugin file, or a folder holding one; several
	// may be given, separated by the list separator (':' on Unix). It is
	// the variable go-xla reads too.
	EnvPluginPath = "PJRT_PLUGIN_LIBRARY_PATH"
	// EnvDir replaces the project-local plugin folder <module root>/.pjrt.
	EnvDir = "HOFUSE_PJRT_DIR"
	// EnvRequire, set to 1, turns the skips of tests that need a plugin
	// into failures (CI sets it after installing the plugin).
	EnvRequire = "HOFUSE_REQUIRE_PJRT"
)

// InstallCommand is the command that installs the CPU plugin into the
// project-local folder. Errors about a missing plugin quote it.
const InstallCommand = "go run ./cmd/hofuse pjrt install"

// CPUPluginFile is the file name the installer gives the CPU plugin. It is
// the name go-xla's own search expects for a plugin called "cpu".
const CPUPluginFile = "pjrt_c_api_cpu_plugin.so"

// DefaultDirName is the name of the project-local plugin folder under the
// module root.
const DefaultDirName = ".pjrt"

// DefaultDir returns the project-local plugin folder: $HOFUSE_PJRT_DIR when
// set, else the folder .pjrt in the module root, the nearest directory at or
// above the working directory that holds a go.mod. The folder need not
// exist.
func DefaultDir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return filepath.Abs(d)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("pjrt: cannot find the module root: %v; set %s", err, EnvDir)
	}
	for dir := wd; ; {
		if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !fi.IsDir() {
			return filepath.Join(dir, DefaultDirName), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("pjrt: no go.mod at or above %s, so there is no project-local plugin folder; set %s to a folder", wd, EnvDir)
		}
		dir = parent
	}
}

// pluginPatterns are the file names taken for plugins inside a folder, best
// first: the installer's CPU name, then the names go-xla searches for, then
// the names inside the PyPI wheels.
var pluginPatterns = []string{
	CPUPluginFile,
	"pjrt_c_api_*_plugin" + libExt,
	"pjrt-plugin-*" + libExt,
	"pjrt_plugin_*" + libExt,
	"xla_cpu_pjrt" + libExt,
	"xla_cuda_plugin" + libExt,
}

var libExt = func() string {
	switch runtime.GOOS {
	case "darwin":
		return ".dylib"
	case "windows":
		return ".dll"
	}
	return ".so"
}()

// pluginsIn lists the plugin files in dir, best first.
func pluginsIn(dir string) []string {
	var found []string
	for _, pat := range pluginPatterns {
		matches, _ := filepath.Glob(filepath.Join(dir, pat))
		slices.Sort(matches)
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() && !slices.Contains(found, m) {
				found = append(found, m)
			}
		}
	}
	return found
}

// searchPlace is one place Locate looks, for error messages and doctor.
type searchPlace struct {
	what string // "explicit path", "$PJRT_PLUGIN_LIBRARY_PATH", ...
	path string
}

// places lists where Locate looks, in order.
func places(explicit string) ([]searchPlace, error) {
	if explicit != "" {
		return []searchPlace{{"explicit path", explicit}}, nil
	}
	var ps []searchPlace
	if env := os.Getenv(EnvPluginPath); env != "" {
		for _, p := range filepath.SplitList(env) {
			if p != "" {
				ps = append(ps, searchPlace{"$" + EnvPluginPath, p})
			}
		}
	}
	dir, err := DefaultDir()
	if err != nil {
		return ps, err
	}
	what := "project folder"
	if os.Getenv(EnvDir) != "" {
		what = "$" + EnvDir
	}
	return append(ps, searchPlace{what, dir}), nil
}

// LocateAll lists every plugin file in the places Locate searches, in
// Locate's order of preference: Locate returns the first. When none is
// found, the error says where it looked and how to install one.
func LocateAll(explicit string) ([]string, error) {
	ps, perr := places(explicit)
	var found, looked []string
	for _, p := range ps {
		abs, err := filepath.Abs(p.path)
		if err != nil {
			looked = append(looked, fmt.Sprintf("%s %s (%v)", p.what, p.path, err))
			continue
		}
		fi, err := os.Stat(abs)
		if p.what == "$"+EnvPluginPath {
			// The variable was set on purpose: a wrong value is an error,
			// never a silent fall back to the project folder.
			switch {
			case err != nil:
				return nil, fmt.Errorf("pjrt: $%s names %s, which %s; set it to a plugin file or a folder holding one, or unset it",
					EnvPluginPath, abs, statReason(err))
			case fi.IsDir() && len(pluginsIn(abs)) == 0:
				return nil, fmt.Errorf("pjrt: $%s names the folder %s, which holds no plugin file (%s); set it to a plugin file or a folder holding one, or unset it",
					EnvPluginPath, abs, strings.Join(pluginPatterns, ", "))
			}
		}
		switch {
		case err != nil:
			looked = append(looked, fmt.Sprintf("%s %s (%s)", p.what, abs, statReason(err)))
		case fi.IsDir():
			in := pluginsIn(abs)
			if len(in) == 0 {
				looked = append(looked, fmt.Sprintf("%s %s (no plugin file in it)", p.what, abs))
			}
			for _, f := range in {
				if !slices.Contains(found, f) {
					found = append(found, f)
				}
			}
		default:
			if !slices.Contains(found, abs) {
				found = append(found, abs)
			}
		}
	}
	if len(found) > 0 {
		return found, nil
	}
	if perr != nil {
		looked = append(looked, perr.Error())
	}
	return nil, &NotFoundError{Looked: looked, Explicit: explicit != ""}
}

// Locate finds a plugin: the explicit path if it is non-empty (a file, or a
// folder holding a plugin file), else $PJRT_PLUGIN_LIBRARY_PATH (likewise),
// else the project-local folder (see DefaultDir). It returns an absolute
// path. An entry of $PJRT_PLUGIN_LIBRARY_PATH that does not exist, or is a
// folder without a plugin file, is an error naming the variable. Locate
// only looks at names; Open checks a file and loads it.
func Locate(explicit string) (path string, err error) {
	found, err := LocateAll(explicit)
	if err != nil {
		return "", err
	}
	return found[0], nil
}

// NotFoundError is Locate's error when no plugin file is found.
type NotFoundError struct {
	Looked   []string // each place looked at, and why it gave nothing
	Explicit bool     // whether an explicit path was given
}

func (e *NotFoundError) Error() string {
	var sb strings.Builder
	sb.WriteString("no PJRT plugin found; looked at ")
	sb.WriteString(strings.Join(e.Looked, "; "))
	if e.Explicit {
		sb.WriteString("; pass the path of a plugin file, or install one with: ")
	} else {
		sb.WriteString("; run: ")
	}
	sb.WriteString(InstallCommand)
	return sb.String()
}

func statReason(err error) string {
	if errors.Is(err, os.ErrNotExist) {
		return "does not exist"
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
