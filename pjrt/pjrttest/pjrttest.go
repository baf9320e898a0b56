package pjrttest

import (
	"os"
	"testing"

	"github.com/hofuse/hofuse/pjrt"
)

// Required reports whether $HOFUSE_REQUIRE_PJRT asks tests to fail rather
// than skip when no plugin can be opened.
func Required() bool { return os.Getenv(pjrt.EnvRequire) == "1" }

// PluginPath returns the located plugin, or skips t (fails it when
// Required) with a one-line reason.
func PluginPath(t testing.TB) string {
	t.Helper()
	if !pjrt.CgoEnabled() {
		skipOrFail(t, "no PJRT: %v", pjrt.ErrNoCgo)
	}
	path, err := pjrt.Locate("")
	if err != nil {
		skipOrFail(t, "no PJRT plugin: %v", err)
	}
	return path
}

// Client opens the located plugin for t and closes the handle when t ends,
// or skips t (fails it when Required) with a one-line reason.
func Client(t testing.TB) *pjrt.Client {
	t.Helper()
	path := PluginPath(t)
	c, err := pjrt.Open(path)
	if err != nil {
		skipOrFail(t, "PJRT plugin does not open: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("closing the PJRT client: %v", err)
		}
	})
	return c
}

func skipOrFail(t testing.TB, format string, args ...any) {
	t.Helper()
	if Required() {
		t.Fatalf(format+" ("+pjrt.EnvRequire+"=1)", args...)
	}
	t.Skipf(format, args...)
}
