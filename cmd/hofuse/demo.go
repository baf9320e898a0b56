package main

import (
	"fmt"
	"io"
	"time"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

func init() {
	register(&command{
		name:    "demo",
		usage:   "[model flags] [--seed N]",
		summary: "build an MLP, print its IR, fuse it, and check fused against unfused",
		run:     runDemo,
	})
}

func runDemo(args []string, stdout, stderr io.Writer) error {
	c := commands["demo"]
	fs := newFlags(c, stderr)
	var mf mlpFlags
	mf.register(fs, 1)
	seed := fs.Uint64("seed", 1, "seed for the weights and the input")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected arguments %q", pos)
	}
	cfg, err := mf.config()
	if err != nil {
		return err
	}
	m, err := mf.build()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\n\nIR:\n%s\n\n", describe(m, cfg), graph.Abbrev(m.Output, 400))

	start := time.Now()
	res, err := fusion.Fuse(m.Output, fusion.Options{})
	if err != nil {
		return err
	}
	fuseTime := time.Since(start)
	r := res.Report
	fmt.Fprintf(stdout, "fusion (%v): %d kernels before, %d after; temporaries %s before, %s after\n",
		fuseTime.Round(time.Microsecond), r.KernelsBefore, r.KernelsAfter, bytes(r.TemporaryBytesBefore), bytes(r.TemporaryBytes))
	for _, k := range r.Kernels {
		fmt.Fprintf(stdout, "  %-18s %-24v nest: %s\n", k.Name, k.Type, k.Order)
	}

	unfused, err := fusion.Unfused(m.Output)
	if err != nil {
		return err
	}
	in := m.Bindings(*seed)
	start = time.Now()
	want, err := unfused.Eval(in)
	if err != nil {
		return err
	}
	unfusedTime := time.Since(start)
	start = time.Now()
	got, err := res.Graph.Eval(in)
	if err != nil {
		return err
	}
	fusedTime := time.Since(start)
	diff, err := graphtest.MaxAbsDiff(want, got)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nreference interpreter, batch %d: unfused %v, fused %v, max abs difference %.3g\n",
		cfg.Batch, unfusedTime.Round(time.Millisecond), fusedTime.Round(time.Millisecond), diff)
	if diff > graphtest.Tolerance(cfg.DType) {
		return fmt.Errorf("fused and unfused results differ by %.3g", diff)
	}
	return nil
}

func bytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
