package models

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// fakeModel is a small stand-in for model weights, with its real checksum
// in a test catalog; the real catalog is never touched by these tests.
func fakeModel(name string, size int) ([]byte, Model) {
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i*31 + i/251)
	}
	sum := sha1.Sum(data)
	return data, Model{Name: name, SizeMiB: 1, Checksum: "sha1:" + hex.EncodeToString(sum[:])}
}

// server serves files like the model host does, honouring Range unless told
// otherwise, and records the requests.
type server struct {
	*httptest.Server
	mu          sync.Mutex
	files       map[string][]byte
	ranges      []string
	ignoreRange bool
	cutAfter    int // close the connection after this many bytes (0: never)
}

func newServer(t *testing.T, files map[string][]byte) *server {
	s := &server{files: files}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.ranges = append(s.ranges, r.Header.Get("Range"))
		ignore, cut := s.ignoreRange, s.cutAfter
		s.mu.Unlock()
		data, ok := s.files[strings.TrimPrefix(r.URL.Path, "/models/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		start := 0
		if rg := r.Header.Get("Range"); rg != "" && !ignore {
			m := regexp.MustCompile(`^bytes=(\d+)-$`).FindStringSubmatch(rg)
			if m == nil {
				http.Error(w, "bad range", http.StatusBadRequest)
				return
			}
			start, _ = strconv.Atoi(m[1])
			if start >= len(data) {
				w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", len(data)))
				w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
				return
			}
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(data)-1, len(data)))
			w.Header().Set("Content-Length", strconv.Itoa(len(data)-start))
			w.WriteHeader(http.StatusPartialContent)
		} else {
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		}
		body := data[start:]
		if cut > 0 && cut < len(body) {
			w.Write(body[:cut])
			// Hijack and drop the connection mid-body, like a network failure.
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
				}
			}
			return
		}
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ranges...)
}

func noLeftovers(t *testing.T, dir string, allowed ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		ok := false
		for _, a := range allowed {
			ok = ok || e.Name() == a
		}
		if !ok {
			t.Errorf("unexpected file left in the models folder: %s", e.Name())
		}
	}
}

func TestDownload(t *testing.T) {
	t.Parallel()
	data, m := fakeModel("tiny.test", 300_000)
	catalog := []Model{m}

	t.Run("fresh download, with progress", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, map[string][]byte{m.File(): data})
		dir := t.TempDir()
		var last Progress
		calls := 0
		d := &Downloader{BaseURL: srv.URL + "/models", Dir: dir, Catalog: catalog, Progress: func(p Progress) { last = p; calls++ }}
		path, err := d.Download(context.Background(), m.Name)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		if !bytes.Equal(got, data) || path != filepath.Join(dir, "ggml-tiny.test.bin") {
			t.Fatalf("installed %s with %d bytes", path, len(got))
		}
		if calls < 2 || last.Done != int64(len(data)) || last.Total != int64(len(data)) {
			t.Fatalf("progress: %d calls, last %+v", calls, last)
		}
		noLeftovers(t, dir, m.File())
		// Installed with the right checksum: no second request.
		if _, err := d.Download(context.Background(), m.Name); err != nil {
			t.Fatal(err)
		}
		if n := len(srv.requests()); n != 1 {
			t.Fatalf("%d requests, want 1 (the second call finds the model installed)", n)
		}
	})

	t.Run("resumes a partial download with Range", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, map[string][]byte{m.File(): data})
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, m.File()+".part"), data[:123_456], 0o644); err != nil {
			t.Fatal(err)
		}
		var first Progress
		d := &Downloader{BaseURL: srv.URL + "/models", Dir: dir, Catalog: catalog, Progress: func(p Progress) {
			if first.Model == "" {
				first = p
			}
		}}
		path, err := d.Download(context.Background(), m.Name)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
			t.Fatal("resumed file differs from the model")
		}
		if r := srv.requests(); len(r) != 1 || r[0] != "bytes=123456-" {
			t.Fatalf("requests %q, want one for bytes=123456-", r)
		}
		if first.Resumed != 123_456 || first.Total != int64(len(data)) {
			t.Fatalf("first progress %+v", first)
		}
		noLeftovers(t, dir, m.File())
	})

	t.Run("connection drops, next run resumes", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, map[string][]byte{m.File(): data})
		srv.cutAfter = 100_000
		dir := t.TempDir()
		d := &Downloader{BaseURL: srv.URL + "/models", Dir: dir, Catalog: catalog}
		_, err := d.Download(context.Background(), m.Name)
		if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), "resume") {
			t.Fatalf("err %v, want ErrOffline saying it resumes", err)
		}
		st, err := os.Stat(filepath.Join(dir, m.File()+".part"))
		if err != nil || st.Size() != 100_000 {
			t.Fatalf("partial file: %v, %v", st, err)
		}
		srv.mu.Lock()
		srv.cutAfter = 0
		srv.mu.Unlock()
		if _, err := d.Download(context.Background(), m.Name); err != nil {
			t.Fatal(err)
		}
		if r := srv.requests(); r[len(r)-1] != "bytes=100000-" {
			t.Fatalf("second request %q, want a Range from 100000", r[len(r)-1])
		}
		noLeftovers(t, dir, m.File())
	})

	t.Run("resume through a redirect, as the real host answers", func(t *testing.T) {
		t.Parallel()
		files := newServer(t, map[string][]byte{m.File(): data})
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, files.URL+r.URL.Path, http.StatusFound)
		}))
		defer front.Close()
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, m.File()+".part"), data[:4096], 0o644); err != nil {
			t.Fatal(err)
		}
		d := &Downloader{BaseURL: front.URL + "/models", Dir: dir, Catalog: catalog}
		path, err := d.Download(context.Background(), m.Name)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
			t.Fatal("file differs")
		}
		if r := files.requests(); len(r) != 1 || r[0] != "bytes=4096-" {
			t.Fatalf("file server saw %q, want the Range carried over the redirect", r)
		}
	})

	t.Run("server ignores Range: starts over", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, map[string][]byte{m.File(): data})
		srv.ignoreRange = true
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, m.File()+".part"), data[:5000], 0o644); err != nil {
			t.Fatal(err)
		}
		d := &Downloader{BaseURL: srv.URL + "/models", Dir: dir, Catalog: catalog}
		path, err := d.Download(context.Background(), m.Name)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
			t.Fatal("file differs after a restart")
		}
	})

	t.Run("complete part file: 416 then verified", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, map[string][]byte{m.File(): data})
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, m.File()+".part"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		d := &Downloader{BaseURL: srv.URL + "/models", Dir: dir, Catalog: catalog}
		if _, err := d.Download(context.Background(), m.Name); err != nil {
			t.Fatal(err)
		}
		noLeftovers(t, dir, m.File())
	})

	t.Run("404", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, map[string][]byte{})
		dir := t.TempDir()
		d := &Downloader{BaseURL: srv.URL + "/models", Dir: dir, Catalog: catalog}
		_, err := d.Download(context.Background(), m.Name)
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "modelBaseURL") {
			t.Fatalf("err %v, want ErrNotFound naming the setting", err)
		}
		noLeftovers(t, dir)
	})

	t.Run("offline", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, nil)
		url := srv.URL
		srv.Close() // nothing listens there any more
		dir := t.TempDir()
		d := &Downloader{BaseURL: url, Dir: dir, Catalog: catalog}
		_, err := d.Download(context.Background(), m.Name)
		if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), "network connection") {
			t.Fatalf("err %v, want ErrOffline with advice", err)
		}
		noLeftovers(t, dir)
	})

	t.Run("checksum mismatch removes the file", func(t *testing.T) {
		t.Parallel()
		bad := append([]byte(nil), data...)
		bad[len(bad)/2] ^= 0xFF
		srv := newServer(t, map[string][]byte{m.File(): bad})
		dir := t.TempDir()
		d := &Downloader{BaseURL: srv.URL + "/models", Dir: dir, Catalog: catalog}
		_, err := d.Download(context.Background(), m.Name)
		if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "removed") {
			t.Fatalf("err %v, want ErrChecksum saying the file was removed", err)
		}
		noLeftovers(t, dir)
	})

	t.Run("disk full", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, map[string][]byte{m.File(): data})
		dir := t.TempDir()
		d := &Downloader{BaseURL: srv.URL + "/models", Dir: dir, Catalog: catalog,
			OpenPart: func(path string) (PartFile, error) {
				f, err := openPart(path)
				if err != nil {
					return nil, err
				}
				return &fullDisk{PartFile: f, room: 64 << 10}, nil
			}}
		_, err := d.Download(context.Background(), m.Name)
		if !errors.Is(err, ErrDiskFull) || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "free some space") {
			t.Fatalf("err %v, want ErrDiskFull wrapping ENOSPC with advice", err)
		}
		if _, err := os.Stat(filepath.Join(dir, m.File())); !os.IsNotExist(err) {
			t.Fatal("a model file appeared despite the full disk")
		}
	})

	t.Run("wrong file under the final name is replaced", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t, map[string][]byte{m.File(): data})
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, m.File()), []byte("not a model"), 0o644); err != nil {
			t.Fatal(err)
		}
		d := &Downloader{BaseURL: srv.URL + "/models", Dir: dir, Catalog: catalog}
		path, err := d.Download(context.Background(), m.Name)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
			t.Fatal("the wrong file was kept")
		}
	})

	t.Run("unknown name", func(t *testing.T) {
		t.Parallel()
		d := &Downloader{BaseURL: "http://127.0.0.1:1", Dir: t.TempDir(), Catalog: catalog}
		_, err := d.Download(context.Background(), "huge")
		if err == nil || !strings.Contains(err.Error(), "tiny.test") {
			t.Fatalf("err %v, want the list of known models", err)
		}
	})

	t.Run("sha256 checksums work too", func(t *testing.T) {
		t.Parallel()
		sum := sha256.Sum256(data)
		m2 := Model{Name: "tiny.sha256", SizeMiB: 1, Checksum: "sha256:" + hex.EncodeToString(sum[:])}
		srv := newServer(t, map[string][]byte{m2.File(): data})
		d := &Downloader{BaseURL: srv.URL + "/models", Dir: t.TempDir(), Catalog: []Model{m2}}
		if _, err := d.Download(context.Background(), m2.Name); err != nil {
			t.Fatal(err)
		}
	})
}

// fullDisk accepts room bytes, then fails like a full file system.
type fullDisk struct {
	PartFile
	room int
}

func (f *fullDisk) Write(b []byte) (int, error) {
	if len(b) > f.room {
		n, _ := f.PartFile.Write(b[:f.room])
		f.room = 0
		return n, &os.PathError{Op: "write", Path: "model.part", Err: syscall.ENOSPC}
	}
	f.room -= len(b)
	return f.PartFile.Write(b)
}

func TestList(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"ggml-small.en.bin", "ggml-base.en.bin", "my-finetune.bin", "ggml-tiny.bin.part", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := List(dir, Catalog)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range got {
		names = append(names, fmt.Sprintf("%s:%v", in.Name, in.Known))
	}
	want := "base.en:true small.en:true my-finetune.bin:false"
	if strings.Join(names, " ") != want {
		t.Fatalf("List = %v, want %s", names, want)
	}
	if got[0].Path != filepath.Join(dir, "ggml-base.en.bin") {
		t.Fatalf("path %s", got[0].Path)
	}
	if none, err := List(filepath.Join(dir, "missing"), Catalog); err != nil || len(none) != 0 {
		t.Fatalf("missing folder: %v, %v", none, err)
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ggml-base.en.bin"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := Resolve("base.en", dir, Catalog); err != nil || p != filepath.Join(dir, "ggml-base.en.bin") {
		t.Fatalf("Resolve(base.en) = %s, %v", p, err)
	}
	if _, err := Resolve("small", dir, Catalog); err == nil || !strings.Contains(err.Error(), "hark models download small") {
		t.Fatalf("missing model: %v", err)
	}
	if p, err := Resolve(filepath.Join(dir, "ggml-base.en.bin"), "/elsewhere", Catalog); err != nil || !strings.HasSuffix(p, "ggml-base.en.bin") {
		t.Fatalf("path: %s, %v", p, err)
	}
}

// TestCatalog checks the real catalog's shape; its sums come from the
// published tables named in catalog.go.
func TestCatalog(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	sha1Re := regexp.MustCompile(`^sha1:[0-9a-f]{40}$`)
	for _, m := range Catalog {
		if seen[m.Name] {
			t.Errorf("%s listed twice", m.Name)
		}
		seen[m.Name] = true
		if !sha1Re.MatchString(m.Checksum) {
			t.Errorf("%s: checksum %q is not a SHA-1", m.Name, m.Checksum)
		}
		if m.SizeMiB < 30 || m.SizeMiB > 3100 {
			t.Errorf("%s: size %d MiB", m.Name, m.SizeMiB)
		}
	}
	for _, want := range []string{Default, "tiny", "tiny.en", "base", "small", "small.en", "medium", "medium.en",
		"large-v1", "large-v2", "large-v3", "large-v3-turbo", "base.en-q5_1", "large-v3-turbo-q8_0"} {
		if !seen[want] {
			t.Errorf("catalog lacks %s", want)
		}
	}
	if m, _ := Lookup(Catalog, "base.en"); m.Checksum != "sha1:137c40403d78fd54d454da0f9bd998f78703390c" {
		t.Errorf("base.en = %+v", m)
	}
}

func TestVADCatalog(t *testing.T) {
	t.Parallel()
	sha256Re := regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	names := map[string]bool{}
	for _, m := range Catalog {
		names[m.Name] = true
	}
	for _, m := range VADCatalog {
		if names[m.Name] {
			t.Errorf("%s is both a whisper and a VAD model", m.Name)
		}
		names[m.Name] = true
		if !sha256Re.MatchString(m.Checksum) {
			t.Errorf("%s: checksum %q is not a SHA-256", m.Name, m.Checksum)
		}
		if m.BaseURL != VADBaseURL || !strings.HasPrefix(m.File(), "ggml-silero-v") {
			t.Errorf("%s: fetched from %s/%s", m.Name, m.BaseURL, m.File())
		}
	}
	if m, err := Lookup(All(), "silero-v5"); err != nil || m.File() != "ggml-silero-v5.1.2.bin" {
		t.Errorf("silero-v5 = %+v, %v", m, err)
	}
	if _, err := Resolve("silero-v5", t.TempDir(), Catalog); err == nil {
		t.Error("a VAD model was accepted as the whisper model")
	}
}

// A VAD model comes from its own server folder, whatever modelBaseURL says,
// and is verified like any other.
func TestDownloadVAD(t *testing.T) {
	t.Parallel()
	data := []byte(strings.Repeat("silero", 1000))
	sum := sha256.Sum256(data)
	srv := newServer(t, map[string][]byte{"ggml-silero-v9.bin": data})
	catalog := []Model{{Name: "silero-v9", SizeMiB: 1, Checksum: "sha256:" + hex.EncodeToString(sum[:]), FileName: "ggml-silero-v9.bin", BaseURL: srv.URL + "/models"}}
	dir := t.TempDir()
	d := &Downloader{BaseURL: "http://127.0.0.1:1/elsewhere", Dir: dir, Catalog: catalog}
	path, err := d.Download(context.Background(), "silero-v9")
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "ggml-silero-v9.bin") {
		t.Errorf("installed at %s", path)
	}
	if FindVAD(dir) != "" {
		t.Error("FindVAD found a model that is not in VADCatalog")
	}
	v5 := filepath.Join(dir, VADCatalog[0].File())
	if err := os.WriteFile(v5, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := FindVAD(dir); got != v5 {
		t.Errorf("FindVAD = %q, want %q", got, v5)
	}
}

func TestCheckVAD(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if name, path, err := CheckVAD(dir); name != "" || path != "" || err != nil {
		t.Fatalf("empty folder: %q %q %v", name, path, err)
	}
	bad := filepath.Join(dir, VADCatalog[0].File())
	if err := os.WriteFile(bad, []byte("truncated"), 0o644); err != nil {
		t.Fatal(err)
	}
	name, path, err := CheckVAD(dir)
	if name != VADCatalog[0].Name || path != bad || !errors.Is(err, ErrChecksum) {
		t.Fatalf("damaged file: %q %q %v; want %s, %s and ErrChecksum", name, path, err, VADCatalog[0].Name, bad)
	}
}

// The v6 sum against the real file, when one is at hand (whisper.cpp's
// repository carries it as models/for-tests-silero-v6.2.0-ggml.bin).
func TestVADChecksumOfRealFile(t *testing.T) {
	t.Parallel()
	path := os.Getenv("HARK_WHISPER_TEST_VAD")
	if path == "" || !strings.Contains(filepath.Base(path), "v6.2.0") {
		t.Skip("HARK_WHISPER_TEST_VAD does not name a silero v6.2.0 file: nothing to compare the catalog's sum with")
	}
	m, err := Lookup(VADCatalog, "silero-v6")
	if err != nil {
		t.Fatal(err)
	}
	if err := verify(path, m.Checksum); err != nil {
		t.Fatal(err)
	}
}
