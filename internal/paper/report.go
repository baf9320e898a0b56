package paper

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"text/tabwriter"
)

// WriteJSON writes the report as indented JSON.
func (r *MatmulReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// LoadMatmulReport reads a report that WriteJSON wrote.
func LoadMatmulReport(path string) (*MatmulReport, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r MatmulReport
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(r.Table1) == 0 || len(r.Table2) == 0 {
		return nil, fmt.Errorf("%s: not a matmul report: no table1 or table2", path)
	}
	return &r, nil
}

// WriteText writes both tables, their rank correlations with the paper's,
// and the naive and best orders.
func (r *MatmulReport) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	threads := "1 thread"
	if r.Threads != 1 {
		threads = fmt.Sprintf("%d threads", r.Threads)
	}
	ew.printf("C = A·B, %d×%d float64 (seed %d), native back end with NoGEMM (each order runs as written), %s.\n",
		r.Size, r.Size, r.Seed, threads)
	runs := "that of one run"
	if r.Repeats > 1 {
		runs = fmt.Sprintf("the median of %d runs", r.Repeats)
	}
	ew.printf("Each time is %s after a warm-up; * marks an order slower than %s s, timed by its\n", runs, seconds(r.SlowAfter))
	ew.printf("warm-up run alone. The paper's times are from a Core i5 7300HQ.\n")
	ew.printf("\nTable 1: the six orders of the naive product\n")
	r.writeTable(ew, r.Table1, r.Spearman1)
	ew.printf("\nTable 2: the twelve orders with the rnz subdivided by %d (the paper's: by %d)\n", r.Block, PaperBlock)
	r.writeTable(ew, r.Table2, r.Spearman2)
	ew.printf("\nnaive: %s, %s s (paper %s s)\n", r.NaiveOrder, seconds(r.Naive), seconds(r.PaperNaive))
	ew.printf("best:  %s, %s s (paper: %s, %s s)\n", r.BestOrder, seconds(r.Best), r.PaperBestOrder, seconds(r.PaperBest))
	ew.printf("speedup best vs naive: %.1f×   paper %.1f×\n", r.Speedup, r.PaperSpeedup)
	if c := r.Chosen; c != nil {
		ew.printf("\nThe schedule pass, by itself (cost model, GEMM off, blocks of %d):\n", r.Block)
		ew.printf("chosen: %s, subdivisions %s: %s s (%.3f of naive), rank %d of %d orders timed; predicted %s s;\n",
			c.Order, c.Subdivisions, seconds(c.Ours), c.OursPerNaive, c.Rank, c.Among, seconds(c.Predicted))
		ew.printf("        %d orders costed, %d pruned, in %s s\n", c.Costed, c.Pruned, seconds(c.SearchS))
	}
	ew.printf("every result equals the naive order's to %.2g of its largest element (allowed: %g); %.0f s in all\n",
		r.MaxRelDiff, MaxRelDiff, r.Elapsed)
	return ew.err
}

func (r *MatmulReport) writeTable(ew *errWriter, rows []Row, rho float64) {
	// Right-aligned columns; the order is padded so that it reads left-aligned.
	wide := len("order")
	for _, row := range rows {
		wide = max(wide, len(row.Order))
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tours (s)\tpaper (s)\tours/naive\tpaper/naive\truns\t\n", wide, "order")
	for _, row := range rows {
		runs := strconv.Itoa(row.Runs)
		if row.WarmUpOnly {
			runs += "*"
		}
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%.3f\t%.3f\t%s\t\n",
			wide, row.Order, seconds(row.Ours), seconds(row.Paper), row.OursPerNaive, row.PaperPerNaive, runs)
	}
	tw.Flush()
	ew.printf("Spearman rank correlation, ours vs paper: %.3f\n", rho)
}

// seconds formats a time to four significant digits: 4.67, 0.186, 2.1e-05.
func seconds(s float64) string { return strconv.FormatFloat(s, 'g', 4, 64) }

// errWriter keeps the first write error, so that a report is written
// without checking every line.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }
