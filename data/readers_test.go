package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
)

// testdata/small.csv:
//
//	a,b,digit
//	0.5,1,2
//	1.5,2,0
//	2.5,3,1
func TestReadCSVFile(t *testing.T) {
	for _, opts := range []CSVOptions{
		{LabelName: "digit", DType: graph.Float64},
		{LabelColumn: -1, DType: graph.Float64},
		{LabelColumn: 2, Header: HeaderYes, DType: graph.Float64},
	} {
		d, err := ReadCSV("testdata/small.csv", opts)
		if err != nil {
			t.Fatal(err)
		}
		if d.Rows() != 3 || d.Features() != 2 || d.Classes() != 3 || d.DType() != graph.Float64 {
			t.Fatalf("%+v: %d rows, %d features, %d classes, %v", opts, d.Rows(), d.Features(), d.Classes(), d.DType())
		}
		if !slices.Equal(d.Labels(), []int32{2, 0, 1}) || !slices.Equal(d.Row(2), []float64{2.5, 3}) {
			t.Errorf("%+v: labels %v, row 2 %v", opts, d.Labels(), d.Row(2))
		}
	}
	// A byte-order mark before the header.
	d, err := ParseCSV(strings.NewReader("\ufeffy,a\n1,2\n"), "bom.csv", CSVOptions{LabelName: "y"})
	if err != nil || !slices.Equal(d.Labels(), []int32{1}) {
		t.Errorf("BOM: %v", err)
	}
	// The label first, no header, scaled, f32 by default.
	d, err = ParseCSV(strings.NewReader("3,2,4\n0,8,0\n"), "first.csv", CSVOptions{Scale: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if d.DType() != graph.Float32 || !slices.Equal(d.Labels(), []int32{3, 0}) || !slices.Equal(d.Row(1), []float64{4, 0}) || d.Classes() != 4 {
		t.Errorf("got %v labels %v row 1 %v classes %d", d.DType(), d.Labels(), d.Row(1), d.Classes())
	}
	if _, err := ReadCSV("testdata/missing.csv", CSVOptions{}); err == nil || err.Error() != "data: open testdata/missing.csv: no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
}

// Malformed CSV: each error names the file, the line and what is wrong.
func TestReadCSVErrors(t *testing.T) {
	for _, tc := range []struct {
		text string
		opts CSVOptions
		want string
	}{
		{"", CSVOptions{}, "t.csv: empty file; want rows of features and a label"},
		{"a,b,y\n", CSVOptions{}, "t.csv: a header and no rows; want rows of features and a label"},
		{"1,2,0\n3,4,1\n5,6\n", CSVOptions{LabelColumn: -1}, "t.csv:3: 2 fields, want 3 as in the first line (a ragged row)"},
		{"a,b,y\n1,2,0\n3,x,1\n", CSVOptions{LabelColumn: -1}, `t.csv:3: cell "x" in column 1 is not a number`},
		{"1,2,0\n3,4,10\n", CSVOptions{LabelColumn: -1, Classes: 10}, "t.csv:2: label 10 is out of range; want a class in [0, 10)"},
		{"1,2,0\n3,4,-1\n", CSVOptions{LabelColumn: -1}, "t.csv:2: label -1 is negative; want a class index from 0"},
		{"1,2,0.5\n", CSVOptions{LabelColumn: -1}, `t.csv:1: label "0.5" in column 2 is not an integer`},
		{"1,2,0\n", CSVOptions{LabelColumn: 3}, "t.csv:1: label column 3 is outside the 3 columns; want an index in [-3, 3)"},
		{"1,2,0\n", CSVOptions{LabelName: "y"}, `t.csv:1: no header to find the label column "y" in; name the column by its index instead`},
		{"a,b,c\n1,2,0\n", CSVOptions{LabelName: "y"}, `t.csv:1: no column named "y" in the header "a,b,c"`},
		{"1\n", CSVOptions{}, "t.csv:1: 1 column, want at least 2 (features and a label)"},
		{"1,2,0\n3,\"4,1\n", CSVOptions{}, `t.csv:2: extraneous or missing " in quoted-field`},
		{"\"000000", CSVOptions{}, `t.csv:1: extraneous or missing " in quoted-field`}, // found by FuzzParseCSV: a failed first read has no field position
	} {
		_, err := ParseCSV(strings.NewReader(tc.text), "t.csv", tc.opts)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v\nwant %q", tc.text, err, tc.want)
		}
	}
}

// The embedded digits: 1,797 rows of 64 features in [0, 1], the label
// counts extract_digits.py printed, and the first row of the file / 16.
func TestDigits(t *testing.T) {
	d, err := Digits()
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows() != 1797 || d.Features() != 64 || d.Classes() != 10 || d.DType() != graph.Float32 {
		t.Fatalf("%d rows, %d features, %d classes, %v", d.Rows(), d.Features(), d.Classes(), d.DType())
	}
	if got, want := d.CountLabels(), []int{178, 182, 177, 183, 181, 182, 181, 179, 174, 180}; !slices.Equal(got, want) {
		t.Errorf("label counts %v, want %v", got, want)
	}
	first := []float64{0, 0, 5, 13, 9, 1, 0, 0, 0, 0, 13, 15, 10, 15, 5, 0, 0, 3, 15, 2, 0, 11, 8, 0, 0, 4, 12, 0, 0, 8, 8, 0, 0, 5, 8, 0, 0, 9, 8, 0, 0, 4, 11, 0, 1, 12, 7, 0, 0, 2, 14, 5, 10, 12, 0, 0, 0, 0, 6, 13, 10, 0, 0, 0}
	for j, v := range d.Row(0) {
		if v != first[j]/16 {
			t.Fatalf("row 0 feature %d = %v, want %v/16", j, v, first[j])
		}
	}
	if d.Labels()[0] != 0 || d.Labels()[1796] != 8 {
		t.Errorf("first and last labels %d, %d; want 0, 8", d.Labels()[0], d.Labels()[1796])
	}
	lo, hi := 1.0, 0.0
	for i := range d.Rows() {
		for _, v := range d.Row(i) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if lo != 0 || hi != 1 {
		t.Errorf("features range over [%v, %v], want [0, 1]", lo, hi)
	}
	parts, err := d.Split(0, 0.8, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	if parts[0].Rows() != 1438 || parts[1].Rows() != 359 {
		t.Errorf("80/20 split: %d and %d rows, want 1438 and 359", parts[0].Rows(), parts[1].Rows())
	}
}

// idxFile writes an IDX file of the given magic, extents and data.
func idxFile(t *testing.T, dir, name string, magic uint32, dims []uint32, data []byte) string {
	t.Helper()
	b := binary.BigEndian.AppendUint32(nil, magic)
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, append(b, data...), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadIDX(t *testing.T) {
	dir := t.TempDir()
	pix := []byte{0, 255, 51, 102, 0, 0, 10, 20, 30, 40, 50, 60} // 2 images of 2×3
	idxFile(t, dir, "train-images-idx3-ubyte", 0x803, []uint32{2, 2, 3}, pix)
	idxFile(t, dir, "train-labels-idx1-ubyte", 0x801, []uint32{2}, []byte{7, 3})
	d, err := ReadMNIST(dir, "train", IDXOptions{DType: graph.Float64})
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows() != 2 || d.Features() != 6 || d.Classes() != 10 || !slices.Equal(d.Labels(), []int32{7, 3}) {
		t.Fatalf("%d rows, %d features, %d classes, labels %v", d.Rows(), d.Features(), d.Classes(), d.Labels())
	}
	if got, want := d.Row(0), []float64{0, 1, 0.2, 0.4, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("row 0 = %v, want %v", got, want)
	}
	// Gzip-compressed files with the dotted names, read as "test".
	for _, f := range [][2]string{{"train-images-idx3-ubyte", "t10k-images.idx3-ubyte.gz"}, {"train-labels-idx1-ubyte", "t10k-labels.idx1-ubyte.gz"}} {
		raw, err := os.ReadFile(filepath.Join(dir, f[0]))
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(raw)
		w.Close()
		if err := os.WriteFile(filepath.Join(dir, f[1]), z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err = ReadMNIST(dir, "test", IDXOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.DType() != graph.Float32 || !slices.Equal(d.Labels(), []int32{7, 3}) || d.Row(1)[5] != float64(float32(60)/255) {
		t.Errorf("gzip: %v labels %v row 1 %v", d.DType(), d.Labels(), d.Row(1))
	}
	empty := t.TempDir()
	if _, err := ReadMNIST(empty, "t10k", IDXOptions{}); err == nil || err.Error() != "data: no MNIST images file in "+empty+" (looked for t10k-images-idx3-ubyte, t10k-images-idx3-ubyte.gz, t10k-images.idx3-ubyte, t10k-images.idx3-ubyte.gz)" {
		t.Errorf("missing set: %v", err)
	}
}

// Malformed IDX files: each error names the file and the byte offset.
func TestReadIDXErrors(t *testing.T) {
	dir := t.TempDir()
	labels := idxFile(t, dir, "labels", 0x801, []uint32{2}, []byte{1, 2})
	for _, tc := range []struct {
		magic uint32
		dims  []uint32
		data  []byte
		want  string
		limit int64 // IDXOptions.MaxBytes
	}{
		{0x801, []uint32{2, 1, 1}, []byte{0, 0}, "byte offset 0: magic number 0x00000801, want 0x00000803 (unsigned-byte images of 3 dimensions)", 0},
		{0x803, []uint32{2, 2, 2}, []byte{1, 2, 3}, "byte offset 19: file ends 5 bytes short of the 8 data bytes the header claims (extents [2 2 2])", 0},
		{0x803, []uint32{2, 1, 1}, []byte{1, 2, 3}, "byte offset 18: bytes after the 2 data bytes the header claims (extents [2 1 1])", 0},
		{0x803, []uint32{1000000, 1000000, 1000000}, nil, "the header claims extents [1000000 1000000 1000000], more than the limit of 4294967296 bytes once converted to 4-byte elements; raise MaxBytes if the file is real", 0},
		{0x803, []uint32{3, 1, 1}, []byte{1, 2, 3}, "", 0},
		// 10^12 images claimed, a limit that allows them: the read grows
		// with the 3 bytes there are and stops, allocating nothing large.
		{0x803, []uint32{1000000, 1000000, 1}, []byte{1, 2, 3}, "byte offset 19: file ends 999999999997 bytes short of the 1000000000000 data bytes the header claims (extents [1000000 1000000 1])", 1 << 60},
	} {
		p := idxFile(t, dir, "images", tc.magic, tc.dims, tc.data)
		_, err := ReadIDX(p, labels, IDXOptions{MaxBytes: tc.limit})
		want := "data: " + p + ": " + tc.want
		if tc.want == "" {
			want = "data: " + labels + " has 2 labels for the 3 images of " + p + "; want one label per image"
		}
		if err == nil || err.Error() != want {
			t.Errorf("got %v\nwant %s", err, want)
		}
	}
	img := idxFile(t, dir, "images", 0x803, []uint32{2, 1, 1}, []byte{1, 2})
	for _, tc := range []struct {
		raw  []byte
		want string
	}{
		{nil, "empty file; want an IDX file"},
		{[]byte{0, 0, 8, 1, 0}, "byte offset 5: file ends inside the 8-byte header"},
		{[]byte{0, 0, 8, 1, 0, 0, 0, 2, 1, 10}, "byte offset 9: label 10 is out of range; want a class in [0, 10)"},
	} {
		p := filepath.Join(dir, "badlabels")
		if err := os.WriteFile(p, tc.raw, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadIDX(img, p, IDXOptions{})
		if want := "data: " + p + ": " + tc.want; err == nil || err.Error() != want {
			t.Errorf("got %v\nwant %s", err, want)
		}
	}
}

// The fixtures make_npy.py wrote; values are functions of their position.
func TestReadNPY(t *testing.T) {
	d, err := ReadNPY("testdata/x.npy", "testdata/y.npy", NPYOptions{DType: graph.Float64})
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows() != 5 || d.Features() != 3 || d.Classes() != 3 || !slices.Equal(d.Labels(), []int32{0, 1, 2, 0, 1}) {
		t.Fatalf("%d rows %d features %d classes labels %v", d.Rows(), d.Features(), d.Classes(), d.Labels())
	}
	if got := d.Row(4); !slices.Equal(got, []float64{40, 41, 42}) {
		t.Errorf("row 4 = %v, want [40 41 42]", got)
	}
	// Images u8 (4, 2, 3) flatten to 6 features; Scale applies.
	d, err = ReadNPY("testdata/images.npy", "testdata/images_labels.npy", NPYOptions{Scale: 0.5, DType: graph.Float64})
	if err != nil {
		t.Fatal(err)
	}
	if d.Features() != 6 || !slices.Equal(d.Row(3), []float64{9, 9.5, 10, 10.5, 11, 11.5}) || !slices.Equal(d.Labels(), []int32{3, 1, 4, 1}) || d.Classes() != 5 {
		t.Errorf("images: %d features, row 3 %v, labels %v, %d classes", d.Features(), d.Row(3), d.Labels(), d.Classes())
	}
	_, err = ReadNPY("testdata/images.npy", "testdata/y.npy", NPYOptions{})
	if err == nil || err.Error() != "data: features testdata/images.npy have 4 rows (shape [4 2 3]), labels testdata/y.npy have 5 (shape [5]); want as many labels as rows" {
		t.Errorf("row mismatch: %v", err)
	}
	_, err = ReadNPY("testdata/images.npy", "testdata/images.npy", NPYOptions{})
	if err == nil || err.Error() != "data: features testdata/images.npy of shape [4 2 3] and labels testdata/images.npy of shape [4 2 3]; want features [rows, …] and labels [rows] or [rows, k]" {
		t.Errorf("3-d labels: %v", err)
	}
	// Fortran order is read back in row-major order; float targets make a regression set.
	d, err = ReadNPY("testdata/fortran.npy", "testdata/fortran.npy", NPYOptions{DType: graph.Float64, Scale: 2})
	if err != nil {
		t.Fatal(err)
	}
	if d.Outputs() != 3 || !slices.Equal(d.Row(1), []float64{20, 22, 24}) || !slices.Equal(d.Target(1), []float64{10, 11, 12}) {
		t.Errorf("fortran: outputs %d row 1 %v target 1 %v", d.Outputs(), d.Row(1), d.Target(1))
	}
	d, err = ReadNPY("testdata/x.npy", "testdata/targets.npy", NPYOptions{DType: graph.Float64})
	if err != nil {
		t.Fatal(err)
	}
	if d.Classes() != 0 || d.Outputs() != 2 || !slices.Equal(d.Target(3), []float64{3, 3.5}) {
		t.Errorf("targets: classes %d outputs %d target 3 %v", d.Classes(), d.Outputs(), d.Target(3))
	}
	if _, err := ReadNPY("testdata/x.npy", "testdata/y.npy", NPYOptions{Classes: 2}); err == nil || err.Error() != "data: labels testdata/y.npy: row 2 has label 2; want a class in [0, 2)" {
		t.Errorf("label range: %v", err)
	}
}

func TestReadNPZ(t *testing.T) {
	for _, opts := range []NPYOptions{{}, {X: "x_train", Y: "y_train"}} {
		d, err := ReadNPZ("testdata/small.npz", opts)
		if err != nil {
			t.Fatal(err)
		}
		if d.Rows() != 5 || d.Features() != 3 || d.DType() != graph.Float32 || !slices.Equal(d.Labels(), []int32{0, 1, 2, 0, 1}) || !slices.Equal(d.Row(1), []float64{10, 11, 12}) {
			t.Errorf("%+v: %d rows, %d features, %v, labels %v, row 1 %v", opts, d.Rows(), d.Features(), d.DType(), d.Labels(), d.Row(1))
		}
		if d.Name() != "testdata/small.npz:x_train" {
			t.Errorf("name %q", d.Name())
		}
	}
	_, err := ReadNPZ("testdata/small.npz", NPYOptions{X: "x_train", Y: "labels"})
	if err == nil || !strings.HasPrefix(err.Error(), `data: testdata/small.npz has no array "labels"; it holds `) {
		t.Errorf("missing array: %v", err)
	}
	_, err = ReadNPZ("testdata/x.npy", NPYOptions{})
	if err == nil || err.Error() != "data: testdata/x.npy: not a NumPy .npz archive: zip: not a valid zip file" {
		t.Errorf("not a zip: %v", err)
	}
}

// Malformed .npy files, made by cutting and editing x.npy.
func TestReadNPYErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/x.npy")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// patch replaces the shape in x.npy's header, keeping its length.
	patch := func(shape string) []byte {
		old := "(5, 3), }" + strings.Repeat(" ", 20)
		return []byte(strings.Replace(string(good), old, shape+strings.Repeat(" ", len(old)-len(shape)), 1))
	}
	for _, tc := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"empty", nil, "empty file; want a NumPy .npy array"},
		{"magic", []byte("NUMPY\x01\x00\x00\x00\x00\x00"), `byte offset 0: not a NumPy .npy array (no \x93NUMPY magic)`},
		{"cut", good[:len(good)-4], "byte offset 128: 56 data bytes, want 60 for shape [5 3] of <f4"},
		{"cuthead", good[:60], "byte offset 10: the header claims 118 bytes, the file ends 68 bytes short"},
		{"bigrows", patch("(99999999999, 3), }"), "shape [99999999999 3] does not fit in the 188-byte file"},
		{"version", append([]byte("\x93NUMPY\x09\x00"), good[8:]...), "byte offset 6: .npy format version 9.0, want 1, 2 or 3"},
		{"dict", patch("(10**12, 3), }"), `byte offset 10: malformed header "{'descr': '<f4', 'fortran_order': False, 'shape': (10**12, 3), }                …": no shape tuple of integers`},
		{"noclose", patch("(5, 3)"), `byte offset 10: malformed header "{'descr': '<f4', 'fortran_order': False, 'shape': (5, 3)                        …"`},
		{"layout", patch("(15, 1)}"), `byte offset 10: header "{'descr': '<f4', 'fortran_order': False, 'shape': (15, 1)}                      …" is not in the layout NumPy writes (npyio reads shape [15], the header says [15 1])`},
		{"negative", patch("(-5, 3), }"), "shape [-5 3] does not fit in the 188-byte file"},
		{"dtype", []byte(strings.Replace(string(good), "'<f4'", "'<U1'", 1)), `element type "<U1", want a number type (floats, integers or booleans)`},
	} {
		p := filepath.Join(dir, tc.name+".npy")
		if err := os.WriteFile(p, tc.raw, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadNPY(p, "testdata/y.npy", NPYOptions{})
		if want := "data: " + p + ": " + tc.want; err == nil || err.Error() != want {
			t.Errorf("%s: %v\nwant %s", tc.name, err, want)
		}
	}
}

// ReadArray reads one .npy file as numpy wrote it (make_npy.py): x.npy,
// float32 (5, 3) with x[i, j] = 10i + j; images.npy, uint8 (4, 2, 3) with
// 6i + 3r + c, as i32; fortran.npy, float64 (2, 3) stored column-major
// with 10i + j, reordered to row-major.
func TestReadArray(t *testing.T) {
	for _, tc := range []struct {
		file    string
		dt      graph.DType
		extents []int
		want    func(idx []int) float64
	}{
		{"x.npy", graph.Float32, []int{5, 3}, func(i []int) float64 { return float64(10*i[0] + i[1]) }},
		{"images.npy", graph.Int32, []int{4, 2, 3}, func(i []int) float64 { return float64(6*i[0] + 3*i[1] + i[2]) }},
		{"fortran.npy", graph.Float64, []int{2, 3}, func(i []int) float64 { return float64(10*i[0] + i[1]) }},
	} {
		v, err := ReadArray("testdata/"+tc.file, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		a, ok := v.(*graph.Array)
		if !ok || a.DType() != tc.dt || !slices.Equal(a.Extents(), tc.extents) {
			t.Fatalf("%s: got %s, want %v%v", tc.file, graph.DescribeValue(v), tc.dt, tc.extents)
		}
		idx := make([]int, len(tc.extents))
		for range len(a.Values()) {
			if got, want := a.At(idx...), tc.want(idx); got != want {
				t.Errorf("%s%v = %v, want %v", tc.file, idx, got, want)
			}
			next(idx, tc.extents)
		}
	}
	if _, err := ReadArray("testdata/small.csv", 0); err == nil || err.Error() != `data: testdata/small.csv: byte offset 0: not a NumPy .npy array (no \x93NUMPY magic)` {
		t.Errorf("a CSV file read as .npy: got %v", err)
	}
}
