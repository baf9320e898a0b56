package train

import (
	"context"
	"flag"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/checkpoint"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/layers"
	"github.com/hofuse/hofuse/models"
	"github.com/hofuse/hofuse/optim"
)

var writeFixture = flag.Bool("write-fixture", false, "rewrite testdata/hofuse_mlp*.safetensors and hofuse_cnn*.safetensors, which testdata/mlp_fixture.py verify and cnn_fixture.py check in Python")

// A checkpoint written by Python's safetensors (testdata/mlp_fixture.py
// write) loads into a hofuse network, from the file alone and with
// LoadWeights, and predicts the logits numpy computed in float64 on the
// same rows, to f32 rounding.
func TestPythonCheckpoint(t *testing.T) {
	io, err := checkpoint.Load(filepath.Join("testdata", "python_mlp_io.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	x, want := io.Tensors["x"], io.Tensors["logits"]
	path := filepath.Join("testdata", "python_mlp.safetensors")
	c, err := LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Extra["by"] != "python" || c.Optimizer.Name != "" || len(c.Values) != 8 {
		t.Fatalf("loaded %d values, optimizer %q, extra %v; want the 8 inference tensors, none, by python", len(c.Values), c.Optimizer.Name, c.Extra)
	}
	w, err := LoadWeights(path, SpecOf(models.MLPConfig{Sizes: []int{4, 5, 3}, DType: graph.Float32, Norm: models.NormBatch}))
	if err != nil {
		t.Fatal(err)
	}
	for _, ck := range []*Checkpoint{c, w} {
		f, err := ck.Fitted(nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.Predict(x)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for i := range 6 {
			for j := range 3 {
				if d := math.Abs(got.At(i, j) - want.At(i, j)); d > 1e-5*(1+math.Abs(want.At(i, j))) {
					t.Errorf("logit [%d, %d] = %v, numpy's is %v", i, j, got.At(i, j), want.At(i, j))
				}
			}
		}
	}
	// Resuming needs the optimizer's state, which a file of weights lacks.
	if _, err := c.FitConfig(1, nil); err == nil || err.Error() != "train: "+path+": cannot resume: no optimizer recorded (a file of weights only)" {
		t.Errorf("resume from weights only: %v", err)
	}
}

// hofuse_mlp.safetensors, a checkpoint of the digits MLP 64-32-10 after 2
// epochs of Adam, is checked in Python by testdata/mlp_fixture.py verify
// (see testdata/README.md for its last output). Here: training again
// writes the same tensors and metadata, and the committed file still
// loads and predicts the logits recorded beside it.
func TestHofuseCheckpointFixture(t *testing.T) {
	path := filepath.Join("testdata", "hofuse_mlp.safetensors")
	ioPath := filepath.Join("testdata", "hofuse_mlp_io.safetensors")
	f, _, err := fitLosses(t, context.Background(), digitsConfig(2))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, te := digitsSplit(t)
	b, err := te.Batch(seq(8))
	if err != nil {
		t.Fatal(err)
	}
	logits, err := f.Predict(b.X)
	if err != nil {
		t.Fatal(err)
	}
	if *writeFixture {
		if err := f.Save(path, nil); err != nil {
			t.Fatal(err)
		}
		if err := checkpoint.Save(ioPath, map[string]*graph.Array{"x": b.X, "logits": logits}, nil); err != nil {
			t.Fatal(err)
		}
	}
	c, err := LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	// The committed file was written before checkpoints recorded a
	// model's kind: it loads as the MLP it is (unless rewritten).
	if mc, err := c.Model.Config(); err != nil || c.Model.IsCNN() || len(mc.Sizes) != 3 || (c.Model.Kind != "" && !*writeFixture) {
		t.Errorf("committed checkpoint: model %+v loads as %+v (%v), want the MLP 64-32-10 with no kind recorded", c.Model, mc, err)
	}
	io, err := checkpoint.Load(ioPath)
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.Fitted(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	got, err := g.Predict(io.Tensors["x"])
	if err != nil {
		t.Fatal(err)
	}
	want := io.Tensors["logits"]
	for i := range 8 {
		for j := range 10 {
			if d := math.Abs(got.At(i, j) - want.At(i, j)); d > 1e-4*(1+math.Abs(want.At(i, j))) {
				t.Errorf("committed checkpoint: logit [%d, %d] = %v, recorded %v", i, j, got.At(i, j), want.At(i, j))
			}
		}
		// Training again reaches the same classes. Its logits are not
		// compared: two epochs of Adam amplify any change in the order
		// a kernel adds float32s to about 1%.
		if g, w := argmaxRow(logits, i, 10), argmaxRow(want, i, 10); g != w {
			t.Errorf("trained again: row %d is class %d, recorded %d", i, g, w)
		}
	}
}

// argmaxRow is the column of row i's largest value among the first n.
func argmaxRow(a *graph.Array, i, n int) int {
	best := 0
	for j := 1; j < n; j++ {
		if a.At(i, j) > a.At(i, best) {
			best = j
		}
	}
	return best
}

// cnnFixtures are the CNNs whose checkpoints testdata/cnn_fixture.py
// runs in JAX: the default LeNet-like CNN after an epoch of Adam, and a
// valid-padded one with a bias in its convolution, a hidden dense layer,
// tanh and no BatchNorm after an epoch of SGD with momentum.
var cnnFixtures = []struct {
	name string
	cfg  FitConfig
}{
	{"hofuse_cnn", cnnDigitsConfig(1, 1)},
	{"hofuse_cnn_valid", FitConfig{
		CNN:       &models.CNNConfig{Conv: []int{4}, Valid: true, Hidden: []int{12}, Norm: models.NormNone, Activation: layers.ActTanh},
		Optimizer: optim.SGD{LR: 0.05, Momentum: 0.9}, Epochs: 1, Batch: 32, Seed: 2,
	}},
}

// The CNN checkpoints hofuse writes (testdata/hofuse_cnn*.safetensors,
// rewritten by -write-fixture with the rows of hofuse_cnn_io.safetensors)
// load back and predict the logits JAX computed from the file alone, in
// float64, with lax.conv_general_dilated, reduce_window and BatchNorm's
// inference formula (testdata/cnn_fixture.py, jax_cnn_logits.safetensors),
// to f32 rounding. And a CNN whose weights Python drew and wrote
// (python_cnn.safetensors: 6x5x2 images, odd extents, two channels, a
// hidden layer) loads from the file alone and with LoadWeights and
// predicts JAX's logits.
func TestCNNCheckpointFixture(t *testing.T) {
	ioPath := filepath.Join("testdata", "hofuse_cnn_io.safetensors")
	if *writeFixture {
		_, te := digitsSplit(t)
		b, err := te.Batch(seq(8))
		if err != nil {
			t.Fatal(err)
		}
		for _, fx := range cnnFixtures {
			f, _, err := fitLosses(t, context.Background(), fx.cfg)
			if err != nil {
				t.Fatal(err)
			}
			err = f.Save(filepath.Join("testdata", fx.name+".safetensors"), nil)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := checkpoint.Save(ioPath, map[string]*graph.Array{"x": b.X}, nil); err != nil {
			t.Fatal(err)
		}
		t.Log("wrote the CNN checkpoints; now run testdata/cnn_fixture.py (see its header) and this test again")
	}
	io, err := checkpoint.Load(ioPath)
	if err != nil {
		t.Fatal(err)
	}
	jax, err := checkpoint.Load(filepath.Join("testdata", "jax_cnn_logits.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, c *Checkpoint, x, want *graph.Array) {
		t.Helper()
		f, err := c.Fitted(nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer f.Close()
		got, err := f.Predict(x)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !slices.Equal(got.Extents(), want.Extents()) {
			t.Fatalf("%s: logits %v, JAX's %v", what, got.Extents(), want.Extents())
		}
		rows, cols := want.Extents()[0], want.Extents()[1]
		worst := 0.0
		for i := range rows {
			for j := range cols {
				d := math.Abs(got.At(i, j) - want.At(i, j))
				worst = max(worst, d)
				if d > 1e-4*(1+math.Abs(want.At(i, j))) {
					t.Errorf("%s: logit [%d, %d] = %v, JAX's is %v", what, i, j, got.At(i, j), want.At(i, j))
				}
			}
		}
		t.Logf("%s: %d×%d logits within %.2g of JAX's", what, rows, cols, worst)
	}
	for _, fx := range cnnFixtures {
		c, err := LoadCheckpoint(filepath.Join("testdata", fx.name+".safetensors"))
		if err != nil {
			t.Fatal(err)
		}
		want := fx.cfg.CNN.WithDefaults()
		want.DType, want.Name = graph.Float32, ""
		if got, err := c.Model.CNNConfig(); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: records %+v (%v), want %+v", fx.name, got, err, want)
		}
		logits, ok := jax.Tensors[fx.name]
		if !ok {
			t.Fatalf("jax_cnn_logits.safetensors has no %q: rerun testdata/cnn_fixture.py", fx.name)
		}
		check(fx.name, c, io.Tensors["x"], logits)
	}

	path := filepath.Join("testdata", "python_cnn.safetensors")
	pio, err := checkpoint.Load(filepath.Join("testdata", "python_cnn_io.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Extra["by"] != "python" || c.Optimizer.Name != "" || len(c.Values) != 13 {
		t.Fatalf("loaded %d values, optimizer %q, extra %v; want the 13 inference tensors (conv1.K, bn1 and bn2 with their statistics, dense1 and dense2), none, by python", len(c.Values), c.Optimizer.Name, c.Extra)
	}
	check("python_cnn", c, pio.Tensors["x"], pio.Tensors["logits"])
	spec := CNNSpecOf(models.CNNConfig{Height: 6, Width: 5, Channels: 2, Conv: []int{3}, Kernel: 3, Pool: 2, Hidden: []int{4}, Classes: 3,
		DType: graph.Float32, Norm: models.NormBatch})
	w, err := LoadWeights(path, spec)
	if err != nil {
		t.Fatal(err)
	}
	check("python_cnn by LoadWeights", w, pio.Tensors["x"], pio.Tensors["logits"])
	// A configuration the file does not fit names the tensor.
	spec.Conv = []int{5}
	_, err = LoadWeights(path, spec)
	if want := `tensor "bn1.mean" is f32[3] in the file, the model wants f32[5]`; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("LoadWeights with conv 5: %v, want …%s", err, want)
	}
}
