package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hark-sh/hark/app/bundle"
	"github.com/hark-sh/hark/app/settings"
)

// Settings reports whether the settings file loaded. loadErr is what
// settings.Load returned (doctor loads once and uses the defaults for the
// other checks when the file is broken).
func Settings(path string, loadErr error) Check {
	return Check{Name: "Settings", Required: true, Run: func(context.Context) Result {
		if loadErr != nil {
			return Result{Status: Fail, Detail: loadErr.Error(),
				Fix: fmt.Sprintf("edit %s and fix that key (docs/settings.md lists every key), or move the file aside to start from the defaults", path)}
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return Result{Status: OK, Detail: fmt.Sprintf("no file yet, using the defaults (%s)", path)}
		}
		return Result{Status: OK, Detail: path}
	}}
}

// Folders checks Hark can create and write every folder it keeps files in,
// by writing and removing a probe file in each.
func Folders(p settings.Paths) Check {
	dirs := []string{filepath.Dir(p.Settings), p.Models, p.History, filepath.Dir(p.Audit), p.Logs, p.Runtime}
	return Check{Name: "Data folders", Required: true, Run: func(context.Context) Result {
		seen := map[string]bool{}
		var list []string
		for _, d := range dirs {
			if d == "" || seen[d] {
				continue
			}
			seen[d] = true
			list = append(list, d)
			if err := probeWritable(d); err != nil {
				return Result{Status: Fail, Detail: fmt.Sprintf("cannot write in %s: %v", d, err),
					Fix: fmt.Sprintf("make it yours and writable (chmod u+rwx %q), or set HARK_HOME to a folder you own", d)}
			}
		}
		if h := os.Getenv("HARK_HOME"); h != "" {
			return Result{Status: OK, Detail: "writable under HARK_HOME=" + h}
		}
		return Result{Status: OK, Detail: "writable: " + strings.Join(commonRoots(list), ", ")}
	}}
}

func probeWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".hark-doctor-*")
	if err != nil {
		return err
	}
	name := f.Name()
	_, werr := f.Write([]byte("ok"))
	cerr := f.Close()
	rerr := os.Remove(name)
	return errors.Join(werr, cerr, rerr)
}

// commonRoots shortens the folder list to the ones not inside another.
func commonRoots(dirs []string) []string {
	sorted := append([]string(nil), dirs...)
	sort.Strings(sorted)
	var out []string
	for _, d := range sorted {
		if len(out) > 0 && strings.HasPrefix(d, out[len(out)-1]+string(filepath.Separator)) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// MacSignature says which identity signed Hark.app. macOS keeps the
// microphone, notification and folder permissions per code identity: an
// ad-hoc signature is a new identity on every build. display runs
// `codesign -dv` on the bundle and returns what it printed.
func MacSignature(bundlePath func() (string, bool), display func(ctx context.Context, app string) string) Check {
	return Check{Name: "Code signature", Run: func(ctx context.Context) Result {
		app, ok := bundlePath()
		if !ok {
			return Result{Status: Warn, Detail: "no Hark.app found to check", Fix: "`make app` (or `make install`)"}
		}
		sig, err := bundle.ParseCodesignDisplay(display(ctx, app))
		if err != nil {
			return Result{Status: Warn, Detail: app + ": " + err.Error(), Fix: "`make app` signs the bundle"}
		}
		if sig.Stable() {
			return Result{Status: OK, Detail: app + " is signed by " + sig.Signer() + "; permissions survive rebuilds"}
		}
		return Result{Status: Warn,
			Detail: app + " is signed " + sig.Signer() + ": every rebuild is a new app to macOS, which may ask for the microphone again or deny it while System Settings shows Hark allowed",
			Fix:    "create a code-signing identity once (docs/troubleshooting.md › Permissions after a rebuild), then `make app`; a stale grant clears with `tccutil reset Microphone " + sig.Identifier + "`"}
	}}
}

// LoginItem reports whether Hark starts at login. Off is not a problem.
func LoginItem(status func() (bundle.Status, error)) Check {
	return Check{Name: "Launch at login", Run: func(context.Context) Result {
		st, err := status()
		if err != nil {
			return Result{Status: Warn, Detail: err.Error(), Fix: "hark login-item on (rewrites it) or hark login-item off"}
		}
		if !st.Enabled {
			d := "off (turn on with `hark login-item on`)"
			if st.Note != "" {
				d = "off: " + st.Note
			}
			return Result{Status: OK, Detail: d}
		}
		if st.Note != "" {
			return Result{Status: Warn, Detail: "on, but " + st.Note, Fix: "hark login-item on"}
		}
		return Result{Status: OK, Detail: "on (" + st.Path + ")"}
	}}
}
