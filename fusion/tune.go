package fusion

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/hofuse/hofuse/graph"
)

// A Tuner chooses a kernel's order by measurement: of the orders the cost
// model ranks best, it times the written one and the Top best on a back
// end (Time), and takes the fastest. The choice is kept in a folder, one
// JSON file per kernel and machine, so that the next Fuse of the same
// kernel on the same machine reads it instead of measuring again. A file
// that cannot be read, or that another machine or another version of the
// cache wrote, is ignored with a warning and rewritten.
type Tuner struct {
	// Time runs the kernel's body in one order and returns its time in
	// seconds (a median of several runs, after a warm-up).
	Time func(k *Kernel, body graph.Node) (float64, error)
	// Top is how many of the model's best orders are timed besides the
	// written one; 0 means 3.
	Top int
	// Dir is the cache's folder, created when needed; "" keeps no cache.
	Dir string
	// Machine is the machine the choices are kept for (its Key); the zero
	// value means DetectMachine.
	Machine Machine
	// Warn receives the warnings; nil drops them.
	Warn func(msg string)
}

// tuneVersion is the version of the cache files; a file of another
// version is ignored and rewritten.
const tuneVersion = 1

// tuneFile is one cache file.
type tuneFile struct {
	Version      int     `json:"version"`
	Machine      string  `json:"machine"`
	Kernel       string  `json:"kernel"` // the kernel's name when measured, for people
	Body         string  `json:"body"`   // the hash of the written body the file is for
	Order        string  `json:"order"`
	Subdivisions string  `json:"subdivisions"`
	Measured     float64 `json:"measured_s"`
}

func (t *Tuner) warn(format string, args ...any) {
	if t.Warn != nil {
		t.Warn(fmt.Sprintf(format, args...))
	}
}

// bodyHash identifies a kernel's written body: its printed term and type.
func bodyHash(k *Kernel) string {
	h := sha256.Sum256([]byte(graph.Print(k.Body) + "\x00" + k.Output.Type.String()))
	return hex.EncodeToString(h[:12])
}

func subdivisionsKey(subs []Subdivision) string {
	if len(subs) == 0 {
		return "none"
	}
	b, _ := json.Marshal(subs)
	return string(b)
}

// choose measures the candidates, or reads the choice from the cache.
func (t *Tuner) choose(k *Kernel, cands []*ScheduleCandidate, modelBest *ScheduleCandidate) (*ScheduleCandidate, float64, string, error) {
	if t.Time == nil {
		return nil, 0, "", fmt.Errorf("kernel %s: the Tuner has no Time function", k.Name)
	}
	mach := t.Machine
	if len(mach.Caches) == 0 {
		mach = DetectMachine()
	}
	hash := bodyHash(k)
	path := ""
	if t.Dir != "" {
		path = filepath.Join(t.Dir, hash+".json")
		if c, measured, ok := t.read(path, hash, mach.Key(), cands); ok {
			return c, measured, "measurement (cached in " + path + ")", nil
		}
	}
	top := t.Top
	if top <= 0 {
		top = 3
	}
	ranked := slices.Clone(cands[1:])
	slices.SortStableFunc(ranked, func(a, b *ScheduleCandidate) int {
		switch {
		case a.Cost < b.Cost:
			return -1
		case a.Cost > b.Cost:
			return 1
		}
		return 0
	})
	timed := []*ScheduleCandidate{cands[0]}
	if modelBest != cands[0] {
		timed = append(timed, modelBest)
	}
	for _, c := range ranked {
		if len(timed) >= top+1 {
			break
		}
		if !slices.Contains(timed, c) {
			timed = append(timed, c)
		}
	}
	var best *ScheduleCandidate
	bestTime := 0.0
	for _, c := range timed {
		s, err := t.Time(k, c.Term)
		if err != nil {
			return nil, 0, "", fmt.Errorf("kernel %s: timing order %s: %w", k.Name, c.Order, err)
		}
		if best == nil || s < bestTime {
			best, bestTime = c, s
		}
	}
	if path != "" {
		f := tuneFile{Version: tuneVersion, Machine: mach.Key(), Kernel: k.Name, Body: hash,
			Order: best.Order, Subdivisions: subdivisionsKey(best.Subdivisions), Measured: bestTime}
		if err := writeTuneFile(path, f); err != nil {
			t.warn("tuning cache: cannot write %s: %v; the choice is not kept", path, err)
		}
	}
	return best, bestTime, fmt.Sprintf("measurement (%d orders timed)", len(timed)), nil
}

// read returns the cached choice in path, if the file is sound, is this
// machine's and this version's, and names an order among cands.
func (t *Tuner) read(path, hash, machine string, cands []*ScheduleCandidate) (*ScheduleCandidate, float64, bool) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false
	}
	if err != nil {
		t.warn("tuning cache: ignoring %s: %v; measuring again", path, err)
		return nil, 0, false
	}
	var f tuneFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.warn("tuning cache: ignoring %s, which is not a cache file (%v); measuring again and rewriting it", path, err)
		return nil, 0, false
	}
	switch {
	case f.Version != tuneVersion:
		t.warn("tuning cache: ignoring %s, written by version %d of the cache (this is %d); measuring again and rewriting it", path, f.Version, tuneVersion)
		return nil, 0, false
	case f.Machine != machine:
		t.warn("tuning cache: ignoring %s, measured on another machine (%s; this is %s); measuring again and rewriting it", path, f.Machine, machine)
		return nil, 0, false
	case f.Body != hash:
		t.warn("tuning cache: ignoring %s, which is for another kernel; measuring again and rewriting it", path)
		return nil, 0, false
	}
	for _, c := range cands {
		if c.Order == f.Order && subdivisionsKey(c.Subdivisions) == f.Subdivisions {
			return c, f.Measured, true
		}
	}
	t.warn("tuning cache: ignoring %s: its order %s (subdivisions %s) is not among the kernel's orders; measuring again and rewriting it", path, f.Order, f.Subdivisions)
	return nil, 0, false
}

// writeTuneFile writes f to path through a temporary file, so that a
// reader never sees half a file.
func writeTuneFile(path string, f tuneFile) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tune-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
