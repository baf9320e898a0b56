//go:build race

package kernels

// The race detector makes sync.Pool drop items at random, so products
// without a Workspace allocate now and then.
const raceEnabled = true
