// Package pjrttest opens a PJRT client for tests, or skips them cleanly
// when no plugin is installed. Set HOFUSE_REQUIRE_PJRT=1 (CI does, after
// "go run ./cmd/hofuse pjrt install") to turn the skips into failures.
//
//	func TestMine(t *testing.T) {
//		c := pjrttest.Client(t) // skips: "no PJRT plugin: ... run: go run ./cmd/hofuse pjrt install"
//		e, err := c.Compile(text)
//		...
//	}
//
// The handle is closed when the test ends; handles share one PJRT client
// per plugin (see package pjrt), so opening one per test is cheap once the
// plugin is loaded.
package pjrttest
