package data

import (
	"bytes"
	_ "embed"

	"github.com/hofuse/hofuse/graph"
)

// digitsCSV is scikit-learn's copy of the UCI handwritten digits, as the
// scikit-learn wheel ships it (see testdata/README.md for its origin and
// licence, and testdata/extract_digits.py for how it was extracted).
//
//go:embed testdata/digits.csv.gz
var digitsCSV []byte

// DigitsFile is the name Digits gives its rows: the embedded file's path
// in the repository.
const DigitsFile = "data/testdata/digits.csv.gz"

// Digits returns scikit-learn's handwritten digits: 1,797 images of 8×8
// pixels, each pixel the count of set pixels in a 4×4 block (0..16),
// scaled to [0, 1] by dividing by 16, and their digits 0..9 as labels (10
// classes). The file is embedded in the binary, so Digits reads nothing
// from disk. The features are Float32; AsType converts them.
func Digits() (*Dataset, error) {
	return ParseCSV(bytes.NewReader(digitsCSV), DigitsFile, CSVOptions{
		Header:      HeaderNo,
		LabelColumn: -1,
		Classes:     10,
		DType:       graph.Float32,
		Scale:       1.0 / 16,
	})
}
