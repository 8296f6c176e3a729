//go:build darwin

package desktop

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"

	"github.com/hark-sh/hark/app"
)

// UserNotifications posts approval requests as macOS notifications with
// Approve and Deny buttons (a UNNotificationCategory), through purego so
// the code builds without cgo. macOS grants this only to an app bundle
// with a bundle identifier whose user allowed alerts, so
// NewUserNotifications checks all of that first and fails cleanly
// (Setup then uses the osascript dialog): UNUserNotificationCenter raises
// an uncatchable exception when touched from a process without a bundle.
type UserNotifications struct {
	center   objc.ID
	delegate objc.ID
	log      *slog.Logger

	mu   sync.Mutex
	asks map[string]*ask // by request identifier
}

const (
	unCategory       = "hark.approval"
	unCategoryTrash  = "hark.approval.trash" // a plain deletion: Move to Trash first
	unAgainSuffix    = ".again"              // either, with Say it again last
	unRequestPrefix  = "hark-"
	unAuthAlertSound = 1<<2 | 1<<1 // UNAuthorizationOptionAlert | UNAuthorizationOptionSound
	unActionDestruct = 1 << 1      // UNNotificationActionOptionDestructive
	unPresentBanner  = 1<<4 | 1<<3 | 1<<1
)

var (
	selAlloc                  = objc.RegisterName("alloc")
	selInit                   = objc.RegisterName("init")
	selNewObj                 = objc.RegisterName("new")
	selRelease                = objc.RegisterName("release")
	selDrain                  = objc.RegisterName("drain")
	selStringWithUTF8         = objc.RegisterName("stringWithUTF8String:")
	selUTF8String             = objc.RegisterName("UTF8String")
	selMainBundle             = objc.RegisterName("mainBundle")
	selBundleIdentifier       = objc.RegisterName("bundleIdentifier")
	selCurrentCenter          = objc.RegisterName("currentNotificationCenter")
	selSetDelegate            = objc.RegisterName("setDelegate:")
	selActionWithID           = objc.RegisterName("actionWithIdentifier:title:options:")
	selCategoryWithID         = objc.RegisterName("categoryWithIdentifier:actions:intentIdentifiers:options:")
	selArrayWithObjectsCount  = objc.RegisterName("arrayWithObjects:count:")
	selSetWithArray           = objc.RegisterName("setWithArray:")
	selSetCategories          = objc.RegisterName("setNotificationCategories:")
	selRequestAuthorization   = objc.RegisterName("requestAuthorizationWithOptions:completionHandler:")
	selSetTitleUN             = objc.RegisterName("setTitle:")
	selSetBody                = objc.RegisterName("setBody:")
	selSetCategoryIdentifier  = objc.RegisterName("setCategoryIdentifier:")
	selSetInterruptionLevel   = objc.RegisterName("setInterruptionLevel:")
	selRespondsToSelector     = objc.RegisterName("respondsToSelector:")
	selRequestWithIdentifier  = objc.RegisterName("requestWithIdentifier:content:trigger:")
	selAddRequest             = objc.RegisterName("addNotificationRequest:withCompletionHandler:")
	selRemoveDelivered        = objc.RegisterName("removeDeliveredNotificationsWithIdentifiers:")
	selRemovePending          = objc.RegisterName("removePendingNotificationRequestsWithIdentifiers:")
	selActionIdentifier       = objc.RegisterName("actionIdentifier")
	selNotification           = objc.RegisterName("notification")
	selRequest                = objc.RegisterName("request")
	selIdentifier             = objc.RegisterName("identifier")
	selLocalizedDescription   = objc.RegisterName("localizedDescription")
	selDidReceiveResponse     = objc.RegisterName("userNotificationCenter:didReceiveNotificationResponse:withCompletionHandler:")
	selWillPresent            = objc.RegisterName("userNotificationCenter:willPresentNotification:withCompletionHandler:")
	unLoadOnce                sync.Once
	unLoadErr                 error
	unDelegateClass           objc.Class
	unShared                  *UserNotifications // the delegate class calls back into this one
	unSharedMu                sync.Mutex
	errNotBundled             = errors.New("not running from an app bundle with a bundle identifier")
	errNotificationsForbidden = errors.New("notifications are not allowed for Hark (System Settings → Notifications → Hark)")
)

// UNNotificationInterruptionLevelTimeSensitive (UNNotificationContent.h).
const unInterruptionTimeSensitive uint = 2

func nsStr(s string) objc.ID {
	return objc.ID(objc.GetClass("NSString")).Send(selStringWithUTF8, s)
}

func goStr(id objc.ID) string {
	if id == 0 {
		return ""
	}
	return objc.Send[string](id, selUTF8String)
}

func nsArray(items ...objc.ID) objc.ID {
	if len(items) == 0 {
		return objc.ID(objc.GetClass("NSArray")).Send(selNewObj)
	}
	return objc.ID(objc.GetClass("NSArray")).Send(selArrayWithObjectsCount, unsafe.Pointer(&items[0]), uint(len(items)))
}

// withPool runs fn inside an autorelease pool on one OS thread. Hark calls
// the notification centre from goroutines, whose threads have no pool of
// their own: the strings, arrays and requests Foundation hands back
// autoreleased would otherwise pile up for the life of the thread. A pool
// belongs to the thread that made it, hence the lock.
func withPool(fn func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	pool := objc.ID(objc.GetClass("NSAutoreleasePool")).Send(selNewObj)
	defer pool.Send(selDrain)
	fn()
}

// callBlock invokes a block that Objective-C handed to us (its function
// pointer sits after the isa pointer, flags and reserved fields of the
// block literal). purego's Block.Invoke only knows blocks made in Go.
func callBlock(b objc.Block, args ...uintptr) {
	if b == 0 {
		return
	}
	literal := *(*unsafe.Pointer)(unsafe.Pointer(&b))
	invoke := *(*uintptr)(unsafe.Add(literal, 16))
	purego.SyscallN(invoke, append([]uintptr{uintptr(b)}, args...)...)
}

func loadUserNotifications() error {
	unLoadOnce.Do(func() {
		for _, lib := range []string{
			"/System/Library/Frameworks/Foundation.framework/Foundation",
			"/System/Library/Frameworks/UserNotifications.framework/UserNotifications",
		} {
			if _, err := purego.Dlopen(lib, purego.RTLD_GLOBAL|purego.RTLD_LAZY); err != nil {
				unLoadErr = fmt.Errorf("loading %s: %v", lib, err)
				return
			}
		}
		var protocols []*objc.Protocol
		if p := objc.GetProtocol("UNUserNotificationCenterDelegate"); p != nil {
			protocols = append(protocols, p)
		}
		unDelegateClass, unLoadErr = objc.RegisterClass("HarkNotificationDelegate", objc.GetClass("NSObject"), protocols, nil, []objc.MethodDef{
			{Cmd: selDidReceiveResponse, Fn: didReceiveResponse},
			{Cmd: selWillPresent, Fn: willPresent},
		})
	})
	return unLoadErr
}

// didReceiveResponse is the delegate method macOS calls when the user acts
// on one of our notifications.
func didReceiveResponse(self objc.ID, _ objc.SEL, center, response objc.ID, done objc.Block) {
	action := goStr(response.Send(selActionIdentifier))
	id := goStr(response.Send(selNotification).Send(selRequest).Send(selIdentifier))
	unSharedMu.Lock()
	u := unShared
	unSharedMu.Unlock()
	if u != nil {
		u.answered(id, action)
	}
	callBlock(done)
}

// willPresent lets our notifications show even while Hark is the active
// app (macOS hides them otherwise).
func willPresent(self objc.ID, _ objc.SEL, center, notification objc.ID, done objc.Block) {
	callBlock(done, unPresentBanner)
}

// NewUserNotifications sets up the approval category and asks for
// permission (macOS prompts once). It fails when Hark is not bundled or the
// user refused; the error says which.
func NewUserNotifications(log *slog.Logger) (*UserNotifications, error) {
	return newUserNotifications(log, 2*time.Minute)
}

// newUserNotifications waits as long as the user takes to answer the
// permission prompt: Setup runs it in the background and approvals use the
// dialog meanwhile, so giving up would only keep the dialog until the next
// restart. Every stillAsking it logs that the prompt is still open.
func newUserNotifications(log *slog.Logger, stillAsking time.Duration) (*UserNotifications, error) {
	if !InAppBundle() {
		return nil, errNotBundled
	}
	if err := loadUserNotifications(); err != nil {
		return nil, err
	}
	var (
		u       *UserNotifications
		err     error
		granted = make(chan bool, 1)
		block   objc.Block
	)
	withPool(func() {
		bundle := objc.ID(objc.GetClass("NSBundle")).Send(selMainBundle)
		if bundle == 0 || bundle.Send(selBundleIdentifier) == 0 {
			err = errNotBundled
			return
		}
		center := objc.ID(objc.GetClass("UNUserNotificationCenter")).Send(selCurrentCenter)
		if center == 0 {
			err = errors.New("the notification centre is not available")
			return
		}
		u = &UserNotifications{center: center, log: log, asks: map[string]*ask{}}
		// Owned for the life of the process: the centre's delegate
		// property is weak.
		u.delegate = objc.ID(unDelegateClass).Send(selAlloc).Send(selInit)
		unSharedMu.Lock()
		unShared = u
		unSharedMu.Unlock()
		center.Send(selSetDelegate, u.delegate)

		actionClass := objc.ID(objc.GetClass("UNNotificationAction"))
		// The order and words of app.Answers: the safe choice first.
		approve := actionClass.Send(selActionWithID, nsStr(actionApprove), nsStr("Approve"), uint(0))
		deny := actionClass.Send(selActionWithID, nsStr(actionDeny), nsStr("Deny (safe choice)"), uint(0))
		category := objc.ID(objc.GetClass("UNNotificationCategory")).Send(selCategoryWithID,
			nsStr(unCategory), nsArray(deny, approve), nsArray(), uint(0))
		// A plain deletion under home: Move to Trash leads, and Delete is
		// the destructive choice, shown in red, never next to it.
		trashAction := actionClass.Send(selActionWithID, nsStr(actionTrash), nsStr("Move to Trash (safe choice)"), uint(0))
		del := actionClass.Send(selActionWithID, nsStr(actionApprove), nsStr("Delete"), uint(unActionDestruct))
		denyTrash := actionClass.Send(selActionWithID, nsStr(actionDeny), nsStr("Deny"), uint(0))
		trashCategory := objc.ID(objc.GetClass("UNNotificationCategory")).Send(selCategoryWithID,
			nsStr(unCategoryTrash), nsArray(trashAction, denyTrash, del), nsArray(), uint(0))
		// The same two for a spoken request, with Say it again after the
		// answers.
		again := actionClass.Send(selActionWithID, nsStr(actionSayAgain), nsStr(app.SayAgainLabel), uint(0))
		categoryAgain := objc.ID(objc.GetClass("UNNotificationCategory")).Send(selCategoryWithID,
			nsStr(unCategory+unAgainSuffix), nsArray(deny, approve, again), nsArray(), uint(0))
		trashCategoryAgain := objc.ID(objc.GetClass("UNNotificationCategory")).Send(selCategoryWithID,
			nsStr(unCategoryTrash+unAgainSuffix), nsArray(trashAction, denyTrash, del, again), nsArray(), uint(0))
		center.Send(selSetCategories, objc.ID(objc.GetClass("NSSet")).Send(selSetWithArray,
			nsArray(category, trashCategory, categoryAgain, trashCategoryAgain)))

		block = objc.NewBlock(func(_ objc.Block, ok bool, errID objc.ID) {
			if errID != 0 {
				log.Warn("notification permission", "err", goStr(errID.Send(selLocalizedDescription)))
			}
			granted <- ok
		})
		center.Send(selRequestAuthorization, uint(unAuthAlertSound), block)
	})
	if block != 0 {
		// The centre copied the block; this drops Go's reference.
		defer block.Release()
	}
	if err != nil {
		return nil, err
	}
	tick := time.NewTicker(stillAsking)
	defer tick.Stop()
	for {
		select {
		case ok := <-granted:
			if !ok {
				return nil, errNotificationsForbidden
			}
			return u, nil
		case <-tick.C:
			log.Info("the notification permission prompt is still open; approvals use a dialog until it is answered")
		}
	}
}

// Actions is true: the category carries Approve and Deny.
func (u *UserNotifications) Actions() bool { return true }

// Ask posts the approval notification for p.
func (u *UserNotifications) Ask(p app.Pending, answer func(app.Decision)) error {
	id := unRequestPrefix + p.ID
	u.mu.Lock()
	u.asks[id] = &ask{pendingID: p.ID, answer: answer, again: p.SayAgain}
	u.mu.Unlock()
	cat := unCategory
	if p.TrashOffered {
		cat = unCategoryTrash
	}
	if p.SayAgain {
		cat += unAgainSuffix
	}
	if err := u.deliver(id, approvalTitle(p), approvalBody(p), cat); err != nil {
		u.forget(id)
		return fmt.Errorf("posting the approval notification: %w", err)
	}
	return nil
}

// deliver posts a notification under id, replacing one delivered under
// the same id. category names the buttons; "" posts a plain notification
// (an answer) without buttons.
func (u *UserNotifications) deliver(id, title, body, category string) error {
	posted := make(chan string, 1)
	block := objc.NewBlock(func(_ objc.Block, err objc.ID) {
		if err != 0 {
			posted <- goStr(err.Send(selLocalizedDescription))
			return
		}
		posted <- ""
	})
	defer block.Release()
	withPool(func() {
		// +1 from new: released once the request holds it. The request and
		// the strings are autoreleased into the pool.
		content := objc.ID(objc.GetClass("UNMutableNotificationContent")).Send(selNewObj)
		defer content.Send(selRelease)
		content.Send(selSetTitleUN, nsStr(title))
		content.Send(selSetBody, nsStr(body))
		if category != "" {
			content.Send(selSetCategoryIdentifier, nsStr(category))
			// An approval waits on the user: time-sensitive, so that it
			// can break through a Focus where the app holds the Time
			// Sensitive entitlement; without it macOS treats the level as
			// active, the default, so asking costs nothing.
			if objc.Send[bool](content, selRespondsToSelector, selSetInterruptionLevel) {
				content.Send(selSetInterruptionLevel, unInterruptionTimeSensitive)
			}
		}
		req := objc.ID(objc.GetClass("UNNotificationRequest")).Send(selRequestWithIdentifier, nsStr(id), content, objc.ID(0))
		u.center.Send(selAddRequest, req, block)
	})
	select {
	case msg := <-posted:
		if msg != "" {
			return errors.New(msg)
		}
	case <-time.After(5 * time.Second):
		u.log.Warn("the notification centre did not confirm a notification", "id", id)
	}
	return nil
}

// remove takes the notifications delivered (or still pending) under ids
// off the screen and out of Notification Center.
func (u *UserNotifications) remove(ids ...string) {
	withPool(func() {
		items := make([]objc.ID, len(ids))
		for i, id := range ids {
			items[i] = nsStr(id)
		}
		list := nsArray(items...)
		u.center.Send(selRemoveDelivered, list)
		u.center.Send(selRemovePending, list)
	})
}

// Withdraw removes the notification of pending id.
func (u *UserNotifications) Withdraw(pendingID string) error {
	id := unRequestPrefix + pendingID
	if !u.forget(id) {
		return nil
	}
	u.remove(id)
	return nil
}

func (u *UserNotifications) forget(id string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	_, ok := u.asks[id]
	delete(u.asks, id)
	return ok
}

// answered handles a response: our identifiers and our actions only;
// a dismissal or a click on the body decides nothing.
func (u *UserNotifications) answered(id, action string) {
	if action != actionApprove && action != actionDeny && action != actionTrash && action != actionSayAgain {
		return
	}
	u.mu.Lock()
	a := u.asks[id]
	if a != nil && action == actionSayAgain && !a.again {
		a = nil // a button this notification never showed
	}
	if a != nil {
		delete(u.asks, id)
	}
	u.mu.Unlock()
	if a == nil {
		return
	}
	a.answer(app.Decision{PendingID: a.pendingID, Approved: action == actionApprove, Trash: action == actionTrash,
		Again: action == actionSayAgain, By: app.ByNotification})
}
