package main

import (
	"github.com/hofuse/hofuse/lowering/native/kernels"

	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/hofuse/hofuse/internal/pjrtinstall"
	"github.com/hofuse/hofuse/internal/pluginfile"
	"github.com/hofuse/hofuse/pjrt"
)

func init() {
	register(&command{
		name:    "doctor",
		usage:   "[--strict]",
		summary: "report which back ends can run here (PJRT plugins, GPU, cgo, SIMD) and how to fix what is missing",
		run:     runDoctor,
	})
}

// doctorReport collects lines and the problems found, each with its fix.
type doctorReport struct {
	w        io.Writer
	problems int
	// broken counts the problems that make every use of PJRT fail (a
	// damaged plugin file, a $PJRT_PLUGIN_LIBRARY_PATH naming nothing):
	// doctor exits with status 1 for them even without --strict.
	broken int
}

func (r *doctorReport) line(format string, args ...any) { fmt.Fprintf(r.w, format+"\n", args...) }

// problem prints a problem and the exact command or variable that fixes
// it.
func (r *doctorReport) problem(what, fix string) {
	r.problems++
	r.line("  PROBLEM: %s", what)
	r.line("  fix:     %s", fix)
}

func runDoctor(args []string, stdout, stderr io.Writer) error {
	c := commands["doctor"]
	fs := newFlags(c, stderr)
	strict := fs.Bool("strict", false, "exit with status 1 when any problem is found (without it: only for a damaged plugin or a $PJRT_PLUGIN_LIBRARY_PATH naming nothing)")
	verbose := verboseFlag(fs)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	verbose()
	if len(rest) > 0 {
		return usagef("doctor takes no arguments, got %q", rest)
	}
	r := &doctorReport{w: stdout}

	r.line("build")
	r.line("  go:        %s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if pjrt.CgoEnabled() {
		r.line("  cgo:       yes (PJRT plugins can be loaded)")
	} else {
		r.line("  cgo:       no")
		r.problem("this hofuse was built without cgo, so it cannot load PJRT plugins",
			"rebuild with CGO_ENABLED=1 and a C compiler (apt-get install gcc): "+rebuildCommand())
	}

	r.line("")
	r.line("native executor")
	r.line("  %s", nativeSIMDStatus())

	r.line("")
	doctorPJRT(r)

	r.line("")
	doctorGPU(r)

	r.line("")
	if r.problems == 0 {
		r.line("no problems found")
		return nil
	}
	r.line("%s found; each is followed by its fix", count(r.problems, "problem"))
	if r.broken > 0 {
		return fmt.Errorf("%s found, %d of them making PJRT fail: a damaged plugin or a $%s naming nothing", count(r.problems, "problem"), r.broken, pjrt.EnvPluginPath)
	}
	if *strict {
		return fmt.Errorf("%s found", count(r.problems, "problem"))
	}
	return nil
}

// doctorPJRT reports where plugins are looked for, and for each one found:
// whether it is the recorded file, its PJRT API version, platform and
// devices, and whether a tiny program runs on it.
func doctorPJRT(r *doctorReport) {
	r.line("PJRT plugins")
	for _, v := range []string{pjrt.EnvPluginPath, pjrt.EnvDir} {
		val := os.Getenv(v)
		if val == "" {
			val = "(unset)"
		}
		r.line("  $%s = %s", v, val)
	}
	if root, ok := pjrt.Checkout(); ok {
		r.line("  checkout:  %s (pjrt install puts the plugin in its %s)", root, pjrt.DefaultDirName)
	} else {
		r.line("  checkout:  none (no go.mod of %s at or above the working folder): pjrt install puts the plugin in the user cache folder", pjrt.ModulePath)
	}
	places, perr := pjrt.Places("")
	r.line("  searched, in order:")
	for _, p := range places {
		r.line("    %-26s %s", p.What, p.Path)
	}
	if perr != nil {
		r.line("    (%v)", perr)
	}
	found, err := pjrt.LocateAll("")
	var nf *pjrt.NotFoundError
	if err != nil && !errors.As(err, &nf) {
		r.line("  $%s is wrong", pjrt.EnvPluginPath)
		r.broken++
		r.problem(err.Error(), "unset "+pjrt.EnvPluginPath+", or set it to a plugin file or a folder holding one")
		return
	}
	if err != nil {
		r.line("  none found")
		r.problem(err.Error(), pjrt.InstallCommand()+"   (or set $"+pjrt.EnvPluginPath+" to a plugin file)")
		return
	}
	for i, path := range found {
		use := ""
		if i == 0 {
			use = "  <- used"
		}
		r.line("  %s%s", path, use)
		if !checkPluginFile(r, path, i == 0) {
			continue
		}
		if !pjrt.CgoEnabled() {
			r.line("    not loaded (no cgo)")
			continue
		}
		doctorPlugin(r, path, i == 0)
	}
}

// checkPluginFile reports whether path is a sound plugin file and whether
// it is one recorded in plugins.json, hashing it again (no stamp file is
// trusted), and reports a damaged one as a problem. It returns whether the
// file may be loaded.
func checkPluginFile(r *doctorReport, path string, used bool) bool {
	v, err := pluginfile.Check(path)
	var p *pluginfile.Problem
	switch {
	case errors.As(err, &p):
		r.line("    file:      DAMAGED, not loaded")
		if used {
			r.broken++
		}
		fix := pjrt.InstallCommand() + " --force"
		if strings.Contains(filepath.Base(path), "cuda") {
			fix = pjrt.InstallCommand() + " --gpu --force"
		}
		if os.Getenv(pjrt.EnvPluginPath) != "" {
			fix += "   (or unset $" + pjrt.EnvPluginPath + ")"
		} else if !used {
			fix = "remove " + path
		}
		r.problem(err.Error(), fix)
		return false
	case err != nil:
		r.line("    file:      %v", err)
		r.problem(err.Error(), pjrt.InstallCommand()+" --force")
		return false
	case v == nil:
		size := "?"
		if fi, err := os.Stat(path); err == nil {
			size = fmt.Sprint(fi.Size())
		}
		r.line("    file:      %s bytes, ELF headers sound, not a plugin recorded in plugins.json", size)
	default:
		took := "cached"
		if v.Hash > 0 {
			took = "hashed in " + v.Hash.Round(time.Millisecond).String()
		}
		r.line("    file:      %s %s, sha256 verified against plugins.json (%s)", v.Plugin.Package, v.Plugin.Version, took)
	}
	return true
}

// doctorPlugin loads one plugin and runs the self-test on it.
func doctorPlugin(r *doctorReport, path string, used bool) {
	start := time.Now()
	c, err := pjrt.Open(path)
	if err != nil {
		r.line("    loads:     no")
		fix := pjrt.InstallCommand() + " --force"
		if strings.Contains(filepath.Base(path), "cuda") {
			fix = pjrt.InstallCommand() + " --gpu --force, and install the NVIDIA CUDA libraries (python3 -m pip install 'jax[cuda13]')"
		} else if !used {
			fix = "remove " + path
		}
		if used && os.Getenv(pjrt.EnvPluginPath) != "" {
			fix += "   (or unset $" + pjrt.EnvPluginPath + ")"
		}
		r.problem(err.Error(), fix)
		return
	}
	defer c.Close()
	opened := time.Since(start)
	major, minor := c.APIVersion()
	r.line("    loads:     yes, in %s", opened.Round(time.Millisecond))
	r.line("    platform:  %s, PJRT C API %d.%d, StableHLO %s", c.Platform(), major, minor, c.StableHLOVersion())
	r.line("    devices:   %s", strings.Join(c.Devices(), ", "))
	rep, err := c.SelfTest()
	if err != nil {
		r.line("    self-test: FAILED")
		r.problem(err.Error(), pjrt.InstallCommand()+" --force")
		return
	}
	r.line("    self-test: ok (compile %s, run %s)", rep.Compile.Round(time.Microsecond), rep.Run.Round(time.Microsecond))
	if used {
		doctorXLAOptions(r, c.Platform())
		if c.Platform() != "cpu" {
			r.line("    memory:    client created with %s: %s", c.CreateOptions(), gpuMemoryNote(c.CreateOptions()))
		}
	}
}

// doctorXLAOptions reports the XLA options the used plugin compiles with:
// the flags (precision first), the threads and the executable caches.
func doctorXLAOptions(r *doctorReport, platform string) {
	flags, added := pjrt.XLAFlags()
	r.line("    XLA flags: %s", flags)
	if len(added) > 0 {
		r.line("               (hofuse adds %s for correctness first: IEEE min/max that propagate NaN, no fast math; $%s adds flags or overrides these)",
			strings.Join(added, " "), pjrt.EnvXLAFlags)
	}
	if platform == "cpu" {
		eigen := "multi-threaded"
		if strings.Contains(flags, "--xla_cpu_multi_thread_eigen=false") {
			eigen = "single-threaded (--xla_cpu_multi_thread_eigen=false)"
		}
		r.line("    threads:   XLA's CPU client runs its own pool, one thread per core the process may use (%d here); matrix products %s", runtime.NumCPU(), eigen)
	}
	r.line("    executables: cached in memory per plugin by program text, so each batch size compiles once; no on-disk cache: go-xla %s binds no PJRT executable serialisation", goXLAVersion())
	r.line("    parameters: kept on the device by xla.Session (bench, demo and Predict bind them once); a CPU plugin's inputs are written into reused buffers in host memory")
}

// gpuMemoryNote says what a GPU client's create options mean for its memory.
func gpuMemoryNote(options string) string {
	if options == "preallocate=false" {
		return "device memory is allocated as programs need it and kept for reuse, so other processes can share the GPU"
	}
	return "the plugin's default allocator, which may take most of the GPU's memory at start"
}

// goXLAVersion is the version of go-xla this hofuse was built with.
func goXLAVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/gomlx/go-xla" {
				return d.Version
			}
		}
	}
	return "(unknown version)"
}

// doctorGPU reports NVIDIA GPUs and whether a CUDA plugin is there for them.
func doctorGPU(r *doctorReport) {
	r.line("GPU")
	info, err := pjrtinstall.NvidiaGPU(context.Background())
	if err != nil {
		r.line("  %v: PJRT runs on the CPU only", err)
		return
	}
	for _, g := range info.GPUs {
		r.line("  %s", g)
	}
	r.line("  driver supports CUDA %s", info.Driver)
	found, _ := pjrt.LocateAll("")
	for _, f := range found {
		if strings.Contains(filepath.Base(f), "cuda") {
			r.line("  CUDA plugin: %s", f)
			return
		}
	}
	r.problem("there is an NVIDIA GPU but no CUDA PJRT plugin", pjrt.InstallCommand()+" --gpu")
}

// rebuildCommand is how to rebuild hofuse here: inside a checkout with go
// run, elsewhere with go install.
func rebuildCommand() string {
	if _, ok := pjrt.Checkout(); ok {
		return "CGO_ENABLED=1 go run ./cmd/hofuse doctor"
	}
	return "CGO_ENABLED=1 go install " + pjrt.ModulePath + "/cmd/hofuse@latest"
}

// nativeSIMDStatus says whether the native executor's SIMD path is active.
// For now it reports what the build and the CPU offer: the architecture,
// whether the build enables GOEXPERIMENT=simd, and the x86 features AVX2,
// FMA and AVX-512. The native executor is to replace this with its own
// check of the path it takes.
// kernelPath says which inner loops the native executor's kernels run.
func kernelPath() string {
	if p := kernels.Path(); p != "portable" {
		return p + " assembly (active)"
	}
	return "portable Go loops (no AVX2+FMA, or built with -tags purego)"
}

func nativeSIMDStatus() string {
	exp := "GOEXPERIMENT=simd off"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "GOEXPERIMENT" && strings.Contains(s.Value, "simd") {
				exp = "GOEXPERIMENT=" + s.Value
			}
		}
	}
	switch runtime.GOARCH {
	case "amd64":
		yes := func(b bool) string {
			if b {
				return "yes"
			}
			return "no"
		}
		return fmt.Sprintf("%s, CPU features: AVX2 %s, FMA %s, AVX-512F %s; %s; SIMD path: %s",
			runtime.GOARCH, yes(cpu.X86.HasAVX2), yes(cpu.X86.HasFMA), yes(cpu.X86.HasAVX512F), exp, kernelPath())
	case "arm64":
		return fmt.Sprintf("%s, ASIMD %v; %s; SIMD path: %s", runtime.GOARCH, cpu.ARM64.HasASIMD, exp, kernelPath())
	}
	return fmt.Sprintf("%s; %s; SIMD path: %s", runtime.GOARCH, exp, kernelPath())
}
