package agent

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hark-sh/hark/shell"
	"github.com/hark-sh/hark/shell/preview"
)

// corpus are commands people approve every day, each in the folder it is
// run in ("" is home, "p" the project): the measure of whether a scope
// lets routine work through without a second question. Network commands
// use local stand-ins (a bare repository on the disk, a web server on
// loopback), since the scope, not the network, is what is measured: a
// push to a repository on the disk writes outside the project, which a
// push over the network does not. Each program that is not on the
// machine is left out and said so.
var corpus = []struct{ dir, cmd string }{
	// git
	{"p", "git add -A"}, {"p", "echo more >> src.c && git add src.c && git commit -qm 'add src'"}, {"p", "echo x >> README.md && git commit -qam 'change'"},
	{"p", "git checkout -qb feature"}, {"p", "git switch -qc topic"}, {"p", "echo x >> src.c && git stash"}, {"p", "echo x >> src.c && git stash && git stash pop"},
	{"p", "git merge -q --no-edit side"}, {"p", "git tag v1"}, {"p", "git branch -D side"}, {"p", "git reset --hard -q"},
	{"p", "git restore src.c"}, {"p", "git rm -q --cached src.c"}, {"p", "git mv src.c main.c"}, {"p", "git clean -fdq"},
	{"p", "git push -q origin HEAD"}, {"p", "git pull -q --no-rebase origin main"}, {"p", "git fetch -q origin"},
	{"", "git clone -q ~/remote.git ~/clone"}, {"p", "git remote add upstream ~/remote.git"}, {"p", "git gc -q"},
	{"p", "git cherry-pick --no-edit side"}, {"p", "git rebase -q side"}, {"p", "git commit -q --allow-empty -m empty"},
	{"p", "git config user.name 'A Person'"}, {"p", "git worktree add -q ../wt"}, {"p", "git checkout -q -- src.c"},
	// files
	{"", "mkdir -p ~/Projects/new-app"}, {"", "mkdir ~/Documents/taxes"}, {"p", "mkdir -p build/out"}, {"", "touch ~/Documents/todo.txt"},
	{"p", "touch notes.md"}, {"", "mv ~/Downloads/report.pdf ~/Documents/"}, {"", "mv ~/Downloads/report.pdf ~/Documents/report-2026.pdf"},
	{"p", "mv src.c main.c"}, {"", "cp ~/Downloads/report.pdf ~/Documents/"}, {"p", "cp -r src backup"}, {"", "cp -a ~/Documents ~/Documents-copy"},
	{"p", "ln -s src.c link.c"}, {"", "ln -sf ~/proj/src.c ~/Desktop/src.c"}, {"p", "rm -r build"}, {"p", "rm -rf build dist"},
	{"", "rm -r ~/Downloads/old_builds"}, {"", "rm ~/Downloads/report.pdf"}, {"p", "rm -f *.o"}, {"p", "rmdir empty"},
	{"", "rm -rf ~/.cache/thumbnails"}, {"p", "find . -name '*.o' -delete"}, {"p", "find build -type f -delete"},
	{"p", "chmod +x run.sh"}, {"p", "chmod -R u+w build"}, {"", "chmod 600 ~/Documents/todo.txt"},
	{"p", "sed -i 's/old/new/' README.md"}, {"p", "sed -i.bak 's/a/b/g' README.md"}, {"", "sed -i 's/x/y/' ~/Documents/notes.txt"},
	{"p", "echo 'build/' >> .gitignore"}, {"p", "echo hello > hello.txt"}, {"p", "printf 'a\\nb\\n' > list.txt"},
	{"p", "cat src.c > copy.c"}, {"p", "sort -o sorted.txt README.md"}, {"p", "tee log.txt < README.md > /dev/null"},
	{"", "echo 'export EDITOR=vim' >> ~/.bashrc"}, {"", "echo 'alias ll=\"ls -l\"' >> ~/.profile"}, {"p", "truncate -s 0 log.txt"},
	{"", "touch ~/Documents/a.txt ~/Documents/b.txt"}, {"p", "cp README.md README.old"}, {"p", "mv README.md docs.md"},
	// archives
	{"", "tar -xzf ~/Downloads/archive.tar.gz -C ~/Downloads"}, {"p", "tar -czf ../proj.tar.gz ."}, {"p", "tar -cf out.tar src.c"},
	{"", "mkdir -p ~/Downloads/x && tar -xzf ~/Downloads/archive.tar.gz -C ~/Downloads/x"}, {"p", "tar -xzf ~/Downloads/archive.tar.gz"},
	{"", "unzip -q ~/Downloads/photos.zip -d ~/Pictures"}, {"p", "unzip -qo ~/Downloads/photos.zip"}, {"p", "zip -qr ../proj.zip ."},
	{"", "gzip ~/Downloads/big.log"}, {"", "gunzip ~/Downloads/data.csv.gz"},
	// builds and tests
	{"p", "make"}, {"p", "make test"}, {"p", "make clean"}, {"p", "make -j2"}, {"p", "make build"},
	{"p", "npm install"}, {"p", "npm ci"}, {"p", "npm test"}, {"p", "npm run build"}, {"p", "npm run lint"},
	{"p", "npm install --no-audit --offline"}, {"p", "node tool.js"},
	{"p", "python3 -m venv .venv"}, {"p", "python3 script.py"}, {"p", "python3 -m compileall -q ."}, {"p", "python3 -c 'open(\"out.txt\",\"w\").write(\"x\")'"},
	{"p", "go build ./..."}, {"p", "go build -o app ./cmd/app"}, {"p", "go test ./..."}, {"p", "go vet ./..."}, {"p", "go mod tidy"}, {"p", "gofmt -w cmd/app/main.go"},
	{"p", "go run ./cmd/app"}, {"p", "go generate ./..."},
	{"p", "cargo build --offline -q"}, {"p", "cargo test --offline -q"}, {"p", "cargo clean"},
	{"p", "./run.sh"}, {"p", "sh run.sh"}, {"p", "bash -c 'echo built > built.txt'"},
	// downloads, keys, processes
	{"", "curl -fsSo ~/Downloads/file.txt $SERVER/file.txt"}, {"p", "curl -fsSO $SERVER/report.pdf"},
	{"", "wget -q -O ~/Downloads/page.html $SERVER/page.html"}, {"p", "curl -fsS $SERVER/install.sh | sh"},
	{"", "ssh-keygen -q -t ed25519 -N '' -f ~/.ssh/id_new"}, {"", "ssh-keygen -q -t ed25519 -N '' -f ~/.ssh/deploy_key"},
	{"", "kill $(cat ~/sleeper.pid)"}, {"", "pkill -f '^hark-corpus-sleeper'"},
	{"", "echo 'source ~/.aliases' >> ~/.zshrc"}, {"", "kill -0 $(cat ~/sleeper.pid) && kill $(cat ~/sleeper.pid)"},
	// more everyday files
	{"", "mkdir -p ~/Music/albums && mv ~/Downloads/song.mp3 ~/Music/albums/"}, {"", "mv ~/Desktop/*.png ~/Pictures/"},
	{"", "cp ~/Documents/notes.txt ~/Desktop/"}, {"", "rm ~/Desktop/*.png"}, {"", "rm -r ~/Downloads/old_builds ~/Downloads/big.log"},
	{"p", "mkdir docs && mv README.md docs/"}, {"p", "mkdir -p a/b/c && touch a/b/c/d"}, {"p", "cp src.c src.c.bak && sed -i 's/int/long/' src.c"},
	{"p", "git add . && git commit -qm wip && git push -q origin HEAD"}, {"p", "git checkout -q main && git merge -q --no-edit side"},
	{"p", "npm install && npm test"}, {"p", "make && make test"}, {"p", "go build ./... && go test ./..."},
	{"", "mv ~/Documents/notes.txt ~/Documents/notes-old.txt"}, {"", "touch ~/.hushlogin"}, {"", "mkdir -p ~/.config/myapp && echo 'a=1' > ~/.config/myapp/config"},
	{"", "echo 'set number' >> ~/.vimrc"}, {"", "cp ~/proj/README.md ~/Documents/readme-copy.md"}, {"p", "rm -rf node_modules"},
	{"p", "rm -rf .venv"}, {"p", "find . -name '__pycache__' -type d -exec rm -rf {} +"}, {"p", "chmod 755 run.sh && ./run.sh"},
	{"", "ln -s ~/proj ~/Desktop/proj"}, {"", "ln -s ~/proj ~/Desktop/p2 && rm ~/Desktop/p2"}, {"p", "git init -q sub"}, {"p", "git submodule status"},
	{"p", "echo done | tee -a log.txt"}, {"p", "date > stamp.txt"}, {"", "df -h > ~/Documents/disk.txt"}, {"p", "ls -la > listing.txt"},
	{"", "mkdir ~/Backups && cp -r ~/Documents ~/Backups/"}, {"", "rm -rf ~/Documents-old"}, {"", "mv ~/Downloads/old_builds ~/Documents/"},
}

// corpusHome lays out a home folder with what the corpus works on: a
// project with a repository, a Makefile, npm, Go, Python and Cargo files,
// downloads, documents, keys and start-up files.
func corpusHome(t testing.TB, env []string) string {
	t.Helper()
	home := t.TempDir()
	files := map[string]string{
		".bashrc": "# bashrc\n", ".profile": "# profile\n", ".zshrc": "# zshrc\n", ".ssh/id_rsa": "KEY\n", ".config/hark/settings.json": "{}\n",
		"Downloads/old_builds/a.o": "o", "Downloads/old_builds/b.o": "o", "Downloads/report.pdf": "%PDF", "Downloads/big.log": "log\n",
		"Downloads/song.mp3": "mp3", "Desktop/shot.png": "png", "Documents/notes.txt": "x notes\n", "Documents-old/x": "x",
		".cache/thumbnails/t.png": "png", "Pictures/.keep": "", "Documents/todo.txt": "todo\n",
		"proj/README.md": "old a\n", "proj/src.c": "int main;\n", "proj/run.sh": "#!/bin/sh\necho ran > ran.txt\n",
		"proj/build/x.o": "o", "proj/dist/x": "x", "proj/x.o": "o", "proj/log.txt": "log\n", "proj/src/a.c": "a\n", "proj/.gitignore": "",
		"proj/Makefile":          "all:\n\techo built > out.txt\nbuild: all\ntest:\n\techo ok\nclean:\n\trm -f out.txt\n",
		"proj/package.json":      `{"name":"p","version":"1.0.0","scripts":{"test":"node -e \"require('fs').writeFileSync('t.txt','ok')\"","build":"node -e \"require('fs').writeFileSync('dist.txt','b')\"","lint":"node -e 0"}}`,
		"proj/package-lock.json": `{"name":"p","version":"1.0.0","lockfileVersion":3,"requires":true,"packages":{"":{"name":"p","version":"1.0.0"}}}`,
		"proj/tool.js":           "#!/usr/bin/env node\nrequire('fs').writeFileSync('tool.txt','t')\n",
		"proj/go.mod":            "module example.com/p\n\ngo 1.21\n", "proj/cmd/app/main.go": "package main\n\n//go:generate sh -c \"echo gen > gen.txt\"\nfunc main() {}\n",
		"proj/cmd/app/main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
		"proj/script.py":            "open('py.txt','w').write('py')\n",
		"proj/Cargo.toml":           "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n", "proj/src/main.rs": "fn main() {}\n",
	}
	for p, body := range files {
		p = filepath.Join(home, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(home, "proj/run.sh"), 0o755)
	os.Mkdir(filepath.Join(home, "proj/empty"), 0o755)
	os.Chmod(filepath.Join(home, "proj/tool.js"), 0o755)
	sh := func(dir, script string) {
		c := exec.Command("/bin/sh", "-c", script)
		c.Dir, c.Env = dir, append(env, "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
	}
	sh(home, "gzip -k Downloads/big.log && mv Downloads/big.log.gz Downloads/data.csv.gz && tar -czf Downloads/archive.tar.gz -C proj README.md && (cd Downloads && zip -q photos.zip report.pdf)")
	sh(filepath.Join(home, "proj"), "git init -q -b main && git config user.email a@b && git config user.name a && git add README.md src.c Makefile && git commit -qm init && git branch side && git checkout -q side && echo s > side.txt && git add side.txt && git commit -qm side && git checkout -q main && git init -q --bare ../remote.git && git remote add origin ../remote.git && git push -q origin main side")
	return home
}

// BenchmarkApprovedCorpus runs every command of the corpus once, approved,
// in a home folder of its own, through the real policy, preview, scope and
// runner, and reports how many completed inside their scope with no second
// question (in-scope-%), and lists each that needed one, with why.
func BenchmarkApprovedCorpus(b *testing.B) {
	if ok, why := shell.SandboxStatus(); !ok {
		b.Skip("no sandbox on this machine: " + why)
	}
	for b.Loop() {
		done, second, failed, left := runCorpus(b)
		b.ReportMetric(100*float64(done)/float64(done+len(second)+len(failed)), "in-scope-%")
		b.ReportMetric(float64(len(second)), "second-questions")
		var report strings.Builder
		fmt.Fprintf(&report, "%d commands: %d completed in their scope, %d needed a second question, %d failed otherwise; left out: %s",
			done+len(second)+len(failed), done, len(second), len(failed), strings.Join(left, ", "))
		for _, s := range second {
			report.WriteString("\nsecond question: " + s)
		}
		for _, s := range failed {
			report.WriteString("\nfailed: " + s)
		}
		// Printed whole: the testing package keeps only the first lines
		// a benchmark logs.
		fmt.Println(report.String())
	}
}

func runCorpus(tb testing.TB) (done int, second, failed, left []string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".sh") {
			fmt.Fprintln(w, "echo installed > installed.txt")
			return
		}
		fmt.Fprintln(w, "downloaded")
	}))
	defer srv.Close()
	server = srv.URL
	path := "/usr/local/go/bin:/root/.cargo/bin:/usr/local/bin:/usr/bin:/bin"
	rust := os.Getenv("RUSTUP_HOME")
	if rust == "" {
		rust = filepath.Join(os.Getenv("HOME"), ".rustup")
	}
	missing := map[string]bool{}
	for _, prog := range []string{"git", "make", "npm", "node", "python3", "go", "cargo", "curl", "wget", "zip", "unzip", "ssh-keygen", "gzip"} {
		c := exec.Command("/bin/sh", "-c", "command -v "+prog)
		c.Env = []string{"PATH=" + path}
		if c.Run() != nil {
			missing[prog] = true
		}
	}
	if c := exec.Command("cargo", "--version"); true {
		c.Env = []string{"PATH=" + path, "RUSTUP_HOME=" + rust, "HOME=" + tb.TempDir()}
		if c.Run() != nil {
			missing["cargo"] = true
		}
	}
	for _, c := range corpus {
		prog := strings.Fields(c.cmd)[0]
		if missing[prog] || strings.Contains(c.cmd, "npm ") && missing["npm"] {
			left = append(left, c.cmd+" ("+prog+" is not on this machine)")
			continue
		}
		ok, why := runOne(tb, c.dir, c.cmd, path, rust)
		switch {
		case ok:
			done++
		case strings.HasPrefix(why, "second: "):
			second = append(second, c.cmd+" — "+strings.TrimPrefix(why, "second: "))
		default:
			failed = append(failed, c.cmd+" — "+why)
		}
	}
	return done, second, failed, left
}

// server is the loopback web server of the corpus's downloads.
var server string

// runOne runs cmd approved in a fresh home; ok when it ran in its scope
// and succeeded with no second question.
func runOne(tb testing.TB, dir, cmd, path, rust string) (bool, string) {
	env := []string{"PATH=" + path, "LANG=C.UTF-8", "RUSTUP_HOME=" + rust, "SERVER=" + server, "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "npm_config_update_notifier=false"}
	home := corpusHome(tb, append(env, "HOME="+os.Getenv("HOME")))
	env = append(env, "HOME="+home, "GOPATH="+filepath.Join(home, "go"), "CARGO_HOME="+filepath.Join(home, ".cargo"))
	sleeper := exec.Command("sleep", "60")
	sleeper.Args[0] = "hark-corpus-sleeper"
	sleeper.Path, _ = exec.LookPath("sleep")
	if sleeper.Start() == nil {
		os.WriteFile(filepath.Join(home, "sleeper.pid"), []byte(fmt.Sprint(sleeper.Process.Pid)), 0o644)
		defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	}
	runner := shell.NewRunner(shell.RunnerOptions{Home: home, Shell: "/bin/bash", Environ: env, Timeout: 2 * time.Minute})
	wd := home
	if dir == "p" {
		wd = filepath.Join(home, "proj")
	}
	// The user's own request: the model proposes the command, the user
	// approves it.
	exec := &recordingRunner{Runner: runner}
	a, err := New(Options{
		Client: &scriptedClient{replies: []reply{tools(call("command", cmd, "purpose", "executing", "workingDirectory", wd)), text("done")}},
		Model:  "qwen3:4b", Host: "http://127.0.0.1:11434",
		Classifier: shell.NewPolicy(), Executor: exec, Home: home, SystemPrompt: "corpus",
		Previewer: preview.New(preview.Options{Runner: runner, Timeout: 20 * time.Second}), now: time.Now,
	})
	if err != nil {
		tb.Fatal(err)
	}
	var mu sync.Mutex
	var further string
	asked := 0
	confirm := ConfirmerFunc(func(_ context.Context, p Pending) (Decision, error) {
		mu.Lock()
		defer mu.Unlock()
		asked++
		if p.Further != "" {
			further = p.Further
			return Decision{By: ByMenu}, nil
		}
		if p.TrashOffered {
			return Decision{Approved: true, By: ByMenu}, nil // Delete, as asked
		}
		return Decision{Approved: true, By: ByMenu}, nil
	})
	a.o.Confirmer = confirm
	_, err = a.Run(context.Background(), NewConversation(), "do it")
	var res shell.Result
	if n := len(exec.res); n > 0 {
		res = exec.res[n-1]
	}
	switch {
	case err != nil:
		return false, err.Error()
	case len(exec.res) == 0:
		return false, "not run"
	case further != "":
		return false, "second: " + further + " (" + corpusLine(res.Error) + ")"
	case res.Tier == shell.Safe:
		return res.Success, "safe, not an approval"
	case !res.Success:
		return false, fmt.Sprintf("exit %d, sandbox %s: %s", res.ExitCode, res.Sandbox, corpusLine(res.Error+res.Output))
	}
	return true, ""
}

func corpusLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
