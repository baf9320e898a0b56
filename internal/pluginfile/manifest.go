package pluginfile

import (
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime"
)

//go:embed plugins.json
var recordedJSON []byte

// Plugin is one recorded plugin: a PyPI wheel, pinned by its sha256, and
// the shared library inside it, pinned by its sha256 and size.
type Plugin struct {
	Kind        string `json:"kind"`     // "cpu" or "cuda"
	Package     string `json:"package"`  // PyPI name: xla-cpu-pjrt
	Version     string `json:"version"`  // exact version: 0.0.1
	Platform    string `json:"platform"` // GOOS/GOARCH the wheel is for
	CUDA        int    `json:"cuda,omitempty"`
	Wheel       string `json:"wheel"`        // wheel file name pip saves
	WheelSHA256 string `json:"wheel_sha256"` // hex
	Member      string `json:"member"`       // path of the library in the wheel
	SOSHA256    string `json:"so_sha256"`    // hex
	SOSize      int64  `json:"so_size"`      // bytes
	File        string `json:"file"`         // name it is installed under
	Note        string `json:"note,omitempty"`
}

// Spec is the pip requirement that fetches p's wheel: xla-cpu-pjrt==0.0.1.
func (p Plugin) Spec() string { return p.Package + "==" + p.Version }

// Manifest is the content of plugins.json.
type Manifest struct {
	Comment string `json:"comment,omitempty"`
	// Candidates lists, per kind, the PyPI packages to try in order. Only
	// those with an entry in Plugins install without --unverified.
	Candidates map[string][]string `json:"candidates"`
	Plugins    []Plugin            `json:"plugins"`
}

// Recorded returns the manifest recorded in the repository
// (internal/pluginfile/plugins.json, embedded at build time).
func Recorded() (*Manifest, error) { return ParseManifest(recordedJSON) }

// ParseManifest reads and checks a manifest: every plugin entry needs all
// its fields, and well-formed hashes.
func ParseManifest(data []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("plugins.json: %v", err)
	}
	for i, p := range m.Plugins {
		for _, f := range []struct{ name, v string }{
			{"kind", p.Kind}, {"package", p.Package}, {"version", p.Version}, {"platform", p.Platform},
			{"wheel", p.Wheel}, {"member", p.Member}, {"file", p.File},
		} {
			if f.v == "" {
				return nil, fmt.Errorf("plugins.json: plugin %d (%s): no %s", i, p.Package, f.name)
			}
		}
		for _, h := range []struct{ name, v string }{{"wheel_sha256", p.WheelSHA256}, {"so_sha256", p.SOSHA256}} {
			if b, err := hex.DecodeString(h.v); err != nil || len(b) != 32 {
				return nil, fmt.Errorf("plugins.json: plugin %d (%s): %s %q is not a sha256 in hex", i, p.Package, h.name, h.v)
			}
		}
		if p.SOSize <= 0 {
			return nil, fmt.Errorf("plugins.json: plugin %d (%s): no so_size", i, p.Package)
		}
	}
	return &m, nil
}

// Lookup returns the recorded plugin of package pkg for this platform.
func (m *Manifest) Lookup(pkg string) (Plugin, bool) {
	for _, p := range m.Plugins {
		if p.Package == pkg && p.Platform == Platform() {
			return p, true
		}
	}
	return Plugin{}, false
}

// Platform is GOOS/GOARCH, as plugins.json writes it.
func Platform() string { return runtime.GOOS + "/" + runtime.GOARCH }
