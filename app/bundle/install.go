package bundle

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hark-sh/hark/app/settings"
)

// IconSizes are the hicolor theme sizes the Linux install writes.
var IconSizes = []int{32, 48, 64, 128, 256, 512}

// LinuxInstall puts Hark in a freedesktop prefix (normally ~/.local): the
// binary in PREFIX/bin, a launcher in PREFIX/share/applications and icons in
// PREFIX/share/icons/hicolor. It returns the files written. The binary is
// replaced by rename, so a running Hark keeps its old copy and the new one
// is never half-written.
func LinuxInstall(binary, prefix string) ([]string, error) {
	bin, err := os.ReadFile(binary)
	if err != nil {
		return nil, fmt.Errorf("install: %w (run `make build` first)", err)
	}
	var written []string
	write := func(path string, data []byte, mode os.FileMode) error {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := settings.WriteFileAtomic(path, data, mode); err != nil {
			return err
		}
		written = append(written, path)
		return nil
	}
	exe := filepath.Join(prefix, "bin", "hark")
	if err := write(exe, bin, 0o755); err != nil {
		return written, fmt.Errorf("install: %w", err)
	}
	if err := write(filepath.Join(prefix, "share", "applications", "hark.desktop"), DesktopEntry(exe, false), 0o644); err != nil {
		return written, fmt.Errorf("install: %w", err)
	}
	for _, size := range IconSizes {
		p := filepath.Join(prefix, "share", "icons", "hicolor", fmt.Sprintf("%dx%d", size, size), "apps", "hark.png")
		if err := WriteIconPNG(p, size); err != nil {
			return written, fmt.Errorf("install: %w", err)
		}
		written = append(written, p)
	}
	return written, nil
}
