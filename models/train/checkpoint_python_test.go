package train

import (
	"context"
	"flag"
	"math"
	"path/filepath"
	"testing"

	"github.com/hofuse/hofuse/checkpoint"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/models"
)

var writeFixture = flag.Bool("write-fixture", false, "rewrite testdata/hofuse_mlp*.safetensors, which testdata/mlp_fixture.py verify checks in Python")

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
			if d := math.Abs(logits.At(i, j) - want.At(i, j)); d > 1e-4*(1+math.Abs(want.At(i, j))) {
				t.Errorf("trained again: logit [%d, %d] = %v, recorded %v", i, j, logits.At(i, j), want.At(i, j))
			}
		}
	}
}
