package main

import (
	"fmt"
	"log"
	"time"

	"github.com/hofuse/hofuse/fusion"
	"github.com/hofuse/hofuse/graph"
	"github.com/hofuse/hofuse/lowering/native"
	"github.com/hofuse/hofuse/models"
)

func main() {
	m, err := models.MLP(models.MLPConfig{
		Sizes: []int{784, 512, 512, 10},
		Batch: 64,
		DType: graph.Float32,
		Norm:  models.NormBatch,
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := fusion.Fuse(m.Output, fusion.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, k := range res.Report.Kernels {
		fmt.Printf("%s holds %v: %s\n", k.Name, k.Sources, k.Order)
	}
	plan, err := native.New(native.Options{}).Plan(res.Graph)
	if err != nil {
		log.Fatal(err)
	}
	defer plan.Close()

	inputs := m.Bindings(1) // random weights and input, seeded
	start := time.Now()
	out, err := plan.Run(inputs)
	if err != nil {
		log.Fatal(err)
	}
	logits := out.(*graph.Array)
	fmt.Printf("ran in %v; logits %v; first row %.4f\n", time.Since(start), logits.Extents(), logits.Values()[:10])
}
