package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/hofuse/hofuse/internal/pjrtinstall"
	"github.com/hofuse/hofuse/pjrt"
)

func init() {
	register(&command{
		name:    "pjrt",
		usage:   "install [--dir DIR] [--gpu] [--wheel FILE] [--unverified] [--recheck] [--force] | path [--all] [PATH]",
		summary: "install a PJRT plugin from PyPI, or print the one hofuse finds",
		run:     runPJRT,
	})
}

// pjrtHelp follows the flags in "hofuse pjrt --help".
const pjrtHelp = `
install downloads the XLA CPU plugin wheel with pip (python3 with pip needed; a wheel of
about 64 MB that unpacks to a 259 MB plugin), checks its sha256 against the one recorded
in the repository (internal/pluginfile/plugins.json), extracts the plugin into the plugin
folder, checks its sha256, loads it and runs a tiny program. When a verified plugin is
already there it says so and does nothing. --gpu installs the CUDA plugin instead, when
nvidia-smi finds a GPU. Only this command downloads anything; hofuse itself never does.

The plugin folder is --dir, else $HOFUSE_PJRT_DIR, else <checkout>/.pjrt inside a
checkout of hofuse, else the user cache folder (os.UserCacheDir()/hofuse/pjrt, e.g.
~/.cache/hofuse/pjrt).

path prints the plugin hofuse uses: the PATH given (a file or a folder), else the first
found in $PJRT_PLUGIN_LIBRARY_PATH (files or folders, ':'-separated), else in
$HOFUSE_PJRT_DIR when set, else in <checkout>/.pjrt and the user cache folder.
`

// pjrtFlags is newFlags with pjrtHelp after the flags.
func pjrtFlags(c *command, stderr io.Writer) *flag.FlagSet {
	fs := newFlags(c, stderr)
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(stderr, pjrtHelp)
	}
	return fs
}

func runPJRT(args []string, stdout, stderr io.Writer) error {
	c := commands["pjrt"]
	if len(args) == 0 {
		return usagef("pjrt needs a subcommand: install or path")
	}
	switch args[0] {
	case "install":
		return runPJRTInstall(c, args[1:], stdout, stderr)
	case "path":
		return runPJRTPath(c, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		pjrtFlags(c, stderr).Usage()
		return flag.ErrHelp
	}
	return usagef("unknown pjrt subcommand %q (want install or path)", args[0])
}

func runPJRTInstall(c *command, args []string, stdout, stderr io.Writer) error {
	fs := pjrtFlags(c, stderr)
	dir := fs.String("dir", "", "install into `DIR` (default: $"+pjrt.EnvDir+", else <checkout>/"+pjrt.DefaultDirName+", else the user cache folder)")
	gpu := fs.Bool("gpu", false, "install the CUDA plugin (jax-cuda13-pjrt or jax-cuda12-pjrt); needs an NVIDIA GPU")
	wheel := fs.String("wheel", "", "use this downloaded wheel `FILE` instead of running pip (checked like a download)")
	unverified := fs.Bool("unverified", false, "also try candidate packages whose hashes are not recorded in plugins.json")
	recheck := fs.Bool("recheck", false, "hash an installed plugin again instead of trusting its stamp file")
	force := fs.Bool("force", false, "reinstall even when a verified plugin is there")
	python := fs.String("python", "python3", "the Python that runs pip")
	noCheck := fs.Bool("no-check", false, "do not load the plugin and run a program after installing")
	verbose := verboseFlag(fs)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	verbose()
	if len(rest) > 0 {
		return usagef("pjrt install takes no arguments, got %q", rest)
	}
	set := flagsSet(fs)
	if *wheel != "" && set["python"] {
		return usagef("--python: runs pip, which --wheel FILE replaces; drop one of them")
	}
	if *wheel != "" && *unverified {
		return usagef("--unverified: a --wheel FILE is checked against the wheels recorded in plugins.json only; drop one of them")
	}
	if *force && *recheck {
		return usagef("--recheck: hashes an installed plugin to keep it, but --force reinstalls it anyway; drop one of them")
	}
	if *dir == "" {
		if *dir, err = pjrt.DefaultDir(); err != nil {
			return fmt.Errorf("%v; or pass --dir", err)
		}
	}
	if *dir, err = filepath.Abs(*dir); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := pjrtinstall.Options{
		Kind: "cpu", Dir: *dir, Wheel: *wheel, Python: *python,
		Unverified: *unverified, Recheck: *recheck, Force: *force, Log: stderr,
	}
	if *gpu {
		info, err := pjrtinstall.NvidiaGPU(ctx)
		if err != nil {
			return fmt.Errorf("%v.\nThe CUDA plugin needs an NVIDIA GPU with its driver (nvidia-smi on PATH). "+
				"The CPU plugin works everywhere: %s", err, pjrt.InstallCommand())
		}
		fmt.Fprintf(stderr, "found %s, driver supports CUDA %s: %s\n", count(len(info.GPUs), "NVIDIA GPU"), info.Driver, info.GPUs[0])
		opts.Kind, opts.CUDA = "cuda", info.CUDA
	}

	res, err := pjrtinstall.Install(ctx, opts)
	if err != nil {
		return err
	}
	p := res.Plugin
	if res.Already {
		fmt.Fprintf(stdout, "verified plugin already installed: %s\n  %s %s, sha256 %s (checked %s)\n",
			res.Path, p.Package, p.Version, p.SOSHA256, res.Took.Round(time.Millisecond))
		printLocateHint(stdout, res.Path, *dir)
		return nil
	}
	fmt.Fprintf(stdout, "installed %s\n  from %s (%s %s) in %s\n  sha256 %s, %d bytes\n",
		res.Path, res.Wheel, p.Package, p.Version, res.Took.Round(time.Millisecond), p.SOSHA256, p.SOSize)
	if !res.Verified {
		fmt.Fprintf(stdout, "  UNVERIFIED: %s is not recorded in plugins.json. After checking it, record:\n"+
			"    wheel %s sha256 %s\n    member %s sha256 %s size %d\n",
			p.Package, p.Wheel, p.WheelSHA256, p.Member, p.SOSHA256, p.SOSize)
	}
	if !*noCheck {
		if err := checkPlugin(stdout, res.Path); err != nil {
			if opts.Kind == "cuda" {
				return fmt.Errorf("%v\nThe CUDA plugin also needs the NVIDIA CUDA %d runtime libraries (cuBLAS, cuDNN, ...), "+
					"e.g. from: python3 -m pip install 'jax[cuda%d]'", err, p.CUDA, p.CUDA)
			}
			return err
		}
	}
	printLocateHint(stdout, res.Path, *dir)
	return nil
}

// checkPlugin loads the plugin and runs the self-test program on it.
func checkPlugin(stdout io.Writer, path string) error {
	if !pjrt.CgoEnabled() {
		fmt.Fprintf(stdout, "  not load-tested: %v\n", pjrt.ErrNoCgo)
		return nil
	}
	start := time.Now()
	c, err := pjrt.Open(path)
	if err != nil {
		return err
	}
	defer c.Close()
	opened := time.Since(start)
	rep, err := c.SelfTest()
	if err != nil {
		return fmt.Errorf("the installed plugin does not run a program: %w", err)
	}
	major, minor := c.APIVersion()
	fmt.Fprintf(stdout, "  loaded: platform %s, PJRT API %d.%d, StableHLO %s, devices %v\n",
		c.Platform(), major, minor, c.StableHLOVersion(), c.Devices())
	fmt.Fprintf(stdout, "  self-test ok: open %s, compile %s, run %s\n",
		opened.Round(time.Millisecond), rep.Compile.Round(time.Microsecond), rep.Run.Round(time.Microsecond))
	return nil
}

// printLocateHint says whether pjrt.Locate finds the installed plugin, and
// what to set when it does not.
func printLocateHint(stdout io.Writer, installed, dir string) {
	found, err := pjrt.Locate("")
	if err == nil && sameFile(found, installed) {
		return
	}
	switch {
	case os.Getenv(pjrt.EnvPluginPath) != "" && err == nil:
		fmt.Fprintf(stdout, "note: $%s makes hofuse use %s instead; unset it to use this one\n", pjrt.EnvPluginPath, found)
	case err == nil:
		fmt.Fprintf(stdout, "note: hofuse finds %s first; to use this one: export %s=%s\n", found, pjrt.EnvPluginPath, installed)
	default:
		fmt.Fprintf(stdout, "note: hofuse looks elsewhere; to use this folder: export %s=%s\n", pjrt.EnvDir, dir)
	}
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

func runPJRTPath(c *command, args []string, stdout, stderr io.Writer) error {
	fs := pjrtFlags(c, stderr)
	all := fs.Bool("all", false, "print every plugin found, best first")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 1 {
		return usagef("pjrt path takes at most one PATH, got %q", rest)
	}
	explicit := ""
	if len(rest) == 1 {
		explicit = rest[0]
	}
	found, err := pjrt.LocateAll(explicit)
	if err != nil {
		return err
	}
	if !*all {
		found = found[:1]
	}
	for _, f := range found {
		fmt.Fprintln(stdout, f)
	}
	return nil
}
