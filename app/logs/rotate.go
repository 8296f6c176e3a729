// Package logs sets up Hark's structured log: log/slog records written to
// hark.log in the folder settings.Paths.Logs names, rotated by size, with
// every record passed through a redactor so secrets and command output never
// reach the file.
package logs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Defaults of the rotation: at most about 20 MB of logs on disk.
const (
	DefaultMaxSize = 5 << 20
	DefaultKeep    = 3
)

// RotatingFile is an io.WriteCloser that appends to a file and, when the next
// write would take it past MaxSize, renames it to NAME.1 (shifting older ones
// to NAME.2 … NAME.Keep, dropping the oldest) and starts a new one. Each
// Write lands whole in one file, so a log record is never split.
type RotatingFile struct {
	path    string
	maxSize int64
	keep    int

	mu   sync.Mutex
	f    *os.File
	size int64
}

// OpenRotating opens (or creates, mode 0600) path for appending.
func OpenRotating(path string, maxSize int64, keep int) (*RotatingFile, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	if keep < 0 {
		keep = 0
	}
	r := &RotatingFile{path: path, maxSize: maxSize, keep: keep}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("log folder: %w", err)
	}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *RotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("log file: %w", err)
	}
	r.f, r.size = f, fi.Size()
	return nil
}

// Write appends p, rotating first when p would not fit.
func (r *RotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return 0, fs.ErrClosed
	}
	if r.size > 0 && r.size+int64(len(p)) > r.maxSize {
		if err := r.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

// rotate shifts NAME.i to NAME.i+1 from the oldest down, so a crash midway
// loses at most the oldest file, never the current one.
func (r *RotatingFile) rotate() error {
	if err := r.f.Close(); err != nil {
		return fmt.Errorf("log rotation: %w", err)
	}
	r.f = nil
	if r.keep == 0 {
		if err := os.Remove(r.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("log rotation: %w", err)
		}
		return r.open()
	}
	_ = os.Remove(r.backup(r.keep))
	for i := r.keep - 1; i >= 1; i-- {
		if err := os.Rename(r.backup(i), r.backup(i+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("log rotation: %w", err)
		}
	}
	if err := os.Rename(r.path, r.backup(1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("log rotation: %w", err)
	}
	return r.open()
}

func (r *RotatingFile) backup(i int) string { return fmt.Sprintf("%s.%d", r.path, i) }

// Path is the file being written.
func (r *RotatingFile) Path() string { return r.path }

// Close closes the current file; later writes fail.
func (r *RotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
