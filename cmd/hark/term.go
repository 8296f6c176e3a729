package main

import (
	"os"

	"golang.org/x/term"
)

func stdioIsTerminal() bool {
	return term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stderr.Fd()))
}

func stdoutIsTerminal() bool { return term.IsTerminal(int(os.Stdout.Fd())) }
