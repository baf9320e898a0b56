package fusion

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A Machine is what the schedule pass's cost model knows of the memory
// hierarchy it plans for: the cache line, the data caches from the
// innermost out, and the rates it charges for moving bytes and doing
// arithmetic.
type Machine struct {
	LineBytes int     // cache line, in bytes
	Caches    []Cache // data and unified caches, innermost (L1) first
	// MemoryBandwidth is the rate, in bytes per second, at which bytes
	// that miss the last cache come from memory.
	MemoryBandwidth float64
	// LoopRate is the rate, in innermost iterations per second, of a
	// compiled loop whose body the back end cannot vectorise (strided
	// operands); VectorRate that of a vectorisable one (unit or zero
	// strides).
	LoopRate, VectorRate float64
	// GEMMRate is the rate, in flop/s, of the back end's GEMM
	// micro-kernel (HierCost.NoGEMM says there is none).
	GEMMRate float64
	// Source says where the cache sizes came from: the sysfs directory
	// read, or "defaults".
	Source string
}

// A Cache is one level of the hierarchy.
type Cache struct {
	Level     int     // 1 for L1, ...
	Bytes     int     // capacity
	Bandwidth float64 // bytes per second this level delivers to the one inside it
}

// The defaults. The cache sizes are a common x86-64 server core's. The
// rates are calibrated against measurements on the machine this project
// is developed on (an AMD EPYC, 2 cores): the 18 orders of the paper's
// matrix product at N = 1024, run as loops (hofuse paper matmul, saved in
// testdata/paper_matmul_1024.json), were fitted over a grid of the three
// loop rates — the model's times come within a factor of 2 of the measured
// ones on average (TestHierCostCalibration), and its ranking does not
// depend on the rates within the grid. A vectorised innermost iteration
// takes 0.2 ns (the unit-stride "mapA rnz mapB": 0.21 s for 2^30
// iterations); a strided one about 10 ns, which is the latency of the
// misses a strided walk takes, more than its arithmetic; memory delivers
// 20 GB/s into the caches (hofuse bench measures 20 GB/s for a copy,
// reads and writes counted). The GEMM micro-kernel's rate is half of the
// 219 GFLOP/s hofuse bench measures for a 512×512 f32 product on both
// cores. The cache bandwidths are the usual ratios to memory (L3 2×, L2
// 4×, L1 8×). They rank the orders of one kernel against each other, so
// their ratios matter more than their values.
const (
	defaultLine       = 64
	defaultMemoryBW   = 20e9
	defaultLoopRate   = 0.1e9
	defaultVectorRate = 5e9
	defaultGEMMRate   = 100e9
)

var defaultCaches = []Cache{
	{Level: 1, Bytes: 32 << 10},
	{Level: 2, Bytes: 1 << 20},
	{Level: 3, Bytes: 16 << 20},
}

// DefaultMachine is the machine the cost model assumes when the host's
// caches cannot be read.
func DefaultMachine() Machine {
	m := Machine{LineBytes: defaultLine, Caches: slices.Clone(defaultCaches), Source: "defaults"}
	return m.withRates()
}

// withRates fills the rates left zero with the defaults.
func (m Machine) withRates() Machine {
	if m.LineBytes <= 0 {
		m.LineBytes = defaultLine
	}
	if m.MemoryBandwidth <= 0 {
		m.MemoryBandwidth = defaultMemoryBW
	}
	if m.LoopRate <= 0 {
		m.LoopRate = defaultLoopRate
	}
	if m.GEMMRate <= 0 {
		m.GEMMRate = defaultGEMMRate
	}
	if m.VectorRate <= 0 {
		m.VectorRate = defaultVectorRate
	}
	m.Caches = slices.Clone(m.Caches)
	for i := range m.Caches {
		if m.Caches[i].Bandwidth <= 0 {
			// Each level inward is twice as fast as the one outside it.
			m.Caches[i].Bandwidth = m.MemoryBandwidth * float64(int(1)<<(len(m.Caches)-i))
		}
	}
	return m
}

// String is the machine in one line: "L1 48 KiB, L2 1.0 MiB, L3 32.0 MiB, line 64 B (sysfs)".
func (m Machine) String() string {
	var parts []string
	for _, c := range m.Caches {
		parts = append(parts, fmt.Sprintf("L%d %s", c.Level, formatBytes(c.Bytes)))
	}
	parts = append(parts, fmt.Sprintf("line %d B", m.LineBytes))
	return strings.Join(parts, ", ") + " (" + m.Source + ")"
}

// Key identifies the machine for caches of measured schedules: its
// architecture, processor name and cache sizes.
func (m Machine) Key() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s/%s/%s", runtime.GOOS, runtime.GOARCH, cpuName())
	for _, c := range m.Caches {
		fmt.Fprintf(&sb, "/L%d=%d", c.Level, c.Bytes)
	}
	return sb.String()
}

// cpuName is the processor's model name from /proc/cpuinfo, or "unknown".
func cpuName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// sysCacheDir is where Linux describes the first CPU's caches.
const sysCacheDir = "/sys/devices/system/cpu/cpu0/cache"

var detected = sync.OnceValue(func() Machine {
	m, err := ReadMachine(sysCacheDir)
	if err != nil {
		return DefaultMachine()
	}
	return m
})

// DetectMachine returns the host's machine: its data caches as Linux
// describes them under /sys/devices/system/cpu/cpu0/cache, with the
// default rates; DefaultMachine where they cannot be read. It reads once
// per process.
func DetectMachine() Machine { return detected() }

// ReadMachine reads the caches described under dir (one indexN folder per
// cache, with the files level, type, size and coherency_line_size, as
// Linux's sysfs has them). Instruction caches are left out. It is an error
// if no data cache is described, or a size cannot be read.
func ReadMachine(dir string) (Machine, error) {
	entries, err := filepath.Glob(filepath.Join(dir, "index*"))
	if err != nil {
		return Machine{}, err
	}
	m := Machine{Source: dir}
	read := func(d, name string) (string, error) {
		b, err := os.ReadFile(filepath.Join(d, name))
		return strings.TrimSpace(string(b)), err
	}
	for _, d := range entries {
		typ, err := read(d, "type")
		if err != nil {
			return Machine{}, err
		}
		if typ == "Instruction" {
			continue
		}
		ls, err := read(d, "level")
		if err != nil {
			return Machine{}, err
		}
		level, err := strconv.Atoi(ls)
		if err != nil || level < 1 {
			return Machine{}, fmt.Errorf("%s/level: %q is not a cache level", d, ls)
		}
		ss, err := read(d, "size")
		if err != nil {
			return Machine{}, err
		}
		size, err := parseCacheSize(ss)
		if err != nil {
			return Machine{}, fmt.Errorf("%s/size: %w", d, err)
		}
		if line, err := read(d, "coherency_line_size"); err == nil {
			if n, err := strconv.Atoi(line); err == nil && n > 0 {
				m.LineBytes = n
			}
		}
		m.Caches = append(m.Caches, Cache{Level: level, Bytes: size})
	}
	if len(m.Caches) == 0 {
		return Machine{}, fmt.Errorf("%s describes no data cache", dir)
	}
	slices.SortFunc(m.Caches, func(a, b Cache) int { return a.Level - b.Level })
	return m.withRates(), nil
}

// parseCacheSize reads a sysfs cache size: "48K", "1024K", "32M", or bytes.
func parseCacheSize(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a cache size", s)
	}
	return n * mult, nil
}
