package bundle

import (
	"fmt"
	"regexp"
	"strings"
)

// macOS ties microphone, notification and folder permissions to an app's
// designated requirement. An ad-hoc signature's requirement is its code
// hash, which changes with every build, so each rebuild is a new app to
// TCC: it asks again, or silently denies while System Settings shows Hark
// allowed. A certificate-backed signature's requirement names the
// certificate instead and survives rebuilds. These helpers pick such an
// identity when the keychain has one and read back what signed an app.

// Identity is a code-signing identity from `security find-identity`.
type Identity struct {
	Hash string // SHA-1 of the certificate, what codesign --sign takes unambiguously
	Name string // e.g. "Apple Development: Jane Doe (AB12CD34EF)"
}

// SelfSignedName is the name docs/troubleshooting.md tells users to give a self-signed
// code-signing certificate made for Hark.
const SelfSignedName = "Hark Code Signing"

var identityLine = regexp.MustCompile(`^\s*\d+\)\s+([0-9A-Fa-f]{40})\s+"(.*)"`)

// ParseIdentities reads the output of
// `security find-identity -v -p codesigning`.
func ParseIdentities(out string) []Identity {
	var ids []Identity
	for _, l := range strings.Split(out, "\n") {
		if m := identityLine.FindStringSubmatch(l); m != nil {
			ids = append(ids, Identity{Hash: strings.ToUpper(m[1]), Name: m[2]})
		}
	}
	return ids
}

// ChooseIdentity picks the identity to sign Hark.app with. want, when set,
// is a certificate hash or (part of) a name, or "-" for ad hoc. Otherwise
// an Apple Development certificate comes first (Apple-issued, so
// notifications are allowed most readily), then the self-signed
// "Hark Code Signing". ok is false for ad hoc; err when want matches
// nothing.
func ChooseIdentity(ids []Identity, want string) (id Identity, ok bool, err error) {
	switch want = strings.TrimSpace(want); want {
	case "-":
		return Identity{}, false, nil
	case "":
		for _, prefix := range []string{"Apple Development:", SelfSignedName} {
			for _, i := range ids {
				if strings.HasPrefix(i.Name, prefix) {
					return i, true, nil
				}
			}
		}
		return Identity{}, false, nil
	}
	for _, i := range ids {
		if strings.EqualFold(i.Hash, want) || strings.Contains(i.Name, want) {
			return i, true, nil
		}
	}
	return Identity{}, false, fmt.Errorf("no valid code-signing identity matches CODESIGN_IDENTITY=%q (`security find-identity -v -p codesigning` lists them); unset it to pick one automatically, or use - for ad hoc", want)
}

// CodesignArgs are codesign's arguments for signing app with id, or ad hoc
// when adHoc. No timestamp: a local build must not need the network.
func CodesignArgs(app string, id Identity, adHoc bool) []string {
	sign := "-"
	if !adHoc {
		sign = id.Hash
	}
	return []string{"--force", "--timestamp=none", "--sign", sign, app}
}

// AdHocWarning is what `make app` prints when no identity was found.
const AdHocWarning = "warning: signed ad hoc: no code-signing identity in the keychain. macOS treats every rebuild as a new app, " +
	"so it may ask for the microphone again or deny it while System Settings shows Hark allowed. " +
	"Create a stable identity once (docs/troubleshooting.md › Permissions after a rebuild), then `make app` again"

// DetritusHint is what a refusal over extended attributes means: the
// bundle sits in a folder File Provider manages (iCloud's Desktop and
// Documents sync adds com.apple.FinderInfo and fpfs attributes faster than
// they can be stripped).
const DetritusHint = "The bundle carries extended attributes that codesign refuses, which happens in a folder iCloud syncs (Desktop, Documents). " +
	"make app assembles and signs it under ~/Library/Caches/Hark/build for this reason; if you set APP_STAGE, point it outside any synced folder"

// Sign signs the bundle at app with the identity ChooseIdentity picks.
// run executes a program and returns its combined output (exec in
// cmd/mkapp, a fake in tests). It returns what it did in words, and a
// warning for ad hoc.
func Sign(app, want string, run func(name string, args ...string) ([]byte, error)) (done, warning string, err error) {
	var ids []Identity
	if want != "-" {
		out, err := run("security", "find-identity", "-v", "-p", "codesigning")
		if err != nil && want != "" {
			return "", "", fmt.Errorf("listing code-signing identities: %v: %s", err, strings.TrimSpace(string(out)))
		}
		ids = ParseIdentities(string(out))
	}
	id, ok, err := ChooseIdentity(ids, want)
	if err != nil {
		return "", "", err
	}
	if out, err := run("codesign", CodesignArgs(app, id, !ok)...); err != nil {
		msg := strings.TrimSpace(string(out))
		if strings.Contains(msg, "detritus") {
			return "", "", fmt.Errorf("codesign: %v: %s\n%s", err, msg, DetritusHint)
		}
		return "", "", fmt.Errorf("codesign: %v: %s", err, msg)
	}
	if !ok {
		if want == "-" {
			return "signed " + app + " ad hoc (CODESIGN_IDENTITY=-)", AdHocWarning, nil
		}
		return "signed " + app + " ad hoc", AdHocWarning, nil
	}
	return fmt.Sprintf("signed %s with %q (%s)", app, id.Name, id.Hash[:8]), "", nil
}

// Signature is what `codesign -dv` says about a signed app.
type Signature struct {
	Identifier string   // the signing identifier, normally the bundle id
	AdHoc      bool     // Signature=adhoc
	Authority  []string // the certificate chain, leaf first; empty for ad hoc
	TeamID     string   // "" when not set
}

// ErrNotSigned is ParseCodesignDisplay's answer for an unsigned app.
var ErrNotSigned = fmt.Errorf("the app is not signed; run `make app` to build and sign it")

// ParseCodesignDisplay reads `codesign -dv` output (codesign writes it to
// stderr).
func ParseCodesignDisplay(out string) (Signature, error) {
	var s Signature
	seen := false
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "code object is not signed at all") {
			return Signature{}, ErrNotSigned
		}
		k, v, ok := strings.Cut(strings.TrimSpace(l), "=")
		if !ok {
			continue
		}
		switch k {
		case "Identifier":
			s.Identifier, seen = v, true
		case "Signature":
			s.AdHoc = v == "adhoc"
		case "Authority":
			s.Authority = append(s.Authority, v)
		case "TeamIdentifier":
			if v != "not set" {
				s.TeamID = v
			}
		case "CodeDirectory v":
			if strings.Contains(l, "(adhoc)") || strings.Contains(l, "adhoc,") {
				s.AdHoc = true
			}
		}
	}
	if !seen {
		return Signature{}, fmt.Errorf("codesign printed no signature details: %q", strings.TrimSpace(out))
	}
	return s, nil
}

// Stable reports whether the signature survives a rebuild: it is backed by
// a certificate, not the code's own hash.
func (s Signature) Stable() bool { return !s.AdHoc && len(s.Authority) > 0 }

// Signer names what signed the app, in words.
func (s Signature) Signer() string {
	switch {
	case s.Stable():
		return s.Authority[0]
	case s.AdHoc:
		return "ad hoc (no certificate)"
	default:
		return "an unknown signer"
	}
}
