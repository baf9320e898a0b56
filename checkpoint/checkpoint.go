package checkpoint

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// MaxHeader is the largest JSON header the format allows, in bytes.
const MaxHeader = 100_000_000

// MetadataKey is the header's key for the string metadata.
const MetadataKey = "__metadata__"

// Checkpoint is what a safetensors file holds: named arrays and string
// metadata.
type Checkpoint struct {
	Name     string                  // the file it was read from, for error messages
	Tensors  map[string]*graph.Array // the arrays, row-major, by name
	Metadata map[string]string       // the "__metadata__" strings; empty, not nil, when there are none
}

// Names returns the tensors' names, sorted.
func (c *Checkpoint) Names() []string {
	names := make([]string, 0, len(c.Tensors))
	for n := range c.Tensors {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// dtypeSizes are the element sizes of the format's dtypes, in bytes.
var dtypeSizes = map[string]int64{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "F8_E8M0": 1,
	"I16": 2, "U16": 2, "F16": 2, "BF16": 2,
	"I32": 4, "U32": 4, "F32": 4,
	"F64": 8, "I64": 8, "U64": 8, "C64": 8,
}

// graphDTypes maps the dtypes hofuse holds to graph's element types.
var graphDTypes = map[string]graph.DType{"F32": graph.Float32, "F64": graph.Float64, "I32": graph.Int32}

func formatDType(dt graph.DType) (string, bool) {
	switch dt {
	case graph.Float32:
		return "F32", true
	case graph.Float64:
		return "F64", true
	case graph.Int32:
		return "I32", true
	}
	return "", false
}

// Marshal encodes tensors and metadata as a safetensors file: the
// tensors in name order, their data back to back, the JSON header padded
// with spaces to a multiple of 8 bytes. Each array must be f32, f64 or
// i32; names must be non-empty and not MetadataKey.
func Marshal(tensors map[string]*graph.Array, metadata map[string]string) ([]byte, error) {
	names := make([]string, 0, len(tensors))
	for n, a := range tensors {
		if n == "" || n == MetadataKey {
			return nil, fmt.Errorf("checkpoint: tensor name %q is reserved; choose another", n)
		}
		if a == nil {
			return nil, fmt.Errorf("checkpoint: tensor %q is nil", n)
		}
		if _, ok := formatDType(a.DType()); !ok {
			return nil, fmt.Errorf("checkpoint: tensor %q has element type %v; a checkpoint holds f32, f64 and i32", n, a.DType())
		}
		names = append(names, n)
	}
	slices.Sort(names)

	var hdr bytes.Buffer
	hdr.WriteByte('{')
	if len(metadata) > 0 {
		keys := make([]string, 0, len(metadata))
		for k := range metadata {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		hdr.WriteString(`"` + MetadataKey + `":{`)
		for i, k := range keys {
			if i > 0 {
				hdr.WriteByte(',')
			}
			writeJSONString(&hdr, k)
			hdr.WriteByte(':')
			writeJSONString(&hdr, metadata[k])
		}
		hdr.WriteByte('}')
	}
	var offset int64
	for i, n := range names {
		a := tensors[n]
		if i > 0 || len(metadata) > 0 {
			hdr.WriteByte(',')
		}
		dt, _ := formatDType(a.DType())
		size := int64(a.Size()) * int64(a.DType().Size())
		writeJSONString(&hdr, n)
		fmt.Fprintf(&hdr, `:{"dtype":"%s","shape":[`, dt)
		for k, e := range a.Extents() {
			if k > 0 {
				hdr.WriteByte(',')
			}
			hdr.WriteString(strconv.Itoa(e))
		}
		fmt.Fprintf(&hdr, `],"data_offsets":[%d,%d]}`, offset, offset+size)
		offset += size
	}
	hdr.WriteByte('}')
	for hdr.Len()%8 != 0 {
		hdr.WriteByte(' ')
	}
	if hdr.Len() > MaxHeader {
		return nil, fmt.Errorf("checkpoint: the header would take %d bytes, past the format's limit of %d", hdr.Len(), MaxHeader)
	}

	out := make([]byte, 0, 8+int64(hdr.Len())+offset)
	out = binary.LittleEndian.AppendUint64(out, uint64(hdr.Len()))
	out = append(out, hdr.Bytes()...)
	for _, n := range names {
		out = appendData(out, tensors[n])
	}
	return out, nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s) // a string always marshals
	b.Write(q)
}

// appendData appends a's elements, row-major, little-endian.
func appendData(out []byte, a *graph.Array) []byte {
	if !a.Layout().IsRowMajor() || a.Offset() != 0 {
		a = a.Copy()
	}
	n := a.Size()
	switch a.DType() {
	case graph.Float32:
		for _, v := range a.Float32s()[:n] {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
		}
	case graph.Float64:
		for _, v := range a.Float64s()[:n] {
			out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
		}
	default: // graph.Int32, Marshal's last
		for _, v := range a.Values() {
			out = binary.LittleEndian.AppendUint32(out, uint32(int32(v)))
		}
	}
	return out
}

// Save writes tensors and metadata to path as a safetensors file,
// atomically: it writes a temporary file in path's folder, syncs it and
// renames it over path, so that path holds either its old content or the
// whole new file.
func Save(path string, tensors map[string]*graph.Array, metadata map[string]string) error {
	b, err := Marshal(tensors, metadata)
	if err != nil {
		return err
	}
	if err := CheckWritable(path); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("checkpoint: cannot write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("checkpoint: cannot write %s: %w", path, err)
	}
	return nil
}

// CheckWritable reports whether Save could write path, without touching
// path itself: its folder must exist and take a new file, and path must
// not be a folder. Callers call it before they train, so that an
// unwritable path costs no training time.
func CheckWritable(path string) error {
	if path == "" {
		return errors.New("checkpoint: no file name to save to")
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("checkpoint: cannot write %s: it is a folder; name a file in it", path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("checkpoint: cannot write %s: folder %s does not exist; create it or save elsewhere", path, dir)
	}
	if err != nil {
		return fmt.Errorf("checkpoint: cannot write %s: %w", path, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("checkpoint: cannot write %s: %s is not a folder", path, dir)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".check*")
	if err != nil {
		return fmt.Errorf("checkpoint: cannot write %s: cannot create a file in %s (%v); save elsewhere", path, dir, unwrapPath(err))
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}

// unwrapPath drops the temporary file's name from an *os.PathError.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Load reads and checks a safetensors file (see the package doc for what
// is checked). A file larger than graph.DefaultMemoryLimit is refused
// before it is read; LoadLimit takes another limit.
func Load(path string) (*Checkpoint, error) { return LoadLimit(path, 0) }

// LoadLimit is Load with a limit in bytes on the file's size; 0 means
// graph.DefaultMemoryLimit.
func LoadLimit(path string, limit int64) (*Checkpoint, error) {
	if limit <= 0 {
		limit = graph.DefaultMemoryLimit
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("checkpoint: %s: %d bytes, past the limit of %d; raise the limit if the file is real", path, st.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %s: %w", path, err)
	}
	return Unmarshal(b, path)
}

// entry is one tensor's header entry.
type entry struct {
	name    string
	dtype   string
	shape   []int64
	offsets [2]int64
}

// Unmarshal decodes and checks a safetensors file held in b; name is the
// file name errors give.
func Unmarshal(b []byte, name string) (*Checkpoint, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("checkpoint: %s: "+format, append([]any{name}, args...)...)
	}
	if len(b) < 8 {
		return nil, bad("%d bytes, too short for the 8-byte header length; not a safetensors file", len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if n > MaxHeader {
		return nil, bad("header length %d is past the format's limit of %d bytes; not a safetensors file, or a damaged one", n, MaxHeader)
	}
	if n > uint64(len(b)-8) {
		return nil, bad("header length %d reaches past the end of the file (%d bytes after the length); the file is cut short", n, len(b)-8)
	}
	hdr, data := b[8:8+n], b[8+n:]
	meta, entries, err := parseHeader(hdr)
	if err != nil {
		return nil, bad("%v", err)
	}

	// Offsets: in range, then sorted to find overlaps and holes.
	for _, e := range entries {
		size, ok := dtypeSizes[e.dtype]
		if !ok {
			return nil, bad("tensor %q has dtype %q, which is not a safetensors dtype", e.name, e.dtype)
		}
		if e.offsets[0] < 0 || e.offsets[1] < e.offsets[0] || e.offsets[1] > int64(len(data)) {
			return nil, bad("tensor %q has data_offsets [%d, %d], outside the %d bytes of data", e.name, e.offsets[0], e.offsets[1], len(data))
		}
		elems := int64(1)
		for _, x := range e.shape {
			if x < 0 {
				return nil, bad("tensor %q has shape %v, with a negative extent", e.name, e.shape)
			}
			if x > 0 && elems > int64(len(data))/x {
				return nil, bad("tensor %q has shape %v, more elements than the %d bytes of data hold", e.name, e.shape, len(data))
			}
			elems *= x
		}
		if got := e.offsets[1] - e.offsets[0]; got != elems*size {
			return nil, bad("tensor %q of shape %v and dtype %s needs %d bytes, its data_offsets [%d, %d] hold %d", e.name, e.shape, e.dtype, elems*size, e.offsets[0], e.offsets[1], got)
		}
	}
	sorted := slices.Clone(entries)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i].offsets, sorted[j].offsets
		return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1])
	})
	end, last := int64(0), ""
	for _, e := range sorted {
		if e.offsets[0] < end {
			return nil, bad("tensor %q's data_offsets [%d, %d] overlap tensor %q's, which end at %d", e.name, e.offsets[0], e.offsets[1], last, end)
		}
		if e.offsets[0] > end {
			return nil, bad("data bytes [%d, %d) belong to no tensor; the format allows no holes", end, e.offsets[0])
		}
		end, last = e.offsets[1], e.name
	}
	if end != int64(len(data)) {
		return nil, bad("data bytes [%d, %d) belong to no tensor; the format allows no holes", end, len(data))
	}

	c := &Checkpoint{Name: name, Tensors: make(map[string]*graph.Array, len(entries)), Metadata: meta}
	for _, e := range entries {
		dt, ok := graphDTypes[e.dtype]
		if !ok {
			return nil, bad("tensor %q has dtype %s, which hofuse does not hold; want F32, F64 or I32", e.name, e.dtype)
		}
		ext := make([]int, len(e.shape))
		for i, x := range e.shape {
			if x < 1 || x > graph.MaxExtent {
				return nil, bad("tensor %q has shape %v; hofuse arrays have extents in [1, %d]", e.name, e.shape, int64(graph.MaxExtent))
			}
			ext[i] = int(x)
		}
		a, err := decode(dt, ext, data[e.offsets[0]:e.offsets[1]])
		if err != nil {
			return nil, bad("tensor %q: %v", e.name, err)
		}
		c.Tensors[e.name] = a
	}
	return c, nil
}

// decode makes a row-major array of the little-endian bytes b.
func decode(dt graph.DType, ext []int, b []byte) (*graph.Array, error) {
	switch dt {
	case graph.Float32:
		v := make([]float32, len(b)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return graph.FromFloat32(v, ext...)
	case graph.Float64:
		v := make([]float64, len(b)/8)
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
		return graph.FromFloat64(v, ext...)
	default: // graph.Int32, graphDTypes' last
		a, err := graph.Zeros(graph.Int32, ext...)
		if err != nil {
			return nil, err
		}
		idx := make([]int, len(ext))
		for i := range len(b) / 4 {
			a.Set(float64(int32(binary.LittleEndian.Uint32(b[4*i:]))), idx...)
			for d := len(idx) - 1; d >= 0; d-- { // the next row-major index
				if idx[d]++; idx[d] < ext[d] {
					break
				}
				idx[d] = 0
			}
		}
		return a, nil
	}
}

// parseHeader reads the JSON header: an object of tensor entries and the
// optional metadata object, each name once.
func parseHeader(hdr []byte) (map[string]string, []entry, error) {
	if t := bytes.TrimLeft(hdr, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, nil, errors.New("the header is not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(hdr))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // '{', checked above
		return nil, nil, fmt.Errorf("the header is not well-formed JSON: %v", err)
	}
	meta := map[string]string{}
	var entries []entry
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("the header is not well-formed JSON: %v", err)
		}
		key, ok := tok.(string)
		if !ok { // Token fails first on a key that is not a string; kept as a guard
			return nil, nil, fmt.Errorf("the header has key %v, want a string", tok)
		}
		if seen[key] {
			return nil, nil, fmt.Errorf("the header names %q twice", key)
		}
		seen[key] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, fmt.Errorf("the header is not well-formed JSON: %v", err)
		}
		if key == MetadataKey {
			if meta, err = parseMetadata(raw); err != nil {
				return nil, nil, err
			}
			continue
		}
		e, err := parseEntry(key, raw)
		if err != nil {
			return nil, nil, err
		}
		entries = append(entries, e)
	}
	if _, err := dec.Token(); err != nil { // '}'
		return nil, nil, fmt.Errorf("the header is not well-formed JSON: %v", err)
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return nil, nil, fmt.Errorf("the header is not well-formed JSON after its object: %v", err)
		}
		return nil, nil, fmt.Errorf("the header has %v after its object; only spaces may follow it", tok)
	}
	return meta, entries, nil
}

func parseMetadata(raw json.RawMessage) (map[string]string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%s is %s, want an object of strings", MetadataKey, short(raw))
	}
	meta := make(map[string]string, len(m))
	for k, v := range m {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, fmt.Errorf("%s[%q] is %s, want a string", MetadataKey, k, short(v))
		}
		meta[k] = s
	}
	return meta, nil
}

func parseEntry(name string, raw json.RawMessage) (entry, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return entry{}, fmt.Errorf("tensor %q is %s, want an object with dtype, shape and data_offsets", name, short(raw))
	}
	e := entry{name: name}
	for _, f := range []string{"dtype", "shape", "data_offsets"} {
		if _, ok := fields[f]; !ok {
			return entry{}, fmt.Errorf("tensor %q has no %s", name, f)
		}
	}
	if len(fields) != 3 {
		var extra []string
		for f := range fields {
			if f != "dtype" && f != "shape" && f != "data_offsets" {
				extra = append(extra, f)
			}
		}
		slices.Sort(extra)
		return entry{}, fmt.Errorf("tensor %q has unknown fields %s; want dtype, shape and data_offsets", name, strings.Join(extra, ", "))
	}
	if err := json.Unmarshal(fields["dtype"], &e.dtype); err != nil {
		return entry{}, fmt.Errorf("tensor %q has dtype %s, want a string", name, short(fields["dtype"]))
	}
	if err := json.Unmarshal(fields["shape"], &e.shape); err != nil || e.shape == nil {
		return entry{}, fmt.Errorf("tensor %q has shape %s, want a list of integers", name, short(fields["shape"]))
	}
	var off []int64
	if err := json.Unmarshal(fields["data_offsets"], &off); err != nil || len(off) != 2 {
		return entry{}, fmt.Errorf("tensor %q has data_offsets %s, want two integers [begin, end]", name, short(fields["data_offsets"]))
	}
	e.offsets = [2]int64{off[0], off[1]}
	return e, nil
}

// short quotes a piece of JSON for an error message, cut at 40 bytes.
func short(raw []byte) string {
	if len(raw) > 40 {
		return string(raw[:40]) + "…"
	}
	return string(raw)
}

// Match checks the checkpoint against the tensors a model expects, by
// name, element type and extents: a tensor the model expects and the file
// lacks, one whose type differs (the error names the tensor and both
// types), and one in the file the model does not expect are errors. It
// reports the first problem in name order.
func (c *Checkpoint) Match(want map[string]*graph.ArrayType) error {
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		w := want[n]
		a, ok := c.Tensors[n]
		if !ok {
			return fmt.Errorf("checkpoint: %s: no tensor %q (want %v); the file holds %s", c.Name, n, w.DType.String()+fmt.Sprint(w.Layout.Extents()), listNames(c.Names()))
		}
		if a.DType() != w.DType || !slices.Equal(a.Extents(), w.Layout.Extents()) {
			return fmt.Errorf("checkpoint: %s: tensor %q is %v%v in the file, the model wants %v%v", c.Name, n, a.DType(), a.Extents(), w.DType, w.Layout.Extents())
		}
	}
	for _, n := range c.Names() {
		if _, ok := want[n]; !ok {
			return fmt.Errorf("checkpoint: %s: tensor %q is not one the model has", c.Name, n)
		}
	}
	return nil
}

func listNames(names []string) string {
	if len(names) == 0 {
		return "no tensor"
	}
	const most = 8
	q := make([]string, 0, most+1)
	for i, n := range names {
		if i == most {
			q = append(q, fmt.Sprintf("and %d more", len(names)-most))
			break
		}
		q = append(q, strconv.Quote(n))
	}
	return strings.Join(q, ", ")
}
