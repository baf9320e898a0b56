package checkpoint

import (
	"bytes"
	"encoding/binary"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hofuse/hofuse/graph"
)

var writeFixture = flag.Bool("write-fixture", false, "rewrite testdata/hofuse.safetensors, which testdata/fixture.py verify checks with Python's safetensors")

func f32(t testing.TB, v []float32, ext ...int) *graph.Array {
	t.Helper()
	a, err := graph.FromFloat32(v, ext...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func f64(t testing.TB, v []float64, ext ...int) *graph.Array {
	t.Helper()
	a, err := graph.FromFloat64(v, ext...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func i32(t testing.TB, v []int32, ext ...int) *graph.Array {
	t.Helper()
	a, err := graph.Zeros(graph.Int32, ext...)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, len(ext))
	for _, x := range v {
		a.Set(float64(x), idx...)
		for d := len(idx) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < ext[d] {
				break
			}
			idx[d] = 0
		}
	}
	return a
}

// sameArray compares type, extents and every element bit for bit.
func sameArray(t *testing.T, name string, got, want *graph.Array) {
	t.Helper()
	if got.DType() != want.DType() || !slices.Equal(got.Extents(), want.Extents()) {
		t.Fatalf("%s: got %v%v, want %v%v", name, got.DType(), got.Extents(), want.DType(), want.Extents())
	}
	g, w := got.Values(), want.Values()
	for k := range w {
		if math.Float64bits(g[k]) != math.Float64bits(w[k]) {
			t.Fatalf("%s: element %d is %v, want %v", name, k, g[k], w[k])
		}
	}
}

// A round trip through a file keeps names, types, extents, every bit of
// every value (NaN, −0, infinities, subnormals, i32 extremes) and the
// metadata; a view that is not row-major is written in its row-major
// order.
func TestRoundTrip(t *testing.T) {
	m := f64(t, []float64{1, 2, 3, 4, 5, 6}, 2, 3)
	flipped, err := m.Flip(0, 1) // [[1 4] [2 5] [3 6]]
	if err != nil {
		t.Fatal(err)
	}
	tensors := map[string]*graph.Array{
		"a.w":     f32(t, []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), float32(math.Inf(1)), 1e-45}, 2, 2),
		"a.b":     f64(t, []float64{math.Inf(-1), 5e-324, -1.5}, 3),
		"labels":  i32(t, []int32{math.MinInt32, -1, 0, math.MaxInt32}, 4),
		"scalar":  f32(t, []float32{2.5}),
		"flipped": flipped,
		"deep":    i32(t, []int32{1, 2, 3, 4, 5, 6, 7, 8}, 2, 2, 2),
	}
	meta := map[string]string{"config": `{"sizes":[4,3,2]}`, "note": "ünïcode \"quoted\"\n"}
	path := filepath.Join(t.TempDir(), "model.safetensors")
	if err := Save(path, tensors, meta); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Names(), []string{"a.b", "a.w", "deep", "flipped", "labels", "scalar"}) {
		t.Fatalf("names %v", c.Names())
	}
	for n, want := range tensors {
		sameArray(t, n, c.Tensors[n], want)
	}
	if got := c.Tensors["flipped"].Values(); !slices.Equal(got, []float64{1, 4, 2, 5, 3, 6}) {
		t.Errorf("flipped view saved as %v, want [1 4 2 5 3 6]", got)
	}
	if len(c.Metadata) != 2 || c.Metadata["config"] != meta["config"] || c.Metadata["note"] != meta["note"] {
		t.Errorf("metadata %q", c.Metadata)
	}
	want := map[string]*graph.ArrayType{}
	for n, a := range tensors {
		want[n] = graph.ArrayOf(a.DType(), a.Extents()...)
	}
	if err := c.Match(want); err != nil {
		t.Error(err)
	}
	// The header is padded to 8 bytes and the file is nothing more than
	// length, header and 4·4+8·3+4·4+4+8·6+4·8 data bytes.
	b, _ := os.ReadFile(path)
	n := binary.LittleEndian.Uint64(b)
	if n%8 != 0 || uint64(len(b)) != 8+n+16+24+16+4+48+32 {
		t.Errorf("header %d bytes, file %d bytes", n, len(b))
	}
}

// python.safetensors, written by fixture.py with Python's safetensors.
func TestPythonFixture(t *testing.T) {
	c, err := Load("testdata/python.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	sameArray(t, "dense.w", c.Tensors["dense.w"], f32(t, []float32{-1, -0.5, 0, 0.5, 1, 1.5}, 2, 3))
	sameArray(t, "dense.b", c.Tensors["dense.b"], f64(t, []float64{0.1, -2.5, 1e-300}, 3))
	sameArray(t, "labels", c.Tensors["labels"], i32(t, []int32{-1, 0, 2147483647, -2147483648}, 4))
	sameArray(t, "step", c.Tensors["step"], i32(t, []int32{7}))
	if len(c.Tensors) != 4 || len(c.Metadata) != 2 || c.Metadata["model"] != `{"sizes":[2,3]}` || c.Metadata["by"] != "python" {
		t.Errorf("%d tensors, metadata %q", len(c.Tensors), c.Metadata)
	}
}

// hofuseFixture is what testdata/hofuse.safetensors holds; fixture.py
// verify checks the same values in Python.
func hofuseFixture(t testing.TB) ([]byte, error) {
	return Marshal(map[string]*graph.Array{
		"w":     f32(t, []float32{-1, -0.75, -0.5, -0.25, 0, 0.25}, 3, 2),
		"b":     f64(t, []float64{3.25, -1e-310}, 2),
		"count": i32(t, []int32{1, -2, 3, -2147483648}, 2, 2),
	}, map[string]string{"config": `{"sizes":[3,2]}`, "by": "hofuse"})
}

// The committed hofuse.safetensors is what Marshal writes today (so that
// what Python verified is what hofuse writes); -write-fixture rewrites it.
func TestHofuseFixture(t *testing.T) {
	b, err := hofuseFixture(t)
	if err != nil {
		t.Fatal(err)
	}
	const path = "testdata/hofuse.safetensors"
	if *writeFixture {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, committed) {
		t.Errorf("%s differs from what Marshal writes; rerun with -write-fixture and then testdata/fixture.py verify", path)
	}
	want := `{"__metadata__":{"by":"hofuse","config":"{\"sizes\":[3,2]}"},"b":{"dtype":"F64","shape":[2],"data_offsets":[0,16]},"count":{"dtype":"I32","shape":[2,2],"data_offsets":[16,32]},"w":{"dtype":"F32","shape":[3,2],"data_offsets":[32,56]}}`
	n := binary.LittleEndian.Uint64(b)
	if got := strings.TrimRight(string(b[8:8+n]), " "); got != want {
		t.Errorf("header\n%s\nwant\n%s", got, want)
	}
}

// file builds a safetensors file from a header and data.
func file(header string, data []byte) []byte {
	return append(append(binary.LittleEndian.AppendUint64(nil, uint64(len(header))), header...), data...)
}

// Malformed files: each gives its exact error.
func TestMalformed(t *testing.T) {
	good := `{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`
	eight := make([]byte, 8)
	for _, tc := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"empty", nil, "0 bytes, too short for the 8-byte header length; not a safetensors file"},
		{"short", []byte{1, 2, 3}, "3 bytes, too short for the 8-byte header length; not a safetensors file"},
		{"truncated header", file(good, eight)[:30], "header length 54 reaches past the end of the file (22 bytes after the length); the file is cut short"},
		{"huge header", binary.LittleEndian.AppendUint64(nil, 1<<40), "header length 1099511627776 is past the format's limit of 100000000 bytes; not a safetensors file, or a damaged one"},
		{"not json", file(`{"w":{"dtype":"F32",`, nil), "the header is not well-formed JSON: unexpected EOF"},
		{"not object", file(`["w"]`, nil), "the header is not a JSON object"},
		{"trailing", file(good+`{}`, eight), "the header has { after its object; only spaces may follow it"},
		{"twice", file(`{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, eight), `the header names "w" twice`},
		{"wrong dtype", file(`{"w":{"dtype":"F17","shape":[2],"data_offsets":[0,8]}}`, eight), `tensor "w" has dtype "F17", which is not a safetensors dtype`},
		{"unheld dtype", file(`{"w":{"dtype":"F16","shape":[4],"data_offsets":[0,8]}}`, eight), `tensor "w" has dtype F16, which hofuse does not hold; want F32, F64 or I32`},
		{"offsets out of range", file(`{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`, eight), `tensor "w" has data_offsets [0, 16], outside the 8 bytes of data`},
		{"offsets reversed", file(`{"w":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}`, eight), `tensor "w" has data_offsets [8, 0], outside the 8 bytes of data`},
		{"size mismatch", file(`{"w":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}}`, eight), `tensor "w" of shape [2] and dtype F64 needs 16 bytes, its data_offsets [0, 8] hold 8`},
		{"overlap", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, eight), `tensor "b"'s data_offsets [4, 8] overlap tensor "a"'s, which end at 8`},
		{"hole", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, eight), "data bytes [0, 4) belong to no tensor; the format allows no holes"},
		{"tail", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, eight), "data bytes [4, 8) belong to no tensor; the format allows no holes"},
		{"huge shape", file(`{"a":{"dtype":"F32","shape":[1000000,1000000,1000000],"data_offsets":[0,8]}}`, eight), `tensor "a" has shape [1000000 1000000 1000000], more elements than the 8 bytes of data hold`},
		{"negative shape", file(`{"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}`, eight), `tensor "a" has shape [-2], with a negative extent`},
		{"zero extent", file(`{"a":{"dtype":"F32","shape":[0,3],"data_offsets":[0,0]},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, eight), `tensor "a" has shape [0 3]; hofuse arrays have extents in [1, 1099511627776]`},
		{"missing field", file(`{"a":{"dtype":"F32","data_offsets":[0,8]}}`, eight), `tensor "a" has no shape`},
		{"extra field", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"order":"C"}}`, eight), `tensor "a" has unknown fields order; want dtype, shape and data_offsets`},
		{"bad offsets", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0]}}`, eight), `tensor "a" has data_offsets [0], want two integers [begin, end]`},
		{"bad metadata", file(`{"__metadata__":{"n":1}}`, nil), `__metadata__["n"] is 1, want a string`},
		{"bad entry", file(`{"a":[1,2]}`, nil), `tensor "a" is [1,2], want an object with dtype, shape and data_offsets`},
	} {
		_, err := Unmarshal(tc.raw, "f.safetensors")
		if want := "checkpoint: f.safetensors: " + tc.want; err == nil || err.Error() != want {
			t.Errorf("%s: %v\nwant %s", tc.name, err, want)
		}
	}
	// A header padded with spaces and an empty file of tensors load.
	c, err := Unmarshal(file(good+"     ", eight), "f")
	if err != nil || c.Tensors["w"].Size() != 2 {
		t.Errorf("padded header: %v", err)
	}
	if c, err := Unmarshal(file(`{}`, nil), "f"); err != nil || len(c.Tensors) != 0 {
		t.Errorf("no tensors: %v", err)
	}
}

// Match names the tensor and both types, or the missing or extra tensor.
func TestMatch(t *testing.T) {
	c := &Checkpoint{Name: "m.safetensors", Tensors: map[string]*graph.Array{
		"w": f32(t, make([]float32, 6), 2, 3),
		"b": f32(t, make([]float32, 3), 3),
	}}
	for _, tc := range []struct {
		want map[string]*graph.ArrayType
		msg  string
	}{
		{map[string]*graph.ArrayType{"w": graph.ArrayOf(graph.Float32, 3, 2), "b": graph.ArrayOf(graph.Float32, 3)},
			`checkpoint: m.safetensors: tensor "w" is f32[2 3] in the file, the model wants f32[3 2]`},
		{map[string]*graph.ArrayType{"w": graph.ArrayOf(graph.Float32, 2, 3), "b": graph.ArrayOf(graph.Float64, 3)},
			`checkpoint: m.safetensors: tensor "b" is f32[3] in the file, the model wants f64[3]`},
		{map[string]*graph.ArrayType{"w": graph.ArrayOf(graph.Float32, 2, 3), "b": graph.ArrayOf(graph.Float32, 3), "v": graph.ArrayOf(graph.Float32, 4)},
			`checkpoint: m.safetensors: no tensor "v" (want f32[4]); the file holds "b", "w"`},
		{map[string]*graph.ArrayType{"w": graph.ArrayOf(graph.Float32, 2, 3)},
			`checkpoint: m.safetensors: tensor "b" is not one the model has`},
	} {
		if err := c.Match(tc.want); err == nil || err.Error() != tc.msg {
			t.Errorf("got %v\nwant %s", err, tc.msg)
		}
	}
}

// Save is atomic and CheckWritable finds unwritable paths first.
func TestSaveAndCheckWritable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.safetensors")
	if err := CheckWritable(path); err != nil {
		t.Fatal(err)
	}
	if err := Save(path, map[string]*graph.Array{"x": f32(t, []float32{1}, 1)}, nil); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	b, _ := graph.Zeros(graph.Bool, 2)
	err := Save(path, map[string]*graph.Array{"m": b}, nil)
	if err == nil || err.Error() != `checkpoint: tensor "m" has element type bool; a checkpoint holds f32, f64 and i32` {
		t.Errorf("bool tensor: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("a failed save changed the file")
	}
	if err := Save(path, map[string]*graph.Array{"x": f32(t, []float32{2, 3}, 2)}, nil); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(path); err != nil || !slices.Equal(c.Tensors["x"].Values(), []float64{2, 3}) {
		t.Errorf("overwritten file: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d entries after saving, want the file alone", len(entries))
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}

	regular := filepath.Join(dir, "m.safetensors")
	for _, tc := range []struct {
		path, want string
	}{
		{filepath.Join(dir, "no", "m.safetensors"), "checkpoint: cannot write " + dir + "/no/m.safetensors: folder " + dir + "/no does not exist; create it or save elsewhere"},
		{dir, "checkpoint: cannot write " + dir + ": it is a folder; name a file in it"},
		{filepath.Join(regular, "x.safetensors"), "checkpoint: cannot write " + regular + "/x.safetensors: " + regular + " is not a folder"},
		{"", "checkpoint: no file name to save to"},
	} {
		if err := CheckWritable(tc.path); err == nil || err.Error() != tc.want {
			t.Errorf("CheckWritable(%q): %v\nwant %s", tc.path, err, tc.want)
		}
		if err := Save(tc.path, nil, nil); err == nil || err.Error() != tc.want {
			t.Errorf("Save(%q): %v\nwant %s", tc.path, err, tc.want)
		}
	}
	if _, err := Load(filepath.Join(dir, "none")); err == nil || err.Error() != "checkpoint: open "+dir+"/none: no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
	if _, err := LoadLimit(path, 8); err == nil || err.Error() != "checkpoint: "+path+": 72 bytes, past the limit of 8; raise the limit if the file is real" {
		t.Errorf("limit: %v", err)
	}
}

// FuzzLoad: Unmarshal never panics; what it accepts marshals and reads
// back to the same tensors and metadata.
func FuzzLoad(f *testing.F) {
	for _, p := range []string{"testdata/python.safetensors", "testdata/hofuse.safetensors"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(file(`{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, make([]byte, 8)))
	f.Add(file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, make([]byte, 8)))
	f.Add(file(`{"__metadata__":{"k":"v"},"i":{"dtype":"I32","shape":[],"data_offsets":[0,4]}}`, []byte{1, 0, 0, 0}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Unmarshal(b, "fuzz")
		if err != nil {
			return
		}
		again, err := Marshal(c.Tensors, c.Metadata)
		if err != nil {
			t.Fatalf("accepted file does not marshal: %v", err)
		}
		d, err := Unmarshal(again, "again")
		if err != nil {
			t.Fatalf("marshalled file does not load: %v", err)
		}
		if len(d.Tensors) != len(c.Tensors) || len(d.Metadata) != len(c.Metadata) {
			t.Fatalf("round trip: %d tensors %d metadata, want %d and %d", len(d.Tensors), len(d.Metadata), len(c.Tensors), len(c.Metadata))
		}
		for n, a := range c.Tensors {
			sameArray(t, n, d.Tensors[n], a)
		}
		for k, v := range c.Metadata {
			if d.Metadata[k] != v {
				t.Fatalf("metadata %q: %q, want %q", k, d.Metadata[k], v)
			}
		}
	})
}
