//go:build !unix

package preview

import (
	"fmt"
	"os"
)

// serverMain refuses: Hark has no sandbox on this OS, so no preview
// server is ever started.
func serverMain() int {
	fmt.Fprintln(os.Stderr, "hark "+HelperCommand+" "+ServerArg+": no sandbox on this system")
	return 2
}
