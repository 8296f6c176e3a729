package desktop

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hark-sh/hark/assets"
)

// iconFile is the application icon embedded in the binary.
const iconFile = "hark-1024.png"

// CachedIcon writes Hark's application icon under cacheDir (the user's
// cache folder when empty) and returns its absolute path. A notification
// that names the icon by theme name shows the server's "image missing"
// placeholder unless `make install` put hark.png in an icon theme; a path
// to a PNG works on every server, installed or not. The file is rewritten
// only when its bytes differ, so a new build's icon replaces an old one.
func CachedIcon(cacheDir string) (string, error) {
	png, err := assets.Icon(iconFile)
	if err != nil {
		return "", err
	}
	if cacheDir == "" {
		if cacheDir, err = os.UserCacheDir(); err != nil {
			return "", fmt.Errorf("no cache folder for the notification icon: %w", err)
		}
		cacheDir = filepath.Join(cacheDir, "hark")
	}
	path, err := filepath.Abs(filepath.Join(cacheDir, "hark.png"))
	if err != nil {
		return "", err
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, png) {
		return path, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".hark-*.png")
	if err != nil {
		return "", err
	}
	_, werr := tmp.Write(png)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("writing the notification icon: %w", errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return path, nil
}
