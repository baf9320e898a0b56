package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npz"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/hofuse/hofuse/pjrt/pjrttest"
)

// trainJSON runs "train --json" with args and decodes its report.
func trainJSON(t *testing.T, args ...string) trainReport {
	t.Helper()
	code, out, errs := hofuse(append([]string{"train", "--json"}, args...)...)
	require.Equal(t, 0, code, "train %q: %s", args, errs)
	assert.Empty(t, errs, "train --json draws no bar and says nothing on stderr")
	var rep trainReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	return rep
}

// "hofuse train --model cnn" on the digits with its defaults: the loss
// falls, 3 epochs pass a floor (20 reach the 98%, see
// BenchmarkFitCNNDigits), and the checkpoint predicts the test rows
// with the test accuracy and loss train reported, with 10 logits a row.
func TestTrainCNN(t *testing.T) {
	dir := t.TempDir()
	save, png := filepath.Join(dir, "cnn.safetensors"), filepath.Join(dir, "curves.png")
	rep := trainJSON(t, "--model", "cnn", "--epochs", "3", "--save", save, "--plot", png)
	assert.Equal(t, "CNN 8x8x1, conv 8,16 (3x3 same), pool 2, 10 classes, f32, batchnorm, relu", rep.Model)
	assert.Equal(t, "Adam (lr 0.003)", rep.Optimizer)
	assert.Equal(t, 32, rep.Batch)
	require.Len(t, rep.History, 3)
	assert.Less(t, rep.History[2].TrainLoss, rep.History[0].TrainLoss/2, "the loss falls")
	assert.Equal(t, 3*45, rep.Steps, "45 steps an epoch: 44 batches of 32 and one of 30")
	assert.Greater(t, rep.TestAccuracy, 0.93)
	img, err := os.ReadFile(png)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(img), "\x89PNG\r\n\x1a\n"), "--plot writes a PNG")

	code, out, errs := hofuse("predict", "--json", "--test", "--logits", "--model", save)
	require.Equal(t, 0, code, errs)
	var pr predictReport
	require.NoError(t, json.Unmarshal([]byte(out), &pr))
	assert.Equal(t, rep.Model, pr.Model)
	assert.Equal(t, rep.TestRows, pr.Rows)
	assert.Equal(t, rep.TestAccuracy, pr.Accuracy)
	assert.InDelta(t, rep.TestLoss, pr.Loss, 1e-12)
	require.Len(t, pr.Logits, rep.TestRows)
	for i, row := range pr.Logits {
		require.Len(t, row, 10)
		best := 0
		for j := range row {
			if row[j] > row[best] {
				best = j
			}
		}
		assert.Equal(t, best, pr.Predictions[i], "row %d: the prediction is the largest logit", i)
	}
}

// "hofuse train" on the digits: the loss falls, the test accuracy is far
// past the 10% of untrained weights, the checkpoint it saves predicts
// with the same accuracy, and the plot is a PNG.
func TestTrainDigits(t *testing.T) {
	dir := t.TempDir()
	save, png := filepath.Join(dir, "m.safetensors"), filepath.Join(dir, "curves.png")
	rep := trainJSON(t, "--epochs", "3", "--save", save, "--plot", png)
	require.Len(t, rep.History, 3)
	first, last := rep.History[0], rep.History[2]
	assert.Less(t, last.TrainLoss, first.TrainLoss/2, "the loss falls")
	assert.Greater(t, rep.TestAccuracy, 0.9, "random weights reach about 0.1")
	assert.Equal(t, 3*23, rep.Steps, "23 steps an epoch: 22 batches of 64 and one of 30")
	assert.Greater(t, rep.StepsPerSecond, 0.0)
	assert.Equal(t, 1438, rep.TrainRows)
	assert.Equal(t, 359, rep.TestRows)
	require.NotNil(t, last.ValAccuracy)
	assert.Equal(t, rep.TestAccuracy, *last.ValAccuracy, "without a validation part, the test rows validate")
	assert.Equal(t, "MLP 64-128-128-10, f32, batchnorm, relu", rep.Model)
	img, err := os.ReadFile(png)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(img), "\x89PNG\r\n\x1a\n"), "--plot writes a PNG")

	code, out, errs := hofuse("predict", "--model", save, "--json")
	require.Equal(t, 0, code, errs)
	var pr predictReport
	require.NoError(t, json.Unmarshal([]byte(out), &pr))
	require.Len(t, pr.Predictions, 1797)
	right := 0
	for i, p := range pr.Predictions {
		if int32(p) == pr.Labels[i] {
			right++
		}
	}
	assert.InDelta(t, float64(right)/1797, pr.Accuracy, 1e-12, "the accuracy counts the predictions printed")
	assert.Greater(t, pr.Accuracy, 0.9)

	// The text output: a line per row and the accuracy last.
	code, out, errs = hofuse("predict", "--model", save)
	require.Equal(t, 0, code, errs)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assert.Len(t, lines, 2+1797+1)
	assert.Regexp(t, `^accuracy \d+\.\d\d% \(\d+ of 1797 rows\), loss \d\.\d{4}$`, lines[len(lines)-1])
}

// Two epochs, saved, and two more resumed from the file alone give the
// per-epoch losses of four epochs straight, exactly: for the MLP and for
// the CNN, whose model comes from the file too.
func TestTrainResume(t *testing.T) {
	save := filepath.Join(t.TempDir(), "r.safetensors")
	for _, model := range [][]string{nil, {"--model", "cnn", "--conv", "4,8"}} {
		straight := trainJSON(t, append([]string{"--epochs", "4"}, model...)...)
		a := trainJSON(t, append([]string{"--epochs", "2", "--save", save}, model...)...)
		b := trainJSON(t, "--epochs", "2", "--resume", save)
		assert.Equal(t, straight.Model, b.Model)
		got := append(a.History, b.History...)
		require.Len(t, got, 4)
		for i, e := range straight.History {
			assert.Equal(t, e.Epoch, got[i].Epoch)
			assert.Equal(t, e.TrainLoss, got[i].TrainLoss, "%q: epoch %d", model, e.Epoch)
			assert.Equal(t, *e.ValLoss, *got[i].ValLoss, "%q: epoch %d", model, e.Epoch)
		}
		assert.Equal(t, straight.TestAccuracy, b.TestAccuracy, "%q", model)
	}

	// The split is the checkpoint's too.
	v := trainJSON(t, "--epochs", "1", "--split", "0.7,0.1,0.2", "--save", save)
	w := trainJSON(t, "--epochs", "1", "--resume", save)
	assert.Equal(t, v.TrainRows, w.TrainRows)
	assert.Equal(t, v.ValRows, w.ValRows)
	assert.Equal(t, 180, w.ValRows)
}

// Bad input is refused before any training: one line naming the problem
// and what to change, nothing on stdout, and no file written.
func TestTrainBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	empty := write("empty.csv", "")
	labels := write("labels.csv", "0.1,0.2,0\n0.3,0.4,1\n0.5,0.6,7\n0.7,0.8,1\n0.1,0.9,0\n")
	ragged := write("ragged.csv", "0.1,0.2,0\n0.3,1\n")
	missing := filepath.Join(dir, "nothere.csv")
	save := filepath.Join(dir, "out.safetensors")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--data", missing}, 2, "--data " + missing + ": no such file; check the path, or pass --data digits for the built-in digits"},
		{[]string{"--data", empty}, 1, "--data " + empty + ": the file is empty; want rows of features and a label"},
		{[]string{"--data", ragged}, 1, ragged + ":2: 2 fields, want 3 as in the first line (a ragged row)"},
		{[]string{"--data", labels, "--sizes", "2,8,3", "--batch", "2"}, 1,
			"--data " + labels + ": row 3 has label 7, out of range for the model's 3 outputs; fix the labels, or pass --sizes with 8 as its last size"},
		{[]string{"--sizes", "60,128,10"}, 1,
			"--data digits: 64 features a row, the model's input takes 60; pass --sizes with 64 as its first size"},
		{[]string{"--batch", "5000"}, 2, "--batch 5000: the training set has 1438 rows; pass --batch 1438 or less"},
		{[]string{"--data", labels, "--batch", "8", "--split", "0.6,0.4"}, 2, "--batch 8: the training set has 3 rows; pass --batch 3 or less"},
		{[]string{"--save", filepath.Join(dir, "no", "m.safetensors")}, 2,
			"--save " + filepath.Join(dir, "no", "m.safetensors") + ": the folder " + filepath.Join(dir, "no") + " does not exist; create it or write elsewhere"},
		{[]string{"--save", dir}, 2, "--save " + dir + ": want a file name ending in .safetensors"},
		{[]string{"--save", filepath.Join(dir, "m.bin")}, 2, "--save " + filepath.Join(dir, "m.bin") + ": want a file name ending in .safetensors"},
		{[]string{"--data", "mnist:" + missing}, 2, "--data mnist:" + missing + ": " + missing + " is not a folder; give the folder that holds MNIST's train-images-idx3-ubyte and its kin"},
		{[]string{"--data", "x.parquet"}, 2, "--data x.parquet: want digits, a FILE.csv, FILE.csv.gz or FILE.npz, or mnist:DIR"},
		{[]string{"--optimizer", "rmsprop"}, 2, `--optimizer: "rmsprop" is not sgd, momentum, adam or adamw`},
		{[]string{"--lr", "-1"}, 2, "--lr -1: a learning rate must be positive"},
		{[]string{"--epochs", "0"}, 2, "--epochs 0: train at least 1 epoch"},
		{[]string{"--batch", "1"}, 2, "--batch 1: BatchNorm normalises with the batch's statistics, so a batch needs at least 2 rows; pass a larger --batch, or --norm layernorm"},
		{[]string{"--mode", "training"}, 2, "--mode: train builds the network for training and for inference itself; leave --mode out"},
		{[]string{"--split", "0.5,0.4"}, 2, "--split 0.5,0.4: want 2 fractions (train, test) or 3 (train, validation, test) that sum to 1, as 0.8,0.2"},
		{[]string{"--resume", missing}, 1, "--resume " + missing + ": checkpoint: open " + missing + ": no such file or directory"},
		{[]string{"--model", "rnn"}, 2, "--model rnn: want mlp or cnn"},
		{[]string{"--conv", "8"}, 2, "--conv: describes the CNN (cnn); the MLP's sizes are --sizes"},
		{[]string{"--model", "cnn", "--sizes", "64,10"}, 2, "--sizes: describes the MLP; the CNN's sizes are --image, --conv, --kernel, --pool, --hidden and --classes"},
		{[]string{"--model", "cnn", "--image", "28x28x1"}, 1,
			"--data digits: 64 features a row, the model's input takes 784; pass an --image HxWxC whose H·W·C is 64, as 8x8x1 (--image 28x28x1 takes 784)"},
		{[]string{"--model", "cnn", "--image", "4x4x3", "--data", labels, "--batch", "2"}, 1,
			"--data " + labels + ": 2 features a row, the model's input takes 48; pass an --image HxWxC whose H·W·C is 2 (--image 4x4x3 takes 48)"},
		{[]string{"--model", "cnn", "--image", "8x8"}, 2, "--image 8x8: want HxWxC, as 8x8x1"},
		{[]string{"--model", "cnn", "--classes", "5"}, 1,
			"--data digits: row 6 has label 5, out of range for the model's 5 outputs; fix the labels, or pass --classes 10"},
		{[]string{"--model", "cnn", "--norm", "layernorm"}, 2, "--norm: layernorm, want batchnorm or none"},
		{[]string{"--model", "cnn", "--batch", "1"}, 2, "--batch 1: BatchNorm normalises with the batch's statistics, so a batch needs at least 2 rows; pass a larger --batch, or --norm none"},
		{[]string{"--model", "cnn", "--kernel", "9", "--valid"}, 2, "--kernel: block 1 convolves a 8x8 image with a valid 9x9 window: the image is too small for 2 blocks"},
		{[]string{"--model", "cnn", "--conv", "8,0"}, 2, "--conv 8,0: size 2 is 0, want at least 1"},
	} {
		code, out, errs := hofuse(append([]string{"train", "--save", save}, tc.args...)...)
		if tc.args[0] == "--save" {
			code, out, errs = hofuse(append([]string{"train"}, tc.args...)...)
		}
		assert.Equal(t, tc.code, code, "%q: %s", tc.args, errs)
		first, _, _ := strings.Cut(errs, "\n")
		assert.Equal(t, "hofuse train: "+tc.want, first, "%q", tc.args)
		assert.Empty(t, out, "%q: nothing trained", tc.args)
		_, err := os.Stat(save)
		assert.True(t, os.IsNotExist(err), "%q: no checkpoint written", tc.args)
	}
}

// A checkpoint resumed or predicted on data it does not fit is refused,
// naming the checkpoint's model, and so are the flags of a model given
// with --resume (those of the other kind by name); a file that is not a
// hofuse checkpoint says what is missing.
func TestPredictBadInput(t *testing.T) {
	dir := t.TempDir()
	save := filepath.Join(dir, "m.safetensors")
	trainJSON(t, "--epochs", "1", "--save", save)
	cnn := filepath.Join(dir, "cnn.safetensors")
	cnnModel := trainJSON(t, "--model", "cnn", "--conv", "4", "--epochs", "1", "--save", cnn).Model
	small := filepath.Join(dir, "small.csv")
	require.NoError(t, os.WriteFile(small, []byte("0.1,0.2,0\n0.3,0.4,1\n0.5,0.6,1\n0.7,0.8,0\n0.9,1,1\n"), 0o644))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"predict"}, 2, "hofuse predict: --model: name the network to predict with, a FILE.safetensors that 'hofuse train --save' wrote"},
		{[]string{"predict", "--model", save, "--data", small}, 1,
			"hofuse predict: --data " + small + ": 2 features a row, the model's input takes 64; the model (MLP 64-128-128-10, f32, batchnorm, relu) was trained on other data"},
		{[]string{"train", "--resume", save, "--data", small, "--split", "0.6,0.4"}, 1,
			"hofuse train: --data " + small + ": 2 features a row, the model's input takes 64; the checkpoint's model (MLP 64-128-128-10, f32, batchnorm, relu) was trained on other data"},
		{[]string{"train", "--resume", save, "--sizes", "64,10"}, 2, "hofuse train: --sizes: comes from the checkpoint --resume reads; leave it out"},
		{[]string{"train", "--resume", save, "--model", "cnn"}, 2, "hofuse train: --model cnn: " + save + " holds an MLP; --resume takes the model from the checkpoint, leave --model out"},
		{[]string{"train", "--resume", save, "--conv", "8"}, 2, "hofuse train: --conv: describes a CNN, and " + save + " holds an MLP; --resume takes the model from the checkpoint, leave it out"},
		{[]string{"predict", "--model", cnn, "--data", small}, 1,
			"hofuse predict: --data " + small + ": 2 features a row, the model's input takes 64; the model (" + cnnModel + ") was trained on other data"},
		{[]string{"train", "--resume", cnn, "--model", "mlp"}, 2, "hofuse train: --model mlp: " + cnn + " holds a CNN; --resume takes the model from the checkpoint, leave --model out"},
		{[]string{"train", "--resume", cnn, "--sizes", "64,10"}, 2, "hofuse train: --sizes: describes an MLP, and " + cnn + " holds a CNN; --resume takes the model from the checkpoint, leave it out"},
		{[]string{"train", "--resume", cnn, "--kernel", "5"}, 2, "hofuse train: --kernel: comes from the checkpoint --resume reads; leave it out"},
		{[]string{"predict", "--model", small}, 1, "hofuse predict: --model " + small + ": checkpoint: " + small + ": header length 3184658670939090480 is past the format's limit of 100000000 bytes; not a safetensors file, or a damaged one"},
	} {
		code, out, errs := hofuse(tc.args...)
		assert.Equal(t, tc.code, code, "%q: %s", tc.args, errs)
		first, _, _ := strings.Cut(errs, "\n")
		assert.Equal(t, tc.want, first, "%q", tc.args)
		assert.Empty(t, out)
	}
}

// The demo's text ends with the commands that train and predict.
func TestDemoMentionsTraining(t *testing.T) {
	code, out, errs := hofuse("demo", "--sizes", "9,7,5,3", "--batches", "2", "--runs", "2", "--no-reference")
	require.Equal(t, 0, code, errs)
	assert.True(t, strings.HasSuffix(out, demoTrainHint), "demo's output ends with:\n%s", out[max(0, len(out)-300):])
	assert.Contains(t, demoTrainHint, "  hofuse train --save digits.safetensors")
}

// twoClassRows draws n rows of two features in [0, 1) with the label
// 1 when the first is larger: a problem an MLP learns in a few epochs.
func twoClassRows(n int) ([]float64, []int64) {
	x := make([]float64, 2*n)
	y := make([]int64, n)
	s := uint64(12345)
	for i := range x {
		s = s*6364136223846793005 + 1442695040888963407
		x[i] = float64(s>>11) / (1 << 53)
	}
	for i := range y {
		if x[2*i] > x[2*i+1] {
			y[i] = 1
		}
	}
	return x, y
}

// train reads a CSV file, an .npz archive and MNIST's IDX files, each
// with the sizes taken from the data; CSV and .npz learn a separable
// problem, and mnist:DIR trains on its train half and tests on t10k.
func TestTrainFormats(t *testing.T) {
	dir := t.TempDir()
	x, y := twoClassRows(400)
	var csv strings.Builder
	csv.WriteString("a,b,label\n")
	for i := range y {
		fmt.Fprintf(&csv, "%v,%v,%d\n", x[2*i], x[2*i+1], y[i])
	}
	csvPath := filepath.Join(dir, "rows.csv")
	require.NoError(t, os.WriteFile(csvPath, []byte(csv.String()), 0o644))
	npzPath := filepath.Join(dir, "rows.npz")
	require.NoError(t, npz.Write(npzPath, map[string]any{"x": mat.NewDense(400, 2, x), "y": y}))
	for _, p := range []string{csvPath, npzPath} {
		rep := trainJSON(t, "--data", p, "--epochs", "8", "--batch", "16")
		assert.Equal(t, "MLP 2-128-128-2, f32, batchnorm, relu", rep.Model, p)
		assert.Equal(t, 320, rep.TrainRows, p)
		assert.Greater(t, rep.TestAccuracy, 0.9, "%s: a separable problem; chance is 0.5", p)
	}

	// MNIST's layout: 2×2 images, 40 to train on and 20 to test.
	mnist := filepath.Join(dir, "mnist")
	require.NoError(t, os.Mkdir(mnist, 0o755))
	idx := func(name string, magic uint32, dims []uint32, data []byte) {
		var b []byte
		b = binary.BigEndian.AppendUint32(b, magic)
		for _, d := range dims {
			b = binary.BigEndian.AppendUint32(b, d)
		}
		require.NoError(t, os.WriteFile(filepath.Join(mnist, name), append(b, data...), 0o644))
	}
	for _, set := range []struct {
		name string
		n    int
	}{{"train", 40}, {"t10k", 20}} {
		pix, labels := make([]byte, 4*set.n), make([]byte, set.n)
		for i := range labels {
			labels[i] = byte(i % 3)
			pix[4*i+i%3] = 255 // the lit pixel says the class
		}
		idx(set.name+"-images-idx3-ubyte", 0x803, []uint32{uint32(set.n), 2, 2}, pix)
		idx(set.name+"-labels-idx1-ubyte", 0x801, []uint32{uint32(set.n)}, labels)
	}
	rep := trainJSON(t, "--data", "mnist:"+mnist, "--epochs", "2", "--batch", "8")
	assert.Equal(t, "MLP 4-128-128-10, f32, batchnorm, relu", rep.Model, "IDX labels are digits: 10 classes")
	assert.Equal(t, 40, rep.TrainRows)
	assert.Equal(t, 20, rep.TestRows)
	assert.Equal(t, "MNIST in "+mnist, rep.Data)
	// The CNN on the same images: --image from the flag, the classes
	// from the data.
	rep = trainJSON(t, "--data", "mnist:"+mnist, "--model", "cnn", "--image", "2x2x1", "--conv", "4", "--pool", "1", "--epochs", "2", "--batch", "8")
	assert.Equal(t, "CNN 2x2x1, conv 4 (3x3 same), pool 1, 10 classes, f32, batchnorm, relu", rep.Model, "IDX labels are digits: 10 classes")
	require.Len(t, rep.History, 2)
	assert.Equal(t, 10, rep.Steps, "2 epochs of 5 batches of 8")
}

// train --backend pjrt follows native's loss curve to f32 rounding, and
// its checkpoint predicts the same classes on either back end: the MLP
// and the CNN.
func TestTrainPJRT(t *testing.T) {
	path := pjrttest.PluginPath(t) // skips without a plugin, unless HOFUSE_REQUIRE_PJRT=1
	for _, model := range [][]string{nil, {"--model", "cnn"}} {
		save := filepath.Join(t.TempDir(), "p.safetensors")
		p := trainJSON(t, append([]string{"--backend", "pjrt", "--plugin", path, "--epochs", "3", "--save", save}, model...)...)
		n := trainJSON(t, append([]string{"--epochs", "3"}, model...)...)
		require.Len(t, p.History, 3)
		for i, e := range p.History {
			assert.InEpsilon(t, n.History[i].TrainLoss, e.TrainLoss, 1e-2, "%q: epoch %d", model, e.Epoch)
		}
		assert.InDelta(t, n.TestAccuracy, p.TestAccuracy, 0.02, "%q", model)
		var preds [2]predictReport
		for i, args := range [][]string{{"--backend", "pjrt", "--plugin", path}, nil} {
			code, out, errs := hofuse(append([]string{"predict", "--json", "--model", save}, args...)...)
			require.Equal(t, 0, code, errs)
			require.NoError(t, json.Unmarshal([]byte(out), &preds[i]))
		}
		differ := 0
		for i := range preds[0].Predictions {
			if preds[0].Predictions[i] != preds[1].Predictions[i] {
				differ++
			}
		}
		assert.LessOrEqual(t, differ, 2, "%q: rows classed differently by PJRT and native (a near tie may flip)", model)
	}
}

// predict --test classifies the test rows of the split train recorded:
// its accuracy and loss are train's test metrics.
func TestPredictTestRows(t *testing.T) {
	dir := t.TempDir()
	save := filepath.Join(dir, "m.safetensors")
	rep := trainJSON(t, "--epochs", "2", "--split", "0.7,0.1,0.2", "--save", save)
	code, out, errs := hofuse("predict", "--json", "--test", "--model", save)
	require.Equal(t, 0, code, errs)
	var pr predictReport
	require.NoError(t, json.Unmarshal([]byte(out), &pr))
	assert.Equal(t, rep.TestRows, pr.Rows)
	assert.Equal(t, rep.TestAccuracy, pr.Accuracy)
	assert.InDelta(t, rep.TestLoss, pr.Loss, 1e-12)

	small := filepath.Join(dir, "small.csv")
	require.NoError(t, os.WriteFile(small, []byte("0.1,0.2,0\n0.3,0.4,1\n"), 0o644))
	code, _, errs = hofuse("predict", "--test", "--model", save, "--data", small)
	assert.Equal(t, 2, code)
	first, _, _ := strings.Cut(errs, "\n")
	assert.Equal(t, "hofuse predict: --test: "+save+" was trained on --data digits, not "+small+"; its test rows are those of the data it trained on", first)
}
