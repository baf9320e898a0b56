package tf

import (
	"fmt"

	"github.com/hofuse/hofuse/imports"
)

// fileError returns an *imports.Error about the file as a whole.
func fileError(file, format string, args ...any) *imports.Error {
	return &imports.Error{File: file, Msg: fmt.Sprintf(format, args...)}
}
