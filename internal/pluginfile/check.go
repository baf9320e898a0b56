package pluginfile

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"
)

// A Problem is why Check refused a file: the file is damaged or is not a
// plugin for this machine. Reason is a sentence fragment that names what
// is wrong ("is empty", "has sha256 ..., but plugins.json records ...").
type Problem struct {
	Path   string
	Reason string
}

func (p *Problem) Error() string { return p.Path + " " + p.Reason }

// Verified describes a file that Check found to be a recorded plugin.
type Verified struct {
	Plugin Plugin        // the record it matches
	Hash   time.Duration // how long computing its sha256 took (0: cached)
}

// Check checks that path is a plugin file the dynamic loader can map
// without reading past its end: a regular file with an ELF header for this
// machine (64-bit, GOARCH's machine type) whose program and section header
// tables and loadable segments lie within the file. When the file has the
// size of a plugin recorded in plugins.json for this platform, its sha256
// must be the recorded one, and the match is returned; otherwise Check
// returns nil, nil for a sound file. Errors about the file are *Problem.
// On systems whose libraries are not ELF (macOS, Windows) only the file
// kind and size are checked.
func Check(path string) (*Verified, error) {
	m, err := Recorded()
	if err != nil {
		return nil, err
	}
	return CheckAgainst(path, m)
}

// CheckAgainst is Check with the recorded plugins of m.
func CheckAgainst(path string, m *Manifest) (*Verified, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &Problem{path, fmt.Sprintf("is not a regular file (%v)", fi.Mode().Type())}
	}
	if fi.Size() == 0 {
		return nil, &Problem{path, "is empty (0 bytes)"}
	}
	if elfSystem() {
		if reason := checkELF(f, fi.Size()); reason != "" {
			return nil, &Problem{path, reason}
		}
	}
	for _, p := range m.Plugins {
		if p.Platform != Platform() || p.SOSize != fi.Size() {
			continue
		}
		sum, took, err := hashCached(f, fi)
		if err != nil {
			return nil, err
		}
		if sum == p.SOSHA256 {
			return &Verified{Plugin: p, Hash: took}, nil
		}
		return nil, &Problem{path, fmt.Sprintf("has the size of %s %s (%d bytes) but sha256 %s, and plugins.json records %s: the file was changed or damaged",
			p.Package, p.Version, p.SOSize, sum, p.SOSHA256)}
	}
	return nil, nil
}

// elfSystem reports whether shared libraries here are ELF files.
func elfSystem() bool {
	switch runtime.GOOS {
	case "darwin", "ios", "windows", "plan9", "js", "wasip1":
		return false
	}
	return true
}

// elfMachine is the ELF machine type of each 64-bit GOARCH.
var elfMachine = map[string]elf.Machine{
	"amd64":    elf.EM_X86_64,
	"arm64":    elf.EM_AARCH64,
	"riscv64":  elf.EM_RISCV,
	"ppc64le":  elf.EM_PPC64,
	"ppc64":    elf.EM_PPC64,
	"s390x":    elf.EM_S390,
	"loong64":  elf.EM_LOONGARCH,
	"mips64":   elf.EM_MIPS,
	"mips64le": elf.EM_MIPS,
}

// checkELF returns why f (size bytes) is not an ELF file the loader can
// map, or "".
func checkELF(f io.ReaderAt, size int64) string {
	var hdr elf.Header64
	var ident [elf.EI_NIDENT]byte
	n, err := f.ReadAt(ident[:min(size, int64(len(ident)))], 0)
	if err != nil && err != io.EOF {
		return fmt.Sprintf("cannot be read: %v", err)
	}
	if n >= 4 && !bytes.Equal(ident[:4], []byte(elf.ELFMAG)) {
		return fmt.Sprintf("does not start with the ELF magic number (its first bytes are % x): it is not a shared library", ident[:4])
	}
	if size < int64(binary.Size(hdr)) {
		return fmt.Sprintf("is %d bytes, too short for an ELF header (%d bytes): the file is truncated or not a shared library", size, binary.Size(hdr))
	}
	if elf.Class(ident[elf.EI_CLASS]) != elf.ELFCLASS64 {
		return fmt.Sprintf("is an ELF file of class %v; a plugin for %s is ELFCLASS64", elf.Class(ident[elf.EI_CLASS]), Platform())
	}
	var order binary.ByteOrder
	switch elf.Data(ident[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		order = binary.LittleEndian
	case elf.ELFDATA2MSB:
		order = binary.BigEndian
	default:
		return fmt.Sprintf("has an unknown ELF byte order (%v)", elf.Data(ident[elf.EI_DATA]))
	}
	if err := binary.Read(io.NewSectionReader(f, 0, size), order, &hdr); err != nil {
		return fmt.Sprintf("has an unreadable ELF header: %v", err)
	}
	if want, ok := elfMachine[runtime.GOARCH]; ok && elf.Machine(hdr.Machine) != want {
		return fmt.Sprintf("is for machine %v, but this is %s (%v)", elf.Machine(hdr.Machine), Platform(), want)
	}
	progSize := uint64(binary.Size(elf.Prog64{}))
	if hdr.Phnum == 0 {
		return "has no program headers: it is not a loadable shared library"
	}
	if uint64(hdr.Phentsize) < progSize {
		return fmt.Sprintf("has program header entries of %d bytes, want at least %d: the ELF header is corrupt", hdr.Phentsize, progSize)
	}
	if r := tableBeyond("program header table", hdr.Phoff, uint64(hdr.Phnum), uint64(hdr.Phentsize), size); r != "" {
		return r
	}
	if hdr.Shnum > 0 {
		if r := tableBeyond("section header table", hdr.Shoff, uint64(hdr.Shnum), uint64(hdr.Shentsize), size); r != "" {
			return r
		}
	}
	for i := range uint64(hdr.Phnum) {
		var p elf.Prog64
		if err := binary.Read(io.NewSectionReader(f, int64(hdr.Phoff+i*uint64(hdr.Phentsize)), int64(progSize)), order, &p); err != nil {
			return fmt.Sprintf("has an unreadable program header %d: %v", i, err)
		}
		if elf.ProgType(p.Type) != elf.PT_LOAD && elf.ProgType(p.Type) != elf.PT_DYNAMIC {
			continue
		}
		if end := p.Off + p.Filesz; end < p.Off || end > uint64(size) {
			return fmt.Sprintf("has a %v segment (file bytes %d to %d) past the end of the file (%d bytes): the file is truncated", elf.ProgType(p.Type), p.Off, p.Off+p.Filesz, size)
		}
	}
	return ""
}

// tableBeyond says why a table of n entries of entSize bytes at off does
// not fit in size bytes, or "".
func tableBeyond(what string, off, n, entSize uint64, size int64) string {
	end := off + n*entSize
	if n*entSize/max(entSize, 1) != n || end < off || end > uint64(size) {
		return fmt.Sprintf("has its %s (file bytes %d to %d) past the end of the file (%d bytes): the file is truncated", what, off, off+n*entSize, size)
	}
	return ""
}

// hashKey identifies the content of a file for the hash cache: a file
// replaced (new inode) or rewritten (new size, modification time or, on
// Linux, inode change time, which cannot be set back) is hashed again.
type hashKey struct {
	path  string
	size  int64
	mtime int64
	ctime int64 // inode change time where known (see changeTime), else 0
}

type hashEntry struct {
	fi  os.FileInfo
	sum string
}

var (
	hashMu    sync.Mutex
	hashCache = map[hashKey]hashEntry{}
)

// hashCached returns the sha256 of f in hex, and how long hashing took
// (0 when the process had hashed the same file, unchanged, before).
func hashCached(f *os.File, fi os.FileInfo) (string, time.Duration, error) {
	key := hashKey{f.Name(), fi.Size(), fi.ModTime().UnixNano(), changeTime(fi)}
	hashMu.Lock()
	e, ok := hashCache[key]
	hashMu.Unlock()
	if ok && os.SameFile(e.fi, fi) {
		return e.sum, 0, nil
	}
	start := time.Now()
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, fi.Size())); err != nil {
		return "", 0, fmt.Errorf("hash %s: %v", f.Name(), err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	hashMu.Lock()
	hashCache[key] = hashEntry{fi, sum}
	hashMu.Unlock()
	return sum, time.Since(start), nil
}
