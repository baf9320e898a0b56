//go:build cgo

package pjrt

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	xp "github.com/gomlx/go-xla/pkg/pjrt"
	"github.com/gomlx/go-xla/pkg/types/dtypes"
	"github.com/hofuse/hofuse/graph"
)

// cgoEnabled reports whether this build can load plugins.
const cgoEnabled = true

// nativeClient is the go-xla side of a core. Its methods are called with
// core.rw held (for writing in close), never after close.
type nativeClient struct {
	plugin *xp.Plugin
	client *xp.Client
	cpu    bool // the platform is "cpu": a buffer's memory is host memory
}

type (
	nativeExec = *xp.LoadedExecutable
	nativeBuf  = *xp.Buffer
)

var toXLA = map[graph.DType]dtypes.DType{
	graph.Float32: dtypes.Float32,
	graph.Float64: dtypes.Float64,
	graph.Int32:   dtypes.Int32,
	graph.Bool:    dtypes.Bool,
}

// clientOptions are the create options tried in turn, each plugin taking
// only the options it knows: the CPU plugin one device (hofuse runs
// programs on the first; XLA's own thread pool uses every core), a GPU
// plugin no preallocation (its default takes 75% of the GPU's memory at
// start, which fails any other process on the GPU, a JAX peer or a second
// hofuse, where hofuse's buffers need a few megabytes; the allocator still
// keeps what it has allocated for reuse), and last no options at all.
var clientOptions = []xp.NamedValuesMap{
	{"cpu_device_count": int64(1)},
	{"preallocate": false},
	nil,
}

// openNative loads the plugin (go-xla keeps it loaded for the life of the
// process: a plugin is never unloaded) and creates a client, with one
// device where the plugin takes the cpu_device_count option.
//
// go-xla v0.1.4 points XLA_FLAGS at a developer's home folder when a CUDA
// plugin has an nvidia/ folder two levels up (its cudaPluginCheckDrivers),
// and warns otherwise; GOPJRT_CUDA_CHECKS=0, set here when unset, turns
// that off. The plugin finds the NVIDIA libraries through its own RPATH.
func openNative(path string) (*nativeClient, coreInfo, error) {
	if os.Getenv("GOPJRT_CUDA_CHECKS") == "" {
		os.Setenv("GOPJRT_CUDA_CHECKS", "0")
	}
	plugin, err := xp.GetPlugin(path) // an absolute path: loaded directly, no search
	if err != nil {
		return nil, coreInfo{}, err
	}
	if major, minor := plugin.Version(); checkAPIVersion(path, major, minor) != nil {
		return nil, coreInfo{}, &versionError{checkAPIVersion(path, major, minor)}
	}
	var client *xp.Client
	var took xp.NamedValuesMap
	for _, took = range clientOptions {
		if client, err = plugin.NewClient(took); err == nil {
			break
		}
	}
	if err != nil {
		return nil, coreInfo{}, fmt.Errorf("create client: %w", err)
	}
	info := coreInfo{platform: client.Platform(), attributes: map[string]string{}, options: "none"}
	if len(took) > 0 {
		var opts []string
		for k, v := range took {
			opts = append(opts, fmt.Sprintf("%s=%v", k, v))
		}
		slices.Sort(opts)
		info.options = strings.Join(opts, " ")
	}
	info.major, info.minor = plugin.Version()
	for _, d := range client.AddressableDevices() {
		name := fmt.Sprintf("device %d", d.LocalHardwareID())
		if desc, err := d.GetDescription(); err == nil {
			name = desc.DebugString()
		}
		info.devices = append(info.devices, name)
	}
	for k, v := range plugin.Attributes() {
		info.attributes[k] = formatAttribute(k, v)
	}
	return &nativeClient{plugin: plugin, client: client, cpu: info.platform == "cpu"}, info, nil
}

// formatAttribute prints a plugin attribute; version lists become "1.13.3".
func formatAttribute(key string, v any) string {
	if xs, ok := v.([]int64); ok && strings.HasSuffix(key, "_version") {
		parts := make([]string, len(xs))
		for i, x := range xs {
			parts[i] = fmt.Sprint(x)
		}
		return strings.Join(parts, ".")
	}
	return fmt.Sprint(v)
}

func (n *nativeClient) close() error { return n.client.Destroy() }

func (n *nativeClient) compile(text string) (nativeExec, error) {
	return n.client.Compile().WithStableHLO([]byte(text)).Done()
}

func (n *nativeClient) numOutputs(x nativeExec) (int, error) { return x.NumOutputs, nil }

func (n *nativeClient) destroyExec(x nativeExec) error { return x.Destroy() }

func (n *nativeClient) upload(h hostTensor) (nativeBuf, error) {
	return n.client.BufferFromHost().FromRawData(h.data, toXLA[h.typ.DType], h.typ.Dims).Done()
}

func (n *nativeClient) freeBuf(b nativeBuf) { b.Destroy() }

func (n *nativeClient) execute(x nativeExec, inputs []nativeBuf, donate []bool) ([]nativeBuf, error) {
	cfg := x.Execute(inputs...)
	if donate != nil {
		cfg = cfg.SetDonate(donate)
	}
	return cfg.Done()
}

// download reads b into a new value, checking that it has type want.
func (n *nativeClient) download(b nativeBuf, want TensorType) (graph.Value, error) {
	dt, err := b.DType()
	if err != nil {
		return nil, err
	}
	dims, err := b.Dimensions()
	if err != nil {
		return nil, err
	}
	if dt != toXLA[want.DType] || !slices.Equal(dims, want.Dims) {
		return nil, fmt.Errorf("device buffer is %v%v, expected %s", dt, dims, want)
	}
	h := newHostBuffer(want)
	if len(h.data) > 0 {
		if err := n.readInto(b, h.data); err != nil {
			return nil, err
		}
	}
	return h.value()
}

// shared makes a buffer of type t whose memory is host memory the caller
// writes (PJRT_Client_CreateViewOfDeviceBuffer over aligned memory): on a
// CPU plugin an input written there needs no upload. It returns the buffer
// and its memory, valid until the buffer is freed.
func (n *nativeClient) shared(t TensorType) (nativeBuf, []byte, error) {
	b, flat, err := n.client.NewSharedBuffer(toXLA[t.DType], t.Dims)
	if err != nil {
		return nil, nil, err
	}
	v := reflect.ValueOf(flat)
	size := v.Len() * int(v.Type().Elem().Size())
	return b, unsafe.Slice((*byte)(v.UnsafePointer()), size), nil
}

// readInto copies b into dst (row-major bytes of b's type). On a CPU
// plugin the buffer's memory is host memory, in XLA's default row-major
// layout, and ready once the run that made it returned (go-xla waits for
// its completion events): it is copied directly, which saves the transfer
// PJRT_Buffer_ToHostBuffer schedules and awaits (tens of microseconds).
func (n *nativeClient) readInto(b nativeBuf, dst []byte) error {
	if n.cpu {
		if p, err := b.UnsafePointer(); err == nil && p != nil {
			if size, err := b.Size(); err == nil && size == len(dst) {
				copy(dst, unsafe.Slice((*byte)(p), size))
				return nil
			}
		}
	}
	return b.ToHost(dst)
}
