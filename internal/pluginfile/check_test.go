package pluginfile

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// SmallELF returns a small real ELF file for this machine: a shared
// library built with gcc when there is one, else the test binary itself.
func smallELF(t *testing.T) []byte {
	t.Helper()
	if cc, err := exec.LookPath("gcc"); err == nil {
		out := filepath.Join(t.TempDir(), "lib.so")
		cmd := exec.Command(cc, "-shared", "-fPIC", "-x", "c", "-", "-o", out)
		cmd.Stdin = strings.NewReader("void *GetPjrtApi(void) { return 0; }\n")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, msg)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func write(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// manifestFor records one plugin of this platform with the given size and
// hash.
func manifestFor(size int, sha string) *Manifest {
	return &Manifest{Plugins: []Plugin{{Kind: "cpu", Package: "fake-pjrt", Version: "1.0", Platform: Platform(),
		SOSHA256: sha, SOSize: int64(size), File: "pjrt_c_api_cpu_plugin.so"}}}
}

func TestCheckDamaged(t *testing.T) {
	if !elfSystem() {
		t.Skip("shared libraries on " + Platform() + " are not ELF")
	}
	good := smallELF(t)
	// Where the tables lie, from the ELF64 header's fields (little-endian
	// on every platform Go runs plugins on), read here independently of
	// Check; debug/elf confirms the file is sound.
	ef, err := elf.NewFile(strings.NewReader(string(good)))
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	shoff, shEnd := le64(good[0x28:]), le64(good[0x28:])+uint64(le16(good[0x3a:]))*uint64(le16(good[0x3c:]))
	phoff, phEnd := le64(good[0x20:]), le64(good[0x20:])+uint64(le16(good[0x36:]))*uint64(le16(good[0x38:]))
	// Cut in half, the file loses its section headers where gcc puts them
	// (at the end), or else part of a loadable segment (the Go linker puts
	// the section headers at the start).
	half := len(good) / 2
	var wantHalf string
	if shEnd > uint64(half) {
		wantHalf = fmt.Sprintf("has its section header table (file bytes %d to %d) past the end of the file (%d bytes): the file is truncated", shoff, shEnd, half)
	} else {
		for _, p := range ef.Progs {
			if (p.Type == elf.PT_LOAD || p.Type == elf.PT_DYNAMIC) && p.Off+p.Filesz > uint64(half) {
				wantHalf = fmt.Sprintf("has a %v segment (file bytes %d to %d) past the end of the file (%d bytes): the file is truncated", p.Type, p.Off, p.Off+p.Filesz, half)
				break
			}
		}
	}
	if wantHalf == "" || phEnd > uint64(half) {
		t.Fatalf("test file of %d bytes: program headers end at %d, section headers at %d, and no segment reaches the second half", len(good), phEnd, shEnd)
	}
	rnd := make([]byte, 4096)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range rnd {
		rnd[i] = byte(r.Uint32())
	}
	rnd[0] = 0 // not the ELF magic by chance
	wrongMachine := append([]byte(nil), good...)
	wrongMachine[0x12], wrongMachine[0x13] = byte(elf.EM_SPARCV9), 0
	class32 := append([]byte(nil), good...)
	class32[elf.EI_CLASS] = byte(elf.ELFCLASS32)

	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated to half", good[:half], wantHalf},
		{"truncated in the program headers", good[:phEnd-1], fmt.Sprintf("has its program header table (file bytes %d to %d) past the end of the file (%d bytes): the file is truncated", phoff, phEnd, phEnd-1)},
		{"truncated in the ELF header", good[:40], "is 40 bytes, too short for an ELF header (64 bytes): the file is truncated or not a shared library"},
		{"random bytes", rnd, fmt.Sprintf("does not start with the ELF magic number (its first bytes are % x): it is not a shared library", rnd[:4])},
		{"empty", nil, "is empty (0 bytes)"},
		{"another machine", wrongMachine, fmt.Sprintf("is for machine EM_SPARCV9, but this is %s (%v)", Platform(), elfMachine[runtime.GOARCH])},
		{"32-bit", class32, "is an ELF file of class ELFCLASS32; a plugin for " + Platform() + " is ELFCLASS64"},
	} {
		path := write(t, "pjrt_c_api_cpu_plugin.so", c.data)
		_, err := CheckAgainst(path, &Manifest{})
		var p *Problem
		if !errors.As(err, &p) || p.Path != path || p.Reason != c.want {
			t.Errorf("%s: Check = %v\nwant %s %s", c.name, err, path, c.want)
		}
	}

	dir := t.TempDir()
	if _, err := CheckAgainst(dir, &Manifest{}); err == nil || err.Error() != dir+" is not a regular file (d---------)" {
		t.Errorf("Check(folder) = %v", err)
	}
	if _, err := CheckAgainst(filepath.Join(dir, "nothere.so"), &Manifest{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Check(missing file) = %v, want a not-exist error", err)
	}
}

func le16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func le64(b []byte) uint64 {
	var x uint64
	for i := 7; i >= 0; i-- {
		x = x<<8 | uint64(b[i])
	}
	return x
}

func TestCheckRecordedHash(t *testing.T) {
	good := smallELF(t)
	path := write(t, "pjrt_c_api_cpu_plugin.so", good)

	// A sound file of another size: no record applies.
	if v, err := CheckAgainst(path, manifestFor(len(good)+1, sum(nil))); v != nil || err != nil {
		t.Errorf("Check(unrecorded size) = %v, %v; want nil, nil", v, err)
	}
	// The recorded size and hash: verified.
	v, err := CheckAgainst(path, manifestFor(len(good), sum(good)))
	if err != nil || v == nil || v.Plugin.Package != "fake-pjrt" {
		t.Fatalf("Check(recorded) = %v, %v", v, err)
	}
	// The recorded size but other bytes (one flipped in the middle, where
	// the ELF checks do not look): refused, though size and time are kept.
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := append([]byte(nil), good...)
	bad[len(bad)/2] ^= 0xff
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%s has the size of fake-pjrt 1.0 (%d bytes) but sha256 %s, and plugins.json records %s: the file was changed or damaged",
		path, len(good), sum(bad), sum(good))
	// A new process starts without the hash cache. (Here the cache would
	// see the new inode change time too, but that clock may not have
	// ticked since the first check.)
	hashMu.Lock()
	clear(hashCache)
	hashMu.Unlock()
	if _, err := CheckAgainst(path, manifestFor(len(good), sum(good))); err == nil || err.Error() != want {
		t.Errorf("Check(changed bytes):\n got %v\nwant %s", err, want)
	}
}

func TestRecordedManifest(t *testing.T) {
	m, err := Recorded()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Plugins {
		if p.Package == "xla-cpu-pjrt" && p.Platform == "linux/amd64" {
			if p.SOSize != 259284552 || p.SOSHA256 != "88c3f28c5900f48ad4a82cab9e79bba9537809743395e341485f8794268820dc" {
				t.Errorf("plugins.json: xla-cpu-pjrt for linux/amd64 = %+v", p)
			}
			return
		}
	}
	t.Errorf("plugins.json records no xla-cpu-pjrt for linux/amd64")
}
