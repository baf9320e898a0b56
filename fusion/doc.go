// Package fusion turns a term of the graph IR into a graph of kernels: it
// rewrites the term with the paper's rules (vertical fusion through ncomp,
// horizontal fusion into products, exchanges of nested higher-order
// functions, subdivision) and cuts the result into kernels, each a maximal
// fused nest with named input buffers and one, possibly tuple, output.
//
// Partition is the cutting step on its own; Unfused uses it to split a term
// one layer at a time, the baseline that fused graphs are measured against,
// and Whole makes one kernel of everything. A Graph runs on the reference
// interpreter with Eval, so that every split and every rewrite can be tested
// against the term it came from.
package fusion
