package train

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/checkpoint"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering"
	"github.com/hofuse/hofuse/lowering/xla"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// fitLosses runs Fit and returns every step's loss.
func fitLosses(t *testing.T, ctx context.Context, cfg FitConfig) (*Fitted, []float64, error) {
	t.Helper()
	tr, te := digitsSplit(t)
	var losses []float64
	f, err := Fit(ctx, cfg, tr, te, Callbacks{Step: func(m StepMetrics) { losses = append(losses, m.Loss) }})
	return f, losses, err
}

// A checkpoint saved after training loads into a network that predicts
// the same logits, bit for bit, and records the model, the optimizer and
// where training stood.
func TestCheckpointRoundTrip(t *testing.T) {
	for _, opt := range []optim.Optimizer{optim.NewAdam(0.01), optim.SGD{LR: 0.05, Momentum: 0.9}, optim.NewAdamW(0.01)} {
		cfg := digitsConfig(2)
		cfg.Optimizer = opt
		f, _, err := fitLosses(t, context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		path := filepath.Join(t.TempDir(), "m.safetensors")
		if err := f.Save(path, map[string]string{"data": "digits"}); err != nil {
			t.Fatal(err)
		}
		c, err := LoadCheckpoint(path)
		if err != nil {
			t.Fatal(err)
		}
		if c.Steps != 46 || c.Epoch != 2 || c.Done != 0 || c.Batch != 64 || c.Seed != 1 || c.Extra["data"] != "digits" {
			t.Errorf("%s: progress %+v, extra %v; want 46 steps, at epoch 2, batch 64, seed 1, data digits", opt.Name(), c.Progress, c.Extra)
		}
		back, err := c.Optimizer.Optimizer()
		if err != nil || back != opt {
			t.Errorf("optimizer %v (%v), want %v", back, err, opt)
		}
		// Parameters, 2 Adam slots each (1 for momentum SGD), and the
		// running statistics of bn1.
		slots := len(opt.Slots())
		if want := 6*(1+slots) + 2; len(c.Values) != want {
			t.Errorf("%s: %d tensors, want %d", opt.Name(), len(c.Values), want)
		}
		g, err := c.Fitted(nil)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		_, te := digitsSplit(t)
		b, err := te.Batch(seq(te.Rows()))
		if err != nil {
			t.Fatal(err)
		}
		want, err := f.Predict(b.X)
		if err != nil {
			t.Fatal(err)
		}
		got, err := g.Predict(b.X)
		if err != nil {
			t.Fatal(err)
		}
		if !slicesEqualBits(got.Float32s(), want.Float32s()) {
			t.Errorf("%s: the loaded network's logits differ from the trained one's", opt.Name())
		}
		l1, a1, _ := f.Evaluate(te)
		l2, a2, err := g.Evaluate(te)
		if err != nil || l1 != l2 || a1 != a2 || a1 < 0.8 {
			t.Errorf("%s: evaluate: loaded %v, %v (%v), trained %v, %v", opt.Name(), l2, a2, err, l1, a1)
		}
	}
}

func slicesEqualBits(a, b []float32) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// Training 4 epochs straight and training 2, saving, loading and
// resuming for 2 more take the same steps: the losses are equal bit for
// bit. So are they when the run is stopped in the middle of an epoch and
// resumed from there.
func TestCheckpointResume(t *testing.T) { checkResume(t, nil) }

// The same on PJRT, where the carried values live on the device: saved
// from there and loaded back to it.
func TestCheckpointResumePJRT(t *testing.T) {
	checkResume(t, xla.New(pjrttest.Client(t), xla.Options{}))
}

func checkResume(t *testing.T, be lowering.Backend) {
	config := func(epochs int) FitConfig {
		c := digitsConfig(epochs)
		c.Backend = be
		return c
	}
	_, straight, err := fitLosses(t, context.Background(), config(4))
	if err != nil {
		t.Fatal(err)
	}
	if len(straight) != 4*23 {
		t.Fatalf("%d steps, want %d", len(straight), 4*23)
	}
	resume := func(f *Fitted, epochs int) []float64 {
		t.Helper()
		path := filepath.Join(t.TempDir(), "r.safetensors")
		if err := f.Save(path, nil); err != nil {
			t.Fatal(err)
		}
		f.Close()
		c, err := LoadCheckpoint(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := c.FitConfig(epochs, be)
		if err != nil {
			t.Fatal(err)
		}
		g, losses, err := fitLosses(t, context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		if g.Steps() != 4*23 {
			t.Errorf("resumed run ends after %d steps, want %d", g.Steps(), 4*23)
		}
		return losses
	}

	f, first, err := fitLosses(t, context.Background(), config(2))
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, "2 + 2 epochs", straight, append(first, resume(f, 2)...))

	// Stopped after 30 steps, in epoch 1: resumed for the rest of epoch 1
	// and 2 more epochs.
	ctx, cancel := context.WithCancel(context.Background())
	cfg := config(4)
	tr, te := digitsSplit(t)
	var part []float64
	f, err = Fit(ctx, cfg, tr, te, Callbacks{Step: func(m StepMetrics) {
		part = append(part, m.Loss)
		if m.Step == 30 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || f == nil {
		t.Fatalf("stopped run: %v", err)
	}
	c, err := f.Checkpoint()
	if err != nil || c.Epoch != 1 || c.Done != 7 || c.Steps != 30 {
		t.Fatalf("stopped run's checkpoint at %+v (%v), want epoch 1, 7 batches done, 30 steps", c.Progress, err)
	}
	checkSame(t, "30 steps + the rest", straight, append(part, resume(f, 3)...))
}

func checkSame(t *testing.T, what string, want, got []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d steps, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: step %d's loss is %v, straight through it is %v", what, i+1, got[i], want[i])
		}
	}
}

// A checkpoint that does not fit the model is refused with the tensor's
// name and both shapes, or the missing tensor's name.
func TestCheckpointMismatch(t *testing.T) {
	f, _, err := fitLosses(t, context.Background(), digitsConfig(1))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "m.safetensors")
	if err := f.Save(path, nil); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}

	// Resuming with another hidden size.
	cfg, err := c.FitConfig(1, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Model.Sizes = []int{64, 16, 10}
	tr, _ := digitsSplit(t)
	_, err = Fit(context.Background(), cfg, tr, nil, Callbacks{})
	want := `train: fit: resume: checkpoint: ` + path + `: tensor "bn1.mean" is f32[32] in the file, the model wants f32[16]`
	if err == nil || err.Error() != want {
		t.Errorf("resume with sizes 64-16-10: %v\nwant %s", err, want)
	}
	// Resuming with another optimizer.
	cfg.Model.Sizes = []int{64, 32, 10}
	cfg.Optimizer = optim.SGD{LR: 0.1, Momentum: 0.9}
	_, err = Fit(context.Background(), cfg, tr, nil, Callbacks{})
	want = `train: fit: resume: ` + path + ` was trained with adam, FitConfig.Optimizer is sgd; the optimizer's state does not carry over`
	if err == nil || err.Error() != want {
		t.Errorf("resume with SGD: %v\nwant %s", err, want)
	}
	// Weights for another model.
	_, err = LoadWeights(path, models.MLPConfig{Sizes: []int{64, 32, 12}, DType: graph.Float32, Norm: models.NormBatch})
	want = `train: checkpoint: ` + path + `: tensor "dense2.W" is f32[32 10] in the file, the model wants f32[32 12]`
	if err == nil || err.Error() != want {
		t.Errorf("weights for 64-32-12: %v\nwant %s", err, want)
	}

	// A file whose metadata and tensors disagree, one without its model,
	// and one missing a tensor.
	raw, err := checkpoint.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(tensors map[string]*graph.Array, meta map[string]string)
		want string
	}{
		{"other sizes", func(_ map[string]*graph.Array, meta map[string]string) {
			meta[MetaModel] = `{"sizes":[64,32,11],"dtype":"f32","norm":"batchnorm"}`
		}, `tensor "dense2.W" is f32[32 10] in the file, the model wants f32[32 11]`},
		{"no model", func(_ map[string]*graph.Array, meta map[string]string) { delete(meta, MetaModel) },
			`no "hofuse.model" in the metadata, so the model is unknown; load it with LoadWeights and the model's configuration`},
		{"missing tensor", func(tensors map[string]*graph.Array, _ map[string]string) { delete(tensors, "dense1.W.v") },
			`no tensor "dense1.W.v" (want f32[64 32]); the file holds "bn1.mean", "bn1.scale", "bn1.scale.m", "bn1.scale.v", "bn1.shift", "bn1.shift.m", "bn1.shift.v", "bn1.var", and 11 more`},
		{"wrong dtype", func(tensors map[string]*graph.Array, _ map[string]string) {
			a, err := graph.FromFloat64(tensors["dense1.b"].Values(), 32)
			if err != nil {
				t.Fatal(err)
			}
			tensors["dense1.b"] = a
		}, `tensor "dense1.b" is f64[32] in the file, the model wants f32[32]`},
		{"bad optimizer", func(_ map[string]*graph.Array, meta map[string]string) {
			meta[MetaOptimizer] = `{"name":"adam","lr":-1}`
		}, `metadata hofuse.optimizer: optim.adam: LR: -1, want a positive learning rate`},
		{"unknown field", func(_ map[string]*graph.Array, meta map[string]string) {
			meta[MetaProgress] = `{"steps":3,"epochs":1}`
		}, `metadata hofuse.progress: json: unknown field "epochs"`},
	} {
		tensors := map[string]*graph.Array{}
		for k, v := range raw.Tensors {
			tensors[k] = v
		}
		meta := map[string]string{}
		for k, v := range raw.Metadata {
			meta[k] = v
		}
		tc.edit(tensors, meta)
		p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".safetensors")
		if err := checkpoint.Save(p, tensors, meta); err != nil {
			t.Fatal(err)
		}
		_, err := LoadCheckpoint(p)
		if err == nil || !strings.HasSuffix(err.Error(), p+": "+tc.want) {
			t.Errorf("%s: %v\nwant …%s: %s", tc.name, err, p, tc.want)
		}
	}

	// A file cut short in its header or in its data.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{100, len(b) - 4} {
		p := filepath.Join(dir, "cut.safetensors")
		if err := os.WriteFile(p, b[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadCheckpoint(p)
		if err == nil || !strings.HasPrefix(err.Error(), "checkpoint: "+p+": ") ||
			!(strings.Contains(err.Error(), "the file is cut short") || strings.Contains(err.Error(), "outside the")) {
			t.Errorf("cut to %d bytes: %v", n, err)
		}
	}
}
