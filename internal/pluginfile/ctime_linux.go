package pluginfile

import (
	"os"
	"syscall"
)

// changeTime is fi's inode change time in nanoseconds: every write
// updates it, and unlike the modification time no program can set it.
func changeTime(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}
