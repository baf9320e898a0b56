module github.com/hofuse/hofuse

go 1.26
