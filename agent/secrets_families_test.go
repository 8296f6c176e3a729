package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readFamilyHome is secretHome with the places the families below read
// from: a list file naming the key, a link to home's parent folder, and
// a project holding a link into ~/.ssh.
func readFamilyHome(t *testing.T) (home, project, list, parentLink, linkedProject string) {
	t.Helper()
	home = t.TempDir()
	project, _ = secretHome(t, home)
	key := filepath.Join(home, ".ssh", "id_rsa")
	list = filepath.Join(project, "list")
	if err := os.WriteFile(list, []byte(key+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(list+"0", []byte(key+"\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	// ~/src/up is a link to home itself: cd into ~/src/up/app and '..'
	// is home to the kernel, while the logical path says ~/src/up.
	parentLink = filepath.Join(home, "src", "up")
	if err := os.Symlink(home, parentLink); err != nil {
		t.Fatal(err)
	}
	linkedProject = filepath.Join(home, "work")
	if err := os.MkdirAll(linkedProject, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(linkedProject, "notes.md"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(linkedProject, "keys")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(key, filepath.Join(linkedProject, "id")); err != nil {
		t.Fatal(err)
	}
	return home, project, list, parentLink, linkedProject
}

// readFamilies are the ways a read-only program is told to read a file
// other than by an operand: a program's own text (awk's getline, sed's r,
// R and e), an option's value (attached or apart), a list file whose
// lines name what is read (xargs -a, --files0-from, tar -T, file -f …),
// names arriving on standard input, links followed by find, and '..'
// after a cd into a link. Each is generated over several spellings of
// the key's path; every one must make the gate ask.
func readFamilies(home, project, list, parentLink, linkedProject string) []secretCase {
	key := filepath.Join(home, ".ssh", "id_rsa")
	dir, base := filepath.Dir(key), filepath.Base(key)
	spell := []string{key, "~/.ssh/id_rsa", "$HOME/.ssh/id_rsa", "../../.ssh/id_rsa"}
	var cs []secretCase
	add := func(name, cmd, dir string) { cs = append(cs, secretCase{name, cmd, dir}) }
	// Options are generated over more spellings than program text can
	// hold: quoted inside the word, and relative after a cd.
	optSpell := []struct{ cd, k string }{
		{"", key}, {"", "~/.ssh/id_rsa"}, {"", "$HOME/.ssh/id_rsa"}, {"", "../../.ssh/id_rsa"},
		{"", `$HOME/.s"s"h/id_r'sa'`}, {"cd ../.. && ", ".ssh/id_rsa"},
	}
	for i, o := range optSpell {
		k := o.k
		n := func(s string) string { return s + " #" + string(rune('a'+i)) }
		// Options whose value is a file read, apart and attached.
		for _, f := range []string{
			"grep -f %s README.md", "grep -f%s README.md", "grep --file=%s README.md", "grep --file %s README.md",
			"file -m %s README.md", "file -m%s README.md", "file --magic-file=%s README.md",
			"file -m /dev/null:%s README.md", "file -m%s:/dev/null README.md", "file --magic-file=/dev/null:%s README.md",
			"file -bm /usr/share/misc/magic:%s README.md", "file --magic-file /dev/null:%s:/dev/null README.md",
			"sed -f %s README.md", "sed -f%s README.md", "sed --file=%s README.md",
			"jq -n --rawfile k %s '$k'", "jq -n --slurpfile k %s '$k'", "jq -f %s README.md", "jq --from-file=%s README.md",
			"diff --from-file=%s README.md", "diff --to-file=%s README.md",
			"comm %s README.md", "join %s README.md", "paste %s README.md", "cut -c1- %s", "look a %s",
			"strings %s", "od -c %s", "xxd %s", "base64 %s", "iconv -f utf-8 %s", "zcat -f %s",
			"cmp %s README.md", "tar -tf %s", "sort -k1 %s", "head -c 100 %s",
			"date -f %s", "date -f%s", "date -uf%s", "date --file=%s", "date --file %s", "date --fi=%s",
			"git config -f %s -l", "git config -f%s -l", "git config -lf%s", "git config --file=%s --list",
			"git config --file %s --get-all user.name", "git --no-pager config -f%s -l", "git config --blob=HEAD:%s -l",
			"git blame --contents=%s README.md", "git blame --contents %s README.md", "git grep -f%s x",
			"git log -O%s", "git diff -O%s", "git ls-files -X%s",
			"jq -n -L%s 'import \"id_rsa\" as $c; $c'", "jq -nL%s '.'", "jq -n --library-path=%s '.'",
			"hexdump -f%s README.md", "hexdump -f %s README.md", "hexdump --format-file=%s README.md", "hexdump -Cf%s README.md",
			"zgrep -f%s README.md", "fgrep -if%s README.md",
		} {
			if strings.HasPrefix(k, "~") && (strings.Contains(f, "f%s") || strings.Contains(f, "m%s") || strings.Contains(f, "O%s") || strings.Contains(f, "X%s") || strings.Contains(f, "L%s") || strings.Contains(f, ":%s")) {
				continue // bash expands no ~ there
			}
			add(n(f), o.cd+strings.ReplaceAll(f, "%s", k), project)
		}
	}
	// jq -L names a folder whose files its import reads: the folder
	// itself, or one holding a private location.
	for _, d := range []struct{ cd, lib, imp string }{
		{"", "$HOME/.docker", "config"}, {"", `$HOME/.do"cker"`, "config"}, {"", home + "/.docker", "config"},
		{"", "../../.docker", "config"}, {"cd ../.. && ", ".docker", "config"}, {"cd .. && cd .. && ", "./.docker", "config"},
		{"", "$HOME", ".docker/config"}, {"cd ../.. && ", ".", ".docker/config"}, {"", "$HOME/.ssh", "id_rsa"},
	} {
		for _, f := range []string{"jq -n -L%s 'import \"%s\" as $c; $c'", "jq -n -L %s 'import \"%s\" as $c; $c'",
			"jq -nL%s 'include \"%s\"; .'", "jq -n --library-path=%s 'import \"%s\" as $c; $c'", "jq -n --library-path %s 'import \"%s\" as $c; $c'"} {
			c := d.cd + strings.Replace(strings.Replace(f, "%s", d.lib, 1), "%s", d.imp, 1)
			add("jq -L: "+c, c, project)
		}
	}
	for i, k := range spell {
		n := func(s string) string { return s + " #" + string(rune('a'+i)) }
		// A program's text naming the file, whole or built.
		add(n("awk getline"), `awk 'BEGIN{while((getline l < "`+k+`")>0) print l}'`, project)
		add(n("sed r"), "sed 'r "+k+"' README.md", project)
		add(n("sed R"), "sed 'R "+k+"' README.md", project)
		add(n("sed 1r"), "sed -n '1r"+k+"' README.md", project)
	}
	// Text that builds the name: nothing in it spells the path.
	add("awk getline concatenated", `awk 'BEGIN{f=ENVIRON["HOME"] "/.s" "sh/id_rsa"; while((getline l < f)>0) print l}'`, project)
	add("awk getline from a variable", `awk -v f=x 'BEGIN{while((getline l < f)>0) print l}'`, project)
	add("awk getline from -v", `awk -v f=`+key+` 'BEGIN{while((getline l < f)>0) print l}'`, project)
	add("awk getline split", `awk 'BEGIN{d="/.ss"; while((getline l < (ENVIRON["HOME"] d "h/id_rsa"))>0) print l}'`, project)
	add("awk getline bare", `awk 'BEGIN{getline < ("`+dir+`" "/`+base+`"); print}'`, project)
	add("awk getline var cmd", `awk '{ getline line < $0; print line }' list`, project)
	add("awk ARGV", `awk 'BEGIN{ARGV[ARGC++]=ENVIRON["HOME"] "/.ssh/id_rsa"} {print}'`, project)
	add("awk -f program", "awk -f list README.md", project)
	add("sed e", "sed '1e cat "+key+"' README.md", project)
	add("sed s///e", "sed 's/.*/cat list/e' README.md", project)
	add("sed -f script", "sed -f list README.md", project)
	add("sed r in a block", "sed -n '/x/{r "+key+"\n}' README.md", project)
	add("sed r after ;", "sed -n 'p;r "+key+"' README.md", project)
	// A list file names what is read: the target is the list's lines.
	for _, c := range []string{
		"xargs -a list cat", "xargs -alist cat", "xargs --arg-file=list cat", "xargs --arg-file list cat",
		"xargs cat < list", "xargs -0 cat < list0", "cat list | xargs cat", "xargs grep x < list",
		"xargs -I{} cat {} < list", "< list xargs head", "sort list | xargs cat",
		"wc --files0-from=list0", "du --files0-from=list0", "sort --files0-from=list0", "wc --files0-from list0",
		"file -f list", "file -flist", "file --files-from=list", "file -bf list",
		"tar -cf - -T list", "tar -T list -cf -", "tar --files-from=list -cf -",
		"rsync -n --files-from=list / /tmp/x", "cpio -o < list",
	} {
		add(c, c, project)
	}
	// find following links, and from a folder that holds a link into ~/.ssh.
	for _, c := range []string{
		"find -L . -exec cat {} +", "find -L . -type f -exec cat {} \\;", "find . -follow -exec cat {} +",
		"find -H keys -exec cat {} +", "find . -exec cat {} +", "find . -type f -exec grep -l BEGIN {} +",
		"find . -execdir cat {} \\;", "find . -print0 | xargs -0 cat", "find . | xargs grep BEGIN",
		"grep -rL x -R .", "grep -R BEGIN .", "cat */id_rsa", "cat keys/*",
		// Names a bare listing prints are read as they stand, links too.
		"ls | xargs cat", "ls -1 | xargs -I{} cat {}", "ls | xargs -n1 head", "ls -A | xargs cat", "ls . | xargs cat",
		"ls -R | xargs cat", "ls -1 | xargs -d '\\n' cat", "ls | xargs grep -r BEGIN", "ls -t | xargs -I% head %",
		"ls --color=never | xargs cat", "\\ls | xargs cat", "command ls | xargs cat", "ls -- . | xargs cat",
		"tree -if --noreport | xargs cat", "du -a | xargs cat", "printf '%s\\n' * | xargs cat", "echo * | xargs cat",
		"for f in *; do cat \"$f\"; done",
		// diff -r follows links in the trees it compares; -N prints whole files.
		"diff -rN . /nonexistent", "diff -r . /nonexistent", "diff -Nru . /nonexistent", "diff -Nur /nonexistent .",
		"diff --recursive --new-file . /nonexistent", "diff -rq . /nonexistent", "diff -r --from-file=. /nonexistent",
		"diff -rN ../work /nonexistent", "diff -rN \"$PWD\" /nonexistent", "cd " + linkedProject + " && ls | xargs cat", "ls " + linkedProject + " | xargs cat",
	} {
		add("linked project: "+c, c, linkedProject)
	}
	for _, c := range []string{"diff -rN ~/work /nonexistent", "cd ~/work && diff -rN . /nonexistent", "diff -rN $HOME/wo'rk' /nonexistent",
		"cd ~/work && ls | xargs cat", "cd ../../work; ls -1 | xargs -I{} cat {}", "ls ~/work | xargs cat", "ls $HOME/wo\"rk\" | xargs cat"} {
		add("from a project: "+c, c, project)
	}
	for _, c := range []string{"ls -a | xargs cat", "ls -A | xargs grep -r x", "ls -a . | xargs -I{} cat {}", "ls -a ~ | xargs cat"} {
		add("home: "+c, c, home)
	}
	add("home from a project: cd && ls -a | xargs cat", "cd && ls -a | xargs cat", project)
	// '..' after a cd into a link is the kernel's: the link's target's parent.
	for _, c := range []string{
		"cd " + parentLink + "/src && cat ../.ssh/id_rsa",
		"cd ~/src/up/src && cat ../.ssh/id_rsa",
		"cd up/src && cat ../.ssh/id_rsa",
		"cd up/src; head ../.ssh/id_rsa",
		"cd -L up/src && cat ../.ssh/id_rsa",
		"cd -P up/src && cat ../.ssh/id_rsa",
		"set -P; cd up/src; cd ..; cat .ssh/id_rsa",
		"set -o physical; cd up/src; cd ..; cat .ssh/id_rsa",
		"cd up/src && cd .. && cat .ssh/id_rsa",
		"cd -P up/src && cd .. && cat .ssh/id_rsa",
		"cd up && cat .ssh/id_rsa",
	} {
		add("link: "+c, c, filepath.Dir(parentLink))
	}
	return cs
}

// readFamilyOrdinary stay unasked: the same programs reading ordinary
// files by the same means.
func readFamilyOrdinary(project string) []secretCase {
	var cs []secretCase
	for _, c := range []string{
		"grep -f README.md README.md", "grep -fREADME.md README.md", "sed -n 'r README.md' README.md",
		"awk 'BEGIN{while((getline l < \"README.md\")>0) print l}'", "awk '{print $1}' README.md",
		"file -m README.md README.md", "file -m /dev/null:README.md README.md", "file README.md",
		"git config -l", "git config --get user.name", "git config -f.git/config -l", "git config --file=.git/config -l",
		"jq . README.md", "jq -n -L. 'import \"lib\" as $l; $l'", "jq -nL lib '.'", "date -f README.md", "date -fREADME.md",
		"hexdump -C README.md", "git log -Sfoo", "git blame --contents=README.md README.md", "grep -e-foo README.md",
		"ls | xargs wc -l", "ls | xargs cat", "diff -rN . /nonexistent", "diff -r . .", "ls -1 | xargs -I{} cat {}", "ls -R | xargs cat",
		"cd .. && jq -n -L. 'import \"lib\" as $l; $l'", "date -u +%F", "git log -n5 --oneline",
		"jq -n --rawfile k README.md '$k'", "sed -n '1,3p' README.md",
		"find . -name '*.md' | xargs grep -l hello", "find . -exec cat {} +", "wc -l README.md",
		"xargs -a README.md echo", "sed 's/r/x/' README.md", "sed -n '/r/p' README.md",
		"cd .. && ls", "cat README.md | xargs echo", "find -L . -exec cat {} +", "grep -R hello .",
		"find . -type f | xargs cat", "sed -n '1p;$p' README.md", "awk 'NR==1{getline; print}' README.md",
	} {
		cs = append(cs, secretCase{c, c, project})
	}
	return cs
}
