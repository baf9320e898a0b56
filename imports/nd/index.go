package nd

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/hofuse/hofuse/graph"
)

// IndexPrefix begins the name of every index input: "nd.index.7" is the
// i32 array 0, 1, …, 6.
const IndexPrefix = "nd.index."

var (
	indexMu sync.Mutex
	indexes = map[int]*graph.Input{}
)

// Index returns the index input of extent n: the parameter
// "nd.index.<n>" of type i32[n] whose value is 0, 1, …, n-1. The IR's
// higher-order functions treat every element alike, so an operation that
// needs an element's position (ArgMax, Concat) zips with an index input.
// There is one input per extent, shared by every term (inputs are
// identified by pointer, and one program must not hold two inputs of one
// name). Its value is bound like any parameter's: BindIndexes adds the
// values of all the index inputs a term reads to a binding map.
func Index(n int) (*graph.Input, error) {
	if n < 1 || n > graph.MaxExtent {
		return nil, &Error{Op: "Index", Msg: fmt.Sprintf("extent %d is not between 1 and %d", n, graph.MaxExtent)}
	}
	indexMu.Lock()
	defer indexMu.Unlock()
	if in, ok := indexes[n]; ok {
		return in, nil
	}
	in, err := graph.NewInput(IndexPrefix+strconv.Itoa(n), graph.ArrayOf(graph.Int32, n), true)
	if err != nil {
		return nil, &Error{Op: "Index", Msg: fmt.Sprintf("extent %d", n), Err: err}
	}
	indexes[n] = in
	return in, nil
}

// IndexExtent reports whether in is an index input (see Index), and its
// extent.
func IndexExtent(in *graph.Input) (int, bool) {
	if in == nil || !strings.HasPrefix(in.Name, IndexPrefix) {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(in.Name, IndexPrefix))
	if err != nil {
		return 0, false
	}
	indexMu.Lock()
	defer indexMu.Unlock()
	if indexes[n] != in {
		return 0, false
	}
	return n, true
}

// IndexValue returns the value of the index input of extent n: the i32
// array 0, 1, …, n-1.
func IndexValue(n int) (*graph.Array, error) {
	if n < 1 || n > graph.MaxExtent {
		return nil, &Error{Op: "IndexValue", Msg: fmt.Sprintf("extent %d is not between 1 and %d", n, graph.MaxExtent)}
	}
	a, err := graph.Zeros(graph.Int32, n)
	if err != nil {
		return nil, &Error{Op: "IndexValue", Msg: fmt.Sprintf("extent %d", n), Err: err}
	}
	for i := range n {
		a.Set(float64(i), i)
	}
	return a, nil
}

// BindIndexes adds to bind the value of every index input term reads (see
// Index), so that bind can be handed to graph.Eval or a back end's Run. A
// binding already present for such a name is left as it is.
func BindIndexes(term graph.Node, bind map[string]graph.Value) error {
	info, err := graph.Check(term)
	if err != nil {
		return &Error{Op: "BindIndexes", Msg: "the term is ill-typed", Err: err}
	}
	for _, in := range info.Inputs {
		n, ok := IndexExtent(in)
		if !ok {
			continue
		}
		if _, done := bind[in.Name]; done {
			continue
		}
		v, err := IndexValue(n)
		if err != nil {
			return err
		}
		bind[in.Name] = v
	}
	return nil
}
