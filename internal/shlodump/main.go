package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/lowertest"
	"github.com/hofuse/hofuse/lowering/stablehlo"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "shlodump:", err)
		os.Exit(1)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("shlodump", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	name := fs.String("case", "", "a case of the back-end suite")
	dtype := fs.String("dtype", "f32", "element type of a templated case: f32 or f64")
	src := fs.String("program", "", "a program in the notation")
	unfused := fs.Bool("unfused", false, "lower fusion.Unfused's graph")
	fused := fs.Bool("fused", false, "lower fusion.Fuse's graph")
	perKernel := fs.Bool("per-kernel", false, "one module per kernel")
	list := fs.Bool("list", false, "list the case names")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *list {
		for _, c := range lowertest.Cases() {
			fmt.Fprintln(w, c.Name)
		}
		return nil
	}
	if *unfused && *fused {
		return errors.New("-unfused and -fused exclude each other: give one")
	}
	term, err := termOf(*name, *dtype, *src)
	if err != nil {
		return err
	}
	var g *fusion.Graph
	switch {
	case *unfused:
		g, err = fusion.Unfused(term)
	case *fused:
		var res *fusion.Result
		if res, err = fusion.Fuse(term, fusion.Options{}); err == nil {
			g = res.Graph
		}
	default:
		g, err = fusion.Whole(term)
	}
	if err != nil {
		return err
	}
	if !*perKernel {
		text, err := stablehlo.Module(g)
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, text)
		return err
	}
	for _, k := range g.Kernels {
		text, err := stablehlo.KernelModule(k)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "// kernel %s\n%s", k.Name, text); err != nil {
			return err
		}
	}
	return nil
}

// termOf returns the term of a suite case or of program text.
func termOf(name, dtype, src string) (graph.Node, error) {
	switch {
	case name != "" && src != "":
		return nil, errors.New("-case and -program exclude each other: give one")
	case src != "":
		prog, err := graph.Parse(src)
		if err != nil {
			return nil, fmt.Errorf("-program: %w", err)
		}
		return prog.Body, nil
	case name == "":
		return nil, errors.New("give -case NAME (see -list) or -program TEXT")
	}
	dt, err := graph.ParseDType(dtype)
	if err != nil || !dt.IsFloat() {
		return nil, fmt.Errorf("-dtype %q: want f32 or f64", dtype)
	}
	cases := lowertest.Cases()
	i := slices.IndexFunc(cases, func(c lowertest.Case) bool { return c.Name == name })
	if i < 0 {
		return nil, fmt.Errorf("-case %q: no such case in the back-end suite (see -list)", name)
	}
	return cases[i].Term(dt)
}
