package pjrt

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// loadError turns the error of loading the plugin file abs into one that
// names the file once: go-xla's message names it up to four times, nested
// in its own wrappings. The original error is kept (errors.Unwrap).
func loadError(abs string, err error) error {
	msg := err.Error()
	var what string
	switch {
	case strings.Contains(msg, `symbol "GetPjrtApi"`):
		what = "not a PJRT plugin: it has no GetPjrtApi function; " + loadFix(abs)
	case strings.Contains(msg, "failed to dynamically load"):
		what = "the dynamic loader refused it: " + dlerror(abs, msg) + "; check the libraries it needs with ldd, or " + loadFix(abs)
	default:
		what = stripPath(abs, msg)
	}
	return &loadErr{msg: fmt.Sprintf("pjrt: open plugin %s: %s", abs, what), err: err}
}

// loadFix says what to do about a file that does not load: point
// $PJRT_PLUGIN_LIBRARY_PATH elsewhere when it led there, or reinstall.
func loadFix(abs string) string {
	install := "reinstall with: " + InstallCommand() + " --force"
	for _, e := range filepath.SplitList(os.Getenv(EnvPluginPath)) {
		if a, err := filepath.Abs(e); e != "" && err == nil && (a == abs || a == filepath.Dir(abs)) {
			return "unset $" + EnvPluginPath + " or point it at a PJRT plugin file; or " + install
		}
	}
	return install
}

// dlerrorRE finds the loader's own message in go-xla's "failed to
// dynamically load PJRT plugin from "MSG": "PATH"".
var dlerrorRE = regexp.MustCompile(`failed to dynamically load PJRT plugin from ("(?:[^"\\]|\\.)*")`)

// dlerror returns the dynamic loader's message in go-xla's error msg, without
// the file name it starts with.
func dlerror(abs, msg string) string {
	if m := dlerrorRE.FindStringSubmatch(msg); m != nil {
		if s, err := strconv.Unquote(m[1]); err == nil {
			return stripPath(abs, s)
		}
	}
	return stripPath(abs, msg)
}

// stripPath removes the mentions of abs from msg: "abs: " prefixes and
// quoted or bare occurrences, which become "it".
func stripPath(abs, msg string) string {
	for strings.HasPrefix(msg, abs+": ") {
		msg = msg[len(abs)+2:]
	}
	msg = strings.ReplaceAll(msg, strconv.Quote(abs), "it")
	msg = strings.ReplaceAll(msg, abs+": ", "")
	return strings.ReplaceAll(msg, abs, "it")
}

type loadErr struct {
	msg string
	err error
}

func (e *loadErr) Error() string { return e.msg }
func (e *loadErr) Unwrap() error { return e.err }
