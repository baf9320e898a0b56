package graphtest

import (
	"math/rand/v2"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// Config bounds and shapes the random programs. The zero Config is usable:
// every zero field takes the default its comment names, and every kind of
// term is enabled.
type Config struct {
	// DType is the element type of every input: graph.Float32 or
	// graph.Float64. graph.Invalid means Float64.
	DType graph.DType
	// MaxDepth bounds how deeply higher-order functions nest: a term at
	// depth d may apply an nzip or rnz whose function body has depth d-1.
	// 0 means 3.
	MaxDepth int
	// MaxExtent bounds every extent, drawn from 1..MaxExtent; composite
	// extents (4, 6, 8, 12, ...) are drawn often, so that subdiv has blocks
	// that divide. 0 means 8.
	MaxExtent int
	// MaxRank bounds the rank of the arrays the generator draws. 0 means
	// 3. The pattern generators make the arrays of rank 2 their pattern
	// needs (the matrix of MapOfRNZ) whatever MaxRank says.
	MaxRank int
	// MaxArgs bounds how many arrays one nzip or rnz traverses together.
	// 0 means 3.
	MaxArgs int
	// MaxWork roughly bounds the elements one evaluation touches per term:
	// the extents of the traversals a term sits inside, times the size of
	// the arrays it makes. It keeps the reference interpreter fast. 0
	// means 1024.
	MaxWork int
	// Special is the probability that an element of a floating-point input
	// drawn by Config.Inputs is a special value instead of a uniform one:
	// NaN, +Inf, -Inf or -0, each as likely. 0 (the default) draws none;
	// with it set, Eval's results may hold NaN and infinities, which
	// graph.Diff compares by its rules (a NaN matches a NaN, an infinity
	// only itself).
	Special float64
	// MixedTuples is the probability that an array a traversal reads (an
	// argument of an nzip or rnz the generator makes, rather than one it
	// finds in scope) is a tuple of two arrays of different ranks, such as
	// (Y, Z) with Y : [n,1,1] and Z : [n,3], often with extents of 1, so
	// that the function's tuple parameter p has elements fst p and snd p of
	// different ranks. 0 (the default) leaves tuple arguments to their
	// usual rare draws. It needs Tuples enabled and MaxRank at least 2.
	MixedTuples float64
	// Windows also draws the views of sliding windows wherever the
	// generator draws a layout operation: window d w s dl (strides and
	// dilations of 1 and 2), pad d lo hi (zero fill, with interior padding
	// now and then: an infinite fill times a zero cotangent is NaN, which
	// no law could compare) and crop d lo hi. Off by default: not every
	// back end lowers them.
	Windows bool
	// Disable lists the kinds of terms to leave out; see Kind. The
	// generators for a named pattern (NZipOfNZip, ...) always make their
	// pattern, and leave out the disabled kinds around it.
	Disable Kind
}

// withDefaults returns c with its zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.DType == graph.Invalid {
		c.DType = graph.Float64
	}
	if c.MaxDepth <= 0 {
		c.MaxDepth = 3
	}
	if c.MaxExtent <= 0 {
		c.MaxExtent = 8
	}
	if c.MaxRank <= 0 {
		c.MaxRank = 3
	}
	if c.MaxArgs <= 0 {
		c.MaxArgs = 3
	}
	if c.MaxWork <= 0 {
		c.MaxWork = 1024
	}
	return c
}

// Kind is a set of kinds of terms: the knobs of Config.Disable, and what
// Kinds reports a term to contain.
type Kind uint32

// The kinds of terms.
const (
	Nest          Kind = 1 << iota // an nzip or rnz inside the function of another (nested maps, row reductions); a lifted reduction operator does not count
	Reduce                         // rnz with a scalar accumulator
	LiftedReduce                   // rnz with an array accumulator and a lifted operator, zip (+)
	TupleReduce                    // rnz with a tuple accumulator, combined componentwise
	MaxMin                         // max or min as a reduction operator
	MulReduce                      // (*) as a reduction operator
	Tuples                         // tuples and projections
	Flip                           // flip of an array
	Subdiv                         // subdiv of an array
	FlattenSubdiv                  // flatten of a subdiv
	Share                          // a term containing an nzip, rnz or layout operation used in several places (a DAG)
	Let                            // let v = value in body
	LetFn                          // let f = function in body
	Section                        // sections such as (*2) or (max 0)
	PartialNZip                    // nzip given no arrays, a lifted function: zip (+), map (*2)
	OpFn                           // an op, section or id (lifted or not) as the function of an nzip or rnz: zip (+) x y, reduce (+) x, rnz (+) (*) x y
	App                            // application of a lambda or op: (\x -> e) a, (+) a b
	Select                         // comparisons and select
	ScalarInput                    // an input of scalar type
	numKinds      = iota
)

// AllKinds is the set of every kind.
const AllKinds Kind = 1<<numKinds - 1

var kindNames = [numKinds]string{
	"nest", "reduce", "lifted-reduce", "tuple-reduce", "max-min", "mul-reduce",
	"tuples", "flip", "subdiv", "flatten-subdiv", "share", "let", "let-fn",
	"section", "partial-nzip", "op-fn", "app", "select", "scalar-input",
}

// String lists the kinds in the set, separated by "|".
func (k Kind) String() string {
	var parts []string
	for i, name := range kindNames {
		if k&(1<<i) != 0 {
			parts = append(parts, name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "|")
}

// Each returns every single kind, in order.
func Each() []Kind {
	out := make([]Kind, numKinds)
	for i := range out {
		out[i] = 1 << i
	}
	return out
}

// Rand returns the random source for seed that the tests of this package
// and the law tests use, so that a failing seed can be replayed.
func Rand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}
