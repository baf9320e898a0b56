// Package onnxpb is the generated Go code for the subset of ONNX's
// onnx.proto that hofuse reads (onnx.proto in this folder, written with the
// published field numbers). Regenerate it with go generate, which needs
// protoc and protoc-gen-go; the generated file is committed so that
// building needs neither.
package onnxpb

//go:generate protoc --go_out=. --go_opt=paths=source_relative onnx.proto
