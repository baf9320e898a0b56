package pjrtinstall

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hofuse/hofuse/pjrt"
)

// sharedLib compiles a tiny shared library from C source, or skips the
// test when there is no C compiler.
func sharedLib(t *testing.T, src string) []byte {
	t.Helper()
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc to build a fake plugin")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "lib.so")
	cmd := exec.Command(cc, "-shared", "-fPIC", "-x", "c", "-", "-o", out)
	cmd.Stdin = strings.NewReader(src)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func fakePluginLib(t *testing.T) []byte {
	return sharedLib(t, "void *GetPjrtApi(void) { return 0; }\n")
}

// makeWheel writes a zip with the given members into dir/name.
func makeWheel(t *testing.T, dir, name string, members map[string][]byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	names := make([]string, 0, len(members))
	for n := range members {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(members[n])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func sha(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

const member = "xla_plugins/fake/fake.so"

// fixture is a fake wheel with a fake plugin and a manifest recording
// them as the first CPU candidate.
type fixture struct {
	lib, wheel []byte
	wheelPath  string
	plugin     Plugin
	manifest   *Manifest
	downloads  int
}

func newFixture(t *testing.T, lib []byte) *fixture {
	t.Helper()
	fx := &fixture{lib: lib}
	name := "fake_pjrt-1.0-py3-none-any.whl"
	fx.wheelPath = makeWheel(t, t.TempDir(), name, map[string][]byte{
		member:                           lib,
		"fake_pjrt-1.0.dist-info/RECORD": []byte("..."),
	})
	var err error
	if fx.wheel, err = os.ReadFile(fx.wheelPath); err != nil {
		t.Fatal(err)
	}
	fx.plugin = Plugin{
		Kind: "cpu", Package: "fake-pjrt", Version: "1.0", Platform: Platform(),
		Wheel: name, WheelSHA256: sha(fx.wheel), Member: member, SOSHA256: sha(lib), SOSize: int64(len(lib)),
		File: "pjrt_c_api_cpu_plugin.so",
	}
	fx.manifest = &Manifest{
		Candidates: map[string][]string{"cpu": {"fake-pjrt", "unrecorded-pjrt"}},
		Plugins:    []Plugin{fx.plugin},
	}
	return fx
}

// options installs into a new folder, "downloading" the fixture's wheel.
func (fx *fixture) options(t *testing.T) Options {
	return Options{
		Dir:      filepath.Join(t.TempDir(), ".pjrt"),
		Manifest: fx.manifest,
		Download: func(ctx context.Context, pkg, version, dir string) (string, error) {
			fx.downloads++
			if pkg != "fake-pjrt" || version != "1.0" {
				return "", errors.New("no such package " + pkg + "==" + version)
			}
			dst := filepath.Join(dir, filepath.Base(fx.wheelPath))
			return dst, os.WriteFile(dst, fx.wheel, 0o644)
		},
	}
}

// onlyFiles lists the names in dir.
func onlyFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestInstallAndIdempotence(t *testing.T) {
	fx := newFixture(t, fakePluginLib(t))
	o := fx.options(t)
	res, err := Install(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(o.Dir, "pjrt_c_api_cpu_plugin.so")
	if res.Path != dst || res.Already || !res.Verified || res.Wheel != "fake_pjrt-1.0-py3-none-any.whl" {
		t.Errorf("first install: %+v", res)
	}
	if got, _ := os.ReadFile(dst); string(got) != string(fx.lib) {
		t.Error("installed library differs from the wheel's member")
	}
	if got := strings.Join(onlyFiles(t, o.Dir), " "); got != "pjrt_c_api_cpu_plugin.so pjrt_c_api_cpu_plugin.so.stamp.json" {
		t.Errorf("folder holds %s", got)
	}

	// Again: nothing downloaded, nothing hashed (the stamp is trusted).
	res, err = Install(context.Background(), o)
	if err != nil || !res.Already || fx.downloads != 1 {
		t.Errorf("second install: %+v, %v, %d downloads", res, err, fx.downloads)
	}

	// Without a stamp, the file is hashed, found good, and stamped again.
	os.Remove(dst + StampSuffix)
	res, err = Install(context.Background(), o)
	if err != nil || !res.Already || fx.downloads != 1 {
		t.Errorf("install with no stamp: %+v, %v, %d downloads", res, err, fx.downloads)
	}
	if _, err := os.Stat(dst + StampSuffix); err != nil {
		t.Errorf("stamp not rewritten: %v", err)
	}

	// A changed file (same size, new time) is hashed, refused, reinstalled.
	bad := slices.Clone(fx.lib)
	bad[len(bad)-1] ^= 0xff
	if err := os.WriteFile(dst, bad, 0o755); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Hour)
	os.Chtimes(dst, future, future)
	if ok, err := CheckInstalled(dst, fx.plugin, false); ok || err == nil || !strings.Contains(err.Error(), "has sha256") {
		t.Errorf("CheckInstalled(changed file) = %v, %v", ok, err)
	}
	res, err = Install(context.Background(), o)
	if err != nil || res.Already || fx.downloads != 2 {
		t.Errorf("install over a changed file: %+v, %v, %d downloads", res, err, fx.downloads)
	}
	if got, _ := os.ReadFile(dst); string(got) != string(fx.lib) {
		t.Error("changed library not replaced")
	}

	// --force reinstalls; --recheck hashes but does not download.
	o.Force = true
	if res, err = Install(context.Background(), o); err != nil || res.Already || fx.downloads != 3 {
		t.Errorf("forced install: %+v, %v", res, err)
	}
	o.Force, o.Recheck = false, true
	if res, err = Install(context.Background(), o); err != nil || !res.Already || fx.downloads != 3 {
		t.Errorf("rechecked install: %+v, %v", res, err)
	}
}

func TestInstallRefusals(t *testing.T) {
	lib := fakePluginLib(t)
	for _, tc := range []struct {
		name   string
		change func(fx *fixture)
		want   string // %s: the wheel's sha256
	}{
		{"wheel sha256", func(fx *fixture) { fx.manifest.Plugins[0].WheelSHA256 = strings.Repeat("0", 64) },
			"wheel fake_pjrt-1.0-py3-none-any.whl has sha256 %s, but plugins.json records 0000"},
		{"library sha256", func(fx *fixture) { fx.manifest.Plugins[0].SOSHA256 = strings.Repeat("1", 64) },
			"xla_plugins/fake/fake.so in fake_pjrt-1.0-py3-none-any.whl has sha256 " + sha(lib) + " and"},
		{"library size", func(fx *fixture) { fx.manifest.Plugins[0].SOSize++ }, "refusing it"},
		{"missing member", func(fx *fixture) { fx.manifest.Plugins[0].Member = "xla_plugins/other.so" },
			"wheel fake_pjrt-1.0-py3-none-any.whl has no member xla_plugins/other.so"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, lib)
			tc.change(fx)
			o := fx.options(t)
			_, err := Install(context.Background(), o)
			want := strings.ReplaceAll(tc.want, "%s", sha(fx.wheel))
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("Install: %v\nwant an error containing %q", err, want)
			}
			if !strings.Contains(err.Error(), "unrecorded-pjrt: not recorded in plugins.json") {
				t.Errorf("the unrecorded candidate is not reported: %v", err)
			}
			if files := onlyFiles(t, o.Dir); len(files) != 0 {
				t.Errorf("a refused install left %v", files)
			}
		})
	}
}

func TestInstallNotAPlugin(t *testing.T) {
	for _, tc := range []struct {
		name string
		lib  func(t *testing.T) []byte
		want string
	}{
		{"text", func(*testing.T) []byte { return []byte("just text\n") }, "is not an ELF shared library"},
		{"no GetPjrtApi", func(t *testing.T) []byte { return sharedLib(t, "int other(void) { return 1; }\n") },
			"does not export GetPjrtApi: it is not a PJRT plugin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, tc.lib(t))
			o := fx.options(t)
			_, err := Install(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Install: %v\nwant an error containing %q", err, tc.want)
			}
			if files := onlyFiles(t, o.Dir); len(files) != 0 {
				t.Errorf("a refused install left %v", files)
			}
		})
	}
}

func TestInstallFallsBack(t *testing.T) {
	fx := newFixture(t, fakePluginLib(t))
	broken := fx.plugin
	broken.Package = "broken-pjrt"
	fx.manifest.Plugins = append(fx.manifest.Plugins, broken)
	fx.manifest.Candidates["cpu"] = []string{"broken-pjrt", "fake-pjrt"}
	res, err := Install(context.Background(), fx.options(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.Plugin.Package != "fake-pjrt" || len(res.Attempts) != 1 || !strings.Contains(res.Attempts[0], "no such package broken-pjrt==1.0") {
		t.Errorf("fallback: %+v", res)
	}
}

func TestInstallFromLocalWheel(t *testing.T) {
	fx := newFixture(t, fakePluginLib(t))
	o := fx.options(t)
	o.Wheel = fx.wheelPath
	res, err := Install(context.Background(), o)
	if err != nil || fx.downloads != 0 || !res.Verified {
		t.Fatalf("Install(--wheel): %+v, %v, %d downloads", res, err, fx.downloads)
	}
}

func TestRecordedManifest(t *testing.T) {
	m, err := Recorded()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.Candidates["cpu"], " "); got != "xla-cpu-pjrt cyxla-pjrt-cpu fastatomstruct-xla-cpu" {
		t.Errorf("cpu candidates: %s", got)
	}
	p := Plugin{}
	for _, q := range m.Plugins {
		if q.Package == "xla-cpu-pjrt" {
			p = q
		}
	}
	if p.WheelSHA256 != "55837b6b7b47daa717f2d9a5a03563ea0ceaa338d06a81a1e2d3f060d960decc" ||
		p.SOSHA256 != "88c3f28c5900f48ad4a82cab9e79bba9537809743395e341485f8794268820dc" ||
		p.File != pjrt.CPUPluginFile || p.Spec() != "xla-cpu-pjrt==0.0.1" {
		t.Errorf("recorded CPU plugin: %+v", p)
	}
	if _, err := ParseManifest([]byte(`{"plugins":[{"kind":"cpu","package":"p","version":"1","platform":"linux/amd64","wheel":"w","member":"m","file":"f","wheel_sha256":"xyz","so_sha256":"","so_size":1}]}`)); err == nil || !strings.Contains(err.Error(), `wheel_sha256 "xyz" is not a sha256 in hex`) {
		t.Errorf("bad hash accepted: %v", err)
	}
}

// TestInstalledPluginVerified checks the plugin installed in this
// checkout, when there is one, against plugins.json.
func TestInstalledPluginVerified(t *testing.T) {
	dir, err := pjrt.DefaultDir()
	if err != nil {
		t.Skipf("no plugin folder for this checkout, so no installed plugin to check: %v", err)
	}
	path := filepath.Join(dir, pjrt.CPUPluginFile)
	if _, err := os.Stat(path); err != nil {
		if os.Getenv(pjrt.EnvRequire) == "1" {
			t.Fatalf("no installed plugin: %v", err)
		}
		t.Skipf("no installed plugin: %v", err)
	}
	m, _ := Recorded()
	p, ok := m.Lookup("xla-cpu-pjrt")
	if !ok {
		t.Skipf("no CPU plugin recorded for %s", Platform())
	}
	if ok, err := CheckInstalled(path, p, false); !ok {
		t.Errorf("installed plugin not verified: %v", err)
	}
	if err := ExportsGetPjrtApi(path); err != nil {
		t.Error(err)
	}
}
