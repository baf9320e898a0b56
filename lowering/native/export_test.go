package native

import "os"

func init() {
	debugPanics = os.Getenv("HOFUSE_NATIVE_PANICS") != ""
}
