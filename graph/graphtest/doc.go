// Package graphtest makes random well-typed programs of the graph IR and
// random inputs for them, for law tests: every rewrite rule of the fusion
// pass is checked on hundreds of seeded programs by evaluating each with
// the reference interpreter before and after the rewrite and comparing the
// results,
//
//	for seed := range uint64(500) {
//		r := graphtest.Rand(seed)
//		n, ins := graphtest.MapOfRNZ(r, graphtest.Config{DType: graph.Float32})
//		in := graphtest.Inputs(r, ins)
//		want, err := graph.Eval(n, in)
//		...
//		got, err := graph.Eval(rewritten, in)
//		...
//		graphtest.Compare(t, want, got, 0)
//	}
//
// # Generators
//
// Program makes a random closed term of random type, and ProgramOfType one
// of a given type. The pattern generators make terms that contain the
// left-hand side of one rule, in a random context (alone, inside the
// function of a map or reduction whose rows the pattern reads, consumed by
// a further term, or beside another term in a tuple): NZipOfNZip and
// RNZOfNZip for vertical fusion, MapOfRNZ, RNZOfRNZ and MapOfMap for the
// exchanges, ProductPair for horizontal fusion. MatVec, MatMul and Dense
// are the paper's examples with random extents. Generators lists them all.
// ScalarExpr makes the scalar bodies of lambdas on its own.
//
// Every generator returns the term and exactly the inputs it reads, named
// x0, x1, ... (data inputs, not parameters). The terms pass graph.Check, and
// graph.Eval on Inputs gives finite values: scalar expressions guard their
// partial operations (a / (1 + b*b), log (1 + a*a), exp (tanh a)), and a
// reduction by (*) squashes its factors into (-1, 1) with tanh.
//
// # Configuration and kinds of terms
//
// Config bounds the nesting depth, extents, ranks, arities and the work one
// evaluation does, and its Disable field leaves out kinds of terms: nested
// traversals, reductions with scalar, array (lifted zip (+)) and tuple
// accumulators, max/min and (*) reductions, tuples, flip, subdiv and flatten
// of a subdiv, shared subterms (DAGs), lets (of values and of functions),
// sections, partial nzips, ops and id as functions, applications, select,
// and scalar inputs. Kinds reports which kinds a term contains, so a test
// can check what its seeds covered.
//
// # Input options and special values
//
// Config.Special mixes NaN, +Inf, -Inf and -0 into the float inputs that
// Config.Inputs draws, with a stated probability per element, so that law
// and back-end tests see the special values every back end must agree on;
// Config.MixedTuples makes traversals read tuples of arrays of different
// ranks (zip f a (Y, Z), Y : [n,1,1], Z : [n,3]). With either set, Eval's
// results may hold NaN and infinities (graph.Diff matches a NaN with a NaN
// and an infinity only with itself).
//
// # Shrinking
//
// Shrink reduces a failing Case (a term and its input values) to a small
// one that a predicate still reports as failing: it replaces subterms by
// their own subterms, by inputs bound to their values or by literals,
// inlines lets, drops unused arguments, eta-reduces lambdas and shrinks
// extents. Print the result with Case.String.
//
// # Determinism
//
// A generator draws everything from the *rand.Rand it is given and iterates
// over no map, so a seed gives the same program (the same graph.Print text
// and inputs) on every run and platform; Rand makes the source the tests of
// this package use. Inputs draws values in the order of the inputs.
//
// # Comparing values
//
// The comparison of values and the project's one tolerance live in package
// graph (graph.Diff, graph.MaxAbsDiff, graph.Finite, graph.Tolerance), so
// that the CLI can use them too; Compare reports graph.Diff's mismatch
// through a testing.TB.
//
// # Edge cases
//
// EdgeCases is a table of small programs with results written by hand from
// graph's "Scalar semantics" (NaN through max and min, signed zeros,
// relu(-0), i32 wrapping and division, conversions, subnormals); the
// interpreter and every back end run it and compare with Exact, bit for
// bit.
//
// # Aliasing
//
// Generated terms share nodes on purpose (a DAG: one node used as the
// argument of two traversals). Nothing here modifies a term or a value it
// is given.
package graphtest
