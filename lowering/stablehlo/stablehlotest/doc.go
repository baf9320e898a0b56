// Package stablehlotest holds views that package graph does not define — a
// transpose-like permutation, a reshape-then-transpose and an overlapping
// window — registered in the notation for tests only. The StableHLO
// lowering's tests and the PJRT back end's tests use them to show that
// views are lowered through the layout they produce, with no case per view
// kind, and that a view StableHLO cannot express is refused by name.
package stablehlotest
