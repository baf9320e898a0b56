package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hofuse/hofuse/pjrt"
)

// A command is one subcommand of hofuse. Each lives in its own file and
// registers itself in init.
type command struct {
	name    string
	usage   string // arguments after the command name
	summary string // one line
	// run executes the command with its arguments; it writes results to
	// stdout and may write progress to stderr.
	run func(args []string, stdout, stderr io.Writer) error
	// flags is the flag set newFlags last made for the command, which run
	// consults to print the usage line of the flag a usage error names.
	flags *flag.FlagSet
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// usageError is a mistake in how hofuse was called: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code, 0 on success,
// 2 for bad usage and 1 for failure.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return run([]string{c.name, "--help"}, stdout, stderr)
			}
		}
		printHelp(stdout)
		return 0
	}
	// go-xla's own log lines repeat what hofuse's errors say; --verbose
	// (on the commands that load plugins) lets them through.
	pjrt.QuietBinding(true)
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "hofuse: unknown command %q; run 'hofuse help'\n", args[0])
		return 2
	}
	err := c.run(args[1:], stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	fmt.Fprintf(stderr, "hofuse %s: %v\n", c.name, err)
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, usageLine(c, ue.msg))
		return 2
	}
	return 1
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "hofuse fuses neural-network graphs written as higher-order functions and runs them.")
	fmt.Fprintln(w, "\nUsage: hofuse COMMAND [flags] [arguments]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'hofuse COMMAND --help' for a command's flags.")
}

// longFlagRE finds the flags of more than one letter in PrintDefaults.
var longFlagRE = regexp.MustCompile(`\n  -([a-z0-9][a-z0-9-])`)

// flagNameRE finds the first flag an error message names.
var flagNameRE = regexp.MustCompile(`(?:^|[\s(])--?([a-z][a-z0-9-]*)`)

// usageLine is the one line of usage that matters for a usage error: the
// usage of the flag the message names first, when the command has it,
// else the command's usage.
func usageLine(c *command, msg string) string {
	more := fmt.Sprintf("; all flags: hofuse %s --help", c.name)
	if m := flagNameRE.FindStringSubmatch(msg); m != nil && c.flags != nil {
		if f := c.flags.Lookup(m[1]); f != nil {
			arg, text := flag.UnquoteUsage(f)
			if arg != "" {
				arg = " " + arg
			}
			return fmt.Sprintf("usage: --%s%s: %s%s", f.Name, arg, text, more)
		}
	}
	return fmt.Sprintf("usage: hofuse %s %s%s", c.name, c.usage, more)
}

// newFlags returns a flag set for c whose errors are returned, not printed
// and exited on, and whose usage goes to stderr.
func newFlags(c *command, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("hofuse "+c.name, flag.ContinueOnError)
	c.flags = fs
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: hofuse %s %s\n\n%s\n", c.name, c.usage, c.summary)
		var sb strings.Builder
		fs.SetOutput(&sb)
		fs.PrintDefaults()
		fs.SetOutput(stderr)
		if sb.Len() > 0 {
			// Flags of more than one letter are written --name, as
			// everywhere else in hofuse; one-letter flags stay -f.
			defaults := longFlagRE.ReplaceAllString("\n"+sb.String(), "\n  --$1")
			fmt.Fprintf(stderr, "\nFlags:%s", defaults)
		}
	}
	return fs
}

// parseFlags parses args, flags and positional arguments in any order, and
// returns the positional ones. Flag errors become usage errors, which run
// prints once (the flag package prints nothing); a request for help prints
// the usage and returns flag.ErrHelp, which run treats as success.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	defer func() { fs.Usage = usage; fs.SetOutput(out) }()
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(out)
				usage()
				return nil, err
			}
			return nil, usagef("%s", doubleDash(err.Error()))
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// doubleDash writes the flag in a flag package error as --name, the way
// hofuse's usage and its other errors write flags.
func doubleDash(msg string) string {
	for _, p := range []string{"for flag -", "not defined: -", "an argument: -"} {
		if i := strings.Index(msg, p); i >= 0 && !strings.HasPrefix(msg[i+len(p):], "-") {
			return msg[:i+len(p)] + "-" + msg[i+len(p):]
		}
	}
	return msg
}

// count writes n and the noun, in the plural unless n is 1: "1 kernel",
// "2 kernels".
func count(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "y"):
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// printJSON writes v as one indented JSON document, without HTML escaping
// ("->" stays "->", not "-\u003e").
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// verboseFlag adds --verbose to a command that may load a PJRT plugin;
// call the function it returns after parsing.
func verboseFlag(fs *flag.FlagSet) func() {
	v := fs.Bool("verbose", false, "also print the log lines of go-xla, the PJRT binding (hidden by default: they repeat hofuse's own errors)")
	return func() {
		if *v {
			pjrt.QuietBinding(false)
		}
	}
}

// flagsSet returns the names of the flags given on the command line.
func flagsSet(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// rejectFlags returns a usage error naming the first of names that was
// given, with why it does not apply, or nil.
func rejectFlags(set map[string]bool, why string, names ...string) error {
	for _, n := range names {
		if set[n] {
			return usagef("--%s: %s", n, why)
		}
	}
	return nil
}

// checkOutput checks, before any work, that the output file path given
// with --flag can be written: its name ends in one of exts, its folder
// exists and takes new files, and it is not a folder itself.
func checkOutput(flagName, path string, exts ...string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if !slices.Contains(exts, ext) {
		return usagef("--%s %s: want a file name ending in %s", flagName, path, strings.Join(exts, " or "))
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usagef("--%s %s: is a folder; give a file name", flagName, path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case err != nil && errors.Is(err, os.ErrNotExist):
		return usagef("--%s %s: the folder %s does not exist; create it or write elsewhere", flagName, path, dir)
	case err != nil:
		return usagef("--%s %s: %v", flagName, path, err)
	case !fi.IsDir():
		return usagef("--%s %s: %s is not a folder", flagName, path, dir)
	}
	f, err := os.CreateTemp(dir, ".hofuse-write-test-*")
	if err != nil {
		return usagef("--%s %s: cannot write in %s: %v", flagName, path, dir, errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}
