// Package paper reruns the experiments of the paper's section 4
// ("Demonstrative results") on hofuse and compares the figures with the
// published ones.
//
// # The matrix product
//
// Matmul builds the naive product of two random N×N float64 matrices,
//
//	map (\rA -> map (\cB -> rnz (+) (*) rA cB) (flip 0 B)) A
//
// lets fusion.Search enumerate its loop orders — the six of the paper's
// Table 1, then the twelve of Table 2 with the rnz subdivided into blocks —
// and runs each order on the native back end with NoGEMM, so that every
// order runs as the loop nest it is written as (dot and axpy kernels
// innermost) instead of being recognised as a matrix product. Each result
// is compared with the first order's (mapA mapB rnz, the textbook loop
// nest) before it is timed; a difference above MaxRelDiff of the largest
// element is an error, not a figure.
//
// Then the schedule pass chooses an order by itself (fusion.ScheduleGraph,
// with the GEMM micro-kernel off as in the tables, and the tables' block
// as the one subdivision it may try): the report's Chosen row gives that
// order, its predicted and measured times, and its rank among all the
// orders timed. It is not part of either table's rank correlation.
//
// # Timing
//
// An order is run once to warm up (page in the result, fill the caches;
// that run's result is the one checked), then Repeats more times, and its
// time is the median of those. An order whose warm-up takes longer than
// SlowAfter (2 s) is not run again: its time is the warm-up's, whose
// one-time costs are milliseconds against seconds. Without that, the slow
// orders at N = 1024 (the naive one among them) would take ten minutes and
// more on a two-core machine; each row records how many runs its time is
// of and whether it is the warm-up's.
//
// # Comparing with the paper
//
// Our orders are matched to the paper's by their labels ("mapA rnz mapB").
// Both columns are also given relative to their own naive time (the
// mapA mapB rnz order of Table 1: 4.67 s in the paper), since the paper's
// machine (a Core i5 7300HQ, clang) is not ours, and each table's ranking
// is compared by Spearman's rank correlation.
package paper
