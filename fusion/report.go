package fusion

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hofuse/hofuse/graph"
)

// Report says what the fusion pipeline did: kernels and temporaries before
// (one kernel per layer operation) and after, every kernel with its loop
// nest and the layers it holds, the rules applied and the rules refused with
// their reasons.
type Report struct {
	KernelsBefore        int             `json:"kernels_before"`
	KernelsAfter         int             `json:"kernels_after"`
	TemporariesBefore    int             `json:"temporaries_before"`
	TemporaryBytesBefore int             `json:"temporary_bytes_before"`
	Temporaries          int             `json:"temporaries_after"`
	TemporaryBytes       int             `json:"temporary_bytes_after"`
	Kernels              []KernelReport  `json:"kernels"`
	RulesApplied         []RuleCount     `json:"rules_applied"`
	RulesRefused         []RefusalReport `json:"rules_refused"`
	Passes               []PassReport    `json:"passes"`
	// Schedule sums up the schedule pass; nil when it did not run.
	Schedule *ScheduleReport `json:"schedule,omitempty"`
}

// ScheduleReport sums up the schedule pass.
type ScheduleReport struct {
	Machine string        `json:"machine"`   // the memory hierarchy the cost model planned for
	Search  time.Duration `json:"search_ns"` // the whole pass
	Orders  int           `json:"orders"`    // orders costed, all kernels
	Pruned  int           `json:"pruned"`    // orders cut without costing, all kernels
	Changed int           `json:"changed"`   // kernels whose order the pass changed
}

// KernelReport describes one kernel.
type KernelReport struct {
	Name    string   `json:"name"`
	Output  string   `json:"output"`  // the buffer it writes
	Type    string   `json:"type"`    // the output's type
	Inputs  []string `json:"inputs"`  // the buffers it reads
	Sources []string `json:"sources"` // the layers and nodes it holds
	Order   string   `json:"order"`   // its loop nest, outermost first
	Term    string   `json:"term"`    // its body in the notation
	// Schedule is the order the schedule pass chose, with its predicted
	// cost and what it pruned.
	Schedule *KernelSchedule `json:"schedule,omitempty"`
}

// RuleCount is how often a rule applied, and where.
type RuleCount struct {
	Rule    string   `json:"rule"`
	Count   int      `json:"count"`
	Sources []string `json:"sources,omitempty"`
}

// RefusalReport is a rule that matched but did not apply.
type RefusalReport struct {
	Rule   string `json:"rule"`
	Term   string `json:"term"`
	Source string `json:"source,omitempty"`
	Reason string `json:"reason"`
}

// PassReport is one pass's name, duration and whether it changed the term.
type PassReport struct {
	Name     string        `json:"name"`
	Duration time.Duration `json:"duration_ns"`
	Changed  bool          `json:"changed"`
}

func (r *Report) fill(g *Graph, e *engine) {
	r.KernelsAfter = len(g.Kernels)
	r.Temporaries = len(g.Temporaries())
	r.TemporaryBytes = g.TemporaryBytes()
	for _, k := range g.Kernels {
		kr := KernelReport{
			Name:     k.Name,
			Output:   k.Output.Name,
			Type:     k.Output.Type.String(),
			Sources:  append([]string{}, k.Sources...),
			Order:    NestOrder(k.Body),
			Term:     graph.Print(k.Body),
			Schedule: k.Schedule,
		}
		if s := k.Schedule; s != nil && r.Schedule != nil {
			r.Schedule.Orders += s.Orders
			for _, p := range s.Pruned {
				r.Schedule.Pruned += p.Count
			}
		}
		for _, in := range k.Inputs {
			kr.Inputs = append(kr.Inputs, in.Name)
		}
		r.Kernels = append(r.Kernels, kr)
	}
	for _, name := range sortedKeys(e.applied) {
		r.RulesApplied = append(r.RulesApplied, RuleCount{Rule: name, Count: e.applied[name], Sources: e.sources[name]})
	}
	for _, ref := range e.refused {
		r.RulesRefused = append(r.RulesRefused, RefusalReport{
			Rule: ref.Rule, Term: graph.Abbrev(ref.Node, 80), Source: ref.Node.Source(), Reason: ref.Reason})
	}
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // terms hold "->" and "<": print them as they are
	return enc.Encode(r)
}

// WriteText writes the report for people.
func (r *Report) WriteText(w io.Writer) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "kernels: %d before fusion, %d after\n", r.KernelsBefore, r.KernelsAfter)
	fmt.Fprintf(&sb, "temporaries: %d (%s) before, %d (%s) after\n",
		r.TemporariesBefore, formatBytes(r.TemporaryBytesBefore), r.Temporaries, formatBytes(r.TemporaryBytes))
	for _, k := range r.Kernels {
		fmt.Fprintf(&sb, "\n%s -> %s : %s\n", k.Name, k.Output, k.Type)
		if len(k.Sources) > 0 {
			fmt.Fprintf(&sb, "  holds:  %s\n", strings.Join(k.Sources, ", "))
		}
		fmt.Fprintf(&sb, "  reads:  %s\n", strings.Join(k.Inputs, ", "))
		fmt.Fprintf(&sb, "  nest:   %s\n", k.Order)
		if k.Schedule != nil {
			fmt.Fprintf(&sb, "  order:  %s\n", k.Schedule)
			for _, p := range k.Schedule.Pruned {
				fmt.Fprintf(&sb, "    pruned %d: %s (e.g. %s)\n", p.Count, p.Reason, p.Example)
			}
		}
		fmt.Fprintf(&sb, "  term:   %s\n", k.Term)
	}
	if len(r.RulesApplied) > 0 {
		sb.WriteString("\nrules applied:\n")
		for _, a := range r.RulesApplied {
			fmt.Fprintf(&sb, "  %-12s %4d", a.Rule, a.Count)
			if len(a.Sources) > 0 {
				fmt.Fprintf(&sb, "  (%s)", strings.Join(a.Sources, ", "))
			}
			sb.WriteByte('\n')
		}
	}
	if len(r.RulesRefused) > 0 {
		sb.WriteString("\nrules refused:\n")
		for _, f := range r.RulesRefused {
			src := ""
			if f.Source != "" {
				src = " in " + f.Source
			}
			fmt.Fprintf(&sb, "  %s%s: %s\n    at %s\n", f.Rule, src, f.Reason, f.Term)
		}
	}
	if s := r.Schedule; s != nil {
		fmt.Fprintf(&sb, "\nschedule: %d orders costed, %d pruned, %d kernels reordered, in %v; machine %s\n",
			s.Orders, s.Pruned, s.Changed, s.Search.Round(time.Microsecond), s.Machine)
	}
	sb.WriteString("\npasses:")
	for _, p := range r.Passes {
		state := "changed"
		if !p.Changed {
			state = "unchanged"
		}
		fmt.Fprintf(&sb, " %s %v (%s);", p.Name, p.Duration.Round(time.Microsecond), state)
	}
	sb.WriteByte('\n')
	_, err := io.WriteString(w, sb.String())
	return err
}

func formatBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// WriteDOT writes the kernel graph in Graphviz DOT: each kernel a cluster
// holding its term, buffers as boxes, edges from the buffers a kernel reads
// to the kernel and from the kernel to the buffer it writes.
func (g *Graph) WriteDOT(w io.Writer) error {
	var sb strings.Builder
	sb.WriteString("digraph hofuse {\n  rankdir=TB;\n  node [fontname=\"monospace\", fontsize=10];\n")
	buffers := map[string]bool{}
	buffer := func(in *graph.Input) string {
		id := "buf_" + sanitize(in.Name)
		if !buffers[id] {
			buffers[id] = true
			shape := "box"
			if in.Param {
				shape = "box, style=dashed"
			}
			fmt.Fprintf(&sb, "  %s [shape=%s, label=%q];\n", id, shape, in.Name+" : "+in.Type.String())
		}
		return id
	}
	for _, k := range g.Kernels {
		id := "kernel_" + sanitize(k.Name)
		fmt.Fprintf(&sb, "  subgraph cluster_%s {\n    label=%q;\n    style=rounded;\n", sanitize(k.Name), k.Name+" ["+strings.Join(k.Sources, ", ")+"]")
		fmt.Fprintf(&sb, "    %s [shape=note, label=%q];\n  }\n", id, graph.Abbrev(k.Body, 120)+"\n"+NestOrder(k.Body))
		for _, in := range k.Inputs {
			fmt.Fprintf(&sb, "  %s -> %s;\n", buffer(in), id)
		}
		fmt.Fprintf(&sb, "  %s -> %s;\n", id, buffer(k.Output))
	}
	sb.WriteString("}\n")
	_, err := io.WriteString(w, sb.String())
	return err
}
