package fusion

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/graph/graphtest"
)

func TestEtaLaw(t *testing.T) {
	st := checkLaw(t, Eta{}, graphtest.Program, nil, exactTol)
	// Fusion builds the lambdas η reduces; make some.
	st.add(checkLaw(t, Eta{}, graphtest.NZipOfNZip, applyOnce(NZipNZip{}), exactTol))
	requireApplied(t, st, 20)
}

func TestEtaShapes(t *testing.T) {
	for src, want := range map[string]string{
		`x : f64[3]; reduce (\a b -> a + b) x`:                       `reduce (+) x`,
		`x : f64[2,3]; reduce (\a b -> zip (\p q -> max p q) a b) x`: `reduce (zip max) x`,
		`x : f64[3]; map (\v -> v) x`:                                `map id x`,
		`x : f64[3]; map (\v -> exp v) x`:                            `map exp x`,
		`x : f64[3]; map (\v -> v + v) x`:                            `map (\v -> v + v) x`,
	} {
		e := newEngine([]Rule{Eta{}})
		out, err := e.run(parse(t, src))
		assert.NoError(t, err)
		assert.Equal(t, want, graph.Print(out), src)
	}
}

func FuzzEtaLaw(f *testing.F) { fuzzLaw(f, Eta{}, graphtest.Program, nil, exactTol) }
