package pjrtinstall

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// GPUInfo is what nvidia-smi says about the machine's NVIDIA GPUs.
type GPUInfo struct {
	GPUs []string // one line per GPU: "GPU 0: NVIDIA H100 ..."
	CUDA int      // the CUDA major version the driver supports; 0 if unknown
	// Driver is the CUDA version text nvidia-smi prints ("13.0").
	Driver string
}

var cudaVersionRE = regexp.MustCompile(`CUDA Version:\s*([0-9]+)(\.[0-9]+)?`)

// NvidiaGPU runs nvidia-smi. It returns an error saying why when there is
// no NVIDIA GPU to use (no nvidia-smi on PATH, or it fails or lists none).
func NvidiaGPU(ctx context.Context) (GPUInfo, error) {
	var info GPUInfo
	smi, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return info, fmt.Errorf("no NVIDIA GPU: nvidia-smi is not on PATH")
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, smi, "-L").CombinedOutput()
	if err != nil {
		return info, fmt.Errorf("no usable NVIDIA GPU: nvidia-smi -L failed (%v): %s", err, strings.TrimSpace(string(out)))
	}
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "GPU ") {
			info.GPUs = append(info.GPUs, l)
		}
	}
	if len(info.GPUs) == 0 {
		return info, fmt.Errorf("no NVIDIA GPU: nvidia-smi -L lists none")
	}
	if out, err := exec.CommandContext(ctx, smi).Output(); err == nil {
		if m := cudaVersionRE.FindStringSubmatch(string(out)); m != nil {
			info.CUDA, _ = strconv.Atoi(m[1])
			info.Driver = m[1] + m[2]
		}
	}
	return info, nil
}
