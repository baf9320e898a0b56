package models

import (
	"slices"
	"testing"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/optim"
)

// TestCNNStructure: the default CNN's layers, parameters and types.
func TestCNNStructure(t *testing.T) {
	m, err := CNN(CNNConfig{Batch: 2, DType: graph.Float64, Norm: NormBatch})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"conv1", "bn1", "relu1", "pool1", "conv2", "bn2", "relu2", "pool2", "flatten", "dense1"}
	if !slices.Equal(m.Layers, want) {
		t.Errorf("layers %v, want %v", m.Layers, want)
	}
	var names []string
	for _, p := range m.Params {
		names = append(names, p.Name+" "+p.Type.String())
	}
	wantParams := []string{"conv1.K f64[3,3,1,8]", "bn1.mean f64[8]", "bn1.var f64[8]", "bn1.scale f64[8]", "bn1.shift f64[8]",
		"conv2.K f64[3,3,8,16]", "bn2.mean f64[16]", "bn2.var f64[16]", "bn2.scale f64[16]", "bn2.shift f64[16]",
		"dense1.W f64[64,10]", "dense1.b f64[10]"}
	if !slices.Equal(names, wantParams) {
		t.Errorf("params\n%v\nwant\n%v", names, wantParams)
	}
	if got := m.Input.Type.String(); got != "f64[2,64]" {
		t.Errorf("input %s", got)
	}
	if got := m.OutputType.String(); got != "f64[2,10]" {
		t.Errorf("output %s", got)
	}
	v, err := graph.Eval(m.Output, m.Bindings(1))
	if err != nil {
		t.Fatal(err)
	}
	if a := v.(*graph.Array); !slices.Equal(a.Extents(), []int{2, 10}) {
		t.Errorf("output extents %v", a.Extents())
	}

	// Valid convolutions, no BatchNorm, a hidden layer.
	m, err = CNN(CNNConfig{Batch: 3, DType: graph.Float32, Valid: true, Conv: []int{4}, Hidden: []int{5}, Classes: 3})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"conv1", "relu1", "pool1", "flatten", "dense1", "relu2", "dense2"}
	if !slices.Equal(m.Layers, want) {
		t.Errorf("layers %v, want %v", m.Layers, want)
	}
	if got := m.Params[2].Type.String(); got != "f32[36,5]" { // 8-3+1 = 6, pooled 3: 3*3*4
		t.Errorf("dense1.W %s", got)
	}
}

// TestCNNConfigErrors: a config that cannot be built names its field.
func TestCNNConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  CNNConfig
		want string
	}{
		{CNNConfig{Batch: 0, DType: graph.Float32}, "CNNConfig.Batch: 0, want at least 1"},
		{CNNConfig{Batch: 2, DType: graph.Int32}, "CNNConfig.DType: i32, want f32 or f64"},
		{CNNConfig{Batch: 2, DType: graph.Float32, Conv: []int{4, 4, 4, 4}}, "CNNConfig.Pool: block 4 pools a 1x1 image with a 2x2 window: the image is too small for 4 blocks"},
		{CNNConfig{Batch: 2, DType: graph.Float32, Valid: true, Kernel: 5, Conv: []int{4, 4}}, "CNNConfig.Kernel: block 2 convolves a 2x2 image with a valid 5x5 window: the image is too small for 2 blocks"},
		{CNNConfig{Batch: 2, DType: graph.Float32, Conv: []int{4, 0}}, "CNNConfig.Conv[1]: 0 channels, want 1 to 1099511627776"},
		{CNNConfig{Batch: 2, DType: graph.Float32, Norm: NormLayer}, "CNNConfig.Norm: layernorm, want batchnorm or none"},
	} {
		_, err := CNN(tc.cfg)
		if err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %s", err, tc.want)
		}
	}
}

// TestCNNTrainStepLearns: the CNN's training step (forward, backward
// through the windows, pads and poolings, BatchNorm's running statistics,
// SGD) lowers the loss of a fixed batch on the interpreter.
func TestCNNTrainStepLearns(t *testing.T) {
	m, err := CNN(CNNConfig{Batch: 4, DType: graph.Float64, Norm: NormBatch, Mode: Training, Conv: []int{3, 4}, Height: 6, Width: 6})
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.TrainStep(TrainConfig{Optimizer: optim.SGD{LR: 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	carried, err := s.InitialValues(m.RandomParams(3))
	if err != nil {
		t.Fatal(err)
	}
	x := m.RandomInput(4)
	y, err := graph.Zeros(graph.Int32, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []int{3, 1, 4, 1} {
		y.Set(float64(c), i)
	}
	var losses []float64
	for step := 1; step <= 6; step++ {
		b, err := s.Bindings(carried, x, y, step)
		if err != nil {
			t.Fatal(err)
		}
		v, err := graph.Eval(s.Term, b)
		if err != nil {
			t.Fatal(err)
		}
		tv := v.(graph.TupleValue)
		losses = append(losses, tv[0].(graph.ScalarValue).V)
		for i, in := range s.Outputs {
			carried[in.Name] = tv[i+1]
		}
	}
	t.Logf("losses %v", losses)
	if !(losses[len(losses)-1] < 0.7*losses[0]) {
		t.Errorf("six SGD steps on one batch took the loss from %v to %v, want below 70%% of it", losses[0], losses[len(losses)-1])
	}
}
