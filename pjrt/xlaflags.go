package pjrt

import (
	"fmt"
	"os"
	"strings"
	"sync"
)

// EnvXLAFlags is the variable XLA reads its flags from, once per process,
// into the DebugOptions every compile starts from.
const EnvXLAFlags = "XLA_FLAGS"

// DefaultXLAFlags are the XLA flags hofuse sets for correctness first,
// each unless $XLA_FLAGS names it already: no fast math, and min/max
// that propagate NaN as IEEE 754 and the reference interpreter do (XLA's
// fast min/max may return the other operand). They are XLA's defaults in
// current releases; hofuse states them so that a plugin built with other
// defaults computes the same.
//
// The library fusion flags were measured on the MLP's training step with
// the plugin of xla-cpu-pjrt 0.0.1 and are left at their defaults: this
// plugin makes no YNNPACK fusion (which jaxlib 0.10.2 uses for its dots
// and reductions) whatever --xla_cpu_experimental_ynn_fusion_type asks;
// XNNPACK reductions (--xla_cpu_experimental_xnn_fusion_type=dot,reduce;
// its dots stay XLA's) gained nothing; XNNPACK elementwise fusions fail
// at run time ("XNNPACK operation failed: invalid parameter"); and the
// greedy XNNPACK graph fusion made the step slower.
var DefaultXLAFlags = []string{
	"--xla_cpu_enable_fast_math=false",
	"--xla_cpu_enable_fast_min_max=false",
}

// XLAFlags returns the flags XLA runs with once Open has loaded a plugin:
// $XLA_FLAGS with DefaultXLAFlags added in front of it for the flags it does
// not name, and which of the defaults were added.
func XLAFlags() (flags string, added []string) {
	flagsMu.Lock()
	defer flagsMu.Unlock()
	return xlaFlags()
}

func xlaFlags() (flags string, added []string) {
	user := os.Getenv(EnvXLAFlags)
	if setFlags != nil { // Open set them: user holds them already
		return user, setFlags
	}
	return mergeXLAFlags(user)
}

// mergeXLAFlags adds to the flags user the defaults it does not name.
func mergeXLAFlags(user string) (flags string, added []string) {
	for _, f := range DefaultXLAFlags {
		name, _, _ := strings.Cut(f, "=")
		if !strings.Contains(user, name+"=") && !strings.Contains(user, name+" ") && !strings.HasSuffix(user, name) {
			added = append(added, f)
		}
	}
	return strings.TrimSpace(strings.Join(append(append([]string{}, added...), user), " ")), added
}

// setXLAFlags puts XLAFlags in the environment before the first plugin is
// loaded (XLA reads it once, at its first compile).
func setXLAFlags() error {
	flagsMu.Lock()
	defer flagsMu.Unlock()
	flags, added := xlaFlags()
	if len(added) == 0 {
		return nil
	}
	if err := os.Setenv(EnvXLAFlags, flags); err != nil {
		return fmt.Errorf("pjrt: setting $%s: %v", EnvXLAFlags, err)
	}
	setFlags = added
	return nil
}

var (
	flagsMu sync.Mutex
	// setFlags are the defaults Open added to $XLA_FLAGS; nil until it
	// did.
	setFlags []string
)

// APIMajor is the major version of the PJRT C API that hofuse's binding
// (go-xla) is built for; a plugin of another major version has other
// structures and is refused before a client is created.
const APIMajor = 0

// checkAPIVersion refuses a plugin that implements another major version
// of the PJRT C API than the binding, naming the plugin, both versions,
// the fix and the native back end.
func checkAPIVersion(path string, major, minor int) error {
	if major == APIMajor {
		return nil
	}
	return fmt.Errorf("pjrt: open plugin %s: it implements PJRT C API %d.%d, but this hofuse speaks PJRT C API %d.x; "+
		"install a plugin it speaks (%s --force), or run on the native back end (--backend native)",
		path, major, minor, APIMajor, InstallCommand())
}

// versionError is a plugin refused for its PJRT C API version.
type versionError struct{ err error }

func (e *versionError) Error() string { return e.err.Error() }
func (e *versionError) Unwrap() error { return e.err }

// deviceError adds to a PJRT error of a run or a copy what to do when the
// device ran out of memory (PJRT's RESOURCE_EXHAUSTED).
func deviceError(err error) error {
	msg := strings.ToLower(err.Error())
	if strings.Contains(msg, "resource_exhausted") || strings.Contains(msg, "out of memory") {
		return fmt.Errorf("%w; the device ran out of memory: run a smaller batch, or on the native back end (--backend native)", err)
	}
	return err
}
