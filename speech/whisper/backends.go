//go:build whisper && cgo

package whisper

/*
#cgo linux LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <ggml-backend.h>

typedef void (*hark_load_all_from_path_fn)(const char *);

// A ggml built with GGML_BACKEND_DL (Homebrew's, Debian's, Nix's) links no
// backend at all: CPU, Metal and BLAS are plug-ins it must be told to load,
// and the Go bindings never do. A ggml with built-in backends already has a
// CPU device, and then nothing is loaded, so no backend is registered twice.
// When ggml's own search (the folder it was built with, the program's
// folder) finds no CPU plug-in, dir, where make found one, is searched too.
// ggml_backend_load_all_from_path is newer than plug-ins themselves, so it
// is looked up rather than linked: an older ggml still builds and runs.
static int hark_load_backends(const char *dir) {
	if (ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU) == NULL) {
		ggml_backend_load_all();
	}
	if (ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU) == NULL && dir != NULL && dir[0] != 0) {
		hark_load_all_from_path_fn load = (hark_load_all_from_path_fn)dlsym(RTLD_DEFAULT, "ggml_backend_load_all_from_path");
		if (load != NULL) {
			load(dir);
		}
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
	"runtime"
	"sync"
	"unsafe"
)

var (
	backendsOnce sync.Once
	backendsErr  error
)

// errNoBackend names the one case a user can fix: the plug-in folder of a
// GGML_BACKEND_DL install is gone or was moved.
var errNoBackend = errors.New(noBackendText(runtime.GOOS))

// loadBackends makes sure ggml has its backends before the first model
// loads. It runs once per process; the answer does not change.
func loadBackends() error {
	backendsOnce.Do(func() {
		var dir *C.char
		if pluginDir != "" {
			dir = C.CString(pluginDir)
			defer C.free(unsafe.Pointer(dir))
		}
		if C.hark_load_backends(dir) == 0 {
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

// loadedBackends loads ggml's backends as the first transcription would,
// and names the ones registered (doctor's line).
func loadedBackends() ([]string, error) {
	if err := loadBackends(); err != nil {
		return nil, err
	}
	return backendNames(), nil
}
