package main

import (
	"fmt"
	"io"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/models/train"
)

func init() {
	register(&command{
		name:    "predict",
		usage:   "--model FILE.safetensors [--data digits|FILE.csv|FILE.npz|mnist:DIR] [--test] [--backend native|pjrt] [--json]",
		summary: "classify the rows of a data set with a network 'hofuse train' saved, and print its accuracy",
		run:     runPredict,
	})
}

// predictReport is the JSON document of "predict --json".
type predictReport struct {
	Model       string      `json:"model"`
	Data        string      `json:"data"`
	Rows        int         `json:"rows"`
	Predictions []int       `json:"predictions"` // the class of each row, in order
	Labels      []int32     `json:"labels"`
	Accuracy    float64     `json:"accuracy"`
	Loss        float64     `json:"loss"`
	Logits      [][]float64 `json:"logits,omitempty"` // with --logits
}

func runPredict(args []string, stdout, stderr io.Writer) (err error) {
	c := commands["predict"]
	fs := newFlags(c, stderr)
	model := fs.String("model", "", "the network: a `FILE.safetensors` that 'hofuse train --save' wrote (or any with its model in the metadata)")
	var df dataFlags
	df.register(fs)
	backend := fs.String("backend", "native", "where to run: native (in-process Go) or pjrt (a PJRT plugin)")
	plugin := fs.String("plugin", "", "PJRT plugin `path` (default: found by 'hofuse pjrt path')")
	var rf runFlags
	rf.register(fs)
	defer func() { err = rf.memoryError(err) }()
	logits := fs.Bool("logits", false, "also print each row's logits")
	testOnly := fs.Bool("test", false, "only the test rows of the split 'hofuse train' recorded in the checkpoint (--data must be the data it trained on): the accuracy is the one train reported")
	asJSON := fs.Bool("json", false, "print one JSON object: the predictions, labels, accuracy and loss")
	verbose := verboseFlag(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	verbose()
	set := flagsSet(fs)
	switch {
	case len(pos) > 0:
		return usagef("unexpected arguments %q", pos)
	case *model == "":
		return usagef("--model: name the network to predict with, a FILE.safetensors that 'hofuse train --save' wrote")
	case *backend == "native" && set["plugin"]:
		return usagef("--plugin: --backend native loads no plugin; pass --backend pjrt")
	case *backend == "pjrt" && set["threads"]:
		return usagef("--threads: sets the native executor's goroutines, which --backend pjrt does not use")
	case *backend != "native" && *backend != "pjrt":
		return usagef("--backend: %q is not native or pjrt", *backend)
	}
	if err := rf.check(); err != nil {
		return err
	}
	ck, err := train.LoadCheckpoint(*model)
	if err != nil {
		return fmt.Errorf("--model %s: %w", *model, err)
	}
	// The network, its sizes resolved (a CNN's input and classes), as
	// the checks on the rows read them.
	netCfg, err := ck.Model.Network()
	if err != nil {
		return fmt.Errorf("--model %s: %w", *model, err)
	}
	mc := netCfg.Model
	ds, err := df.load(mc.DType)
	if err != nil {
		return err
	}
	rows := ds.rows
	switch {
	case ds.test != nil:
		rows = ds.test // MNIST: its test half
	case *testOnly:
		split, ok := ck.Extra["hofuse.split"]
		if !ok {
			return usagef("--test: %s records no split (it was not saved by 'hofuse train'); leave --test out to predict every row", *model)
		}
		if trained := ck.Extra["hofuse.data"]; trained != df.spec {
			return usagef("--test: %s was trained on --data %s, not %s; its test rows are those of the data it trained on", *model, trained, df.spec)
		}
		fractions, err := parseSplit(split)
		if err != nil {
			return fmt.Errorf("--model %s: the split it records: %w", *model, err)
		}
		parts, err := rows.Split(splitSeed, fractions...)
		if err != nil {
			return err
		}
		rows = parts[len(parts)-1]
	}
	hint := func(int, string) string {
		return "the model (" + describeModel(netCfg) + ") was trained on other data"
	}
	if err := checkFits(rows, df.spec, mc.Sizes, hint); err != nil {
		return err
	}
	be, closeBackend, err := openBackend(*backend, *plugin, &rf)
	if err != nil {
		return err
	}
	defer closeBackend()
	net, err := ck.Fitted(be)
	if err != nil {
		return err
	}
	defer net.Close()

	rep := predictReport{Model: describeModel(netCfg), Data: ds.description, Rows: rows.Rows(), Labels: rows.Labels()}
	batch := min(net.Config().Batch, rows.Rows())
	for lo := 0; lo < rows.Rows(); lo += batch {
		idx := make([]int, min(batch, rows.Rows()-lo))
		for i := range idx {
			idx[i] = lo + i
		}
		b, err := rows.Batch(idx)
		if err != nil {
			return err
		}
		out, err := net.Predict(b.X)
		if err != nil {
			return err
		}
		for i := range idx {
			rep.Predictions = append(rep.Predictions, argmaxRow(out, i))
			if *logits {
				row := make([]float64, out.Extents()[1])
				for j := range row {
					row[j] = out.At(i, j)
				}
				rep.Logits = append(rep.Logits, row)
			}
		}
	}
	if rep.Loss, rep.Accuracy, err = net.Evaluate(rows); err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "%s on %s: %d rows\n%6s %9s %6s\n", rep.Model, rep.Data, rep.Rows, "row", "predicted", "label")
	right := 0
	for i, p := range rep.Predictions {
		mark := ""
		if int32(p) != rep.Labels[i] {
			mark = "  ✗"
		} else {
			right++
		}
		fmt.Fprintf(stdout, "%6d %9d %6d%s", i+1, p, rep.Labels[i], mark)
		if *logits {
			fmt.Fprintf(stdout, "  %.4g", rep.Logits[i])
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "accuracy %.2f%% (%d of %d rows), loss %.4f\n", 100*rep.Accuracy, right, rep.Rows, rep.Loss)
	return nil
}

// argmaxRow is the column of the largest logit of row i.
func argmaxRow(a *graph.Array, i int) int {
	best := 0
	for j := 1; j < a.Extents()[1]; j++ {
		if a.At(i, j) > a.At(i, best) {
			best = j
		}
	}
	return best
}
