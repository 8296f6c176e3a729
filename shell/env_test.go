package shell

import (
	"slices"
	"strings"
	"testing"
)

func TestIsSecretName(t *testing.T) {
	t.Parallel()
	secret := []string{
		"GITHUB_TOKEN", "gh_token", "NPM_AUTH_TOKEN", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID",
		"OPENAI_API_KEY", "OPENAI_KEY", "STRIPE_KEY", "APIKEY", "MY_APIKEY", "DB_PASSWORD",
		"MYSQL_PWD_PASSWD", "SMTP_PASS", "GPG_PASSPHRASE", "GOOGLE_APPLICATION_CREDENTIALS",
		"DOCKER_CREDS", "BASIC_AUTH", "SENTRY_DSN", "SESSION_COOKIE", "CLIENT_SECRET",
		"JWT_SECRET_KEY", "SSH_PRIVATE_KEY", "Slack-Token", "vault.token", "HF_TOKEN",
		"PGPASSWORD", "MYSQL_PWD", "MYSECRET",
	}
	notSecretNames := []string{
		"PATH", "HOME", "PWD", "OLDPWD", "USER", "SHELL", "LANG", "TERM", "EDITOR",
		"GIT_AUTHOR_NAME", "SSH_AUTH_SOCK", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS",
		"XDG_SESSION_TYPE", "GPG_KEY_ID", "KEYMAP", "KEY", "PASSENGER_ENV", "TOKENIZERS_PARALLELISM",
		"HOMEBREW_PREFIX", "OLLAMA_HOST",
	}
	for _, n := range secret {
		t.Run(n, func(t *testing.T) {
			if !isSecretName(n) {
				t.Errorf("isSecretName(%q) = false, want true", n)
			}
		})
	}
	for _, n := range notSecretNames {
		t.Run(n, func(t *testing.T) {
			if isSecretName(n) {
				t.Errorf("isSecretName(%q) = true, want false", n)
			}
		})
	}
}

func TestCommandEnv(t *testing.T) {
	t.Parallel()
	base := []string{
		"HOME=/Users/ada", "USER=ada", "PATH=/usr/bin:/bin", "LANG=en_US.UTF-8",
		"GITHUB_TOKEN=ghp_x", "AWS_SECRET_ACCESS_KEY=s", "KEEP_ME_TOKEN=k",
		"PAGER=less", "TERM=xterm-256color", "CLICOLOR_FORCE=1", "FORCE_COLOR=3",
		"MALFORMED", "=novalue",
	}
	tests := []struct {
		name    string
		cfg     envConfig
		want    []string // entries that must be present
		missing []string // names that must be absent
	}{
		{
			name: "linux drops secrets and forces non-interactive settings",
			cfg:  envConfig{goos: "linux", environ: base},
			want: []string{
				"HOME=/Users/ada", "USER=ada", "LANG=en_US.UTF-8", "PATH=/usr/bin:/bin",
				"PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "TERM=dumb", "NO_COLOR=1",
				"GIT_EDITOR=true", "HOMEBREW_NO_AUTO_UPDATE=1",
			},
			missing: []string{"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "KEEP_ME_TOKEN", "CLICOLOR_FORCE", "FORCE_COLOR", "TMPDIR", "MALFORMED"},
		},
		{
			name:    "KeepEnv passes a named secret through",
			cfg:     envConfig{goos: "linux", environ: base, keep: []string{"KEEP_ME_TOKEN"}},
			want:    []string{"KEEP_ME_TOKEN=k"},
			missing: []string{"GITHUB_TOKEN"},
		},
		{
			name: "darwin puts Homebrew first when missing",
			cfg:  envConfig{goos: "darwin", environ: base},
			want: []string{"PATH=/opt/homebrew/bin:/opt/homebrew/sbin:/usr/local/bin:/usr/bin:/bin"},
		},
		{
			name: "darwin leaves PATH alone when Homebrew is there",
			cfg:  envConfig{goos: "darwin", environ: []string{"PATH=/usr/local/bin:/opt/homebrew/sbin:/opt/homebrew/bin:/usr/bin"}},
			want: []string{"PATH=/usr/local/bin:/opt/homebrew/sbin:/opt/homebrew/bin:/usr/bin"},
		},
		{
			name: "darwin adds only what is missing",
			cfg:  envConfig{goos: "darwin", environ: []string{"PATH=/opt/homebrew/bin:/usr/bin:/bin"}},
			want: []string{"PATH=/opt/homebrew/sbin:/usr/local/bin:/opt/homebrew/bin:/usr/bin:/bin"},
		},
		{
			name: "empty PATH on darwin gets the system default and Homebrew",
			cfg:  envConfig{goos: "darwin", environ: nil, home: "/Users/ada"},
			want: []string{"PATH=/opt/homebrew/bin:/opt/homebrew/sbin:/usr/local/bin:" + defaultPathDarwin, "HOME=/Users/ada"},
		},
		{
			name: "empty PATH on linux gets the system default, no Homebrew",
			cfg:  envConfig{goos: "linux", environ: []string{"USER=ada"}, home: "/home/ada"},
			want: []string{"PATH=" + defaultPathLinux, "HOME=/home/ada"},
		},
		{
			name: "sandboxed run gets its own TMPDIR, and zsh's TMPPREFIX inside it",
			cfg:  envConfig{goos: "darwin", environ: []string{"TMPDIR=/tmp", "TMPPREFIX=/tmp/zsh"}, tmpDir: "/private/var/folders/x/T/hark-run-1"},
			want: []string{"TMPDIR=/private/var/folders/x/T/hark-run-1", "TMPPREFIX=/private/var/folders/x/T/hark-run-1/zsh"},
		},
		{
			name: "unsandboxed run keeps the parent's TMPPREFIX",
			cfg:  envConfig{goos: "darwin", environ: []string{"TMPDIR=/tmp", "TMPPREFIX=/Users/ada/.zsh-tmp/x"}},
			want: []string{"TMPDIR=/tmp", "TMPPREFIX=/Users/ada/.zsh-tmp/x"},
		},
		{
			name: "existing HOME wins over the fallback",
			cfg:  envConfig{goos: "linux", environ: []string{"HOME=/root"}, home: "/elsewhere"},
			want: []string{"HOME=/root"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := commandEnv(tt.cfg)
			if !slices.IsSorted(got) {
				t.Errorf("not sorted: %q", got)
			}
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("missing %q in %q", w, got)
				}
			}
			for _, m := range tt.missing {
				for _, kv := range got {
					if strings.HasPrefix(kv, m+"=") || kv == m {
						t.Errorf("%q should be gone, found %q", m, kv)
					}
				}
			}
			names := map[string]bool{}
			for _, kv := range got {
				name, _, _ := strings.Cut(kv, "=")
				if names[name] {
					t.Errorf("%s appears twice", name)
				}
				names[name] = true
			}
		})
	}
}

func TestDefaultShell(t *testing.T) {
	t.Parallel()
	all := func(string) bool { return true }
	only := func(paths ...string) func(string) bool {
		return func(p string) bool { return slices.Contains(paths, p) }
	}
	tests := []struct {
		name, goos, envShell string
		exists               func(string) bool
		want                 string
	}{
		{"macOS is always zsh", "darwin", "/usr/local/bin/fish", all, "/bin/zsh"},
		{"linux user's zsh", "linux", "/usr/bin/zsh", all, "/usr/bin/zsh"},
		{"linux user's bash", "linux", "/usr/local/bin/bash", all, "/usr/local/bin/bash"},
		{"fish falls back to bash", "linux", "/usr/bin/fish", all, "/bin/bash"},
		{"relative SHELL ignored", "linux", "zsh", all, "/bin/bash"},
		{"missing zsh falls back", "linux", "/usr/bin/zsh", only("/bin/bash"), "/bin/bash"},
		{"no bash means sh", "linux", "", only(), "/bin/sh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := defaultShell(tt.goos, tt.envShell, tt.exists); got != tt.want {
				t.Errorf("defaultShell(%q, %q) = %q, want %q", tt.goos, tt.envShell, got, tt.want)
			}
		})
	}
}

// The runner builds the environment once and adds each sandboxed run's
// TMPDIR and TMPPREFIX to it; that must equal building it with the TMPDIR,
// and zsh's prefix must land inside the run's folder, the only writable one.
func TestWithTmpDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		environ []string
		tmpDir  string
	}{
		{"no TMPDIR in the parent", []string{"PATH=/bin", "HOME=/h", "ZED=1"}, "/tmp/hark-run-1"},
		{"the parent's TMPDIR is replaced", []string{"TMPDIR=/var/tmp", "A=1", "U=2"}, "/tmp/hark-run-2"},
		{"the parent's TMPPREFIX is replaced", []string{"TMPPREFIX=/tmp/zsh", "TMPDIR=/var/tmp", "TMQ=1"}, "/tmp/hark-run-3"},
		{"none asked for", []string{"TMPDIR=/var/tmp", "TMPPREFIX=/tmp/zsh", "A=1"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := commandEnv(envConfig{goos: "linux", environ: tt.environ, home: "/h"})
			want := commandEnv(envConfig{goos: "linux", environ: tt.environ, home: "/h", tmpDir: tt.tmpDir})
			got := withTmpDir(base, tt.tmpDir)
			if !slices.Equal(got, want) {
				t.Errorf("withTmpDir = %q, want %q", got, want)
			}
			if tt.tmpDir != "" && !slices.Contains(got, "TMPPREFIX="+tt.tmpDir+"/zsh") {
				t.Errorf("withTmpDir = %q, want TMPPREFIX=%s/zsh", got, tt.tmpDir)
			}
		})
	}
}
