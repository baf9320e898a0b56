package train

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/data"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// digitsSplit returns the digits' 80/20 split: 1,438 training rows (22
// batches of 64 and one of 30) and 359 test rows.
func digitsSplit(t *testing.T) (*data.Dataset, *data.Dataset) { return digitsSplitTB(t) }

func digitsSplitTB(t testing.TB) (*data.Dataset, *data.Dataset) {
	t.Helper()
	d, err := data.Digits()
	if err != nil {
		t.Fatal(err)
	}
	parts, err := d.Split(1, 0.8, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	return parts[0], parts[1]
}

func digitsConfig(epochs int) FitConfig {
	return FitConfig{
		Model:     models.MLPConfig{Sizes: []int{64, 32, 10}, Norm: models.NormBatch},
		Optimizer: optim.NewAdam(0.01),
		Epochs:    epochs,
		Batch:     64,
		Seed:      1,
	}
}

// Four epochs on the digits with the last batch of each epoch smaller:
// the loss falls, every step is seen by the callback, the test accuracy is
// far past what untrained weights reach (about 0.1), and Predict on one
// row and on all the test rows agrees with Evaluate.
func TestFitDigits(t *testing.T) {
	tr, te := digitsSplit(t)
	if tr.Rows() != 1438 || te.Rows() != 359 {
		t.Fatalf("split of %d and %d rows, want 1438 and 359", tr.Rows(), te.Rows())
	}
	var steps []StepMetrics
	var epochs []EpochMetrics
	f, err := Fit(context.Background(), digitsConfig(4), tr, te, Callbacks{
		Step:  func(m StepMetrics) { steps = append(steps, m) },
		Epoch: func(m EpochMetrics) { epochs = append(epochs, m) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	// 23 steps an epoch: 22 of 64 rows and the last of 30.
	if len(steps) != 4*23 || f.Steps() != 4*23 {
		t.Fatalf("%d steps seen, %d done, want %d", len(steps), f.Steps(), 4*23)
	}
	for i, s := range steps {
		wantRows := 64
		if i%23 == 22 {
			wantRows = 30
		}
		if s.Step != i+1 || s.Epoch != i/23 || s.Rows != wantRows || !(s.Loss > 0) {
			t.Fatalf("step %d: %+v, want step %d of epoch %d on %d rows", i, s, i+1, i/23, wantRows)
		}
	}
	if len(f.trainers) != 2 {
		t.Fatalf("%d trainers compiled, want 2 (batches of 64 and of 30)", len(f.trainers))
	}
	if len(epochs) != 4 {
		t.Fatalf("%d epochs seen, want 4", len(epochs))
	}
	for _, e := range epochs {
		t.Logf("epoch %d: train loss %.4f, test loss %.4f, test accuracy %.4f", e.Epoch, e.TrainLoss, e.ValLoss, e.ValAccuracy)
	}
	// ln 10 = 2.30 is the loss of a uniform guess.
	if first, last := epochs[0].TrainLoss, epochs[3].TrainLoss; !(last < 0.5*first) || !(first < math.Ln10) {
		t.Fatalf("train loss went from %v to %v, want it to fall by half from below ln 10", first, last)
	}
	loss, acc, err := f.Evaluate(te)
	if err != nil {
		t.Fatal(err)
	}
	if loss != epochs[3].ValLoss || acc != epochs[3].ValAccuracy {
		t.Fatalf("Evaluate gives %v, %v; the last epoch saw %v, %v", loss, acc, epochs[3].ValLoss, epochs[3].ValAccuracy)
	}
	if acc < 0.9 {
		t.Fatalf("test accuracy %v, want at least 0.9", acc)
	}

	// All 359 test rows at once (another compiled row count) agree with
	// Evaluate's batches of 64, and the first row alone with its row.
	all, err := te.Batch(seq(te.Rows()))
	if err != nil {
		t.Fatal(err)
	}
	logits, err := f.Predict(all.X)
	if err != nil {
		t.Fatal(err)
	}
	if ext := logits.Extents(); ext[0] != 359 || ext[1] != 10 {
		t.Fatalf("Predict on 359 rows gave %v", ext)
	}
	sum, right := score(logits, all.Labels)
	if got := float64(right) / 359; got != acc {
		t.Fatalf("Predict on all rows: accuracy %v, Evaluate %v", got, acc)
	}
	if math.Abs(sum/359-loss) > 1e-5 {
		t.Fatalf("Predict on all rows: loss %v, Evaluate %v", sum/359, loss)
	}
	one, err := te.Batch([]int{0})
	if err != nil {
		t.Fatal(err)
	}
	l1, err := f.Predict(one.X)
	if err != nil {
		t.Fatal(err)
	}
	for j := range 10 {
		if d := math.Abs(l1.At(0, j) - logits.At(0, j)); d > 1e-5 {
			t.Fatalf("logit %d of row 0: %v alone, %v among all rows", j, l1.At(0, j), logits.At(0, j))
		}
	}

	bad, err := graph.Zeros(graph.Float32, 1, 63)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Predict(bad); err == nil || err.Error() != "train: predict: rows of type f32[1,63], want f32[rows, 64]" {
		t.Fatalf("got error %v", err)
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// A cancelled context stops Fit before the next step, with the network as
// trained so far and an error wrapping context.Canceled.
func TestFitCancel(t *testing.T) {
	tr, te := digitsSplit(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := 0
	f, err := Fit(ctx, digitsConfig(4), tr, te, Callbacks{Step: func(m StepMetrics) {
		seen = m.Step
		if m.Step == 5 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got error %v, want context.Canceled", err)
	}
	want := "train: fit: stopped in epoch 0 after 5 steps: context canceled"
	if err.Error() != want {
		t.Fatalf("got error %q, want %q", err, want)
	}
	if f == nil || f.Steps() != 5 || seen != 5 {
		t.Fatalf("stopped after %d steps seen, want 5", seen)
	}
	defer f.Close()
	if _, _, err := f.Evaluate(te); err != nil {
		t.Fatalf("evaluating the network stopped early: %v", err)
	}

	// Cancelled before the first step: nothing was trained, and Evaluate
	// says so.
	f0, err := Fit(ctx, digitsConfig(1), tr, te, Callbacks{})
	if err == nil || err.Error() != "train: fit: stopped in epoch 0 after 0 steps: context canceled" {
		t.Fatalf("got error %v", err)
	}
	defer f0.Close()
	if _, _, err := f0.Evaluate(te); err == nil || err.Error() != "train: the network has not been trained" {
		t.Fatalf("got error %v", err)
	}
}

// Bad configurations are refused before anything is compiled, naming the
// field.
func TestFitBadConfig(t *testing.T) {
	tr, _ := digitsSplit(t)
	for _, c := range []struct {
		edit func(*FitConfig)
		want string
	}{
		{func(c *FitConfig) { c.Batch = 2000 }, "train: fit: FitConfig.Batch is 2000, want a batch in [1, 1438], the rows of data/testdata/digits.csv.gz"},
		{func(c *FitConfig) { c.Epochs = 0 }, "train: fit: FitConfig.Epochs is 0, want at least 1"},
		{func(c *FitConfig) { c.Optimizer = nil }, "FitConfig.Optimizer is nil"},
		{func(c *FitConfig) { c.Model.Sizes = []int{63, 10} }, "has 64 features, the model's input takes 63"},
		{func(c *FitConfig) { c.Model.DType = graph.Float64 }, "holds f32 features, the model is f64"},
	} {
		cfg := digitsConfig(1)
		c.edit(&cfg)
		_, err := Fit(context.Background(), cfg, tr, nil, Callbacks{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got error %v, want %q", err, c.want)
		}
	}
}

// The carried values and the step count move between the trainers of the
// two batch sizes: two epochs of 150 rows in batches of 64 (64, 64, 22,
// then 64 again) give, step by step, the losses graph.Eval computes when
// the step terms of both sizes are chained by hand on the same batches.
// On PJRT the values move through the host and back to the device.
func TestFitMovesValuesBetweenBatchSizes(t *testing.T) {
	t.Run("native", func(t *testing.T) { checkMoves(t, nil) })
	t.Run("pjrt", func(t *testing.T) {
		client := pjrttest.Client(t)
		for _, perKernel := range []bool{false, true} {
			checkMoves(t, xla.New(client, xla.Options{PerKernel: perKernel}))
		}
	})
}

func checkMoves(t *testing.T, be lowering.Backend) {
	d, err := data.Digits()
	if err != nil {
		t.Fatal(err)
	}
	small, err := d.Subset(seq(150))
	if err != nil {
		t.Fatal(err)
	}
	cfg := digitsConfig(2)
	cfg.Model.Sizes = []int{64, 8, 10}
	cfg.Backend = be
	var got []float64
	f, err := Fit(context.Background(), cfg, small, nil, Callbacks{Step: func(m StepMetrics) { got = append(got, m.Loss) }})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	stepOf := map[int]*models.Step{}
	var carried map[string]graph.Value
	var want []float64
	for e := range 2 {
		batches, err := small.Batches(64, data.BatchOptions{Seed: cfg.Seed, Epoch: e})
		if err != nil {
			t.Fatal(err)
		}
		for b := range batches {
			s := stepOf[b.Size()]
			if s == nil {
				mc := cfg.Model
				mc.Batch, mc.DType, mc.Mode = b.Size(), graph.Float32, models.Training
				m, err := models.MLP(mc)
				if err != nil {
					t.Fatal(err)
				}
				if s, err = m.TrainStep(models.TrainConfig{Optimizer: cfg.Optimizer}); err != nil {
					t.Fatal(err)
				}
				stepOf[b.Size()] = s
				if carried == nil {
					if carried, err = s.InitialValues(m.RandomParams(cfg.Seed)); err != nil {
						t.Fatal(err)
					}
				}
			}
			in, err := s.Bindings(carried, b.X, b.Labels, len(want)+1)
			if err != nil {
				t.Fatal(err)
			}
			res, err := graph.Eval(s.Term, in)
			if err != nil {
				t.Fatal(err)
			}
			tup := res.(graph.TupleValue)
			want = append(want, tup[0].(graph.ScalarValue).V)
			carried = map[string]graph.Value{}
			for i, o := range s.Outputs {
				carried[o.Name] = tup[i+1]
			}
		}
	}
	if len(got) != 6 || len(want) != 6 {
		t.Fatalf("%d steps by Fit, %d by hand, want 6", len(got), len(want))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-4*max(1, math.Abs(want[i])) {
			t.Fatalf("step %d: loss %v, graph.Eval %v (all: %v, %v)", i+1, got[i], want[i], got, want)
		}
	}
}

// DropLast leaves out each epoch's last, smaller batch, and with
// BatchNorm a last batch of one row is left out always: one trainer is
// compiled, and each epoch has the full batches only.
func TestFitDropLast(t *testing.T) {
	d, err := data.Digits()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rows     int
		dropLast bool
	}{{150, true}, {129, false}} {
		set, err := d.Subset(seq(c.rows))
		if err != nil {
			t.Fatal(err)
		}
		cfg := digitsConfig(2)
		cfg.DropLast = c.dropLast
		var rows []int
		f, err := Fit(context.Background(), cfg, set, nil, Callbacks{Step: func(m StepMetrics) { rows = append(rows, m.Rows) }})
		if err != nil {
			t.Fatal(err)
		}
		if len(f.trainers) != 1 || len(rows) != 4 || f.Steps() != 4 || slices.ContainsFunc(rows, func(n int) bool { return n != 64 }) {
			t.Errorf("%d rows, DropLast %v: %d trainers, steps of %v rows, want 1 trainer and 4 steps of 64", c.rows, c.dropLast, len(f.trainers), rows)
		}
		f.Close()
	}
}
