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
	// EnvDir names the plugin folder, replacing both the project folder
	// <checkout>/.pjrt and the user cache folder: pjrt install puts the
	// plugin there and every command looks there.
	EnvDir = "HOFUSE_PJRT_DIR"
	// EnvRequire, set to 1, turns the skips of tests that need a plugin
	// into failures (CI sets it after installing the plugin).
	EnvRequire = "HOFUSE_REQUIRE_PJRT"
)

// ModulePath is the module path of hofuse's own repository. A directory
// at or below a go.mod declaring it is a checkout of hofuse.
const ModulePath = "github.com/hofuse/hofuse"

// InstallCommand returns the command that installs the CPU plugin into
// DefaultDir, as the user should type it here: inside a checkout of hofuse
// "go run ./cmd/hofuse pjrt install", elsewhere (an installed binary)
// "hofuse pjrt install". Errors about a missing plugin quote it.
func InstallCommand() string {
	if _, ok := Checkout(); ok {
		return "go run ./cmd/hofuse pjrt install"
	}
	return "hofuse pjrt install"
}

// CPUPluginFile is the file name the installer gives the CPU plugin. It is
// the name go-xla's own search expects for a plugin called "cpu".
const CPUPluginFile = "pjrt_c_api_cpu_plugin.so"

// DefaultDirName is the name of the project-local plugin folder under the
// root of a checkout.
const DefaultDirName = ".pjrt"

// Checkout returns the root of the checkout of hofuse the working directory
// is in: the nearest directory at or above it holding a go.mod, when that
// go.mod declares the module ModulePath. ok is false elsewhere, as for a
// binary installed with go install and run outside the repository.
func Checkout() (root string, ok bool) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for dir := wd; ; {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			return dir, declaresModule(b, ModulePath)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// declaresModule reports whether the go.mod text declares module path.
func declaresModule(gomod []byte, path string) bool {
	for _, line := range strings.Split(string(gomod), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == path
		}
	}
	return false
}

// UserDir returns the plugin folder of an installed hofuse:
// os.UserCacheDir()/hofuse/pjrt ($XDG_CACHE_HOME/hofuse/pjrt, else
// ~/.cache/hofuse/pjrt on Linux; ~/Library/Caches/hofuse/pjrt on macOS).
// The folder need not exist.
func UserDir() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("pjrt: no user cache folder for the plugin (%v); set %s to a folder", err, EnvDir)
	}
	return filepath.Join(c, "hofuse", "pjrt"), nil
}

// DefaultDir returns the folder "hofuse pjrt install" puts the plugin in:
// $HOFUSE_PJRT_DIR when set; else, inside a checkout of hofuse (see
// Checkout), the folder .pjrt in its root; else the user's cache folder
// (see UserDir). The folder need not exist.
func DefaultDir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return filepath.Abs(d)
	}
	if root, ok := Checkout(); ok {
		return filepath.Join(root, DefaultDirName), nil
	}
	return UserDir()
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

// Place is one place Locate looks for plugins.
type Place struct {
	// What names the place: "explicit path", "$PJRT_PLUGIN_LIBRARY_PATH",
	// "$HOFUSE_PJRT_DIR", "project folder" or "user cache folder".
	What string
	Path string // a file or a folder, as given
}

// Places lists where Locate looks, in order: the explicit path alone when it
// is non-empty; else each entry of $PJRT_PLUGIN_LIBRARY_PATH, then
// $HOFUSE_PJRT_DIR when set, else the project folder <checkout>/.pjrt
// (inside a checkout of hofuse) and the user cache folder (see UserDir).
// The error, if any, says why a place is missing; the places found are
// returned with it.
func Places(explicit string) ([]Place, error) {
	if explicit != "" {
		return []Place{{"explicit path", explicit}}, nil
	}
	var ps []Place
	if env := os.Getenv(EnvPluginPath); env != "" {
		for _, p := range filepath.SplitList(env) {
			if p != "" {
				ps = append(ps, Place{"$" + EnvPluginPath, p})
			}
		}
	}
	if d := os.Getenv(EnvDir); d != "" {
		return append(ps, Place{"$" + EnvDir, d}), nil
	}
	if root, ok := Checkout(); ok {
		ps = append(ps, Place{"project folder", filepath.Join(root, DefaultDirName)})
	}
	dir, err := UserDir()
	if err != nil {
		return ps, err
	}
	return append(ps, Place{"user cache folder", dir}), nil
}

// LocateAll lists every plugin file in the places Locate searches, in
// Locate's order of preference: Locate returns the first. When none is
// found, the error says where it looked and how to install one.
func LocateAll(explicit string) ([]string, error) {
	ps, perr := Places(explicit)
	var found, looked []string
	for _, p := range ps {
		abs, err := filepath.Abs(p.Path)
		if err != nil {
			looked = append(looked, fmt.Sprintf("%s %s (%v)", p.What, p.Path, err))
			continue
		}
		fi, err := os.Stat(abs)
		if p.What == "$"+EnvPluginPath {
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
			looked = append(looked, fmt.Sprintf("%s %s (%s)", p.What, abs, statReason(err)))
		case fi.IsDir():
			in := pluginsIn(abs)
			if len(in) == 0 {
				looked = append(looked, fmt.Sprintf("%s %s (no plugin file in it)", p.What, abs))
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
// else $HOFUSE_PJRT_DIR or the project and user cache folders (see Places). It returns an absolute
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
	sb.WriteString(InstallCommand())
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
