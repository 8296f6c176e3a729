package shell

import (
	"slices"
	"strings"
	"testing"
)

// Each family of credential names has several members, and near misses
// that must stay: a word that merely contains the family's marker.
func TestIsSecretName(t *testing.T) {
	t.Parallel()
	families := []struct {
		family        string
		secret, stays []string
	}{
		{"tokens", []string{"GITHUB_TOKEN", "gh_token", "NPM_AUTH_TOKEN", "Slack-Token", "vault.token", "HF_TOKEN", "GHTOKEN", "CI_JOB_TOKENS"}, []string{"TOKENIZERS_PARALLELISM"}},
		{"personal access tokens", []string{"GITHUB_PAT", "GITLAB_PAT", "gitea_pat", "AZURE_DEVOPS_EXT_PAT"}, []string{"PATH", "PATCH_LEVEL", "XDG_PATH_HINT"}},
		{"sessions", []string{"BW_SESSION", "OP_SESSION_abc", "OP_SESSION_my_team", "TERRAFORM_SESSIONTOKEN", "AWS_SESSION_TOKEN", "MYSESSIONID"}, []string{"DBUS_SESSION_BUS_ADDRESS", "XDG_SESSION_TYPE", "XDG_SESSION_ID", "DESKTOP_SESSION", "GDMSESSION", "SESSION_MANAGER"}},
		{"JWTs", []string{"CI_JOB_JWT", "CI_JOB_JWT_V2", "VAULT_JWT", "MYJWT"}, nil},
		{"webhooks", []string{"SLACK_WEBHOOK_URL", "DISCORD_WEBHOOK", "TEAMSWEBHOOK"}, nil},
		{"passwords", []string{"DB_PASSWORD", "PGPASSWORD", "MYSQL_PWD_PASSWD", "SMTP_PASS", "PGPASS", "SSHPASS", "GPG_PASSPHRASE", "VPN_PASSCODE", "MY_PASSKEY", "DB_PWD"}, []string{"PASSENGER_ENV", "PASSAGE_DIR", "COMPASS_HOME", "BYPASS_LIST", "NO_PROXY_BYPASS"}},
		{"secrets", []string{"CLIENT_SECRET", "MYSECRET", "JWT_SECRET_KEY", "AWS_SECRET_ACCESS_KEY"}, nil},
		{"keys", []string{"OPENAI_API_KEY", "OPENAI_KEY", "STRIPE_KEY", "APIKEY", "MY_APIKEY", "AWS_ACCESS_KEY_ID", "SSH_PRIVATE_KEY"}, []string{"GPG_KEY_ID", "KEYMAP", "KEY"}},
		{"other credentials", []string{"GOOGLE_APPLICATION_CREDENTIALS", "DOCKER_CREDS", "BASIC_AUTH", "SENTRY_DSN", "SESSION_COOKIE", "MYSQL_PWD"}, []string{"GIT_AUTHOR_NAME", "SSH_AUTH_SOCK", "XAUTHORITY"}},
		{"plain settings", nil, []string{"PATH", "HOME", "PWD", "OLDPWD", "USER", "SHELL", "LANG", "TERM", "EDITOR", "HOMEBREW_PREFIX", "OLLAMA_HOST"}},
	}
	for _, f := range families {
		t.Run(f.family, func(t *testing.T) {
			t.Parallel()
			for _, n := range f.secret {
				if !isSecretName(n) {
					t.Errorf("isSecretName(%q) = false, want true", n)
				}
			}
			for _, n := range f.stays {
				if isSecretName(n) {
					t.Errorf("isSecretName(%q) = true, want false", n)
				}
			}
		})
	}
}

// A URL with a password in it is a credential whatever the variable is
// called; one with a user name alone, or none, is an address.
func TestHasURLCredentials(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value string
		want  bool
	}{
		{"postgres://u:p@h/db", true},
		{"postgresql://app:s3cr%40t@db.internal:5432/app?sslmode=require", true},
		{"redis://:hunter2@cache:6379/0", true},
		{"https://x-access-token:ghp_abc@github.com/o/r.git", true},
		{"mirror=https://bob:pw@example.com/path", true},
		{"a://h b://u:p@h", true},
		{"postgres://h/db", false},
		{"postgres://u@h/db", false},
		{"ssh://git@github.com/o/r", false},
		{"https://example.com/a@b:c", false}, // the @ is in the path, not the authority
		{"http://u:@h/", false},              // no password
		{"user:pass@host", false},            // no scheme: not a URL
		{"", false},
	}
	for _, tt := range tests {
		if got := hasURLCredentials(tt.value); got != tt.want {
			t.Errorf("hasURLCredentials(%q) = %v, want %v", tt.value, got, tt.want)
		}
	}
}

func TestCommandEnv(t *testing.T) {
	t.Parallel()
	base := []string{
		"HOME=/Users/ada", "USER=ada", "PATH=/usr/bin:/bin", "LANG=en_US.UTF-8",
		"GITHUB_TOKEN=ghp_x", "AWS_SECRET_ACCESS_KEY=s", "KEEP_ME_TOKEN=k",
		"PAGER=less", "TERM=xterm-256color", "CLICOLOR_FORCE=1", "FORCE_COLOR=3",
		"MALFORMED", "=novalue",
		"GITHUB_PAT=github_pat_x", "GITLAB_PAT=glpat-x", "BW_SESSION=bw", "OP_SESSION_abc=op", "SSHPASS=sp",
		"DATABASE_URL=postgres://u:p@h/db", "CACHE_URL=redis://cache:6379", "CI_JOB_JWT=eyJ", "SLACK_WEBHOOK_URL=https://hooks.slack.com/x",
		"PGPASS=pg", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus", "COMPASS_HOME=/opt/compass",
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
			name: "linux drops every credential family, by name or by a URL's password",
			cfg:  envConfig{goos: "linux", environ: base},
			want: []string{"CACHE_URL=redis://cache:6379", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus", "COMPASS_HOME=/opt/compass"},
			missing: []string{"GITHUB_PAT", "GITLAB_PAT", "BW_SESSION", "OP_SESSION_abc", "SSHPASS", "DATABASE_URL",
				"CI_JOB_JWT", "SLACK_WEBHOOK_URL", "PGPASS"},
		},
		{
			name:    "KeepEnv passes a credential URL through by name",
			cfg:     envConfig{goos: "linux", environ: base, keep: []string{"DATABASE_URL"}},
			want:    []string{"DATABASE_URL=postgres://u:p@h/db"},
			missing: []string{"GITHUB_PAT"},
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

// A sandboxed command sees only the allowlisted variables, the keepEnv
// names and what Hark forces, however harmless or secret the rest look.
func TestSandboxBase(t *testing.T) {
	t.Parallel()
	environ := []string{
		"PATH=/usr/bin:/bin", "HOME=/home/ada", "USER=ada", "LOGNAME=ada", "SHELL=/bin/bash", "LANG=en_US.UTF-8",
		"LC_ALL=C.UTF-8", "LC_TIME=de_DE.UTF-8", "TZ=Europe/Berlin", "COLUMNS=120", "LINES=40", "XDG_CONFIG_HOME=/home/ada/.config",
		"GOPATH=/home/ada/go", "EDITOR=vim", "PLAIN=visible", "SSH_AUTH_SOCK=/run/ssh", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/bus",
		"DISPLAY=:0", "CACHE_URL=redis://cache", "UNLISTED_TOKENISH=abc", "KEEP_ME=1", "GITHUB_TOKEN=ghp", "KEPT_TOKEN=k",
	}
	base := commandEnv(envConfig{goos: "linux", environ: environ, keep: []string{"KEPT_TOKEN"}, home: "/h"})
	got := sandboxEnv(sandboxBase(base, []string{"KEEP_ME", "KEPT_TOKEN"}), "/tmp/run")
	for _, want := range []string{
		"PATH=/usr/bin:/bin", "HOME=/home/ada", "USER=ada", "LOGNAME=ada", "SHELL=/bin/bash", "LANG=en_US.UTF-8",
		"LC_ALL=C.UTF-8", "LC_TIME=de_DE.UTF-8", "TZ=Europe/Berlin", "COLUMNS=120", "LINES=40", "XDG_CONFIG_HOME=/home/ada/.config",
		"GOPATH=/home/ada/go", "TERM=dumb", "PAGER=cat", "GIT_TERMINAL_PROMPT=0", "NO_COLOR=1", "TMPDIR=/tmp/run",
		"KEEP_ME=1", "KEPT_TOKEN=k", "GIT_CONFIG_NOSYSTEM=1",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("sandboxed env lacks %q: %q", want, got)
		}
	}
	for _, gone := range []string{"EDITOR", "PLAIN", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "CACHE_URL", "UNLISTED_TOKENISH", "GITHUB_TOKEN"} {
		if lookupEnv(got, gone) != "" {
			t.Errorf("sandboxed env keeps %s: %q", gone, got)
		}
	}
}

// A value shaped like a well-known credential is one whatever its
// variable is called (STRIPE_SK, SLACK_BOT): the token formats of the
// services people keep keys for, a JWT, a private key, a credential URL
// and a connection string's password. Values that merely look alike stay.
func TestHasSecretValue(t *testing.T) {
	t.Parallel()
	secret := []string{
		"sk_live_51H8xYzAbCdEfGhIjKlMnOpQr",
		"sk_test_4eC39HqLyjWDarjtT1zdp7dc",
		"rk_live_51H8xYzAbCdEfGhIjKlMnOpQr",
		"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		"xoxb-2710429183-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
		"xoxp-2710429183-1234567890-1234567890123-0123456789abcdef0123456789abcdef",
		"xapp-1-A0123456789-1234567890123-abcdef0123456789",
		"ghp_16C7e42F292c6912E7710c838347Ae178B4a",
		"gho_16C7e42F292c6912E7710c838347Ae178B4a",
		"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTU",
		"glpat-xxxxxxxxxxxxxxxxxxxx",
		"AKIAIOSFODNN7EXAMPLE",
		"ASIAY34FZKBOKMUTVV7A",
		"AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI",
		"sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
		"sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789",
		"sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH",
		"npm_abcdefghijklmnopqrstuvwxyz0123456789",
		"hf_abcdefghijklmnopqrstuvwxyzABCDEFGH",
		"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"Bearer xoxb-2710429183-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", // a token inside a header
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
		"postgres://app:hunter2@db/app",
		"jdbc:postgresql://db:5432/app?user=app&password=hunter2",
		"jdbc:sqlserver://db:1433;databaseName=app;user=sa;password=Hunter2!",
		"Server=db;Database=app;User Id=sa;Password=Hunter2!;",
		"host=db dbname=app user=app password=hunter2",
		"jdbc:oracle:thin:scott/tiger@db:1521/orcl",
	}
	stays := []string{
		"", "/usr/local/bin:/usr/bin:/bin", "en_US.UTF-8", "xterm-256color",
		"rs=0:di=01;34:ln=01;36:*.tar=01;31", // LS_COLORS
		"unix:path=/run/user/1000/bus", "/run/user/1000/keyring/ssh",
		"sk-", "sk_live_", "xoxb-", "ghp_short", "AKIA", "AKIAshort", "eyJhbGciOiJIUzI1NiJ9",
		"task-runner", "desk-lamp", "ask-me-later",
		"postgres://app@db/app", "jdbc:postgresql://db:5432/app?user=app",
		"password=", "no password here", "passwordless=true",
		"jdbc:oracle:thin:@db:1521/orcl",
		"HEAD~1..HEAD", "v1.2.3",
	}
	for _, v := range secret {
		if !hasSecretValue(v) {
			t.Errorf("hasSecretValue(%q) = false, want true", v)
		}
	}
	for _, v := range stays {
		if hasSecretValue(v) {
			t.Errorf("hasSecretValue(%q) = true, want false", v)
		}
	}
}

// The variables of issue 39's attack: named so that no name rule knows
// them, they reached an approved command. They are withheld like
// secret-named ones, and keepEnv still passes one through by name.
func TestCommandEnvWithholdsSecretValues(t *testing.T) {
	t.Parallel()
	environ := []string{
		"HOME=/home/ada", "PATH=/usr/bin:/bin",
		"DB_PWD=hunter2",
		"STRIPE_SK=sk_live_51H8xYzAbCdEfGhIjKlMnOpQr",
		"SLACK_BOT=xoxb-2710429183-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
		"GH=ghp_16C7e42F292c6912E7710c838347Ae178B4a",
		"AWS_ID=AKIAIOSFODNN7EXAMPLE",
		"ID_JWT=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"JDBC_URL=jdbc:sqlserver://db:1433;databaseName=app;user=sa;password=Hunter2!",
		"APP_DB=postgres://app:hunter2@db/app",
		"EDITOR=vim", "LS_COLORS=rs=0:di=01;34:ln=01;36:*.tar=01;31",
	}
	withheld := []string{"DB_PWD", "STRIPE_SK", "SLACK_BOT", "GH", "AWS_ID", "ID_JWT", "JDBC_URL", "APP_DB"}
	env := commandEnv(envConfig{goos: "linux", environ: environ})
	for _, name := range withheld {
		if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") }) {
			t.Errorf("%s reached the command", name)
		}
	}
	for _, kv := range []string{"EDITOR=vim", "LS_COLORS=rs=0:di=01;34:ln=01;36:*.tar=01;31", "HOME=/home/ada"} {
		if !slices.Contains(env, kv) {
			t.Errorf("%s was withheld", kv)
		}
	}
	if z := zygoteEnv(environ); slices.ContainsFunc(z, func(kv string) bool { return strings.HasPrefix(kv, "STRIPE_SK=") }) {
		t.Error("the zygote keeps STRIPE_SK")
	}
	kept := commandEnv(envConfig{goos: "linux", environ: environ, keep: []string{"STRIPE_SK"}})
	if !slices.Contains(kept, "STRIPE_SK=sk_live_51H8xYzAbCdEfGhIjKlMnOpQr") {
		t.Error("keepEnv did not pass STRIPE_SK through")
	}
}
