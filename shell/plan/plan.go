// Package plan is Hark's one reading of a command line: it parses the line
// once and models how bash would expand and run it — brace expansion,
// tilde and known variables, pathname expansion under the shell options in
// effect at each point (shopt, set -f, GLOBIGNORE), and the folder each
// simple command runs in, with whether an earlier cd surely ran. The
// policy's floor, the rules, the preview and Move to Trash all read this
// model, so that what one of them shows and what another decides cannot
// disagree with each other, and a differential test holds the model to
// bash itself.
//
// The model never guesses: where bash's behaviour depends on something it
// does not know (a command substitution, a variable the line sets in a way
// it does not follow, a cd inside a loop), it says so, and the caller
// treats the answer as "cannot tell".
package plan

import (
	"errors"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Script is one parsed command line.
type Script struct {
	Src  string
	File *syntax.File
}

// Parse reads src as bash does. The error is the parser's.
func Parse(src string) (*Script, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, err
	}
	return &Script{Src: src, File: f}, nil
}

// Options are the shell options that change what a word expands to.
type Options struct {
	DotGlob    bool // shopt -s dotglob: * matches names that start with '.'
	NullGlob   bool // shopt -s nullglob: a pattern with no match is dropped
	FailGlob   bool // shopt -s failglob: a pattern with no match stops the command
	NoCaseGlob bool // shopt -s nocaseglob
	GlobStar   bool // shopt -s globstar: ** matches folders at any depth
	ExtGlob    bool // shopt -s extglob
	NoGlob     bool // set -f: no pathname expansion at all
	// Physical is set -P (set -o physical): cd follows links to the
	// folder the kernel reaches, so cd .. after cd link leaves the
	// link's target.
	Physical bool
	// GlobIgnore is GLOBIGNORE's value: names a pattern expands to that
	// match one of its colon-separated patterns are dropped, and setting
	// it lets * match names that start with '.' (never . and ..).
	GlobIgnore string

	lastPipe bool // shopt -s lastpipe: a pipeline's last part runs in this shell
}

// Place is one way the shell may stand when a command runs: the folder,
// the options, and the variables the line set before it.
type Place struct {
	Dir  string // absolute; "" when Unknown is set
	Opts Options
	// Vars are the values the line itself gave to variables (literal
	// assignments that surely ran), over Env.Vars.
	Vars map[string]string
	// Unknown says why the folder, the options or the variables here
	// cannot be told; "" when they can.
	Unknown string
}

// Call is one simple command of the line, with every Place it may run in.
type Call struct {
	Expr *syntax.CallExpr
	// Places are the states the shell may be in when the command runs: one
	// when everything before it surely happened as modelled, more when an
	// earlier cd, shopt or assignment may or may not have run.
	Places []Place
	// Sure is true when the command runs whenever the line runs: it is not
	// under a condition, a loop, a function, a pipeline's subshell or in
	// the background.
	Sure bool
	// Subshell is true when the command runs in a subshell (a pipeline
	// part, ( … ), $( … ), or in the background), so its cd and shopt do
	// not outlive it.
	Subshell bool
}

// Unknown is why some Place of the call cannot be told, or "".
func (c Call) Unknown() string {
	for _, p := range c.Places {
		if p.Unknown != "" {
			return p.Unknown
		}
	}
	return ""
}

// Dirs are the folders the call may run in, each once, in the order met.
func (c Call) Dirs() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range c.Places {
		if p.Unknown == "" && !seen[p.Dir] {
			seen[p.Dir] = true
			out = append(out, p.Dir)
		}
	}
	return out
}

// Name is the command's name as written when it is a plain literal word,
// else "".
func (c Call) Name() string {
	if len(c.Expr.Args) == 0 {
		return ""
	}
	return c.Expr.Args[0].Lit()
}

// Env is what the model may know about the world the line runs in.
type Env struct {
	Home string // the home folder, for ~ and a bare cd
	Dir  string // the folder the line starts in, absolute
	// Vars is the environment the command will see; a variable not in it
	// and not set by the line is unset. nil: nothing is known, so every
	// $NAME the line does not set itself is "cannot tell".
	Vars map[string]string
	// Disk lets the model look: a cd to a folder that does not exist fails
	// (bash goes on in the old folder), and patterns are matched against
	// the folders' entries. Without it a cd may or may not succeed, and
	// patterns stay patterns.
	Disk bool
	// FS is what Disk looks through; nil is the real file system.
	FS FS
	// OldPwdIsStart says the shell starts with OLDPWD set to the folder
	// it starts in, as Hark's runner starts every command, so $OLDPWD and
	// ~- before any cd are that folder.
	OldPwdIsStart bool
	// Args are the positional parameters the line starts with, $0 first,
	// when they are known: a shell run with -c takes them from the words
	// after its script. nil: not known.
	Args []string
	// Exported are variables the line starts with known values and
	// exported, though Vars is nil: what a child shell inherits from the
	// line that starts it (see Env.Exports).
	Exported map[string]string
	// Unset takes every variable the model cannot tell as unset (and so
	// empty). A check that only ever adds refusals may ask what a word
	// would be then: "${dir:-$HOME}" and "$dir/" are home and / that way.
	Unset bool
}

// ErrMaxPlaces ends a walk whose states multiply past what is worth
// tracking; the calls after it are "cannot tell".
var ErrMaxPlaces = errors.New("too many ways the line may have run so far")

// maxPlaces bounds the states carried from one statement to the next.
const maxPlaces = 16
