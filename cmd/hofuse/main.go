// Command hofuse imports neural-network graphs into a functional IR of
// higher-order functions, fuses them with proven rewrite rules, and runs
// them. Run "hofuse help" for the commands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
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
		if len(args) == 0 {
			return 2
		}
		return 0
	}
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
		fmt.Fprintf(stderr, "run 'hofuse %s --help' for usage\n", c.name)
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

// newFlags returns a flag set for c whose errors are returned, not printed
// and exited on, and whose usage goes to stderr.
func newFlags(c *command, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("hofuse "+c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: hofuse %s %s\n\n%s\n", c.name, c.usage, c.summary)
		var sb strings.Builder
		fs.SetOutput(&sb)
		fs.PrintDefaults()
		fs.SetOutput(stderr)
		if sb.Len() > 0 {
			fmt.Fprintf(stderr, "\nFlags:\n%s", sb.String())
		}
	}
	return fs
}

// parseFlags parses args, flags and positional arguments in any order, and
// returns the positional ones. Flag errors become usage errors; a request for
// help returns flag.ErrHelp, which run treats as success.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%v", err)
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
