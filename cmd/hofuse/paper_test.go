package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hofuse/hofuse/internal/paper"
)

// The experiment at a size small enough for a test: 32×32, blocks of 4.
var smallMatmul = []string{"paper", "matmul", "--size", "32", "--block", "4", "--repeats", "1", "-q"}

func TestPaperMatmulJSON(t *testing.T) {
	png := filepath.Join(t.TempDir(), "matmul.png")
	code, out, errs := hofuse(append(smallMatmul, "--json", "--plot", png)...)
	require.Equal(t, 0, code, errs)
	assert.Empty(t, errs, "-q reports no progress")

	var fields map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(out), &fields))
	for _, f := range []string{"table1", "table2", "spearman_table1", "spearman_table2", "naive_s", "best_s",
		"best_order", "speedup_best_vs_naive", "size", "block", "threads", "max_rel_diff"} {
		assert.Contains(t, fields, f)
	}

	var rep struct {
		Size, Block, Threads int
		Table1, Table2       []struct {
			Order  string  `json:"order"`
			Ours   float64 `json:"ours_s"`
			Paper  float64 `json:"paper_s"`
			Runs   int     `json:"runs"`
			MaxAbs float64 `json:"max_abs_diff"`
		}
		Spearman1  float64 `json:"spearman_table1"`
		Spearman2  float64 `json:"spearman_table2"`
		Naive      float64 `json:"naive_s"`
		Best       float64 `json:"best_s"`
		BestOrder  string  `json:"best_order"`
		Speedup    float64 `json:"speedup_best_vs_naive"`
		MaxRelDiff float64 `json:"max_rel_diff"`
		Chosen     struct {
			Order     string  `json:"order"`
			Ours      float64 `json:"ours_s"`
			Predicted float64 `json:"predicted_s"`
			Rank      int     `json:"rank"`
			Among     int     `json:"among"`
			MaxAbs    float64 `json:"max_abs_diff"`
		} `json:"chosen"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	// The schedule pass's own choice, timed and checked like the tables'.
	assert.Regexp(t, `^(mapA|mapB|rnz)( (mapA|mapB|rnz))+$`, rep.Chosen.Order)
	assert.Positive(t, rep.Chosen.Ours)
	assert.Positive(t, rep.Chosen.Predicted)
	assert.Equal(t, 19, rep.Chosen.Among)
	assert.True(t, 1 <= rep.Chosen.Rank && rep.Chosen.Rank <= 19, "rank %d", rep.Chosen.Rank)
	assert.LessOrEqual(t, rep.Chosen.MaxAbs, 1e-12)
	assert.Equal(t, 32, rep.Size)
	assert.Equal(t, 4, rep.Block)
	assert.Equal(t, 1, rep.Threads)
	require.Len(t, rep.Table1, 6)
	require.Len(t, rep.Table2, 12)
	for _, tc := range []struct {
		name  string
		rows  int
		paper map[string]float64
		got   map[string]float64
	}{
		{"table1", 6, paper.Table1, map[string]float64{}},
		{"table2", 12, paper.Table2, map[string]float64{}},
	} {
		rows := rep.Table1
		if tc.name == "table2" {
			rows = rep.Table2
		}
		for _, r := range rows {
			tc.got[r.Order] = r.Paper
			assert.Positive(t, r.Ours, "%s %s", tc.name, r.Order)
			assert.Equal(t, 1, r.Runs, "%s %s", tc.name, r.Order)
			assert.LessOrEqual(t, r.MaxAbs, 1e-12, "%s %s", tc.name, r.Order)
		}
		assert.Equal(t, tc.paper, tc.got, "%s: every order of the paper, with its time", tc.name)
	}
	for _, rho := range []float64{rep.Spearman1, rep.Spearman2} {
		assert.GreaterOrEqual(t, rho, -1.0)
		assert.LessOrEqual(t, rho, 1.0)
	}
	assert.Positive(t, rep.Naive)
	assert.Positive(t, rep.Best)
	assert.LessOrEqual(t, rep.Best, rep.Naive)
	assert.NotEmpty(t, rep.BestOrder)
	assert.InDelta(t, rep.Naive/rep.Best, rep.Speedup, 1e-9)
	// Every order's result was compared with the naive order's.
	assert.LessOrEqual(t, rep.MaxRelDiff, paper.MaxRelDiff)

	b, err := os.ReadFile(png)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), "\x89PNG\r\n\x1a\n"), "the plot is a PNG")

	// --load prints a saved report again, without running.
	saved := filepath.Join(t.TempDir(), "matmul.json")
	require.NoError(t, os.WriteFile(saved, []byte(out), 0o644))
	code, again, errs := hofuse("paper", "matmul", "--load", saved, "--json")
	require.Equal(t, 0, code, errs)
	assert.JSONEq(t, out, again)
	code, text, errs := hofuse("paper", "matmul", "--load", saved)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, text, "speedup best vs naive: ")
}

func TestPaperMatmulText(t *testing.T) {
	code, out, errs := hofuse(smallMatmul[:len(smallMatmul)-1]...) // with progress
	require.Equal(t, 0, code, errs)
	for _, s := range []string{
		"Table 1: the six orders of the naive product",
		"Table 2: the twelve orders with the rnz subdivided by 4",
		"ours (s)  paper (s)  ours/naive  paper/naive  runs\n",
		"  mapA rnz mapB ", "  rnz rnz mapB mapA ",
		"Spearman rank correlation, ours vs paper: ",
		"naive: mapA mapB rnz, ",
		"speedup best vs naive: ",
		"The schedule pass, by itself (cost model, GEMM off, blocks of 4):\nchosen: ",
	} {
		assert.Contains(t, out, s)
	}
	assert.Contains(t, errs, "rnz mapA mapB rnz ", "progress, one line per order")
}

func TestPaperErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"paper"}, 2, "hofuse paper: want an experiment: matmul\n"},
		{[]string{"paper", "conv"}, 2, `hofuse paper: unknown experiment "conv"; want matmul` + "\n"},
		{[]string{"paper", "matmul", "--size", "30", "--block", "4"}, 2, "hofuse paper: --block 4 does not divide --size 30\n"},
		{[]string{"paper", "matmul", "--block", "0"}, 2, "hofuse paper: --block 0: must be at least 1\n"},
		{[]string{"paper", "matmul", "--size", "-8"}, 2, "hofuse paper: --size -8: must be at least 1\n"},
		{[]string{"paper", "matmul", "--repeats", "0"}, 2, "hofuse paper: --repeats 0: must be at least 1\n"},
		{[]string{"paper", "matmul", "--threads", "-1"}, 2, "hofuse paper: --threads -1: must be at least 0 (0: all CPUs)\n"},
		{[]string{"paper", "matmul", "--size", "big"}, 2, `hofuse paper: invalid value "big" for flag --size`},
		{[]string{"paper", "matmul", "extra"}, 2, `hofuse paper: unexpected arguments ["extra"]` + "\n"},
	}
	code, _, errs := hofuse("paper", "matmul", "--load", "/nonexistent/m.json")
	assert.Equal(t, 1, code)
	assert.Equal(t, "hofuse paper: open /nonexistent/m.json: no such file or directory\n", errs)
	for _, tc := range tests {
		code, out, errs := hofuse(tc.args...)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, errs)
		assert.Contains(t, errs, tc.want, "%v", tc.args)
		assert.Contains(t, errs, "; all flags: hofuse paper --help\n", "%v", tc.args)
		assert.Empty(t, out, "%v", tc.args)
	}

	code, _, errs = hofuse("paper", "matmul", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, errs, "Usage: hofuse paper matmul [--size N]")
	assert.Contains(t, errs, "-block B")
	code, out, _ := hofuse("help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "\n  paper ")
}

// paper matmul's progress, written to a writer that is not a terminal: the
// expected time, a warning before a slow order, a line per order, no bar.
func TestMatmulProgress(t *testing.T) {
	var sb strings.Builder
	mp := newMatmulProgress(&sb, 1024, 3, 2*time.Second)
	// By hand from the paper's times at 1024 with 3 repeats and 2 s: the
	// orders over 2 s run once (4.67 + 6.05 + 13.8 + 15.6 in Table 1, 2.024 +
	// 2.231 + 4.970 + 5.580 + 5.686 + 5.972 + 7.353 in Table 2: 73.936 s),
	// the others four times ((0.45 + 1.41 + 0.186 + 0.249 + 0.324 + 0.478 +
	// 1.468)·4 = 18.26 s): 92.196 s, about 2 min.
	assert.InDelta(t, 92.196, mp.total(), 1e-9)
	mp.start()
	assert.Equal(t, "timing 1024×1024 float64 matrix products in 18 loop orders; expected about 2 min "+
		"(the paper's times scaled to this size; re-estimated after the first order)\n", sb.String())
	sb.Reset()
	// The first order, twice as fast as the paper's: every estimate halves,
	// and the 17 orders left are expected to take 50.1455 s (the same sum
	// with the times halved: those now under 2 s run four times).
	mp.observe(paper.Event{Table: "table 1", Order: "mapA mapB rnz", Paper: 4.67, Index: 1, Total: 18})
	assert.Equal(t, "slow order next: mapA mapB rnz, expected about 5 s (the paper's 4.67 s at 1024), timed by one run\n", sb.String())
	sb.Reset()
	mp.observe(paper.Event{Table: "table 1", Order: "mapA mapB rnz", Paper: 4.67, Index: 1, Total: 18,
		Row: &paper.Row{Order: "mapA mapB rnz", Ours: 2.335, Runs: 1, WarmUpOnly: true}})
	assert.Equal(t, "[ 1/18] mapA mapB rnz           2.3350 s  (one run: slower than 2s)\n"+
		"re-estimated from this order: about 50 s more\n", sb.String())
	assert.False(t, mp.bars, "a strings.Builder is not a terminal")
}
