package data

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// FuzzParseNPY: a .npy file of any bytes is read or refused with an
// error, never a panic, and what is read has as many values as its shape
// says.
func FuzzParseNPY(f *testing.F) {
	for _, p := range []string{"x.npy", "y.npy", "images.npy", "fortran.npy", "targets.npy"} {
		b, err := os.ReadFile("testdata/" + p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := parseNPY(b, "fuzz.npy", NPYOptions{MaxBytes: 1 << 20})
		if err != nil {
			return
		}
		n := 1
		for _, e := range a.shape {
			n *= e
		}
		if len(a.f)+len(a.i) != n {
			t.Fatalf("shape %v with %d values", a.shape, len(a.f)+len(a.i))
		}
	})
}

// FuzzParseCSV: any text is read or refused with an error naming the
// file, never a panic, and what is read has whole rows.
func FuzzParseCSV(f *testing.F) {
	f.Add("a,b,y\n0.5,1,2\n1.5,2,0\n")
	f.Add("1,2,0\n3,4\n")
	f.Add("1,2,x\n")
	b, err := os.ReadFile("testdata/small.csv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Fuzz(func(t *testing.T, text string) {
		d, err := ParseCSV(bytes.NewReader([]byte(text)), "fuzz.csv", CSVOptions{LabelColumn: -1})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(d.x32) != d.Rows()*d.Features() || len(d.Labels()) != d.Rows() {
			t.Fatalf("%d rows of %d features with %d values and %d labels", d.Rows(), d.Features(), len(d.x32), len(d.Labels()))
		}
	})
}
