package bundle

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseIdentitiesAndChoose(t *testing.T) {
	t.Parallel()
	ids := ParseIdentities(fixture(t, "find-identity.txt"))
	if len(ids) != 3 || ids[0].Name != "Hark Code Signing" || ids[1].Hash != "A1B2C3D4E5F60718293A4B5C6D7E8F9012345678" {
		t.Fatalf("ParseIdentities = %+v", ids)
	}
	if got := ParseIdentities("     0 valid identities found\n"); len(got) != 0 {
		t.Errorf("no identities parsed as %+v", got)
	}
	cases := []struct {
		name, want string
		ids        []Identity
		wantName   string // "" = ad hoc
		wantErr    string
	}{
		{name: "Apple Development first", ids: ids, wantName: "Apple Development: Jane Doe (AB12CD34EF)"},
		{name: "self-signed when no Apple one", ids: []Identity{ids[0], ids[2]}, wantName: "Hark Code Signing"},
		{name: "other identities are not guessed", ids: ids[2:], wantName: ""},
		{name: "none", wantName: ""},
		{name: "named by the user", ids: ids, want: "Developer ID", wantName: "Developer ID Application: Jane Doe (XY98ZW76VU)"},
		{name: "by hash, any case", ids: ids, want: "3f1c2a9b8e7d6c5b4a39281706f5e4d3c2b1a090", wantName: "Hark Code Signing"},
		{name: "ad hoc asked for", ids: ids, want: "-", wantName: ""},
		{name: "unknown name", ids: ids, want: "Nobody", wantErr: "no valid code-signing identity matches"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id, ok, err := ChooseIdentity(c.ids, c.want)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil || ok != (c.wantName != "") || id.Name != c.wantName {
				t.Fatalf("ChooseIdentity = %+v, %v, %v; want %q", id, ok, err, c.wantName)
			}
		})
	}
}

// Sign runs codesign with the chosen identity's hash, or ad hoc with the
// warning, and never contacts a timestamp server.
func TestSign(t *testing.T) {
	t.Parallel()
	type call struct{ name, args string }
	fake := func(identities string, codesignErr error) (func(string, ...string) ([]byte, error), *[]call) {
		var calls []call
		return func(name string, args ...string) ([]byte, error) {
			calls = append(calls, call{name, strings.Join(args, " ")})
			if name == "security" {
				return []byte(identities), nil
			}
			if codesignErr != nil {
				return []byte("dist/Hark.app: replacing existing signature\nerror: The specified item could not be found in the keychain."), codesignErr
			}
			return nil, nil
		}, &calls
	}

	run, calls := fake(fixture(t, "find-identity.txt"), nil)
	done, warn, err := Sign("dist/Hark.app", "", run)
	if err != nil || warn != "" || !strings.Contains(done, "Apple Development: Jane Doe") {
		t.Fatalf("Sign = %q, %q, %v", done, warn, err)
	}
	if got := (*calls)[1]; got.name != "codesign" || got.args != "--force --timestamp=none --sign A1B2C3D4E5F60718293A4B5C6D7E8F9012345678 dist/Hark.app" {
		t.Errorf("codesign call %+v", got)
	}

	run, calls = fake("     0 valid identities found\n", nil)
	done, warn, err = Sign("dist/Hark.app", "", run)
	if err != nil || !strings.Contains(done, "ad hoc") || warn != AdHocWarning {
		t.Fatalf("no identity: %q, %q, %v", done, warn, err)
	}
	if got := (*calls)[1].args; got != "--force --timestamp=none --sign - dist/Hark.app" {
		t.Errorf("ad-hoc codesign args %q", got)
	}
	for _, w := range []string{"new app", "microphone", "docs/troubleshooting.md"} {
		if !strings.Contains(AdHocWarning, w) {
			t.Errorf("the ad-hoc warning does not mention %q", w)
		}
	}

	run, calls = fake(fixture(t, "find-identity.txt"), nil)
	if _, _, err := Sign("dist/Hark.app", "-", run); err != nil || len(*calls) != 1 || (*calls)[0].name != "codesign" {
		t.Errorf("CODESIGN_IDENTITY=- asked the keychain: %+v, %v", *calls, err)
	}

	run, _ = fake(fixture(t, "find-identity.txt"), errors.New("exit status 1"))
	if _, _, err := Sign("dist/Hark.app", "", run); err == nil || !strings.Contains(err.Error(), "could not be found in the keychain") {
		t.Errorf("a failing codesign: %v, want its message", err)
	}
}

func TestParseCodesignDisplay(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file, signer string
		stable       bool
		team         string
		err          error
	}{
		{file: "codesign-adhoc.txt", signer: "ad hoc (no certificate)"},
		{file: "codesign-development.txt", signer: "Apple Development: Jane Doe (AB12CD34EF)", stable: true, team: "XY98ZW76VU"},
		{file: "codesign-selfsigned.txt", signer: "Hark Code Signing", stable: true},
		{file: "codesign-unsigned.txt", err: ErrNotSigned},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			s, err := ParseCodesignDisplay(fixture(t, c.file))
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("err = %v, want %v", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Identifier != "sh.hark.Hark" || s.Signer() != c.signer || s.Stable() != c.stable || s.TeamID != c.team {
				t.Errorf("%+v: signer %q stable %v; want %q %v team %q", s, s.Signer(), s.Stable(), c.signer, c.stable, c.team)
			}
		})
	}
	if _, err := ParseCodesignDisplay("codesign: command not found"); err == nil {
		t.Error("output without details parsed as a signature")
	}
}

// codesign's refusal in an iCloud-synced folder names what to do, and an
// unrelated failure does not blame iCloud.
func TestSignExplainsDetritus(t *testing.T) {
	t.Parallel()
	refuse := func(out string) func(string, ...string) ([]byte, error) {
		return func(name string, args ...string) ([]byte, error) {
			if name == "security" {
				return nil, nil
			}
			return []byte(out), errors.New("exit status 1")
		}
	}
	_, _, err := Sign("dist/Hark.app", "", refuse("dist/Hark.app: resource fork, Finder information, or similar detritus not allowed"))
	if err == nil || !strings.Contains(err.Error(), "iCloud") || !strings.Contains(err.Error(), "~/Library/Caches/Hark/build") {
		t.Errorf("detritus: %v, want the iCloud explanation", err)
	}
	_, _, err = Sign("dist/Hark.app", "", refuse("dist/Hark.app: bundle format unrecognized"))
	if err == nil || strings.Contains(err.Error(), "iCloud") {
		t.Errorf("another failure: %v, want no iCloud explanation", err)
	}
}
