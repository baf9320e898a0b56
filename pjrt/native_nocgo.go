//go:build !cgo

package pjrt

import "github.com/hofuse/hofuse/graph"

// cgoEnabled reports whether this build can load plugins.
const cgoEnabled = false

// nativeClient stands in for the go-xla client in a build without cgo,
// where Open always fails, so none is ever made.
type nativeClient struct{}

type (
	nativeExec = *struct{}
	nativeBuf  = *struct{}
)

func openNative(string) (*nativeClient, coreInfo, error) { return nil, coreInfo{}, ErrNoCgo }

func (*nativeClient) close() error                       { return ErrNoCgo }
func (*nativeClient) compile(string) (nativeExec, error) { return nil, ErrNoCgo }
func (*nativeClient) numOutputs(nativeExec) (int, error) { return 0, ErrNoCgo }
func (*nativeClient) destroyExec(nativeExec) error       { return ErrNoCgo }
func (*nativeClient) upload(hostTensor) (nativeBuf, error) {
	return nil, ErrNoCgo
}
func (*nativeClient) freeBuf(nativeBuf) {}
func (*nativeClient) execute(nativeExec, []nativeBuf, []bool) ([]nativeBuf, error) {
	return nil, ErrNoCgo
}
func (*nativeClient) download(nativeBuf, TensorType) (graph.Value, error) {
	return nil, ErrNoCgo
}
func (*nativeClient) shared(TensorType) (nativeBuf, []byte, error) { return nil, nil, ErrNoCgo }
func (*nativeClient) readInto(nativeBuf, []byte) error             { return ErrNoCgo }
