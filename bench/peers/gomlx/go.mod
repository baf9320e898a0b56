module github.com/hofuse/hofuse/bench/peers/gomlx

go 1.26.0

require (
	github.com/gomlx/gomlx v0.26.0
	github.com/sbinet/npyio v0.6.0
)

require (
	github.com/campoy/embedmd v1.0.0 // indirect
	github.com/dustin/go-humanize v1.0.1 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	golang.org/x/exp v0.0.0-20250819193227-8b4c13bb791b // indirect
	gonum.org/v1/gonum v0.16.0 // indirect
	k8s.io/klog/v2 v2.130.1 // indirect
)
