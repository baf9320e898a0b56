package data

import (
	"fmt"
	"iter"
	"math"
	"math/rand/v2"

	"github.com/hofuse/hofuse/graph"
)

// Dataset is a table of rows: each row has Features float features and
// either an i32 class label (a classification set) or Outputs float
// targets (a regression set). The features and targets are held in the
// Dataset's element type, Float32 or Float64; a Dataset is immutable once
// made, and its subsets (Split, Subset) share nothing with it.
type Dataset struct {
	name     string      // where the rows came from, for error messages
	dtype    graph.DType // Float32 or Float64
	rows     int
	features int
	x32      []float32 // rows×features, row-major, when dtype is Float32
	x64      []float64 // rows×features, row-major, when dtype is Float64
	labels   []int32   // rows labels, or nil for a regression set
	classes  int       // labels lie in [0, classes); 0 for a regression set
	t32      []float32 // rows×outputs targets, when dtype is Float32
	t64      []float64 // rows×outputs targets, when dtype is Float64
	outputs  int       // targets per row; 0 for a classification set
}

// FromFloat64 makes a classification set of Float64 features from x, a
// row-major rows×features table (len(x) = len(labels)·features), and the
// labels, which must lie in [0, classes). classes 0 means one more than
// the largest label. The Dataset keeps x and labels; the caller must not
// change them afterwards.
func FromFloat64(x []float64, features int, labels []int32, classes int) (*Dataset, error) {
	d := &Dataset{name: "data.FromFloat64", dtype: graph.Float64, x64: x}
	return d.setLabels(len(x), features, labels, classes)
}

// FromFloat32 is FromFloat64 for Float32 features.
func FromFloat32(x []float32, features int, labels []int32, classes int) (*Dataset, error) {
	d := &Dataset{name: "data.FromFloat32", dtype: graph.Float32, x32: x}
	return d.setLabels(len(x), features, labels, classes)
}

// RegressionFloat64 makes a regression set of Float64 features and
// targets: x is rows×features and y rows×outputs, both row-major. The
// Dataset keeps both slices.
func RegressionFloat64(x []float64, features int, y []float64, outputs int) (*Dataset, error) {
	d := &Dataset{name: "data.RegressionFloat64", dtype: graph.Float64, x64: x, t64: y}
	return d.setTargets(len(x), features, len(y), outputs)
}

// RegressionFloat32 is RegressionFloat64 for Float32 features and targets.
func RegressionFloat32(x []float32, features int, y []float32, outputs int) (*Dataset, error) {
	d := &Dataset{name: "data.RegressionFloat32", dtype: graph.Float32, x32: x, t32: y}
	return d.setTargets(len(x), features, len(y), outputs)
}

func (d *Dataset) setShape(nx, features, rows int) error {
	if features < 1 {
		return fmt.Errorf("%s: %d features, want at least 1", d.name, features)
	}
	if rows < 1 {
		return fmt.Errorf("%s: no rows", d.name)
	}
	if nx/features != rows || nx%features != 0 {
		return fmt.Errorf("%s: %d feature values for %d rows of %d features, which need %d", d.name, nx, rows, features, rows*features)
	}
	if int64(rows)*int64(features) > graph.MaxElements {
		return fmt.Errorf("%s: %d rows of %d features are past the cap of %d elements (graph.MaxElements)", d.name, rows, features, int64(graph.MaxElements))
	}
	d.rows, d.features = rows, features
	return nil
}

func (d *Dataset) setLabels(nx, features int, labels []int32, classes int) (*Dataset, error) {
	if err := d.setShape(nx, features, len(labels)); err != nil {
		return nil, err
	}
	if classes < 0 {
		return nil, fmt.Errorf("%s: %d classes, want at least 1 (or 0 to count them from the labels)", d.name, classes)
	}
	top := int32(-1)
	for i, y := range labels {
		if y < 0 || (classes > 0 && int(y) >= classes) {
			return nil, fmt.Errorf("%s: row %d has label %d, want a class in [0, %d)", d.name, i, y, max(classes, 1))
		}
		top = max(top, y)
	}
	if classes == 0 {
		classes = int(top) + 1
	}
	d.labels, d.classes = labels, classes
	return d, nil
}

func (d *Dataset) setTargets(nx, features, ny, outputs int) (*Dataset, error) {
	if outputs < 1 {
		return nil, fmt.Errorf("%s: %d outputs, want at least 1", d.name, outputs)
	}
	if ny%outputs != 0 {
		return nil, fmt.Errorf("%s: %d target values are not a whole number of rows of %d outputs", d.name, ny, outputs)
	}
	if err := d.setShape(nx, features, ny/outputs); err != nil {
		return nil, err
	}
	d.outputs = outputs
	return d, nil
}

// Name says where the rows came from: a file name, or the constructor.
func (d *Dataset) Name() string { return d.name }

// DType is the element type of the features (and targets): Float32 or
// Float64.
func (d *Dataset) DType() graph.DType { return d.dtype }

// Rows is the number of rows.
func (d *Dataset) Rows() int { return d.rows }

// Features is the number of features in a row: a model's input size.
func (d *Dataset) Features() int { return d.features }

// Classes is the number of classes of a classification set (labels lie in
// [0, Classes)), 0 for a regression set.
func (d *Dataset) Classes() int { return d.classes }

// Outputs is the number of targets in a row of a regression set, 0 for a
// classification set.
func (d *Dataset) Outputs() int { return d.outputs }

// Labels returns the labels of a classification set (nil for a regression
// set). The caller must not modify them.
func (d *Dataset) Labels() []int32 { return d.labels }

// Row returns the features of row i as float64, copied.
func (d *Dataset) Row(i int) []float64 {
	out := make([]float64, d.features)
	if d.dtype == graph.Float32 {
		for j, v := range d.x32[i*d.features : (i+1)*d.features] {
			out[j] = float64(v)
		}
	} else {
		copy(out, d.x64[i*d.features:(i+1)*d.features])
	}
	return out
}

// Target returns the targets of row i of a regression set as float64,
// copied (nil for a classification set).
func (d *Dataset) Target(i int) []float64 {
	if d.outputs == 0 {
		return nil
	}
	out := make([]float64, d.outputs)
	if d.dtype == graph.Float32 {
		for j, v := range d.t32[i*d.outputs : (i+1)*d.outputs] {
			out[j] = float64(v)
		}
	} else {
		copy(out, d.t64[i*d.outputs:(i+1)*d.outputs])
	}
	return out
}

// CountLabels returns how many rows have each class, Classes long (nil for
// a regression set).
func (d *Dataset) CountLabels() []int {
	if d.labels == nil {
		return nil
	}
	n := make([]int, d.classes)
	for _, y := range d.labels {
		n[y]++
	}
	return n
}

// AsType returns the set with features and targets converted to dt
// (Float32 or Float64); the set itself when it already has that type.
func (d *Dataset) AsType(dt graph.DType) (*Dataset, error) {
	if dt != graph.Float32 && dt != graph.Float64 {
		return nil, fmt.Errorf("%s: element type %v, want f32 or f64", d.name, dt)
	}
	if dt == d.dtype {
		return d, nil
	}
	c := *d
	c.dtype = dt
	if dt == graph.Float32 {
		c.x32, c.x64 = narrow(d.x64), nil
		c.t32, c.t64 = narrow(d.t64), nil
	} else {
		c.x64, c.x32 = widen(d.x32), nil
		c.t64, c.t32 = widen(d.t32), nil
	}
	return &c, nil
}

func narrow(s []float64) []float32 {
	if s == nil {
		return nil
	}
	out := make([]float32, len(s))
	for i, v := range s {
		out[i] = float32(v)
	}
	return out
}

func widen(s []float32) []float64 {
	if s == nil {
		return nil
	}
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

// Subset returns a new Dataset of the given rows, in that order (a row
// may repeat). Every index must lie in [0, Rows).
func (d *Dataset) Subset(rows []int) (*Dataset, error) {
	for k, i := range rows {
		if i < 0 || i >= d.rows {
			return nil, fmt.Errorf("%s: subset index %d is row %d, want a row in [0, %d)", d.name, k, i, d.rows)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: an empty subset; give at least one row", d.name)
	}
	c := &Dataset{name: d.name, dtype: d.dtype, rows: len(rows), features: d.features, classes: d.classes, outputs: d.outputs}
	c.x32, c.x64 = gather(d.x32, rows, d.features), gather(d.x64, rows, d.features)
	c.t32, c.t64 = gather(d.t32, rows, d.outputs), gather(d.t64, rows, d.outputs)
	if d.labels != nil {
		c.labels = make([]int32, len(rows))
		for k, i := range rows {
			c.labels[k] = d.labels[i]
		}
	}
	return c, nil
}

func gather[T any](s []T, rows []int, width int) []T {
	if s == nil {
		return nil
	}
	out := make([]T, len(rows)*width)
	gatherInto(out, s, rows, width)
	return out
}

func gatherInto[T any](dst, s []T, rows []int, width int) {
	for k, i := range rows {
		copy(dst[k*width:(k+1)*width], s[i*width:(i+1)*width])
	}
}

// Split shuffles the rows with seed and cuts them into consecutive parts
// whose sizes follow fractions: Split(seed, 0.8, 0.2) gives a training
// and a test set, Split(seed, 0.7, 0.15, 0.15) adds a validation set. The
// fractions must be positive and sum to 1 (within 1e-9); part i ends at
// row round(Rows·(f0+…+fi)) of the shuffled order, and every part must
// have at least one row. The same seed gives the same parts.
func (d *Dataset) Split(seed uint64, fractions ...float64) ([]*Dataset, error) {
	if len(fractions) == 0 {
		return nil, fmt.Errorf("%s: split: no fractions; give at least one, as 0.8, 0.2", d.name)
	}
	sum := 0.0
	for i, f := range fractions {
		if !(f > 0) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s: split: fraction %d is %v, want a positive number", d.name, i, f)
		}
		sum += f
	}
	if math.Abs(sum-1) > 1e-9 {
		return nil, fmt.Errorf("%s: split: fractions %v sum to %v, want 1", d.name, fractions, sum)
	}
	perm := shuffled(d.rows, seed, splitStream)
	parts := make([]*Dataset, len(fractions))
	start, cum := 0, 0.0
	for i, f := range fractions {
		cum += f
		end := int(math.Round(float64(d.rows) * cum))
		if i == len(fractions)-1 {
			end = d.rows
		}
		if end <= start {
			return nil, fmt.Errorf("%s: split: part %d (fraction %v) of %d rows has no row; give it a larger fraction", d.name, i, f, d.rows)
		}
		p, err := d.Subset(perm[start:end])
		if err != nil {
			return nil, err
		}
		parts[i] = p
		start = end
	}
	return parts, nil
}

// splitStream is the PCG stream Split shuffles with, apart from every
// epoch's, so that a split and the batches of epoch 0 with the same seed
// are not shuffled alike.
const splitStream = math.MaxUint64

// permutation returns the seeded random order of n rows for one epoch:
// a Fisher–Yates shuffle driven by PCG seeded with (seed, epoch), so that
// every epoch has its own order and the order of epoch k can be made
// again without the k−1 before it.
func permutation(n int, seed uint64, epoch int) []int {
	return shuffled(n, seed, uint64(epoch))
}

func shuffled(n int, seed, stream uint64) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	r := rand.New(rand.NewPCG(seed, stream))
	r.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

// Batch is one mini-batch, shaped as models.MLP's input and the training
// step's labels.
type Batch struct {
	X       *graph.Array // the features: dtype[n, features], row-major
	Labels  *graph.Array // the labels: i32[n]; nil for a regression set
	Targets *graph.Array // the targets: dtype[n, outputs]; nil for a classification set
	Rows    []int        // the dataset's rows in the batch, in order
}

// Size is the number of rows in the batch.
func (b Batch) Size() int { return len(b.Rows) }

// BatchOptions says how Batches orders and cuts the rows.
type BatchOptions struct {
	// Seed and Epoch choose the order of the rows: each (Seed, Epoch)
	// pair gives its own shuffle, the same every time.
	Seed  uint64
	Epoch int
	// Ordered keeps the rows in their order, for evaluation and
	// prediction; Seed and Epoch are then unused.
	Ordered bool
	// DropLast leaves out the last batch when it is smaller than the
	// batch size.
	DropLast bool
	// Reuse fills the same arrays batch after batch (one set for the
	// full batches, one for the last, smaller one) instead of new ones:
	// a Batch is then valid only until the loop asks for the next. It
	// saves an allocation per step; a consumer that copies the batch
	// into its own arrays, as a training step's bindings do, loses
	// nothing.
	Reuse bool
}

// Batches returns the mini-batches of one epoch: the rows in the order
// opts chooses, cut into batches of size rows; the last batch is smaller
// when size does not divide Rows (DropLast leaves it out). A size larger
// than the set is an error, so that it is found before training starts.
//
// Each Batch holds new arrays, which the consumer may keep, unless
// opts.Reuse is set.
func (d *Dataset) Batches(size int, opts BatchOptions) (iter.Seq[Batch], error) {
	if size < 1 {
		return nil, fmt.Errorf("%s: batch size %d, want at least 1", d.name, size)
	}
	if size > d.rows {
		return nil, fmt.Errorf("%s: batch size %d is larger than the %d rows of the set; use a batch of at most %d", d.name, size, d.rows, d.rows)
	}
	var order []int
	if opts.Ordered {
		order = make([]int, d.rows)
		for i := range order {
			order[i] = i
		}
	} else {
		order = permutation(d.rows, opts.Seed, opts.Epoch)
	}
	n := d.rows
	if opts.DropLast {
		n -= n % size
	}
	return func(yield func(Batch) bool) {
		var bufs map[int]*Batch // by batch size, when reused
		for start := 0; start < n; start += size {
			rows := order[start:min(start+size, n)]
			var b Batch
			if opts.Reuse {
				if bufs == nil {
					bufs = map[int]*Batch{}
				}
				p := bufs[len(rows)]
				if p == nil {
					p = &Batch{}
					*p = d.newBatch(len(rows))
					bufs[len(rows)] = p
				}
				d.fill(*p, rows)
				b = *p
			} else {
				b = d.newBatch(len(rows))
				d.fill(b, rows)
			}
			if !yield(b) {
				return
			}
		}
	}, nil
}

// NumBatches is the number of batches Batches yields for a batch size.
func (d *Dataset) NumBatches(size int, dropLast bool) int {
	if size < 1 {
		return 0
	}
	if dropLast {
		return d.rows / size
	}
	return (d.rows + size - 1) / size
}

// Batch gathers the given rows, in order, into one batch (for a
// prediction on chosen rows, say). Every index must lie in [0, Rows).
func (d *Dataset) Batch(rows []int) (Batch, error) {
	if len(rows) == 0 {
		return Batch{}, fmt.Errorf("%s: an empty batch; give at least one row", d.name)
	}
	for k, i := range rows {
		if i < 0 || i >= d.rows {
			return Batch{}, fmt.Errorf("%s: batch index %d is row %d, want a row in [0, %d)", d.name, k, i, d.rows)
		}
	}
	b := d.newBatch(len(rows))
	d.fill(b, rows)
	return b, nil
}

// newBatch allocates the arrays of a batch of n rows. n is at most Rows,
// whose product with Features and Outputs is within graph's caps (the
// constructors check it), so the arrays are valid and nothing fails.
func (d *Dataset) newBatch(n int) Batch {
	b := Batch{Rows: make([]int, n)}
	b.X = d.table(n, d.features)
	if d.labels != nil {
		b.Labels = must(graph.Zeros(graph.Int32, n))
	} else {
		b.Targets = d.table(n, d.outputs)
	}
	return b
}

func (d *Dataset) table(n, width int) *graph.Array {
	if d.dtype == graph.Float32 {
		return must(graph.FromFloat32(make([]float32, n*width), n, width))
	}
	return must(graph.FromFloat64(make([]float64, n*width), n, width))
}

// must is for the arrays newBatch makes, which cannot be refused.
func must(a *graph.Array, err error) *graph.Array {
	if err != nil {
		panic("data: internal error: " + err.Error())
	}
	return a
}

// fill copies the given rows, in order, into b, whose arrays newBatch
// made for len(rows) rows.
func (d *Dataset) fill(b Batch, rows []int) {
	copy(b.Rows, rows)
	if d.dtype == graph.Float32 {
		gatherInto(b.X.Float32s(), d.x32, rows, d.features)
	} else {
		gatherInto(b.X.Float64s(), d.x64, rows, d.features)
	}
	if d.labels != nil {
		for k, i := range rows {
			b.Labels.Set(float64(d.labels[i]), k)
		}
	} else if d.dtype == graph.Float32 {
		gatherInto(b.Targets.Float32s(), d.t32, rows, d.outputs)
	} else {
		gatherInto(b.Targets.Float64s(), d.t64, rows, d.outputs)
	}
}
