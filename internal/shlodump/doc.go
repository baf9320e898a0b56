// Command shlodump prints the StableHLO module of a program: a case of the
// back-end suite (lowering/lowertest) by name, or a program in the
// notation. It replaces a test that printed a module when an environment
// variable named a case.
//
//	go run ./internal/shlodump -case eq1 -dtype f32
//	go run ./internal/shlodump -program 'A : f32[4,5]; map (\r -> reduce (+) r) A' -unfused
//	go run ./internal/shlodump -list
//
// Flags:
//
//	-case NAME      a case of lowertest.Cases
//	-dtype f32|f64  the element type of a templated case (default f32)
//	-program TEXT   a program in the notation, instead of -case
//	-unfused        lower fusion.Unfused's graph instead of fusion.Whole's
//	-fused          lower fusion.Fuse's graph
//	-per-kernel     print one module per kernel
//	-list           list the case names
package main
