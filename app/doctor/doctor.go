// Package doctor runs Hark's setup checks for `hark doctor`: each check is
// data (a name, whether Hark needs it, and a function), runs concurrently
// under its own timeout, and reports one line with the exact fix when
// something is wrong. What to check lives beside each adapter, which
// exports a Probe (agent.ProbeServer, shell.ProbeSandbox, tray.ProbeHost,
// …) that the app's status line re-runs too; doctor keeps only the checks
// of its own files (settings, folders, launch at login).
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// Status is how a check came out.
type Status int

const (
	OK   Status = iota // works
	Warn               // works, but not fully (or only informational)
	Fail               // does not work
)

// Result is what a check found. Fix is the exact next step when the status is
// not OK: a command to run or a setting to change.
type Result struct {
	Status Status
	Detail string
	Fix    string
}

// Check is one thing doctor verifies. Required checks decide the exit code;
// an optional check that fails is shown as a warning.
type Check struct {
	Name     string
	Required bool
	Run      func(ctx context.Context) Result
}

// Probe is what an adapter exports for its doctor line, and what the app
// re-runs for its status line: detail says what works; an error says what
// does not. The adapters live outside this package (agent, shell, speech
// never import app), so the error carries the rest by method:
//
//	Fix() string    the exact next step
//	Limited() bool  true: Hark works without it, only not fully (a warning)
type Probe func(ctx context.Context) (detail string, err error)

// FromProbe is the check that runs p. A probe error without Fix gets a
// generic one, so no problem line is left without a next step.
func FromProbe(name string, required bool, p Probe) Check {
	return Check{Name: name, Required: required, Run: func(ctx context.Context) Result {
		detail, err := p(ctx)
		return resultOf(name, detail, err)
	}}
}

func resultOf(name, detail string, err error) Result {
	if err == nil {
		return Result{Status: OK, Detail: detail}
	}
	r := Result{Status: Fail, Detail: err.Error(), Fix: fmt.Sprintf("see `hark doctor -v` and the log; the %s check has no specific fix for this", name)}
	var fixer interface{ Fix() string }
	if errors.As(err, &fixer) && fixer.Fix() != "" {
		r.Fix = fixer.Fix()
	}
	var limited interface{ Limited() bool }
	if errors.As(err, &limited) && limited.Limited() {
		r.Status = Warn
	}
	return r
}

// Report is a finished check.
type Report struct {
	Check   Check
	Result  Result
	Elapsed time.Duration
}

// Mark is the symbol printed for the report: ✓, ⚠ or ✗.
func (r Report) Mark() string {
	switch {
	case r.Result.Status == OK:
		return "✓"
	case r.Result.Status == Fail && r.Check.Required:
		return "✗"
	default:
		return "⚠"
	}
}

// Failed reports whether a required check failed.
func (r Report) Failed() bool { return r.Check.Required && r.Result.Status == Fail }

// DefaultTimeout bounds every check, so a server that accepts a connection and
// never answers cannot hang doctor.
const DefaultTimeout = 2 * time.Second

// graceAfterTimeout is how long a check may take to return after its
// context expired before doctor stops waiting for it.
const graceAfterTimeout = 200 * time.Millisecond

// Run runs every check at once, each under its own timeout, and returns the
// reports in the order of checks. A check that does not return in time is
// reported as failed ("no answer within …") and left to finish on its own
// with its context cancelled.
func Run(ctx context.Context, checks []Check, timeout time.Duration) []Report {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	reports := make([]Report, len(checks))
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reports[i] = runOne(ctx, c, timeout)
		}()
	}
	wg.Wait()
	return reports
}

func runOne(parent context.Context, c Check, timeout time.Duration) Report {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	start := time.Now()
	done := make(chan Result, 1) // buffered: a late check must not block forever
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- Result{Status: Fail, Detail: fmt.Sprintf("the check crashed: %v", p), Fix: "report this as a bug with the output of `hark doctor`"}
			}
		}()
		done <- c.Run(ctx)
	}()
	select {
	case r := <-done:
		return Report{Check: c, Result: r, Elapsed: time.Since(start)}
	case <-ctx.Done():
		// A check that honours its context returns right after the
		// deadline with a better message than ours; give it a moment.
		select {
		case r := <-done:
			return Report{Check: c, Result: r, Elapsed: time.Since(start)}
		case <-time.After(graceAfterTimeout):
		}
		detail := fmt.Sprintf("no answer within %s", timeout)
		if parent.Err() != nil {
			detail = "interrupted"
		}
		return Report{Check: c, Result: Result{Status: Fail, Detail: detail, Fix: timeoutFix(c.Name)}, Elapsed: time.Since(start)}
	}
}

func timeoutFix(name string) string {
	return fmt.Sprintf("whatever %q talks to is hanging; restart it, or run `hark doctor -timeout 10s` to wait longer", name)
}

// Print writes one line per report and a summary, and returns whether a
// required check failed.
func Print(w io.Writer, reports []Report) (failed bool) {
	width := 0
	for _, r := range reports {
		width = max(width, len([]rune(r.Check.Name)))
	}
	var fails, warns int
	for _, r := range reports {
		line := fmt.Sprintf("%s %-*s  %s", r.Mark(), width, r.Check.Name, r.Result.Detail)
		if r.Result.Status != OK && r.Result.Fix != "" {
			line += " → " + r.Result.Fix
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		switch r.Mark() {
		case "✗":
			fails++
		case "⚠":
			warns++
		}
	}
	switch {
	case fails > 0:
		fmt.Fprintf(w, "\n%d required %s missing; fix the ✗ lines above, then run `hark doctor` again.\n", fails, plural(fails, "thing is", "things are"))
	case warns > 0:
		fmt.Fprintf(w, "\nHark can run; %d optional %s.\n", warns, plural(warns, "feature is limited", "features are limited"))
	default:
		fmt.Fprintln(w, "\nEverything Hark needs is in place.")
	}
	return fails > 0
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Slowest returns the reports sorted by elapsed time, slowest first, for
// `hark doctor -v`.
func Slowest(reports []Report) []Report {
	out := append([]Report(nil), reports...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Elapsed > out[j].Elapsed })
	return out
}

// Problem is a failed probe of an adapter inside app (tray, desktop,
// hotkey); shell.ProbeError and speech.ProbeError are the same for the
// packages that cannot import this one.
type Problem struct {
	Detail string // what is wrong
	Next   string // the exact next step
	Minor  bool   // Hark works without it, only not fully
	Err    error  // the cause, for errors.Is (a hotkey taken); may be nil
}

func (e *Problem) Error() string { return e.Detail }

// Unwrap is the cause, so a caller can tell one problem from another.
func (e *Problem) Unwrap() error { return e.Err }

// Fix is the next step.
func (e *Problem) Fix() string { return e.Next }

// Limited reports whether Hark works without it.
func (e *Problem) Limited() bool { return e.Minor }
