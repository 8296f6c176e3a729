//go:build darwin

package desktop

import "github.com/ebitengine/purego/objc"

// NSActivityUserInitiated | NSActivityLatencyCritical (NSProcessInfo.h):
// the work the user waits on, and timing that must not be coalesced.
const activityOptions uint64 = 0x00FFFFFF | 0xFF00000000

var (
	selProcessInfo   = objc.RegisterName("processInfo")
	selBeginActivity = objc.RegisterName("beginActivityWithOptions:reason:")
	selEndActivity   = objc.RegisterName("endActivity:")
	selRetain        = objc.RegisterName("retain")
)

// BeginActivity tells macOS that a turn the user waits on is under way, so
// that App Nap does not throttle a menu-bar app with no visible window
// (coalesced timers, efficiency cores) while it records, transcribes and
// streams the model's answer. end lets App Nap back in.
func BeginActivity(reason string) (end func()) {
	var token objc.ID
	withPool(func() {
		info := objc.ID(objc.GetClass("NSProcessInfo")).Send(selProcessInfo)
		// The token comes autoreleased; it must outlive the pool.
		token = info.Send(selBeginActivity, activityOptions, nsStr(reason)).Send(selRetain)
	})
	return func() {
		if token == 0 {
			return
		}
		withPool(func() {
			objc.ID(objc.GetClass("NSProcessInfo")).Send(selProcessInfo).Send(selEndActivity, token)
			token.Send(selRelease)
		})
		token = 0
	}
}
