package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/hofuse/hofuse/graph"
)

// Header says whether the first record of a CSV file names the columns.
type Header int

const (
	// HeaderAuto takes the first record for a header when one of its
	// cells is not a number.
	HeaderAuto Header = iota
	// HeaderYes: the first record is a header.
	HeaderYes
	// HeaderNo: every record is data.
	HeaderNo
)

// CSVOptions says how ReadCSV reads a table.
type CSVOptions struct {
	// Header says whether the first record names the columns. A header
	// of numbers only (as "0,1,2,label" is not, but "0,1,2,3" is) needs
	// HeaderYes.
	Header Header
	// LabelColumn is the index of the integer label column, counted
	// from 0; a negative index counts from the end (-1 is the last
	// column). The zero value is the first column. Every other column
	// is a feature.
	LabelColumn int
	// LabelName, when set, chooses the label column by its header name
	// instead (the file must then have a header).
	LabelName string
	// Classes, when positive, is the number of classes: a label outside
	// [0, Classes) is an error naming its line. 0 counts the classes
	// from the labels (one more than the largest).
	Classes int
	// DType is the features' element type, Float32 or Float64; the zero
	// value means Float32.
	DType graph.DType
	// Scale, when not 0, multiplies every feature (1.0/16 for digits'
	// pixel counts, 1.0/255 for bytes).
	Scale float64
	// Comma is the field separator; 0 means ','.
	Comma rune
}

// ReadCSV reads a classification table from a CSV file: one row per
// record, the label column an integer, every other column a number. A
// file whose name ends in ".gz" is decompressed. Errors name the file, the
// line and what is wrong: an empty file, a record with a different number
// of fields than the first (a ragged row), a cell that is not a number, a
// label that is not an integer or is outside [0, Classes).
func ReadCSV(path string, opts CSVOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	defer f.Close()
	return ParseCSV(f, path, opts)
}

// ParseCSV is ReadCSV on a reader; name is the file name errors give. A
// reader that starts with gzip's magic bytes is decompressed.
func ParseCSV(r io.Reader, name string, opts CSVOptions) (*Dataset, error) {
	dt := opts.DType
	if dt == graph.Invalid {
		dt = graph.Float32
	}
	if dt != graph.Float32 && dt != graph.Float64 {
		return nil, fmt.Errorf("%s: element type %v, want f32 or f64", name, dt)
	}
	if opts.Classes < 0 {
		return nil, fmt.Errorf("%s: %d classes, want at least 1 (or 0 to count them from the labels)", name, opts.Classes)
	}
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
		defer zr.Close()
		br = bufio.NewReader(zr)
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1 // checked here, to say which line and what it should have
	if opts.Comma != 0 {
		cr.Comma = opts.Comma
	}
	scale := opts.Scale
	if scale == 0 {
		scale = 1
	}

	var (
		x      []float64
		labels []int32
		label  = -1 // the label column, once known
		ncols  int
		first  = true
		top    int32
	)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s:%d: %v", name, pe.Line, pe.Err)
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0) // after the error check: a failed Read leaves no field to ask about
		if first {
			first = false
			rec[0] = strings.TrimPrefix(rec[0], "\ufeff") // a byte-order mark, as spreadsheets write
			ncols = len(rec)
			if ncols < 2 {
				return nil, fmt.Errorf("%s:%d: %d column, want at least 2 (features and a label)", name, line, ncols)
			}
			header := opts.Header == HeaderYes || (opts.Header == HeaderAuto && !allNumbers(rec))
			if opts.LabelName != "" {
				if !header {
					return nil, fmt.Errorf("%s:%d: no header to find the label column %q in; name the column by its index instead", name, line, opts.LabelName)
				}
				for i, c := range rec {
					if strings.TrimSpace(c) == opts.LabelName {
						label = i
						break
					}
				}
				if label < 0 {
					return nil, fmt.Errorf("%s:%d: no column named %q in the header %q", name, line, opts.LabelName, strings.Join(rec, string(cr.Comma)))
				}
			} else {
				label = opts.LabelColumn
				if label < 0 {
					label += ncols
				}
				if label < 0 || label >= ncols {
					return nil, fmt.Errorf("%s:%d: label column %d is outside the %d columns; want an index in [%d, %d)", name, line, opts.LabelColumn, ncols, -ncols, ncols)
				}
			}
			if header {
				continue
			}
		}
		if len(rec) != ncols {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d as in the first line (a ragged row)", name, line, len(rec), ncols)
		}
		for i, c := range rec {
			c = strings.TrimSpace(c)
			if i == label {
				y, err := strconv.ParseInt(c, 10, 32)
				if err != nil {
					if v, ferr := strconv.ParseFloat(c, 64); ferr == nil && v == math.Trunc(v) && math.Abs(v) < 1<<31 {
						y = int64(v) // "3.0" is the label 3, as numpy writes integers stored in floats
					} else {
						return nil, fmt.Errorf("%s:%d: label %q in column %d is not an integer", name, line, c, i)
					}
				}
				if y < 0 {
					return nil, fmt.Errorf("%s:%d: label %d is negative; want a class index from 0", name, line, y)
				}
				if opts.Classes > 0 && y >= int64(opts.Classes) {
					return nil, fmt.Errorf("%s:%d: label %d is out of range; want a class in [0, %d)", name, line, y, opts.Classes)
				}
				labels = append(labels, int32(y))
				top = max(top, int32(y))
				continue
			}
			v, err := strconv.ParseFloat(c, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: cell %q in column %d is not a number", name, line, c, i)
			}
			x = append(x, v*scale)
		}
		if int64(len(x)) > graph.MaxElements {
			return nil, fmt.Errorf("%s:%d: more than %d feature values (graph.MaxElements)", name, line, int64(graph.MaxElements))
		}
	}
	if len(labels) == 0 {
		if first {
			return nil, fmt.Errorf("%s: empty file; want rows of features and a label", name)
		}
		return nil, fmt.Errorf("%s: a header and no rows; want rows of features and a label", name)
	}
	classes := opts.Classes
	if classes == 0 {
		classes = int(top) + 1
	}
	d := &Dataset{name: name, dtype: graph.Float64, x64: x}
	d, err := d.setLabels(len(x), ncols-1, labels, classes)
	if err != nil {
		return nil, err
	}
	return d.AsType(dt)
}

func allNumbers(rec []string) bool {
	for _, c := range rec {
		if _, err := strconv.ParseFloat(strings.TrimSpace(c), 64); err != nil {
			return false
		}
	}
	return true
}
