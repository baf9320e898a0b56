package pjrtinstall

import "github.com/hofuse/hofuse/internal/pluginfile"

// The record of installable plugins lives in package pluginfile, which
// package pjrt also uses to check a plugin before loading it; these names
// keep the installer's API.
type (
	// Plugin is one recorded plugin (see pluginfile.Plugin).
	Plugin = pluginfile.Plugin
	// Manifest is the content of plugins.json (see pluginfile.Manifest).
	Manifest = pluginfile.Manifest
)

// Recorded returns the manifest recorded in the repository
// (internal/pluginfile/plugins.json, embedded at build time).
func Recorded() (*Manifest, error) { return pluginfile.Recorded() }

// ParseManifest reads and checks a manifest (see pluginfile.ParseManifest).
func ParseManifest(data []byte) (*Manifest, error) { return pluginfile.ParseManifest(data) }

// Platform is GOOS/GOARCH, as plugins.json writes it.
func Platform() string { return pluginfile.Platform() }
