package shell

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestUserHomes: the user database's real homes, wherever they are, and
// not the service folders nor the user's own.
func TestUserHomes(t *testing.T) {
	f := filepath.Join(t.TempDir(), "passwd")
	db := "root:x:0:0:root:/root:/bin/bash\n" +
		"daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n" +
		"alice:x:1000:1000::/var/home/alice:/bin/bash\n" +
		"bob:x:1001:1001::/srv/bob/:/bin/zsh\n" +
		"# a comment\nbroken line\n"
	if err := os.WriteFile(f, []byte(db), 0o644); err != nil {
		t.Fatal(err)
	}
	got := userHomes(f, "/var/home/alice")
	if want := []string{"/root", "/srv/bob"}; !slices.Equal(got, want) {
		t.Errorf("userHomes = %q, want %q", got, want)
	}
	p := NewPolicyWith(PolicyOptions{Home: "/var/home/alice", Homes: got})
	if v := p.ClassifyIn("rm -rf /srv/bob", ""); v.Tier != Forbidden {
		t.Errorf("rm -rf of bob's home: %s", v.Tier)
	}
}
