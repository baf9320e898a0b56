package data

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hofuse/hofuse/graph"
	"github.com/sbinet/npyio/npy"
)

// NPYOptions says how ReadNPY and ReadNPZ read arrays.
type NPYOptions struct {
	// X and Y name the features and labels arrays of an .npz archive.
	// Left empty, ReadNPZ takes the first of the conventional pairs
	// (x, y), (X, y), (x_train, y_train), (data, target), (features,
	// labels), (images, labels) that the archive holds.
	X, Y string
	// Classes, when positive, is the number of classes: an integer
	// label outside [0, Classes) is an error naming its row. 0 counts
	// them from the labels.
	Classes int
	// DType is the features' element type, Float32 or Float64; the zero
	// value means Float32.
	DType graph.DType
	// Scale, when not 0, multiplies every feature (1.0/255 for images
	// stored as bytes).
	Scale float64
	// MaxBytes caps the bytes one array may take in the file and once
	// converted; a header that claims more is refused before anything
	// is allocated. 0 means graph.DefaultMemoryLimit.
	MaxBytes int64
}

// conventionalNames are the (features, labels) names ReadNPZ tries.
var conventionalNames = [][2]string{
	{"x", "y"}, {"X", "y"}, {"x_train", "y_train"}, {"data", "target"},
	{"features", "labels"}, {"images", "labels"},
}

// ReadNPY reads a data set from two NumPy .npy files: the features (of
// shape [rows, …]: every axis after the first is flattened into the
// features) and the labels or targets (of shape [rows] or [rows, k]). An
// integer label array makes a classification set; a floating-point one a
// regression set of k targets (1 for shape [rows]). Errors name the file.
func ReadNPY(xPath, yPath string, opts NPYOptions) (*Dataset, error) {
	x, err := readNPYFile(xPath, opts)
	if err != nil {
		return nil, err
	}
	y, err := readNPYFile(yPath, opts)
	if err != nil {
		return nil, err
	}
	return fromArrays(xPath, x, y, yPath, opts)
}

// ReadNPZ reads a data set from a NumPy .npz archive (compressed or not):
// the arrays named by opts.X and opts.Y, or a conventional pair (see
// NPYOptions), as ReadNPY reads its two files.
func ReadNPZ(path string, opts NPYOptions) (*Dataset, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("data: %s: not a NumPy .npz archive: %w", path, err)
	}
	defer zr.Close()
	files := map[string]*zip.File{}
	var keys []string
	for _, f := range zr.File {
		k := strings.TrimSuffix(f.Name, ".npy")
		files[k] = f
		keys = append(keys, k)
	}
	xn, yn := opts.X, opts.Y
	if xn == "" && yn == "" {
		for _, p := range conventionalNames {
			if files[p[0]] != nil && files[p[1]] != nil {
				xn, yn = p[0], p[1]
				break
			}
		}
		if xn == "" {
			return nil, fmt.Errorf("data: %s holds arrays %s and none of the conventional pairs (x, y), (X, y), (x_train, y_train), (data, target), (features, labels), (images, labels); name the features and labels arrays", path, quoteAll(keys))
		}
	}
	read := func(k string) (*npyArray, error) {
		f := files[k]
		if f == nil {
			return nil, fmt.Errorf("data: %s has no array %q; it holds %s", path, k, quoteAll(keys))
		}
		where := path + ":" + k
		limit := maxBytes(opts)
		if f.UncompressedSize64 > uint64(limit) {
			return nil, fmt.Errorf("data: %s: %d bytes, past the limit of %d; raise MaxBytes if the file is real", where, f.UncompressedSize64, limit)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("data: %s: %w", where, err)
		}
		defer rc.Close()
		buf, err := readAtMost(rc, limit)
		if err != nil {
			return nil, fmt.Errorf("data: %s: %w", where, err)
		}
		return parseNPY(buf, where, opts)
	}
	x, err := read(xn)
	if err != nil {
		return nil, err
	}
	y, err := read(yn)
	if err != nil {
		return nil, err
	}
	return fromArrays(path+":"+xn, x, y, path+":"+yn, opts)
}

func quoteAll(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(q, ", ")
}

func maxBytes(opts NPYOptions) int64 {
	if opts.MaxBytes > 0 {
		return opts.MaxBytes
	}
	return graph.DefaultMemoryLimit
}

// readAtMost reads r to its end, refusing more than limit bytes; memory
// grows with what arrives, not with what a header claims.
func readAtMost(r io.Reader, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, fmt.Errorf("more than %d bytes; raise MaxBytes if the file is real", limit)
	}
	return buf.Bytes(), nil
}

func readNPYFile(path string, opts NPYOptions) (*npyArray, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	buf, err := readAtMost(f, maxBytes(opts))
	if err != nil {
		return nil, fmt.Errorf("data: %s: %w", path, err)
	}
	return parseNPY(buf, path, opts)
}

// npyArray is an array read from an .npy file: its shape and its values,
// as float64 or, for an integer or boolean array, as int64.
type npyArray struct {
	shape []int
	f     []float64 // the values of a floating-point array
	i     []int64   // the values of an integer array
	dtype string    // NumPy's description, as "<f4"
}

// parseNPY checks an .npy file held in buf and decodes it with npyio.
// Before npyio sees it, the header is checked (magic, version, header
// length within the file, a header that ends in a newline) and the shape
// against the bytes that follow it, so that a header claiming more than
// the file holds, a file cut short or bytes after the data are errors,
// and nothing larger than buf is allocated.
func parseNPY(buf []byte, name string, opts NPYOptions) (a *npyArray, err error) {
	if len(buf) == 0 {
		return nil, fmt.Errorf("data: %s: empty file; want a NumPy .npy array", name)
	}
	if len(buf) < 10 || !bytes.Equal(buf[:6], npy.Magic[:]) {
		return nil, fmt.Errorf("data: %s: byte offset 0: not a NumPy .npy array (no \\x93NUMPY magic)", name)
	}
	var hlen, start int
	switch buf[6] {
	case 1:
		hlen, start = int(binary.LittleEndian.Uint16(buf[8:])), 10
	case 2, 3:
		if len(buf) < 12 {
			return nil, fmt.Errorf("data: %s: byte offset %d: file ends inside the header length", name, len(buf))
		}
		hlen, start = int(binary.LittleEndian.Uint32(buf[8:])), 12
	default:
		return nil, fmt.Errorf("data: %s: byte offset 6: .npy format version %d.%d, want 1, 2 or 3", name, buf[6], buf[7])
	}
	end := start + hlen
	if end > len(buf) {
		return nil, fmt.Errorf("data: %s: byte offset %d: the header claims %d bytes, the file ends %d bytes short", name, start, hlen, end-len(buf))
	}
	if hlen == 0 || buf[end-1] != '\n' || !bytes.HasPrefix(bytes.TrimLeft(buf[start:end], " "), []byte("{")) {
		return nil, fmt.Errorf("data: %s: byte offset %d: malformed header %q; want a Python dict ending in a newline", name, start, truncate(buf[start:end]))
	}
	defer func() {
		// npyio slices the header dict by the positions of its keys; a
		// dict it cannot parse must be an error, not a crash.
		if r := recover(); r != nil {
			a, err = nil, fmt.Errorf("data: %s: byte offset %d: malformed header %q", name, start, truncate(buf[start:end]))
		}
	}()
	shape, ok := headerShape(buf[start:end])
	if !ok {
		return nil, fmt.Errorf("data: %s: byte offset %d: malformed header %q: no shape tuple of integers", name, start, truncate(buf[start:end]))
	}
	r, err := npy.NewReader(bytes.NewReader(buf))
	if err != nil {
		return nil, fmt.Errorf("data: %s: %w", name, err)
	}
	h := r.Header.Descr
	// npyio finds the shape by the positions of the keys and trailers
	// NumPy writes; a header written otherwise could be misread as a
	// shape of the same size, so the shape is read here too and the two
	// must agree.
	if !slices.Equal(shape, h.Shape) {
		return nil, fmt.Errorf("data: %s: byte offset %d: header %q is not in the layout NumPy writes (npyio reads shape %v, the header says %v)", name, start, truncate(buf[start:end]), h.Shape, shape)
	}
	rt := npy.TypeFrom(h.Type)
	if rt == nil || !numericKind(rt.Kind()) {
		return nil, fmt.Errorf("data: %s: element type %q, want a number type (floats, integers or booleans)", name, h.Type)
	}
	elems := int64(1)
	for _, e := range h.Shape {
		if e < 0 || (e > 0 && elems > int64(len(buf))/int64(e)) {
			return nil, fmt.Errorf("data: %s: shape %v does not fit in the %d-byte file", name, h.Shape, len(buf))
		}
		elems *= int64(e)
	}
	if got, want := int64(len(buf)-end), elems*int64(rt.Size()); got != want {
		return nil, fmt.Errorf("data: %s: byte offset %d: %d data bytes, want %d for shape %v of %s", name, end, got, want, h.Shape, h.Type)
	}
	if elems*8 > maxBytes(opts) {
		return nil, fmt.Errorf("data: %s: shape %v takes %d bytes once read, past the limit of %d; raise MaxBytes if the file is real", name, h.Shape, elems*8, maxBytes(opts))
	}
	a = &npyArray{shape: slices.Clone(h.Shape), dtype: h.Type}
	if err := a.read(r, rt.Kind()); err != nil {
		return nil, fmt.Errorf("data: %s: %w", name, err)
	}
	if h.Fortran && len(a.shape) > 1 {
		a.toRowMajor()
	}
	return a, nil
}

var shapeRE = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)

// headerShape reads the shape tuple of an .npy header dict.
func headerShape(hdr []byte) ([]int, bool) {
	m := shapeRE.FindSubmatch(hdr)
	if m == nil {
		return nil, false
	}
	var shape []int
	for _, tok := range strings.Split(string(m[1]), ",") {
		tok = strings.TrimSpace(tok)
		if tok == "" {
			continue
		}
		v, err := strconv.Atoi(tok)
		if err != nil {
			return nil, false
		}
		shape = append(shape, v)
	}
	return shape, true
}

func truncate(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

func numericKind(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

func (a *npyArray) read(r *npy.Reader, k reflect.Kind) error {
	switch k {
	case reflect.Float32:
		return readFloats[float32](r, a)
	case reflect.Float64:
		return readFloats[float64](r, a)
	case reflect.Bool:
		var s []bool
		if err := r.Read(&s); err != nil {
			return err
		}
		a.i = make([]int64, len(s))
		for i, v := range s {
			if v {
				a.i[i] = 1
			}
		}
		return nil
	case reflect.Int8:
		return readInts[int8](r, a)
	case reflect.Int16:
		return readInts[int16](r, a)
	case reflect.Int32:
		return readInts[int32](r, a)
	case reflect.Int64:
		return readInts[int64](r, a)
	case reflect.Uint8:
		return readInts[uint8](r, a)
	case reflect.Uint16:
		return readInts[uint16](r, a)
	case reflect.Uint32:
		return readInts[uint32](r, a)
	default: // reflect.Uint64, numericKind's last
		return readInts[uint64](r, a)
	}
}

func readFloats[T float32 | float64](r *npy.Reader, a *npyArray) error {
	var s []T
	if err := r.Read(&s); err != nil {
		return err
	}
	a.f = make([]float64, len(s))
	for i, v := range s {
		a.f[i] = float64(v)
	}
	return nil
}

func readInts[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](r *npy.Reader, a *npyArray) error {
	var s []T
	if err := r.Read(&s); err != nil {
		return err
	}
	a.i = make([]int64, len(s))
	for i, v := range s {
		a.i[i] = int64(v)
	}
	return nil
}

// toRowMajor reorders the values of a Fortran-order (column-major) array
// into row-major order.
func (a *npyArray) toRowMajor() {
	n := len(a.f) + len(a.i)
	rank := len(a.shape)
	idx := make([]int, rank)
	fstride := make([]int, rank) // column-major strides
	s := 1
	for d := range rank {
		fstride[d] = s
		s *= a.shape[d]
	}
	src := func() int { // the column-major position of the row-major index idx
		p := 0
		for d := range rank {
			p += idx[d] * fstride[d]
		}
		return p
	}
	if a.f != nil {
		out := make([]float64, n)
		for k := range out {
			out[k] = a.f[src()]
			next(idx, a.shape)
		}
		a.f = out
	} else {
		out := make([]int64, n)
		for k := range out {
			out[k] = a.i[src()]
			next(idx, a.shape)
		}
		a.i = out
	}
}

// next advances a row-major multi-index.
func next(idx, shape []int) {
	for d := len(idx) - 1; d >= 0; d-- {
		idx[d]++
		if idx[d] < shape[d] {
			return
		}
		idx[d] = 0
	}
}

// fromArrays makes a Dataset of features x and labels or targets y.
func fromArrays(xName string, x, y *npyArray, yName string, opts NPYOptions) (*Dataset, error) {
	dt := opts.DType
	if dt == graph.Invalid {
		dt = graph.Float32
	}
	if dt != graph.Float32 && dt != graph.Float64 {
		return nil, fmt.Errorf("data: element type %v, want f32 or f64", dt)
	}
	if len(x.shape) < 1 || len(y.shape) < 1 || len(y.shape) > 2 {
		return nil, fmt.Errorf("data: features %s of shape %v and labels %s of shape %v; want features [rows, …] and labels [rows] or [rows, k]", xName, x.shape, yName, y.shape)
	}
	rows := x.shape[0]
	if y.shape[0] != rows {
		return nil, fmt.Errorf("data: features %s have %d rows (shape %v), labels %s have %d (shape %v); want as many labels as rows", xName, rows, x.shape, yName, y.shape[0], y.shape)
	}
	if rows == 0 {
		return nil, fmt.Errorf("data: features %s have no rows (shape %v)", xName, x.shape)
	}
	features := 1
	for _, e := range x.shape[1:] {
		features *= e
	}
	xs := x.f
	if xs == nil {
		xs = make([]float64, len(x.i))
		for i, v := range x.i {
			xs[i] = float64(v)
		}
	}
	if opts.Scale != 0 {
		for i := range xs {
			xs[i] *= opts.Scale
		}
	}
	var d *Dataset
	var err error
	if y.i != nil {
		if len(y.shape) != 1 {
			return nil, fmt.Errorf("data: labels %s have shape %v; want integer labels of shape [rows]", yName, y.shape)
		}
		labels := make([]int32, rows)
		for i, v := range y.i {
			if v < 0 || (opts.Classes > 0 && v >= int64(opts.Classes)) || v > 1<<31-1 {
				bound := "from 0"
				if opts.Classes > 0 {
					bound = fmt.Sprintf("in [0, %d)", opts.Classes)
				}
				return nil, fmt.Errorf("data: labels %s: row %d has label %d; want a class %s", yName, i, v, bound)
			}
			labels[i] = int32(v)
		}
		d = &Dataset{name: xName, dtype: graph.Float64, x64: xs}
		d, err = d.setLabels(len(xs), features, labels, opts.Classes)
	} else {
		outputs := 1
		if len(y.shape) == 2 {
			outputs = y.shape[1]
		}
		d = &Dataset{name: xName, dtype: graph.Float64, x64: xs, t64: y.f}
		d, err = d.setTargets(len(xs), features, len(y.f), outputs)
	}
	if err != nil {
		return nil, err
	}
	return d.AsType(dt)
}

// ReadArray reads one NumPy .npy file as a value of the graph package: an
// array, or a scalar for a 0-d array. float32 becomes f32, float64 f64,
// the integer types i32 (a value past its range is an error naming the
// element), bool bool; a Fortran-order array is reordered to row-major.
// The file is checked as ReadNPY checks its files (header, shape against
// the bytes that follow, at most maxBytes read and decoded; 0 means
// graph.DefaultMemoryLimit) before it is decoded, so a malformed file is
// an error naming the file and the byte offset, never a crash.
func ReadArray(path string, maxBytes int64) (graph.Value, error) {
	a, err := readNPYFile(path, NPYOptions{MaxBytes: maxBytes})
	if err != nil {
		return nil, err
	}
	var dt graph.DType
	switch {
	case a.f != nil && strings.HasSuffix(a.dtype, "f4"):
		dt = graph.Float32
	case a.f != nil:
		dt = graph.Float64
	case strings.HasSuffix(a.dtype, "b1"):
		dt = graph.Bool
	default:
		dt = graph.Int32
	}
	n := len(a.f) + len(a.i)
	at := func(k int) (float64, error) {
		if a.f != nil {
			return a.f[k], nil
		}
		x := a.i[k]
		if x < math.MinInt32 || x > math.MaxInt32 || (x < 0 && strings.Contains(a.dtype, "u")) {
			return 0, fmt.Errorf("data: %s: element %d is %d, past the range of i32", path, k, x)
		}
		return float64(x), nil
	}
	if len(a.shape) == 0 {
		x, err := at(0)
		if err != nil {
			return nil, err
		}
		return graph.ScalarValue{DType: dt, V: x}, nil
	}
	out, err := graph.NewArray(dt, graph.RowMajor(a.shape...))
	if err != nil {
		return nil, fmt.Errorf("data: %s: %w", path, err)
	}
	idx := make([]int, len(a.shape))
	for k := range n {
		x, err := at(k)
		if err != nil {
			return nil, err
		}
		out.Set(x, idx...)
		next(idx, a.shape)
	}
	return out, nil
}
