package pjrtinstall

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Options says what Install installs and where.
type Options struct {
	Kind string // "cpu" (the default) or "cuda"
	Dir  string // the folder to install into; created if missing
	// Wheel is a wheel file already on disk, used instead of downloading;
	// it must be a recorded wheel, and is checked like a downloaded one.
	Wheel string
	// Python runs pip: "python3" when empty.
	Python string
	// CUDA is the CUDA major version the driver supports (from
	// nvidia-smi); for Kind "cuda" the matching package is tried first.
	CUDA int
	// Unverified lets Install try candidates that plugins.json does not
	// record: it installs the first library in their wheel that exports
	// GetPjrtApi and prints its hashes for recording.
	Unverified bool
	// Recheck hashes an installed plugin again even when its stamp file
	// says it was verified and its size and time did not change.
	Recheck bool
	// Force reinstalls even when a verified plugin is there.
	Force bool
	// Log receives progress lines and pip's output; nil discards them.
	Log io.Writer
	// Manifest replaces the recorded plugins.json (for tests).
	Manifest *Manifest
	// Download fetches a wheel into dir and returns its path; nil means
	// pip (see PipDownload). version is "" for an unrecorded candidate.
	Download func(ctx context.Context, pkg, version, dir string) (string, error)
}

// Result describes a finished Install.
type Result struct {
	Path     string        // the installed library
	Plugin   Plugin        // what it is; for an unverified install, the hashes found
	Already  bool          // a verified plugin was there already; nothing was done
	Verified bool          // the hashes match plugins.json
	Wheel    string        // the wheel it came from ("" when Already)
	Took     time.Duration // wall time of Install
	Attempts []string      // candidates that failed before, and why
}

// StampSuffix is appended to an installed library's name for the stamp
// file that records its verification.
const StampSuffix = ".stamp.json"

// stamp records that a library was verified: when its size and time are
// unchanged, a later install trusts it without hashing 250 MB again.
type stamp struct {
	Package  string `json:"package"`
	Version  string `json:"version"`
	SHA256   string `json:"sha256"`
	Size     int64  `json:"size"`
	ModTime  int64  `json:"mtime_unix_nano"`
	Verified bool   `json:"verified"` // recorded in plugins.json
}

// Install installs the plugin of o.Kind into o.Dir: it takes the
// candidates of that kind from plugins.json in order, downloads the
// wheel with pip, checks its sha256, extracts the library under its
// recorded name, checks its sha256 and size and that it exports
// GetPjrtApi, and writes a stamp file beside it. When a verified plugin is
// already there it does nothing and says so (Result.Already). It does not
// load the library: the caller does that.
func Install(ctx context.Context, o Options) (*Result, error) {
	start := time.Now()
	if o.Kind == "" {
		o.Kind = "cpu"
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Dir == "" {
		return nil, errors.New("install: no folder given")
	}
	m := o.Manifest
	if m == nil {
		var err error
		if m, err = Recorded(); err != nil {
			return nil, err
		}
	}
	cands := slices.Clone(m.Candidates[o.Kind])
	if len(cands) == 0 {
		return nil, fmt.Errorf("install: no candidates for plugin kind %q in plugins.json", o.Kind)
	}
	if o.Kind == "cuda" && o.CUDA > 0 { // the driver's CUDA major first
		slices.SortStableFunc(cands, func(a, b string) int {
			pa, _ := m.Lookup(a)
			pb, _ := m.Lookup(b)
			return boolInt(pb.CUDA == o.CUDA) - boolInt(pa.CUDA == o.CUDA)
		})
	}

	if !o.Force {
		for _, pkg := range cands {
			p, ok := m.Lookup(pkg)
			if !ok {
				continue
			}
			path := filepath.Join(o.Dir, p.File)
			if ok, _ := CheckInstalled(path, p, o.Recheck); ok {
				return &Result{Path: path, Plugin: p, Already: true, Verified: true, Took: time.Since(start)}, nil
			}
		}
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("install: %v", err)
	}

	var attempts []string
	for _, pkg := range cands {
		p, recorded := m.Lookup(pkg)
		var res *Result
		var err error
		switch {
		case recorded:
			fmt.Fprintf(o.Log, "trying %s (recorded in plugins.json)\n", p.Spec())
			res, err = installRecorded(ctx, o, p)
		case o.Wheel != "":
			err = fmt.Errorf("the wheel given is checked against recorded entries only")
		case !o.Unverified:
			err = fmt.Errorf("not recorded in plugins.json for %s; pass --unverified to try it", Platform())
		default:
			fmt.Fprintf(o.Log, "trying %s (NOT recorded in plugins.json: unverified)\n", pkg)
			res, err = installUnverified(ctx, o, pkg)
		}
		if err == nil {
			res.Attempts = attempts
			res.Took = time.Since(start)
			return res, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		fmt.Fprintf(o.Log, "  %s: %v\n", pkg, err)
		attempts = append(attempts, fmt.Sprintf("%s: %v", pkg, err))
	}
	hint := ""
	if o.Wheel == "" {
		hint = fmt.Sprintf("\n(without network access here: run 'python3 -m pip download --no-deps --only-binary=:all: %s' "+
			"where there is, and pass the wheel with --wheel FILE)", firstSpec(m, cands))
	}
	return nil, fmt.Errorf("install: no %s plugin could be installed:\n  %s%s", o.Kind, strings.Join(attempts, "\n  "), hint)
}

// firstSpec is the pip requirement of the first recorded candidate.
func firstSpec(m *Manifest, cands []string) string {
	for _, c := range cands {
		if p, ok := m.Lookup(c); ok {
			return p.Spec()
		}
	}
	return cands[0]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CheckInstalled reports whether path holds the library of p, verified.
// It trusts a stamp file whose hash is p's and whose size and time match
// the file, unless recheck; otherwise it hashes the file (about a second
// for 250 MB) and, when it matches, writes the stamp. A false result comes
// with the reason.
func CheckInstalled(path string, p Plugin, recheck bool) (bool, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	if fi.Size() != p.SOSize {
		return false, fmt.Errorf("%s is %d bytes, recorded %d", path, fi.Size(), p.SOSize)
	}
	if !recheck {
		if s, err := readStamp(path); err == nil && s.Verified && s.SHA256 == p.SOSHA256 &&
			s.Size == fi.Size() && s.ModTime == fi.ModTime().UnixNano() {
			return true, nil
		}
	}
	sum, err := HashFile(path)
	if err != nil {
		return false, err
	}
	if sum != p.SOSHA256 {
		return false, fmt.Errorf("%s has sha256 %s, recorded %s", path, sum, p.SOSHA256)
	}
	return true, writeStamp(path, p, true)
}

func readStamp(lib string) (stamp, error) {
	var s stamp
	data, err := os.ReadFile(lib + StampSuffix)
	if err != nil {
		return s, err
	}
	err = json.Unmarshal(data, &s)
	return s, err
}

func writeStamp(lib string, p Plugin, verified bool) error {
	fi, err := os.Stat(lib)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(stamp{
		Package: p.Package, Version: p.Version, SHA256: p.SOSHA256,
		Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), Verified: verified,
	}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(lib+StampSuffix, append(data, '\n'), 0o644)
}

// HashFile returns the sha256 of a file in hex.
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %v", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// fetch returns the wheel to use for pkg (version "" for any) and a
// function that removes what fetching left behind.
func fetch(ctx context.Context, o Options, pkg, version string) (wheel string, cleanup func(), err error) {
	if o.Wheel != "" {
		return o.Wheel, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "hofuse-pjrt-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	dl := o.Download
	if dl == nil {
		dl = func(ctx context.Context, pkg, version, dir string) (string, error) {
			return PipDownload(ctx, o.Python, pkg, version, dir, o.Log)
		}
	}
	wheel, err = dl(ctx, pkg, version, tmp)
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return wheel, cleanup, nil
}

func installRecorded(ctx context.Context, o Options, p Plugin) (*Result, error) {
	wheel, cleanup, err := fetch(ctx, o, p.Package, p.Version)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	dst := filepath.Join(o.Dir, p.File)
	if err := InstallFromWheel(wheel, p, dst); err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Log, "  verified wheel sha256 %s and library sha256 %s\n", p.WheelSHA256, p.SOSHA256)
	return &Result{Path: dst, Plugin: p, Verified: true, Wheel: filepath.Base(wheel)}, nil
}

// InstallFromWheel checks the wheel's sha256 against p, extracts p.Member
// to dst (through a temporary file beside it, renamed into place only
// once its sha256 and size match p and it exports GetPjrtApi), and writes
// dst's stamp file.
func InstallFromWheel(wheel string, p Plugin, dst string) error {
	sum, err := HashFile(wheel)
	if err != nil {
		return err
	}
	if sum != p.WheelSHA256 {
		return fmt.Errorf("wheel %s has sha256 %s, but plugins.json records %s for %s: refusing it",
			filepath.Base(wheel), sum, p.WheelSHA256, p.Wheel)
	}
	tmp, soSum, size, err := extractMember(wheel, p.Member, filepath.Dir(dst))
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // a no-op once renamed
	if soSum != p.SOSHA256 || size != p.SOSize {
		return fmt.Errorf("%s in %s has sha256 %s and %d bytes, but plugins.json records %s and %d: refusing it",
			p.Member, filepath.Base(wheel), soSum, size, p.SOSHA256, p.SOSize)
	}
	if err := ExportsGetPjrtApi(tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		return err
	}
	return writeStamp(dst, p, true)
}

// extractMember copies member out of the wheel (a zip file) into a new
// temporary file in dir, hashing it on the way.
func extractMember(wheel, member, dir string) (tmp, sum string, size int64, err error) {
	zr, err := zip.OpenReader(wheel)
	if err != nil {
		return "", "", 0, fmt.Errorf("wheel %s: %v", filepath.Base(wheel), err)
	}
	defer zr.Close()
	var zf *zip.File
	for _, f := range zr.File {
		if f.Name == member {
			zf = f
		}
	}
	if zf == nil {
		return "", "", 0, fmt.Errorf("wheel %s has no member %s", filepath.Base(wheel), member)
	}
	r, err := zf.Open()
	if err != nil {
		return "", "", 0, fmt.Errorf("wheel %s: %s: %v", filepath.Base(wheel), member, err)
	}
	defer r.Close()
	out, err := os.CreateTemp(dir, ".extract-*.so")
	if err != nil {
		return "", "", 0, err
	}
	h := sha256.New()
	size, err = io.Copy(io.MultiWriter(out, h), r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(out.Name(), 0o755)
	}
	if err != nil {
		os.Remove(out.Name())
		return "", "", 0, fmt.Errorf("extract %s: %v", member, err)
	}
	return out.Name(), hex.EncodeToString(h.Sum(nil)), size, nil
}

// ExportsGetPjrtApi checks that path is an ELF shared library that defines
// the symbol GetPjrtApi, the entry point of every PJRT plugin. It reads the
// dynamic symbol table only; it does not load the library.
func ExportsGetPjrtApi(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s is not an ELF shared library: %v", path, err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		return fmt.Errorf("%s: reading its dynamic symbols: %v", path, err)
	}
	for _, s := range syms {
		if s.Name == "GetPjrtApi" && s.Section != elf.SHN_UNDEF && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			return nil
		}
	}
	return fmt.Errorf("%s does not export GetPjrtApi: it is not a PJRT plugin", path)
}

// installUnverified installs the first library in pkg's latest wheel that
// exports GetPjrtApi, under the name the kind's recorded plugins use, and
// returns its hashes so that they can be recorded.
func installUnverified(ctx context.Context, o Options, pkg string) (*Result, error) {
	wheel, cleanup, err := fetch(ctx, o, pkg, "")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	zr, err := zip.OpenReader(wheel)
	if err != nil {
		return nil, fmt.Errorf("wheel %s: %v", filepath.Base(wheel), err)
	}
	var members []string
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, ".so") || strings.Contains(f.Name, ".so.") {
			members = append(members, f.Name)
		}
	}
	zr.Close()
	file := "pjrt_c_api_" + o.Kind + "_plugin.so"
	for _, member := range members {
		tmp, soSum, size, err := extractMember(wheel, member, o.Dir)
		if err != nil {
			return nil, err
		}
		if ExportsGetPjrtApi(tmp) != nil {
			os.Remove(tmp)
			continue
		}
		wheelSum, err := HashFile(wheel)
		if err != nil {
			os.Remove(tmp)
			return nil, err
		}
		dst := filepath.Join(o.Dir, file)
		if err := os.Rename(tmp, dst); err != nil {
			os.Remove(tmp)
			return nil, err
		}
		p := Plugin{
			Kind: o.Kind, Package: pkg, Version: wheelVersion(filepath.Base(wheel)), Platform: Platform(),
			Wheel: filepath.Base(wheel), WheelSHA256: wheelSum, Member: member, SOSHA256: soSum, SOSize: size, File: file,
		}
		if err := writeStamp(dst, p, false); err != nil {
			return nil, err
		}
		return &Result{Path: dst, Plugin: p, Wheel: p.Wheel}, nil
	}
	return nil, fmt.Errorf("wheel %s has no library that exports GetPjrtApi (looked at %d)", filepath.Base(wheel), len(members))
}

// wheelVersion reads the version from a wheel file name
// (name-version-python-abi-platform.whl).
func wheelVersion(name string) string {
	if parts := strings.Split(name, "-"); len(parts) >= 2 {
		return parts[1]
	}
	return ""
}

// PipDownload runs python -m pip download for one wheel of pkg (==version
// unless version is empty), with no dependencies and binaries only, into
// dir, and returns the wheel's path. pip's output goes to log.
func PipDownload(ctx context.Context, python, pkg, version, dir string, log io.Writer) (string, error) {
	if python == "" {
		python = "python3"
	}
	if _, err := exec.LookPath(python); err != nil {
		return "", fmt.Errorf("%s not found, and pip is needed to download the plugin: install Python 3 with pip, or pass --wheel with a downloaded wheel", python)
	}
	spec := pkg
	if version != "" {
		spec += "==" + version
	}
	args := []string{"-m", "pip", "download", "--no-deps", "--only-binary=:all:",
		"--disable-pip-version-check", "--no-input", "--progress-bar", "off", "-d", dir, spec}
	fmt.Fprintf(log, "  %s %s\n", python, strings.Join(args, " "))
	cmd := exec.CommandContext(ctx, python, args...)
	var tail bytes.Buffer
	w := io.MultiWriter(log, &tail)
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(tail.String())
		if i := strings.LastIndex(msg, "\n"); i >= 0 && len(msg) > 400 {
			msg = msg[i+1:]
		}
		return "", fmt.Errorf("pip download %s failed (%v): %s", spec, err, msg)
	}
	wheels, _ := filepath.Glob(filepath.Join(dir, "*.whl"))
	if len(wheels) != 1 {
		return "", fmt.Errorf("pip download %s left %d wheels in %s, want 1", spec, len(wheels), dir)
	}
	return wheels[0], nil
}
