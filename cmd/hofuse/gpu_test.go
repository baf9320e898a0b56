package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeNvidiaSMI puts on PATH an nvidia-smi that reports one H100 and a
// driver for CUDA 13.0, as the real one prints them: a machine with a GPU
// as far as doctor and pjrt install --gpu can tell, without one.
func fakeNvidiaSMI(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	script := `#!/bin/sh
if [ "$1" = "-L" ]; then
  echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)"
  exit 0
fi
echo "| NVIDIA-SMI 580.65.06    Driver Version: 580.65.06    CUDA Version: 13.0     |"
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nvidia-smi"), []byte(script), 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// doctor reports the GPU, the CUDA version its driver supports, and, with
// no CUDA plugin installed, the command that installs one.
func TestDoctorGPU(t *testing.T) {
	fakeNvidiaSMI(t)
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", "")
	t.Setenv("HOFUSE_PJRT_DIR", t.TempDir()) // no plugin at all
	_, out, _ := hofuse("doctor")
	gpu := out[strings.Index(out, "\nGPU\n"):]
	assert.Contains(t, gpu, "\n  GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)\n  driver supports CUDA 13.0\n")
	assert.Contains(t, gpu, "  PROBLEM: there is an NVIDIA GPU but no CUDA PJRT plugin\n  fix:     go run ./cmd/hofuse pjrt install --gpu\n")
}

// pjrt install --gpu: without a GPU it says so and names the CPU plugin;
// with one, a wheel that is not the one recorded for the CUDA plugin is
// refused by its hash before anything is installed.
func TestPJRTInstallGPU(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no nvidia-smi
	dir := t.TempDir()
	code, _, errs := hofuse("pjrt", "install", "--gpu", "--dir", dir, "--no-check")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "no NVIDIA GPU: nvidia-smi is not on PATH.\nThe CUDA plugin needs an NVIDIA GPU with its driver (nvidia-smi on PATH). The CPU plugin works everywhere: ")

	fakeNvidiaSMI(t)
	wheel := filepath.Join(t.TempDir(), "jax_cuda13_pjrt-0.12.0.1-py3-none-manylinux_2_27_x86_64.whl")
	require.NoError(t, os.WriteFile(wheel, []byte("not the recorded wheel"), 0o644))
	code, _, errs = hofuse("pjrt", "install", "--gpu", "--dir", dir, "--wheel", wheel, "--no-check")
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "found 1 NVIDIA GPU, driver supports CUDA 13.0: GPU 0: NVIDIA H100")
	assert.Contains(t, errs, "jax-cuda13-pjrt: wheel jax_cuda13_pjrt-0.12.0.1-py3-none-manylinux_2_27_x86_64.whl has sha256 ")
	assert.Contains(t, errs, "but plugins.json records 5899bb6177eda86ea532afb9a26794f2bdd04966f6a01f9028266b16c2b6cf90 for jax_cuda13_pjrt-0.12.0.1-py3-none-manylinux_2_27_x86_64.whl: refusing it")
	assert.Contains(t, errs, "no cuda plugin could be installed")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.NotContains(t, e.Name(), ".so", "nothing installed from a wheel that failed its hash check")
	}
}
