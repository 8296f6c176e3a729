//go:build darwin && cgo

package hotkey

// A file with //export may only declare in its preamble, so the handler
// that calls this lives in carbon_darwin_cgo.go.

/*
#include <MacTypes.h>
*/
import "C"

//export harkHotKeyEvent
func harkHotKeyEvent(id C.UInt32, down C.int) { deliverCarbon(uint32(id), down != 0) }
