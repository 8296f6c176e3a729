// Command hark is the Hark menu-bar app and its command-line tools. It only
// dispatches: every subcommand parses its flags, builds the real adapters and
// hands over to an importable package.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/hark-sh/hark/app/settings"
	"github.com/hark-sh/hark/shell"
)

// version is stamped by the Makefile from git (-ldflags "-X main.version=…").
var version = "dev"

// A command is one subcommand. Each lives in its own file and registers itself
// in init, so adding one never touches this file.
type command struct {
	name    string
	usage   string // one line: arguments after the name
	summary string
	about   string // what -h says under the usage line; summary when empty
	hidden  bool   // internal entry points, not listed in help
	run     func(ctx context.Context, env *env, args []string) int
}

// env is what a subcommand may touch of the process, so tests can drive
// subcommands with buffers instead of the real terminal.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	isTerminal     bool // stdin and stderr are a terminal a person can answer on
	colorOut       bool // stdout is a terminal that may show colour
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("hark: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// Exit codes shared by all subcommands.
const (
	exitOK    = 0
	exitError = 1 // Hark could not do its job; the message says why
	exitUsage = 2
	// exitInterrupted is the shell's code for a command ended by Ctrl-C
	// (128 + SIGINT), so a script can tell "stopped" from "failed".
	exitInterrupted = 130
)

func main() {
	shell.HardenProcess(3)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, isTerminal: stdioIsTerminal(), colorOut: wantColor(stdoutIsTerminal(), os.Getenv)}, os.Args[1:])
	stop()
	shell.ReleaseTemps()
	os.Exit(code)
}

func dispatch(ctx context.Context, e *env, args []string) int {
	args = dropProcessSerial(args)
	name := defaultCommand
	if len(args) > 0 && !isDefaultFlag(args[0]) {
		name, args = args[0], args[1:]
	}
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "hark: unknown command %q\n\n", name)
		printHelp(e.stderr)
		return exitUsage
	}
	if len(args) > 0 && isHelpFlag(args[0]) {
		// Help was asked for, so it is the output: it goes to stdout
		// whichever writer the command's flag set was given.
		he := *e
		he.stderr = e.stdout
		return c.run(ctx, &he, args)
	}
	return c.run(ctx, e, args)
}

func isHelpFlag(arg string) bool {
	switch arg {
	case "-h", "-help", "--help":
		return true
	}
	return false
}

// writeUsage prints a command's help in the one shape every -h shares: the
// usage line, a blank line, what the command does, and its options, so a
// user who read one command's help can read them all.
func writeUsage(w io.Writer, name string, fs *flag.FlagSet) {
	c := commands[name]
	line := "hark " + name
	if c.usage != "" {
		line += " " + c.usage
	}
	fmt.Fprintf(w, "Usage: %s\n\n", line)
	about := c.about
	if about == "" {
		about = c.summary
	}
	fmt.Fprintln(w, strings.TrimRight(about, "\n"))
	if fs == nil {
		return
	}
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if !has {
		return
	}
	fmt.Fprintln(w, "\nOptions:")
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}

// dropProcessSerial removes the -psn_0_NNN argument that macOS still passes
// to an app on some launches (the first through Gatekeeper or from
// Finder). It names the launch for the old Carbon Process Manager and means
// nothing to Hark; kept, it would reach the app's flag parser and stop the
// app before it showed anything.
func dropProcessSerial(args []string) []string {
	out := args[:0:0]
	for _, a := range args {
		if !strings.HasPrefix(a, "-psn_") {
			out = append(out, a)
		}
	}
	return out
}

// isDefaultFlag reports whether arg is a flag for the default command, so
// `hark -v` and `hark --verbose` start the app with that flag.
func isDefaultFlag(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "-version", "--version":
		return false
	}
	return strings.HasPrefix(arg, "-")
}

// parseFlags parses a subcommand's flags. ok is false when the command must
// stop: after -h (code exitOK; the flag set printed its usage) or a bad flag
// (code exitUsage; the flag set said what was wrong).
func parseFlags(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	return 0, true
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "Hark turns what you say into safe terminal work.")
	fmt.Fprintln(w, "\nUsage:")
	names := make([]string, 0, len(commands))
	for n, c := range commands {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		c := commands[n]
		fmt.Fprintf(w, "  hark %-10s %s\n", c.name, c.usage)
		fmt.Fprintf(w, "  %-15s %s\n", "", c.summary)
	}
	fmt.Fprintln(w, "\nRun 'hark COMMAND -h' for a command's options.")
}

func init() {
	register(&command{
		name: "help", summary: "Show this help.",
		run: func(_ context.Context, e *env, args []string) int {
			if len(args) > 0 && isHelpFlag(args[0]) {
				writeUsage(e.stdout, "help", nil)
				return exitOK
			}
			printHelp(e.stdout)
			return exitOK
		},
	})
	register(&command{
		name: "version", summary: "Print Hark's version.",
		run: func(_ context.Context, e *env, args []string) int {
			if len(args) > 0 && isHelpFlag(args[0]) {
				writeUsage(e.stdout, "version", nil)
				return exitOK
			}
			fmt.Fprintln(e.stdout, "hark", version)
			return exitOK
		},
	})
}

// humanDuration writes d as the settings file does ("10m", not "10m0s").
func humanDuration(d time.Duration) string { return settings.Duration(d).String() }
