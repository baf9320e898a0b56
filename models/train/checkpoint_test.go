package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
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
// where training stood: for the MLP with each optimizer, and for the CNN
// (its kernels, BatchNorm parameters and running statistics of both
// kinds of block, and Adam's state).
func TestCheckpointRoundTrip(t *testing.T) {
	type tc struct {
		name string
		cfg  FitConfig
		// steps after the 2 epochs; params and stats, the tensors besides
		// the optimizer's slots.
		steps, params, stats int
	}
	var cases []tc
	for _, opt := range []optim.Optimizer{optim.NewAdam(0.01), optim.SGD{LR: 0.05, Momentum: 0.9}, optim.NewAdamW(0.01)} {
		cfg := digitsConfig(2)
		cfg.Optimizer = opt
		// dense1.W, dense1.b, bn1.scale, bn1.shift, dense2.W, dense2.b;
		// bn1.mean, bn1.var.
		cases = append(cases, tc{"mlp " + opt.Name(), cfg, 46, 6, 2})
	}
	// conv1.K, bn1.scale, bn1.shift, conv2.K, bn2.scale, bn2.shift,
	// dense1.W, dense1.b; the means and variances of bn1 and bn2.
	cases = append(cases, tc{"cnn adam", cnnDigitsConfig(2, 1), 90, 8, 4})
	for _, c := range cases {
		opt := c.cfg.Optimizer
		f, _, err := fitLosses(t, context.Background(), c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		path := filepath.Join(t.TempDir(), "m.safetensors")
		if err := f.Save(path, map[string]string{"data": "digits"}); err != nil {
			t.Fatal(err)
		}
		ck, err := LoadCheckpoint(path)
		if err != nil {
			t.Fatal(err)
		}
		if ck.Steps != c.steps || ck.Epoch != 2 || ck.Done != 0 || ck.Batch != c.cfg.Batch || ck.Seed != 1 || ck.Extra["data"] != "digits" {
			t.Errorf("%s: progress %+v, extra %v; want %d steps, at epoch 2, batch %d, seed 1, data digits", c.name, ck.Progress, ck.Extra, c.steps, c.cfg.Batch)
		}
		back, err := ck.Optimizer.Optimizer()
		if err != nil || back != opt {
			t.Errorf("%s: optimizer %v (%v), want %v", c.name, back, err, opt)
		}
		if ck.Model.IsCNN() != (c.cfg.CNN != nil) {
			t.Errorf("%s: the checkpoint records kind %q", c.name, ck.Model.Kind)
		}
		if c.cfg.CNN != nil {
			// Every field as built, defaults resolved.
			got, err := ck.Model.CNNConfig()
			want := c.cfg.CNN.WithDefaults()
			want.DType, want.Name = graph.Float32, ""
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: the CNN loads as %+v (%v), want %+v", c.name, got, err, want)
			}
		}
		// The parameters, each with its optimizer slots, and the
		// running statistics.
		if want := c.params*(1+len(opt.Slots())) + c.stats; len(ck.Values) != want {
			t.Errorf("%s: %d tensors, want %d", c.name, len(ck.Values), want)
		}
		g, err := ck.Fitted(nil)
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
			t.Errorf("%s: the loaded network's logits differ from the trained one's", c.name)
		}
		l1, a1, _ := f.Evaluate(te)
		l2, a2, err := g.Evaluate(te)
		if err != nil || l1 != l2 || a1 != a2 || a1 < 0.8 {
			t.Errorf("%s: evaluate: loaded %v, %v (%v), trained %v, %v", c.name, l2, a2, err, l1, a1)
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
// resumed from there. For the MLP and for the CNN, whose BatchNorm
// running statistics and kernels carry over too.
func TestCheckpointResume(t *testing.T) {
	t.Run("mlp", func(t *testing.T) { checkResume(t, digitsConfig, nil) })
	t.Run("cnn", func(t *testing.T) { checkResume(t, func(e int) FitConfig { return cnnDigitsConfig(e, 1) }, nil) })
}

// The same on PJRT, where the carried values live on the device: saved
// from there and loaded back to it.
func TestCheckpointResumePJRT(t *testing.T) {
	be := xla.New(pjrttest.Client(t), xla.Options{})
	t.Run("mlp", func(t *testing.T) { checkResume(t, digitsConfig, be) })
	t.Run("cnn", func(t *testing.T) { checkResume(t, func(e int) FitConfig { return cnnDigitsConfig(e, 1) }, be) })
}

// checkResume trains model(epochs) on be straight through and in pieces
// saved and resumed, and compares every step's loss.
func checkResume(t *testing.T, model func(epochs int) FitConfig, be lowering.Backend) {
	config := func(epochs int) FitConfig {
		c := model(epochs)
		c.Backend = be
		return c
	}
	tr, te := digitsSplit(t)
	perEpoch := tr.NumBatches(config(1).Batch, false)
	_, straight, err := fitLosses(t, context.Background(), config(4))
	if err != nil {
		t.Fatal(err)
	}
	if len(straight) != 4*perEpoch {
		t.Fatalf("%d steps, want %d", len(straight), 4*perEpoch)
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
		if g.Steps() != 4*perEpoch {
			t.Errorf("resumed run ends after %d steps, want %d", g.Steps(), 4*perEpoch)
		}
		return losses
	}

	f, first, err := fitLosses(t, context.Background(), config(2))
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, "2 + 2 epochs", straight, append(first, resume(f, 2)...))

	// Stopped 7 steps into epoch 1: resumed for the rest of epoch 1 and
	// 2 more epochs.
	stop := perEpoch + 7
	ctx, cancel := context.WithCancel(context.Background())
	cfg := config(4)
	var part []float64
	f, err = Fit(ctx, cfg, tr, te, Callbacks{Step: func(m StepMetrics) {
		part = append(part, m.Loss)
		if m.Step == stop {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || f == nil {
		t.Fatalf("stopped run: %v", err)
	}
	c, err := f.Checkpoint()
	if err != nil || c.Epoch != 1 || c.Done != 7 || c.Steps != stop {
		t.Fatalf("stopped run's checkpoint at %+v (%v), want epoch 1, 7 batches done, %d steps", c.Progress, err, stop)
	}
	checkSame(t, fmt.Sprintf("%d steps + the rest", stop), straight, append(part, resume(f, 3)...))
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
	// Resuming an MLP's checkpoint as a CNN.
	cfg.Optimizer = optim.NewAdam(0.01)
	cfg.CNN = &models.CNNConfig{}
	_, err = Fit(context.Background(), cfg, tr, nil, Callbacks{})
	want = `train: fit: resume: ` + path + ` holds an MLP, FitConfig trains a CNN; resume with the checkpoint's model (Checkpoint.FitConfig)`
	if err == nil || err.Error() != want {
		t.Errorf("resume as a CNN: %v\nwant %s", err, want)
	}
	// Weights for another model.
	_, err = LoadWeights(path, SpecOf(models.MLPConfig{Sizes: []int{64, 32, 12}, DType: graph.Float32, Norm: models.NormBatch}))
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
		{"unknown kind", func(_ map[string]*graph.Array, meta map[string]string) {
			meta[MetaModel] = `{"kind":"rnn","sizes":[64,32,10],"dtype":"f32","norm":"batchnorm"}`
		}, `metadata hofuse.model: kind "rnn", want "mlp" or "cnn"`},
		{"cnn field on an mlp", func(_ map[string]*graph.Array, meta map[string]string) {
			meta[MetaModel] = `{"sizes":[64,32,10],"dtype":"f32","norm":"batchnorm","conv":[8]}`
		}, `metadata hofuse.model: conv is set, which describes a CNN, and the kind is "mlp"; want kind "cnn" or no conv`},
		{"cnn with sizes", func(_ map[string]*graph.Array, meta map[string]string) {
			meta[MetaModel] = `{"kind":"cnn","sizes":[64,10],"dtype":"f32","norm":"batchnorm","height":8,"width":8,"channels":1,"conv":[8],"kernel":3,"pool":2,"classes":10}`
		}, `metadata hofuse.model: sizes [64 10] describe an MLP, and the kind is "cnn"; want no sizes`},
		{"cnn without a kernel", func(_ map[string]*graph.Array, meta map[string]string) {
			meta[MetaModel] = `{"kind":"cnn","dtype":"f32","norm":"batchnorm","height":8,"width":8,"channels":1,"conv":[8],"pool":2,"classes":10}`
		}, `metadata hofuse.model: kernel 0, want at least 1`},
		{"cnn too small", func(_ map[string]*graph.Array, meta map[string]string) {
			meta[MetaModel] = `{"kind":"cnn","dtype":"f32","norm":"batchnorm","height":2,"width":2,"channels":16,"conv":[8,8],"kernel":3,"pool":2,"classes":10}`
		}, `metadata hofuse.model: CNNConfig.Pool: block 2 pools a 1x1 image with a 2x2 window: the image is too small for 2 blocks`},
		{"cnn over an mlp's tensors", func(_ map[string]*graph.Array, meta map[string]string) {
			meta[MetaModel] = `{"kind":"cnn","dtype":"f32","norm":"batchnorm","height":8,"width":8,"channels":1,"conv":[8,16],"kernel":3,"pool":2,"classes":10}`
		}, `tensor "bn1.mean" is f32[32] in the file, the model wants f32[8]`},
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
