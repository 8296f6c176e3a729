package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func result(s Status, detail, fix string) func(context.Context) Result {
	return func(context.Context) Result { return Result{Status: s, Detail: detail, Fix: fix} }
}

func TestRunReportsInOrderWithMarks(t *testing.T) {
	t.Parallel()
	checks := []Check{
		{Name: "fine", Required: true, Run: result(OK, "all good", "")},
		{Name: "broken", Required: true, Run: result(Fail, "gone", "do X")},
		{Name: "optional broken", Run: result(Fail, "missing", "do Y")},
		{Name: "limited", Required: true, Run: result(Warn, "partly", "do Z")},
		{Name: "panics", Required: true, Run: func(context.Context) Result { panic("boom") }},
	}
	reports := Run(context.Background(), checks, time.Second)
	wantMarks := []string{"✓", "✗", "⚠", "⚠", "✗"}
	wantFailed := []bool{false, true, false, false, true}
	for i, r := range reports {
		if r.Check.Name != checks[i].Name {
			t.Fatalf("report %d is %q, want %q (order must follow the checks)", i, r.Check.Name, checks[i].Name)
		}
		if r.Mark() != wantMarks[i] || r.Failed() != wantFailed[i] {
			t.Errorf("%s: mark %s failed %v, want %s %v", r.Check.Name, r.Mark(), r.Failed(), wantMarks[i], wantFailed[i])
		}
	}
	if !strings.Contains(reports[4].Result.Detail, "boom") {
		t.Errorf("panic detail %q", reports[4].Result.Detail)
	}
}

// TestHangingCheckTimesOut: a check that ignores its context entirely must
// still be reported, as a failure that says it did not answer, while the
// others report normally.
func TestHangingCheckTimesOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release) // lets the abandoned goroutine finish
	checks := []Check{
		{Name: "hangs", Required: true, Run: func(context.Context) Result { <-release; return Result{Status: OK} }},
		{Name: "honours ctx", Required: true, Run: func(ctx context.Context) Result {
			<-ctx.Done()
			return Result{Status: Fail, Detail: "gave up: " + ctx.Err().Error(), Fix: "x"}
		}},
		{Name: "quick", Required: true, Run: result(OK, "fine", "")},
	}
	done := make(chan []Report)
	go func() { done <- Run(context.Background(), checks, 50*time.Millisecond) }()
	var reports []Report
	select {
	case reports = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return: a hanging check blocked doctor")
	}
	if r := reports[0]; r.Result.Status != Fail || !strings.Contains(r.Result.Detail, "no answer within 50ms") || r.Result.Fix == "" {
		t.Errorf("hanging check: %+v", r.Result)
	}
	if r := reports[1]; r.Result.Status != Fail || !strings.Contains(r.Result.Detail, "deadline") {
		t.Errorf("context-honouring check: %+v", r.Result)
	}
	if r := reports[2]; r.Result.Status != OK {
		t.Errorf("quick check: %+v", r.Result)
	}
}

// TestChecksRunConcurrently: every check waits until all have started, which
// only completes if they run at the same time.
func TestChecksRunConcurrently(t *testing.T) {
	t.Parallel()
	const n = 6
	var started sync.WaitGroup
	started.Add(n)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	var checks []Check
	for i := 0; i < n; i++ {
		checks = append(checks, Check{Name: "c", Required: true, Run: func(ctx context.Context) Result {
			started.Done()
			select {
			case <-all:
				return Result{Status: OK}
			case <-ctx.Done():
				return Result{Status: Fail, Detail: "ran alone"}
			}
		}})
	}
	for _, r := range Run(context.Background(), checks, 5*time.Second) {
		if r.Result.Status != OK {
			t.Fatalf("checks did not run concurrently: %+v", r.Result)
		}
	}
}

func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	release := make(chan struct{})
	defer close(release)
	reports := Run(ctx, []Check{{Name: "slow", Required: true, Run: func(context.Context) Result {
		<-release
		return Result{Status: OK}
	}}}, time.Second)
	if reports[0].Result.Detail != "interrupted" {
		t.Errorf("detail %q, want interrupted", reports[0].Result.Detail)
	}
}

func TestPrint(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		reports    []Report
		wantFailed bool
		want       []string
		wantNot    []string
	}{
		{
			name: "all good",
			reports: []Report{
				{Check: Check{Name: "Settings", Required: true}, Result: Result{Status: OK, Detail: "defaults", Fix: "never shown"}},
			},
			want:    []string{"✓ Settings  defaults\n", "Everything Hark needs is in place."},
			wantNot: []string{"never shown"},
		},
		{
			name: "required failure shows its fix on the same line",
			reports: []Report{
				{Check: Check{Name: "Ollama", Required: true}, Result: Result{Status: Fail, Detail: "not answering at http://127.0.0.1:11434", Fix: "ollama serve"}},
				{Check: Check{Name: "Tray"}, Result: Result{Status: Fail, Detail: "none", Fix: "install one"}},
			},
			wantFailed: true,
			want:       []string{"✗ Ollama  not answering at http://127.0.0.1:11434 → ollama serve\n", "⚠ Tray    none → install one\n", "1 required thing is missing"},
		},
		{
			name: "warnings only",
			reports: []Report{
				{Check: Check{Name: "Sandbox"}, Result: Result{Status: Warn, Detail: "off", Fix: "x"}},
				{Check: Check{Name: "Notifications"}, Result: Result{Status: Fail, Detail: "none", Fix: "y"}},
			},
			want: []string{"Hark can run; 2 optional features are limited."},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if failed := Print(&buf, c.reports); failed != c.wantFailed {
				t.Errorf("failed = %v, want %v", failed, c.wantFailed)
			}
			out := buf.String()
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range c.wantNot {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestSlowest(t *testing.T) {
	t.Parallel()
	rs := []Report{{Elapsed: 1}, {Elapsed: 3}, {Elapsed: 2}}
	got := Slowest(rs)
	if got[0].Elapsed != 3 || got[2].Elapsed != 1 || rs[0].Elapsed != 1 {
		t.Errorf("Slowest = %v (input %v)", got, rs)
	}
}

// probeErr is an adapter's problem as the probes outside app spell it:
// Fix and Limited by method.
type probeErr struct {
	msg, fix string
	limited  bool
}

func (e probeErr) Error() string { return e.msg }
func (e probeErr) Fix() string   { return e.fix }
func (e probeErr) Limited() bool { return e.limited }

// FromProbe turns what a probe says into a line: OK with its detail, a
// failure or (Limited) a warning with the adapter's own fix, and a generic
// next step for an error that has none.
func TestFromProbe(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		err  error
		want Result
	}{
		{"works", nil, Result{Status: OK, Detail: "all good"}},
		{"fails with a fix", fmt.Errorf("wrapped: %w", probeErr{msg: "down", fix: "start it"}), Result{Status: Fail, Detail: "wrapped: down", Fix: "start it"}},
		{"limited", &Problem{Detail: "no buttons", Next: "use the menu", Minor: true}, Result{Status: Warn, Detail: "no buttons", Fix: "use the menu"}},
		{"plain error", errors.New("odd"), Result{Status: Fail, Detail: "odd", Fix: "see `hark doctor -v` and the log; the Thing check has no specific fix for this"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			check := FromProbe("Thing", true, func(context.Context) (string, error) { return "all good", c.err })
			if got := Run(context.Background(), []Check{check}, time.Second)[0].Result; got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
