package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// The IDX magic numbers of MNIST's files: two zero bytes, the element type
// (0x08, unsigned byte) and the number of dimensions.
const (
	idxImagesMagic = 0x00000803 // u8, 3 dimensions: images × rows × columns
	idxLabelsMagic = 0x00000801 // u8, 1 dimension: labels
)

// IDXOptions says how ReadIDX and ReadMNIST read images.
type IDXOptions struct {
	// DType is the features' element type, Float32 or Float64; the zero
	// value means Float32.
	DType graph.DType
	// MaxBytes caps the bytes the features may take once converted; a
	// header that claims more is refused before anything is allocated.
	// 0 means graph.DefaultMemoryLimit.
	MaxBytes int64
}

// ReadMNIST reads one half of MNIST (or of a data set in its format, such
// as Fashion-MNIST) from a directory: set "train" reads
// train-images-idx3-ubyte and train-labels-idx1-ubyte, set "t10k" (or
// "test") the t10k- files. Each file may also be named with ".idx3-ubyte"
// for "-idx3-ubyte" or end in ".gz".
func ReadMNIST(dir, set string, opts IDXOptions) (*Dataset, error) {
	if set == "test" {
		set = "t10k"
	}
	if set != "train" && set != "t10k" {
		return nil, fmt.Errorf("data: MNIST set %q, want train or t10k", set)
	}
	find := func(kind, dims string) (string, error) {
		var tried []string
		for _, sep := range []string{"-", "."} {
			for _, ext := range []string{"", ".gz"} {
				p := filepath.Join(dir, set+"-"+kind+sep+dims+"-ubyte"+ext)
				if _, err := os.Stat(p); err == nil {
					return p, nil
				}
				tried = append(tried, filepath.Base(p))
			}
		}
		return "", fmt.Errorf("data: no MNIST %s file in %s (looked for %s)", kind, dir, strings.Join(tried, ", "))
	}
	images, err := find("images", "idx3")
	if err != nil {
		return nil, err
	}
	labels, err := find("labels", "idx1")
	if err != nil {
		return nil, err
	}
	return ReadIDX(images, labels, opts)
}

// ReadIDX reads images from an IDX file of unsigned bytes of 3 dimensions
// (magic 0x00000803) and their labels from one of 1 dimension (magic
// 0x00000801), both big-endian, gzip-compressed when the name ends in
// ".gz". Each image becomes a row of rows·columns features scaled from
// [0, 255] to [0, 1]; the labels must lie in [0, 10). Errors name the file
// and the byte offset: a wrong magic, a header or data cut short, bytes
// after the data, counts of images and labels that differ.
func ReadIDX(imagesPath, labelsPath string, opts IDXOptions) (*Dataset, error) {
	dt := opts.DType
	if dt == graph.Invalid {
		dt = graph.Float32
	}
	if dt != graph.Float32 && dt != graph.Float64 {
		return nil, fmt.Errorf("data: element type %v, want f32 or f64", dt)
	}
	limit := opts.MaxBytes
	if limit <= 0 {
		limit = graph.DefaultMemoryLimit
	}
	dims, pix, err := readIDX(imagesPath, idxImagesMagic, int64(dt.Size()), limit)
	if err != nil {
		return nil, err
	}
	ldims, lab, err := readIDX(labelsPath, idxLabelsMagic, 4, limit)
	if err != nil {
		return nil, err
	}
	if ldims[0] != dims[0] {
		return nil, fmt.Errorf("data: %s has %d labels for the %d images of %s; want one label per image", labelsPath, ldims[0], dims[0], imagesPath)
	}
	n, features := int(dims[0]), int(dims[1]*dims[2])
	if n == 0 || features == 0 {
		return nil, fmt.Errorf("data: %s: %d images of %d×%d, want at least one image of at least one pixel", imagesPath, n, dims[1], dims[2])
	}
	labels := make([]int32, n)
	for i, b := range lab {
		if b >= 10 {
			return nil, fmt.Errorf("data: %s: byte offset %d: label %d is out of range; want a class in [0, 10)", labelsPath, 8+i, b)
		}
		labels[i] = int32(b)
	}
	d := &Dataset{name: imagesPath, dtype: dt}
	if dt == graph.Float32 {
		d.x32 = make([]float32, len(pix))
		for i, b := range pix {
			d.x32[i] = float32(b) / 255
		}
	} else {
		d.x64 = make([]float64, len(pix))
		for i, b := range pix {
			d.x64[i] = float64(b) / 255
		}
	}
	return d.setLabels(len(pix), features, labels, 10)
}

// readIDX reads an IDX file of unsigned bytes with the given magic and
// returns its extents and its data. elem is the bytes one element takes
// once converted: a header whose data would take more than limit bytes is
// refused before anything is allocated, and the data is read as it comes,
// so a header that claims more than the file holds allocates no more than
// the file.
func readIDX(path string, magic uint32, elem, limit int64) ([]int64, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	var r io.Reader = bufio.NewReader(f)
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, fmt.Errorf("data: %s: gzip: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	ndim := int(magic & 0xff)
	head := make([]byte, 4+4*ndim)
	if n, err := io.ReadFull(r, head); err != nil {
		if n == 0 && err == io.EOF {
			return nil, nil, fmt.Errorf("data: %s: empty file; want an IDX file", path)
		}
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return nil, nil, fmt.Errorf("data: %s: byte offset %d: file ends inside the %d-byte header", path, n, len(head))
		}
		return nil, nil, fmt.Errorf("data: %s: %w", path, err)
	}
	if got := binary.BigEndian.Uint32(head); got != magic {
		return nil, nil, fmt.Errorf("data: %s: byte offset 0: magic number 0x%08x, want 0x%08x (%s)", path, got, magic, idxKind(magic))
	}
	dims := make([]int64, ndim)
	total := int64(1) // elements; stays at most limit/elem, so no product overflows
	for i := range dims {
		dims[i] = int64(binary.BigEndian.Uint32(head[4+4*i:]))
	}
	for _, e := range dims {
		if e != 0 && total > limit/elem/e {
			return nil, nil, fmt.Errorf("data: %s: the header claims extents %v, more than the limit of %d bytes once converted to %d-byte elements; raise MaxBytes if the file is real", path, dims, limit, elem)
		}
		total *= e
	}
	var buf bytes.Buffer
	got, err := buf.ReadFrom(io.LimitReader(r, total))
	if err != nil {
		return nil, nil, fmt.Errorf("data: %s: byte offset %d: %w", path, int64(len(head))+got, err)
	}
	if got < total {
		return nil, nil, fmt.Errorf("data: %s: byte offset %d: file ends %d bytes short of the %d data bytes the header claims (extents %v)", path, int64(len(head))+got, total-got, total, dims)
	}
	var one [1]byte
	if n, _ := io.ReadFull(r, one[:]); n > 0 {
		return nil, nil, fmt.Errorf("data: %s: byte offset %d: bytes after the %d data bytes the header claims (extents %v)", path, int64(len(head))+total, total, dims)
	}
	return dims, buf.Bytes(), nil
}

func idxKind(magic uint32) string {
	if magic == idxImagesMagic {
		return "unsigned-byte images of 3 dimensions"
	}
	return "unsigned-byte labels of 1 dimension"
}
