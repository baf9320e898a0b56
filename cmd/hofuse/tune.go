package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native"
)

// tuneFlags are --tune and --tune-dir, which fuse and the inference
// benchmarks take.
type tuneFlags struct {
	tune *bool
	dir  *string
}

func (t *tuneFlags) register(fs *flag.FlagSet) {
	t.tune = fs.Bool("tune", false, "choose each kernel's loop order by timing the cost model's best orders on the native back end, and keep the choice in --tune-dir")
	t.dir = fs.String("tune-dir", "", "the `folder` where --tune keeps the measured orders, one file per kernel and machine (default: hofuse/schedules in the user's cache folder)")
}

// check refuses --tune-dir without --tune.
func (t *tuneFlags) check(set map[string]bool) error {
	if set["tune-dir"] && !*t.tune {
		return usagef("--tune-dir: the folder is used by --tune; pass --tune too")
	}
	return nil
}

// tuner is the schedule pass's tuner for the flags, timing on native
// with opts, or nil without --tune.
func (t *tuneFlags) tuner(opts native.Options, stderr io.Writer) *fusion.Tuner {
	if !*t.tune {
		return nil
	}
	dir := *t.dir
	if dir == "" {
		dir = defaultTuneDir()
	}
	return nativeTuner(dir, opts, stderr)
}

// defaultTuneDir is where --tune keeps its measured schedules: the user's
// cache folder, or a folder in the system's temporary one.
func defaultTuneDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "hofuse", "schedules")
	}
	return filepath.Join(os.TempDir(), "hofuse-schedules")
}

// nativeTuner times kernels on the native back end for --tune: each order
// runs as a one-kernel plan on random inputs, once to warm up and then
// five times (fewer for a slow one, within about a quarter of a second),
// and its time is the median. Warnings (a corrupt or foreign cache file)
// go to stderr.
func nativeTuner(dir string, opts native.Options, stderr io.Writer) *fusion.Tuner {
	return &fusion.Tuner{
		Dir:  dir,
		Warn: func(msg string) { fmt.Fprintf(stderr, "hofuse: warning: %s\n", msg) },
		Time: func(k *fusion.Kernel, body graph.Node) (float64, error) {
			g, err := fusion.Whole(body)
			if err != nil {
				return 0, err
			}
			p, err := native.New(opts).Plan(g)
			if err != nil {
				return 0, err
			}
			defer p.Close()
			info, err := graph.Check(body)
			if err != nil {
				return 0, err
			}
			r := rand.New(rand.NewPCG(1, 2))
			in := map[string]graph.Value{}
			for _, x := range info.Inputs {
				if in[x.Name], err = randomValue(r, opts.MaxMemory, x.Type); err != nil {
					return 0, fmt.Errorf("input %s: %w", x.Name, err)
				}
			}
			start := time.Now()
			if _, err := p.Run(in); err != nil {
				return 0, err
			}
			warm := time.Since(start)
			runs := min(5, max(1, int(250*time.Millisecond/max(warm, time.Microsecond))))
			times := make([]float64, runs)
			for i := range times {
				start := time.Now()
				if _, err := p.Run(in); err != nil {
					return 0, err
				}
				times[i] = time.Since(start).Seconds()
			}
			slices.Sort(times)
			return times[runs/2], nil
		},
	}
}
