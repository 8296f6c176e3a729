//go:build whisper && cgo

package whisper

/*
#include <ggml-backend.h>

// A ggml built with GGML_BACKEND_DL (Homebrew's) links no backend at all:
// CPU, Metal and BLAS are plug-ins it must be told to load, and the Go
// bindings never do. A ggml with built-in backends already has a CPU
// device, and then nothing is loaded, so no backend is registered twice.
static int hark_load_backends(void) {
	if (ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU) == NULL) {
		ggml_backend_load_all();
	}
	return ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU) != NULL;
}

static size_t hark_backend_count(void) { return ggml_backend_reg_count(); }

static const char *hark_backend_name(size_t i) {
	return ggml_backend_reg_name(ggml_backend_reg_get(i));
}
*/
import "C"

import (
	"errors"
	"sync"
)

var (
	backendsOnce sync.Once
	backendsErr  error
)

// errNoBackend names the one case a user can fix: the plug-in folder of a
// GGML_BACKEND_DL install is gone or was moved.
var errNoBackend = errors.New("whisper: ggml has no CPU backend: its backends are plug-ins (GGML_BACKEND_DL) " +
	"and none could be loaded from the folder ggml was built with; reinstall ggml (`brew reinstall ggml`) " +
	"or set GGML_BACKEND_PATH to the libggml-cpu plug-in, then restart Hark")

// loadBackends makes sure ggml has its backends before the first model
// loads. It runs once per process; the answer does not change.
func loadBackends() error {
	backendsOnce.Do(func() {
		if C.hark_load_backends() == 0 {
			backendsErr = errNoBackend
		}
	})
	return backendsErr
}

// backendNames lists the ggml backends registered now (the tests check
// the CPU one is there exactly once).
func backendNames() []string {
	n := int(C.hark_backend_count())
	names := make([]string, 0, n)
	for i := 0; i < n; i++ {
		names = append(names, C.GoString(C.hark_backend_name(C.size_t(i))))
	}
	return names
}
