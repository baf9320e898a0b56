package main

import (
	"io"
	"time"

	"github.com/hofuse/hofuse/internal/paper"
)

func init() {
	register(&command{
		name:    "paper",
		usage:   "matmul [--size N] [--block B] [--threads T] [--repeats R] [--seed S] [--json] [--plot FILE.png] [--load FILE.json]",
		summary: "rerun the paper's section 4 experiment: every loop order of the matrix product, timed against Tables 1 and 2",
		run:     runPaper,
	})
}

// paperExperiments are the experiments "hofuse paper" knows.
var paperExperiments = map[string]func(args []string, stdout, stderr io.Writer) error{
	"matmul": runPaperMatmul,
}

func runPaper(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		if x, ok := paperExperiments[args[0]]; ok {
			return x(args[1:], stdout, stderr)
		}
	}
	// No experiment: parse anyway, so that --help prints the usage.
	fs := newFlags(commands["paper"], stderr)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(args) == 0 {
		return usagef("want an experiment: matmul")
	}
	return usagef("unknown experiment %q; want matmul", args[0])
}

func runPaperMatmul(args []string, stdout, stderr io.Writer) error {
	fs := newFlags(commands["paper"], stderr)
	def := paper.DefaultMatmulConfig()
	size := fs.Int("size", def.Size, "the matrices are `N`×N float64")
	block := fs.Int("block", def.Block, "subdivide the rnz into blocks of `B` for Table 2; B must divide N")
	threads := fs.Int("threads", def.Threads, "goroutines per run (the native back end's Parallelism; 0: all CPUs)")
	repeats := fs.Int("repeats", def.Repeats, "timed runs per order after one warm-up; the median is reported")
	slow := fs.Duration("slow", 2*time.Second, "an order whose warm-up takes longer is not run again: the warm-up is its time")
	seed := fs.Uint64("seed", def.Seed, "seed for the random matrices (uniform in [-1, 1))")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	plotPath := fs.String("plot", "", "draw both tables as bars, ours against the paper's, to the PNG `file`")
	quiet := fs.Bool("q", false, "do not report progress on stderr (by default: the expected time, a line per order, warnings before slow orders, and on a terminal a progress bar per order)")
	load := fs.String("load", "", "print (and with --plot draw) the report saved by --json in `file` instead of running")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *load != "" {
		if err := rejectFlags(flagsSet(fs), "--load prints a saved report and runs nothing; drop it or --load",
			"size", "block", "threads", "repeats", "slow", "seed", "q"); err != nil {
			return err
		}
	}
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments %q", pos)
	case *size < 1:
		return usagef("--size %d: must be at least 1", *size)
	case *block < 1:
		return usagef("--block %d: must be at least 1", *block)
	case *size%*block != 0:
		return usagef("--block %d does not divide --size %d", *block, *size)
	case *threads < 0:
		return usagef("--threads %d: must be at least 0 (0: all CPUs)", *threads)
	case *repeats < 1:
		return usagef("--repeats %d: must be at least 1", *repeats)
	case *slow <= 0:
		return usagef("--slow %v: must be positive", *slow)
	}
	if *plotPath != "" {
		if err := checkOutput("plot", *plotPath, ".png"); err != nil {
			return err
		}
	}
	if *load != "" {
		rep, err := paper.LoadMatmulReport(*load)
		if err != nil {
			return err
		}
		return reportMatmul(rep, *asJSON, *plotPath, stdout)
	}
	cfg := paper.MatmulConfig{
		Size: *size, Block: *block, Threads: *threads, Repeats: *repeats, Seed: *seed,
		SlowAfter: *slow,
	}
	if !*quiet {
		mp := newMatmulProgress(stderr, *size, *repeats, *slow)
		mp.start()
		cfg.Observe = mp.observe
		defer mp.stopBar()
	}
	rep, err := paper.Matmul(cfg)
	if err != nil {
		return err
	}
	return reportMatmul(rep, *asJSON, *plotPath, stdout)
}

// reportMatmul prints the report and then plots it to plotPath, if given:
// should plotting fail, the report is printed already.
func reportMatmul(rep *paper.MatmulReport, asJSON bool, plotPath string, stdout io.Writer) error {
	var err error
	if asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		return err
	}
	if plotPath != "" {
		return rep.SavePlot(plotPath)
	}
	return nil
}
