package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// credentialFiles are files under home where tools really keep
// credentials, keys and history, written out independently of
// privateHome: each must lie in one of its entries, so that dropping or
// narrowing an entry shows here.
var credentialFiles = []string{
	// browsers packaged as snaps and Flatpaks, and other browsers
	"snap/firefox/common/.mozilla/firefox/abc.default/logins.json",
	"snap/chromium/common/chromium/Default/Cookies",
	".var/app/org.mozilla.firefox/.mozilla/firefox/abc.default/logins.json",
	".var/app/com.google.Chrome/config/google-chrome/Default/Login Data",
	".config/microsoft-edge/Default/Login Data",
	".config/vivaldi/Default/Login Data",
	".config/opera/Login Data",
	".thunderbird/abc.default/logins.json",
	"Library/Application Support/Microsoft Edge/Default/Login Data",
	"Library/Application Support/Arc/User Data/Default/Cookies",
	"Library/Application Support/Vivaldi/Default/Login Data",
	"Library/Application Support/Chromium/Default/Login Data",
	"Library/Application Support/BraveSoftware/Brave-Browser/Default/Login Data",
	"Library/Safari/History.db",
	"Library/Keychains/login.keychain-db",
	// tokens of developer tools
	".config/git/credentials",
	".git-credentials",
	".npmrc",
	".yarnrc.yml",
	".pypirc",
	".cargo/credentials",
	".cargo/credentials.toml",
	".pgpass",
	".my.cnf",
	".vault-token",
	".config/rclone/rclone.conf",
	".docker/config.json",
	".kube/config",
	".config/gh/hosts.yml",
	".config/gcloud/application_default_credentials.json",
	".azure/accessTokens.json",
	".terraform.d/credentials.tfrc.json",
	".gem/credentials",
	".m2/settings.xml",
	".gradle/gradle.properties",
	".s3cfg",
	".boto",
	".config/op/config",
	".config/hub",
	".composer/auth.json",
	// AI tools
	".claude/.credentials.json",
	".claude.json",
	".codex/auth.json",
	".gemini/oauth_creds.json",
	".config/github-copilot/apps.json",
	".cache/huggingface/token",
	".huggingface/token",
	".config/io.datasette.llm/keys.json",
	"Library/Application Support/io.datasette.llm/keys.json",
	// history
	".bash_history",
	".zsh_history",
	".zhistory",
	".histfile",
	".sh_history",
	".zsh_sessions/1234-ABCD.history",
	".bash_sessions/1234-ABCD.history",
	".local/share/fish/fish_history",
	".config/fish/fish_history",
	".config/nushell/history.txt",
	".config/nushell/history.sqlite3",
	"Library/Application Support/nushell/history.txt",
	".local/share/atuin/history.db",
	".python_history",
	".psql_history",
	".mysql_history",
	".sqlite_history",
	".node_repl_history",
	".ts_node_repl_history",
	".lesshst",
	".local/state/lesshst",
	".config/zsh/.zsh_history",
	".irb_history",
	".pry_history",
	".rediscli_history",
	".Rhistory",
	".julia/logs/repl_history.jl",
	".dbshell",
	".viminfo",
	".ipython/profile_default/history.sqlite",
	".mongodb/mongosh/mongosh_repl_history",
	".local/state/nvim/shada/main.shada",
	".history",
	".ksh_history",
	".config/pgcli/history",
	".mycli-history",
	".duckdb_history",
	".ghc/ghci_history",
	".gdb_history",
	// more AI tools
	".ollama/id_ed25519",
	".config/Cursor/User/globalStorage/state.vscdb",
	"Library/Application Support/Cursor/User/globalStorage/state.vscdb",
	".continue/config.json",
	".continue/config.yaml",
	".config/goose/secrets.yaml",
	".local/share/opencode/auth.json",
	".aider.conf.yml",
	".qwen/oauth_creds.json",
	".cache/huggingface/stored_tokens",
	".kaggle/kaggle.json",
	".databrickscfg",
	".modal.toml",
	// more package managers, databases and clouds
	".config/composer/auth.json",
	".yarnrc",
	".mylogin.cnf",
	".m2/settings-security.xml",
	".config/pip/pip.conf",
	".pip/pip.conf",
	"Library/Application Support/pip/pip.conf",
	".config/pypoetry/auth.toml",
	"Library/Application Support/pypoetry/auth.toml",
	".subversion/auth/svn.simple/0123456789abcdef",
	".authinfo",
	".authinfo.gpg",
	".local/share/kwalletd/kdewallet.kwl",
	".pki/nssdb/key4.db",
	".config/glab-cli/config.yml",
	".config/doctl/config.yaml",
	"Library/Application Support/doctl/config.yaml",
	".pulumi/credentials.json",
	".oci/config",
	".oci/oci_api_key.pem",
}

// privateEntryFile is the file each entry's tests read: the entry itself
// when it names a file, a file inside it when it names a folder.
func privateEntryFile(home string, e privateEntry) string {
	p := filepath.Join(home, e.rel)
	if e.dir {
		p = filepath.Join(p, "secret")
	}
	return p
}

// makePrivateEntries puts a file holding secret at every entry of the
// table under home.
func makePrivateEntries(t testing.TB, home, secret string) {
	for _, e := range privateHome {
		p := privateEntryFile(home, e)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(secret+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPrivateTableIsWellFormed: each entry is named once, as a clean path
// inside home, with a reason that reads after "cat reads ".
func TestPrivateTableIsWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range privateHome {
		l := strings.ToLower(e.rel)
		if seen[l] {
			t.Errorf("~/%s is listed twice", e.rel)
		}
		seen[l] = true
		if filepath.Clean(e.rel) != e.rel || filepath.IsAbs(e.rel) || strings.HasPrefix(e.rel, "..") || strings.ContainsAny(e.rel, "*?[") {
			t.Errorf("~/%s is not a clean literal path inside home", e.rel)
		}
		if !strings.HasPrefix(e.what, "your ") && !strings.HasPrefix(e.what, "the ") && !strings.HasPrefix(e.what, "Hark's ") {
			t.Errorf("the reason of ~/%s (%q) does not read as what it holds", e.rel, e.what)
		}
	}
}
