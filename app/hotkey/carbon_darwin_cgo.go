//go:build darwin && cgo

package hotkey

/*
#cgo LDFLAGS: -framework Carbon
#include <Carbon/Carbon.h>
#include <dispatch/dispatch.h>
#include <pthread.h>

extern void harkHotKeyEvent(UInt32 id, int down);

// 'Hark': the signature on Hark's hot keys, so the handler passes on any
// other's event.
#define HARK_SIGNATURE 0x4861726BU

static OSStatus harkHandler(EventHandlerCallRef next, EventRef ev, void *data) {
	EventHotKeyID k;
	if (GetEventParameter(ev, kEventParamDirectObject, typeEventHotKeyID, NULL, sizeof(k), NULL, &k) != noErr ||
	    k.signature != HARK_SIGNATURE) {
		return eventNotHandledErr;
	}
	harkHotKeyEvent(k.id, GetEventKind(ev) == kEventHotKeyPressed);
	return noErr;
}

enum { harkInstall, harkRegister, harkUnregister };

typedef struct {
	int op;
	UInt32 code, mods, id;
	EventHotKeyRef ref;
	OSStatus status;
} harkCall;

static void harkOnMain(void *p) {
	harkCall *c = p;
	switch (c->op) {
	case harkInstall: {
		EventTypeSpec types[2] = {{kEventClassKeyboard, kEventHotKeyPressed}, {kEventClassKeyboard, kEventHotKeyReleased}};
		c->status = InstallEventHandler(GetApplicationEventTarget(), NewEventHandlerUPP(harkHandler), 2, types, NULL, NULL);
		break;
	}
	case harkRegister: {
		EventHotKeyID hk = {HARK_SIGNATURE, c->id};
		c->status = RegisterEventHotKey(c->code, c->mods, hk, GetApplicationEventTarget(), 0, &c->ref);
		break;
	}
	case harkUnregister:
		c->status = UnregisterEventHotKey(c->ref);
		break;
	}
}

// harkCarbon runs c on the main thread, where Carbon's event target lives:
// inline when already there (dispatch_sync to the main queue from the main
// thread would deadlock), else through the main queue.
static OSStatus harkCarbon(harkCall *c) {
	if (pthread_main_np()) {
		harkOnMain(c);
		return c->status;
	}
	dispatch_sync_f(dispatch_get_main_queue(), c, harkOnMain);
	return c->status;
}
*/
import "C"

import (
	"fmt"
	"time"
)

// carbonKeys holds every hot key Hark registers on macOS: the push-to-talk
// combination and, while Hark is busy, plain Escape.
var carbonKeys = newCarbonTable(carbon{})

// carbon is carbonSys through the C above. Every call blocks until the
// main thread has run it, so none may come from the main thread.
type carbon struct{}

func (carbon) install() error {
	c := C.harkCall{op: C.harkInstall}
	if s := C.harkCarbon(&c); s != C.noErr {
		return fmt.Errorf("InstallEventHandler: OSStatus %d", int(s))
	}
	return nil
}

func (carbon) register(code, mods, id uint32) (any, error) {
	c := C.harkCall{op: C.harkRegister, code: C.UInt32(code), mods: C.UInt32(mods), id: C.UInt32(id)}
	if s := C.harkCarbon(&c); s != C.noErr {
		return nil, fmt.Errorf("RegisterEventHotKey: OSStatus %d", int(s))
	}
	return c.ref, nil
}

func (carbon) unregister(ref any) error {
	r, ok := ref.(C.EventHotKeyRef)
	if !ok {
		return fmt.Errorf("unregistering a hot key: %T is not an EventHotKeyRef", ref)
	}
	c := C.harkCall{op: C.harkUnregister, ref: r}
	if s := C.harkCarbon(&c); s != C.noErr {
		return fmt.Errorf("UnregisterEventHotKey: OSStatus %d", int(s))
	}
	return nil
}

// deliverCarbon is the handler's Go side (carbon_export_darwin_cgo.go).
func deliverCarbon(id uint32, down bool) { carbonKeys.deliver(id, down, time.Now()) }
