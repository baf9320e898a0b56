package pjrt

import (
	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// QuietBinding drops (quiet) or restores (not quiet) the log lines go-xla,
// the binding to the PJRT C API, writes through klog: a warning when a file
// fails to load as a plugin, repeating what Open's error says, and errors
// when a buffer or a client cannot be freed. By default they go to stderr.
// The hofuse command drops them unless given --verbose.
func QuietBinding(quiet bool) {
	if quiet {
		klog.SetLogger(logr.Discard())
		return
	}
	klog.ClearLogger()
}
