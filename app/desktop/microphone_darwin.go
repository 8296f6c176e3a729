//go:build darwin

package desktop

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"
)

// AVAuthorizationStatus values.
const (
	avNotDetermined = 0
	avRestricted    = 1
	avDenied        = 2
	avAuthorized    = 3
)

var (
	selAuthorizationStatus = objc.RegisterName("authorizationStatusForMediaType:")
	selRequestAccess       = objc.RegisterName("requestAccessForMediaType:completionHandler:")
)

// MicrophoneQuestion returns the function that asks macOS whether Hark may
// record (AVCaptureDevice, through purego), showing the permission prompt
// when the user has not answered yet and returning once they have. It is
// nil outside Hark.app: a bare binary's grant belongs to the terminal it
// runs in, which asks by itself.
func MicrophoneQuestion() func() (bool, error) {
	if !InAppBundle() {
		return nil
	}
	return askMicrophone
}

func askMicrophone() (bool, error) {
	h, err := purego.Dlopen("/System/Library/Frameworks/AVFoundation.framework/AVFoundation", purego.RTLD_GLOBAL|purego.RTLD_LAZY)
	if err != nil {
		return false, fmt.Errorf("loading AVFoundation: %v", err)
	}
	sym, err := purego.Dlsym(h, "AVMediaTypeAudio")
	if err != nil {
		return false, fmt.Errorf("AVMediaTypeAudio: %v", err)
	}
	// sym is the address of the framework's `NSString *const`.
	var media objc.ID
	var ptr *objc.ID
	*(*uintptr)(unsafe.Pointer(&ptr)) = sym
	media = *ptr
	device := objc.ID(objc.GetClass("AVCaptureDevice"))
	if device == 0 {
		return false, fmt.Errorf("AVCaptureDevice is not available")
	}
	var status int
	withPool(func() { status = objc.Send[int](device, selAuthorizationStatus, media) })
	switch status {
	case avAuthorized:
		return true, nil
	case avDenied, avRestricted:
		return false, nil
	case avNotDetermined:
	default:
		return false, fmt.Errorf("unknown microphone authorization status %d", status)
	}
	answer := make(chan bool, 1)
	block := objc.NewBlock(func(_ objc.Block, granted bool) { answer <- granted })
	defer block.Release()
	withPool(func() { device.Send(selRequestAccess, media, block) })
	return <-answer, nil
}
