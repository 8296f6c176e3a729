package models

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Errors callers branch on; each is wrapped with the details and the fix.
var (
	ErrOffline  = errors.New("cannot reach the model server")
	ErrNotFound = errors.New("model not found on the server")
	ErrChecksum = errors.New("downloaded model is corrupt")
	ErrDiskFull = errors.New("not enough disk space for the model")
)

// Progress is reported while a download runs.
type Progress struct {
	Model   string
	Done    int64 // bytes in the .part file so far
	Total   int64 // -1 when the server does not say
	Resumed int64 // bytes that were already there from an earlier attempt
}

// Downloader fetches catalog models into Dir.
type Downloader struct {
	BaseURL  string       // e.g. settings.ModelBaseURL; the file is BaseURL/ggml-NAME.bin
	Dir      string       // Paths.Models
	Catalog  []Model      // nil means All()
	Client   *http.Client // nil means a client without an overall timeout
	Progress func(Progress)
	// OpenPart opens the .part file for appending; tests replace it to
	// simulate a full disk. nil means the real file system.
	OpenPart func(path string) (PartFile, error)
}

// PartFile is where a download is written.
type PartFile interface {
	io.Writer
	Sync() error
	Close() error
}

func openPart(path string) (PartFile, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}

// Download installs the named model and returns its path. A model already
// in place with the right checksum is not fetched again. An interrupted
// download leaves NAME.part behind and the next call resumes it with an
// HTTP Range request. The file appears under its final name only once its
// checksum matched.
func (d *Downloader) Download(ctx context.Context, name string) (string, error) {
	catalog := d.Catalog
	if catalog == nil {
		catalog = All()
	}
	m, err := Lookup(catalog, name)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		return "", fmt.Errorf("creating the models folder: %w", err)
	}
	dest := filepath.Join(d.Dir, m.File())
	if _, err := os.Stat(dest); err == nil {
		if err := verify(dest, m.Checksum); err == nil {
			return dest, nil
		}
		// A wrong file under the final name (copied by hand, or from an
		// older catalog) is replaced rather than trusted.
	}
	part := dest + ".part"
	for attempt := 0; ; attempt++ {
		err := d.fetch(ctx, m, part)
		var restart errRestart
		if errors.As(err, &restart) && attempt == 0 {
			os.Remove(part)
			continue
		}
		if err != nil {
			return "", err
		}
		break
	}
	if err := verify(part, m.Checksum); err != nil {
		os.Remove(part)
		return "", err
	}
	if err := os.Rename(part, dest); err != nil {
		return "", err
	}
	if dir, err := os.Open(d.Dir); err == nil {
		dir.Sync()
		dir.Close()
	}
	return dest, nil
}

// errRestart: the .part file cannot be resumed and is started over.
type errRestart struct{ reason string }

func (e errRestart) Error() string { return e.reason }

func (d *Downloader) fetch(ctx context.Context, m Model, part string) error {
	var have int64
	if st, err := os.Stat(part); err == nil {
		have = st.Size()
	}
	base := d.BaseURL
	if m.BaseURL != "" {
		base = m.BaseURL
	}
	u, err := url.JoinPath(base, m.File())
	if err != nil {
		return fmt.Errorf("modelBaseURL %q is not a URL: %w", base, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("modelBaseURL %q: %w", base, err)
	}
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	client := d.Client
	if client == nil {
		client = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 15 * time.Second}).DialContext,
			TLSHandshakeTimeout:   15 * time.Second,
			ResponseHeaderTimeout: 30 * time.Second,
		}}
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w at %s: %v; check the network connection (or the modelBaseURL setting) and run the command again%s", ErrOffline, hostOf(u), err, keptNote(have))
	}
	defer resp.Body.Close()

	total := resp.ContentLength
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		var start, end, size int64
		if _, err := fmt.Sscanf(resp.Header.Get("Content-Range"), "bytes %d-%d/%d", &start, &end, &size); err != nil || start != have {
			return errRestart{"the server resumed at the wrong place"}
		}
		total = size
	case resp.StatusCode == http.StatusOK:
		// The server sent the whole file (it ignores Range, or nothing
		// was there to resume): start over.
		if have > 0 {
			if err := os.Truncate(part, 0); err != nil {
				return err
			}
			have = 0
		}
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		// Either the .part is already complete or it is longer than the
		// file; the checksum decides, and a bad one restarts.
		if verify(part, m.Checksum) == nil {
			return nil
		}
		return errRestart{"the partial download does not fit the file on the server"}
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w: %s answered 404 for %s; check the model name (`hark models list` shows the catalog) and the modelBaseURL setting", ErrNotFound, hostOf(u), u)
	default:
		return fmt.Errorf("downloading %s: the server answered %s; try again later", u, resp.Status)
	}

	open := d.OpenPart
	if open == nil {
		open = openPart
	}
	f, err := open(part)
	if err != nil {
		return diskError(err, m, d.Dir)
	}
	w := &progressWriter{f: f, p: Progress{Model: m.Name, Done: have, Resumed: have, Total: total}, report: d.Progress}
	w.emit(true)
	_, copyErr := io.Copy(w, resp.Body)
	w.emit(true)
	syncErr := f.Sync()
	closeErr := f.Close()
	switch {
	case w.writeErr != nil:
		return diskError(w.writeErr, m, d.Dir)
	case copyErr != nil:
		if ctx.Err() != nil {
			return fmt.Errorf("download of %s stopped: %w%s", m.Name, ctx.Err(), keptNote(w.p.Done))
		}
		return fmt.Errorf("%w: the connection broke after %s: %v; run the command again to resume", ErrOffline, mib(w.p.Done), copyErr)
	case syncErr != nil:
		return diskError(syncErr, m, d.Dir)
	case closeErr != nil:
		return diskError(closeErr, m, d.Dir)
	}
	if w.p.Total >= 0 && w.p.Done != w.p.Total {
		return fmt.Errorf("%w: got %s of %s; run the command again to resume", ErrOffline, mib(w.p.Done), mib(w.p.Total))
	}
	return nil
}

type progressWriter struct {
	f        PartFile
	p        Progress
	report   func(Progress)
	last     time.Time
	shown    int64 // the tenth of a percent last reported
	writeErr error
}

func (w *progressWriter) Write(b []byte) (int, error) {
	n, err := w.f.Write(b)
	w.p.Done += int64(n)
	if err != nil {
		w.writeErr = err
		return n, err
	}
	w.emit(false)
	return n, nil
}

// emit reports progress ten times a second, and whenever the download
// moves by a tenth of a percent, and always when forced: a download that
// stalls (a slow host, a lost connection) shows where it stands, not where
// it stood at the last tick.
func (w *progressWriter) emit(force bool) {
	if w.report == nil {
		return
	}
	permille := int64(-1)
	if w.p.Total > 0 {
		permille = 1000 * w.p.Done / w.p.Total
	}
	if now := time.Now(); force || permille != w.shown || now.Sub(w.last) >= 100*time.Millisecond {
		w.last, w.shown = now, permille
		w.report(w.p)
	}
}

func diskError(err error, m Model, dir string) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("%w: %s needs about %d MiB free in %s; free some space and run the command again (the partial download is kept and resumes): %w", ErrDiskFull, m.Name, m.SizeMiB, dir, err)
	}
	return fmt.Errorf("writing the model to %s: %w", dir, err)
}

func keptNote(have int64) string {
	if have > 0 {
		return fmt.Sprintf(" (the %s already downloaded is kept and resumes)", mib(have))
	}
	return ""
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func hostOf(u string) string {
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		return p.Host
	}
	return u
}

// verify compares the file's checksum with want ("sha1:…" or "sha256:…").
func verify(path, want string) error {
	algo, sum, ok := strings.Cut(want, ":")
	var h hash.Hash
	switch {
	case ok && algo == "sha1":
		h = sha1.New()
	case ok && algo == "sha256":
		h = sha256.New()
	default:
		return fmt.Errorf("catalog checksum %q is not sha1:… or sha256:…", want)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != strings.ToLower(sum) {
		return fmt.Errorf("%w: its %s is %s, expected %s; the file was removed, run the command again", ErrChecksum, algo, got, sum)
	}
	return nil
}
