package pjrt

import (
	"errors"
	"strings"
	"testing"
)

func TestXLAFlags(t *testing.T) {
	flags, added := mergeXLAFlags("")
	if flags != strings.Join(DefaultXLAFlags, " ") || len(added) != len(DefaultXLAFlags) {
		t.Errorf("no $XLA_FLAGS: got %q, added %q; want the defaults", flags, added)
	}
	// A flag the user sets wins; the other default is still added.
	flags, added = mergeXLAFlags("--xla_cpu_enable_fast_min_max=true --xla_dump_to=/tmp/x")
	if want := "--xla_cpu_enable_fast_math=false --xla_cpu_enable_fast_min_max=true --xla_dump_to=/tmp/x"; flags != want {
		t.Errorf("got %q, want %q", flags, want)
	}
	if len(added) != 1 || added[0] != "--xla_cpu_enable_fast_math=false" {
		t.Errorf("added %q", added)
	}
}

func TestCheckAPIVersion(t *testing.T) {
	if err := checkAPIVersion("/p/plugin.so", 0, 81); err != nil {
		t.Errorf("0.81: %v", err)
	}
	err := checkAPIVersion("/p/plugin.so", 1, 2)
	for _, want := range []string{"/p/plugin.so", "PJRT C API 1.2", "speaks PJRT C API 0.x", "--force", "--backend native"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("1.2: got %v, want it to say %q", err, want)
		}
	}
}

func TestDeviceError(t *testing.T) {
	oom := errors.New("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 123 bytes")
	err := deviceError(oom)
	if !errors.Is(err, oom) || !strings.Contains(err.Error(), "the device ran out of memory: run a smaller batch, or on the native back end (--backend native)") {
		t.Errorf("got %v", err)
	}
	other := errors.New("INVALID_ARGUMENT: nope")
	if deviceError(other) != other {
		t.Errorf("another error changed: %v", deviceError(other))
	}
}
