package ollamatest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// Pull scripts how a pull of one model goes: the lines the real server
// streams (server/images.go PullModel) are "pulling manifest", one
// "pulling <digest>" line per layer and chunk with completed and total,
// "verifying sha256 digest", "writing manifest" and "success"; a failure
// is one {"error":…} line in the 200 stream.
type Pull struct {
	Model  Model   // installed when the pull succeeds
	Layers []int64 // sizes of the layers, the weights first; nil: one of 1 MB
	// Step is the bytes each progress line adds; 0: a tenth of a layer.
	Step int64
	// Pace is the wait between lines.
	Pace time.Duration
	// HoldAt pauses the pull once this many bytes are done, until
	// ReleasePulls or the client goes away; 0: no pause.
	HoldAt int64
	// FailAt ends the pull with Error once this many bytes are done
	// (a lost connection to the registry); Error alone fails at once.
	FailAt int64
	Error  string
}

// pullState counts what happened to pulls.
type pullState struct {
	offers  map[string]Pull
	held    map[string]bool // a pull is paused at HoldAt now
	gate    chan struct{}
	aborted int
	served  int
	// kept is what a pull that ended early had of each layer, by digest:
	// the real server keeps partial layers (while it runs) and the next
	// pull of the model goes on from them.
	kept map[string]int64
	from map[string]int64 // what the last pull of a model started from
}

// Offer makes p.Model pullable: a pull of its name streams p's progress
// and then installs it. A pull of a name never offered fails as the real
// server does for a model the library lacks.
func (s *Server) Offer(p Pull) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pulls.offers == nil {
		s.pulls.offers = map[string]Pull{}
		s.pulls.held = map[string]bool{}
		s.pulls.gate = make(chan struct{})
		s.pulls.kept = map[string]int64{}
		s.pulls.from = map[string]int64{}
	}
	s.pulls.offers[p.Model.Name] = p
	return s
}

// Held says whether a pull of name is paused at its HoldAt now.
func (s *Server) Held(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pulls.held[name]
}

// ReleasePulls lets every held pull go on.
func (s *Server) ReleasePulls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pulls.gate != nil {
		close(s.pulls.gate)
		s.pulls.gate = make(chan struct{})
	}
}

// ResumedFrom is the bytes the last pull of name started from: what an
// earlier, cancelled pull of it had downloaded.
func (s *Server) ResumedFrom(name string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pulls.from[name]
}

// PullsAborted counts pulls whose client went away before the end.
func (s *Server) PullsAborted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pulls.aborted
}

// Installed says whether name is installed now.
func (s *Server) Installed(name string) bool {
	_, ok := s.installed(name)
	return ok
}

// Remove uninstalls name, as `ollama rm` would while a client runs.
func (s *Server) Remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.models, name)
}

func (s *Server) pull(w http.ResponseWriter, r *http.Request) {
	var req api.PullRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, 400, map[string]string{"error": err.Error()})
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	s.mu.Lock()
	p, ok := s.pulls.offers[name]
	if !ok && !strings.Contains(name, ":") {
		p, ok = s.pulls.offers[name+":latest"]
	}
	s.mu.Unlock()
	out := &lines{w: w}
	out.send(api.ProgressResponse{Status: "pulling manifest"})
	if !ok {
		out.send(map[string]string{"error": "pull model manifest: file does not exist"})
		return
	}
	if p.Error != "" && p.FailAt == 0 {
		out.send(map[string]string{"error": p.Error})
		return
	}
	layers := p.Layers
	if len(layers) == 0 {
		layers = []int64{1_000_000}
	}
	wait := func(d time.Duration) bool {
		if d <= 0 {
			return r.Context().Err() == nil
		}
		select {
		case <-time.After(d):
			return true
		case <-r.Context().Done():
			return false
		}
	}
	abort := func() {
		s.mu.Lock()
		s.pulls.aborted++
		s.mu.Unlock()
	}
	digests := make([]string, len(layers))
	start := make([]int64, len(layers))
	var from int64
	s.mu.Lock()
	for i := range layers {
		digests[i] = fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(fmt.Sprintf("%s/%d", name, i))))
		start[i] = s.pulls.kept[digests[i]]
		from += start[i]
	}
	s.pulls.from[p.Model.Name] = from
	s.mu.Unlock()
	for i, size := range layers {
		// The real server starts every layer's download at once, so each
		// is named, with its size and what it kept of it, before the
		// first new bytes arrive.
		out.send(api.ProgressResponse{Status: "pulling " + strings.TrimPrefix(digests[i], "sha256:")[:12], Digest: digests[i], Total: size, Completed: start[i]})
	}
	var done int64
	held := false
	for i, size := range layers {
		digest := digests[i]
		status := "pulling " + strings.TrimPrefix(digest, "sha256:")[:12]
		step := p.Step
		if step <= 0 {
			step = max(size/10, 1)
		}
		keep := func(got int64) {
			s.mu.Lock()
			s.pulls.kept[digest] = got
			s.mu.Unlock()
		}
		for got := start[i]; ; {
			out.send(api.ProgressResponse{Status: status, Digest: digest, Total: size, Completed: got})
			if p.FailAt > 0 && done+got >= p.FailAt {
				keep(got)
				out.send(map[string]string{"error": p.Error})
				return
			}
			if p.HoldAt > 0 && !held && done+got >= p.HoldAt {
				held = true
				s.mu.Lock()
				s.pulls.held[p.Model.Name] = true
				gate := s.pulls.gate
				s.mu.Unlock()
				select {
				case <-gate:
				case <-r.Context().Done():
				}
				s.mu.Lock()
				delete(s.pulls.held, p.Model.Name)
				s.mu.Unlock()
			}
			if got == size {
				break
			}
			if !wait(p.Pace) {
				keep(got)
				abort()
				return
			}
			got = min(got+step, size)
		}
		done += size
	}
	for _, st := range []string{"verifying sha256 digest", "writing manifest"} {
		if !wait(p.Pace) {
			abort()
			return
		}
		out.send(api.ProgressResponse{Status: st})
	}
	s.mu.Lock()
	s.models[p.Model.Name] = p.Model
	s.pulls.served++
	s.mu.Unlock()
	out.send(api.ProgressResponse{Status: "success"})
}

// SetPlacement makes /api/ps report name as size bytes with vram of them
// in GPU memory once it is loaded (default: 1 GB, all in GPU memory).
func (s *Server) SetPlacement(name string, size, vram int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.placement == nil {
		s.placement = map[string][2]int64{}
	}
	s.placement[name] = [2]int64{size, vram}
}

// ps lists the models in memory, as /api/ps does.
func (s *Server) ps(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	var list []api.ProcessModelResponse
	now := time.Now()
	for name, until := range s.loaded {
		if !now.Before(until) {
			continue
		}
		size, vram := int64(1_000_000_000), int64(1_000_000_000)
		if p, ok := s.placement[name]; ok {
			size, vram = p[0], p[1]
		}
		list = append(list, api.ProcessModelResponse{Name: name, Model: name, Size: size, SizeVRAM: vram, ExpiresAt: until,
			Details: api.ModelDetails{Family: s.models[name].Family}})
	}
	s.mu.Unlock()
	slices.SortFunc(list, func(a, b api.ProcessModelResponse) int { return strings.Compare(a.Name, b.Name) })
	writeJSON(w, 200, api.ProcessResponse{Models: list})
}
