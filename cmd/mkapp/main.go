// Command mkapp is the packaging step of the Makefile: `make app` builds
// Hark.app with it and `make install` uses it for the Linux install. It is a
// separate program so packaging code stays out of the hark binary, and pure
// Go so the bundle is built (and tested) on Linux too.
//
//	go run ./cmd/mkapp app -bin bin/hark -o Hark.app -version "$(git describe --tags --always --dirty)" -commits N
//	go run ./cmd/mkapp sign -identity "$CODESIGN_IDENTITY" Hark.app   (macOS)
//	go run ./cmd/mkapp linux-install -bin bin/hark -prefix ~/.local
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/hark-sh/hark/app/bundle"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: mkapp app|sign|linux-install [flags]")
		return 2
	}
	switch args[0] {
	case "app":
		fs := flag.NewFlagSet("mkapp app", flag.ContinueOnError)
		fs.SetOutput(stderr)
		bin := fs.String("bin", "bin/hark", "the hark binary to put in the bundle")
		out := fs.String("o", "Hark.app", "the bundle to write (replaced if it exists)")
		plist := fs.String("plist", "Info.plist", "the Info.plist template")
		ver := fs.String("version", "", "git describe output, stamped into the plist")
		commits := fs.Int("commits", 0, "commit count, used as CFBundleVersion")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		info, err := os.ReadFile(*plist)
		if err != nil {
			fmt.Fprintln(stderr, "mkapp:", err)
			return 1
		}
		err = bundle.BuildApp(bundle.AppOptions{Dest: *out, Binary: *bin, InfoPlist: info, Version: *ver, Commits: *commits})
		if err != nil {
			fmt.Fprintln(stderr, "mkapp:", err)
			return 1
		}
		short, build := bundle.Versions(*ver, *commits)
		fmt.Fprintf(stdout, "built %s (version %s, build %s)\n", *out, short, build)
	case "sign":
		fs := flag.NewFlagSet("mkapp sign", flag.ContinueOnError)
		fs.SetOutput(stderr)
		identity := fs.String("identity", "", "certificate hash or name to sign with, - for ad hoc; empty picks Apple Development, then \""+bundle.SelfSignedName+"\"")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		if fs.NArg() != 1 {
			fmt.Fprintln(stderr, "usage: mkapp sign [-identity ID] Hark.app")
			return 2
		}
		done, warning, err := bundle.Sign(fs.Arg(0), *identity, combinedOutput)
		if err != nil {
			fmt.Fprintln(stderr, "mkapp:", err)
			return 1
		}
		fmt.Fprintln(stdout, done)
		if warning != "" {
			fmt.Fprintln(stderr, warning)
		}
	case "linux-install":
		fs := flag.NewFlagSet("mkapp linux-install", flag.ContinueOnError)
		fs.SetOutput(stderr)
		bin := fs.String("bin", "bin/hark", "the hark binary to install")
		prefix := fs.String("prefix", "", "where to install (normally ~/.local)")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		if *prefix == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				fmt.Fprintln(stderr, "mkapp: no -prefix and no home folder:", err)
				return 1
			}
			*prefix = home + "/.local"
		}
		files, err := bundle.LinuxInstall(*bin, *prefix)
		for _, f := range files {
			fmt.Fprintln(stdout, "installed", f)
		}
		if err != nil {
			fmt.Fprintln(stderr, "mkapp:", err)
			return 1
		}
	default:
		fmt.Fprintf(stderr, "mkapp: unknown step %q (want app, sign or linux-install)\n", args[0])
		return 2
	}
	return 0
}

func combinedOutput(name string, args ...string) ([]byte, error) {
	return exec.Command(name, args...).CombinedOutput()
}
