package policy

import "testing"

// redTeamFloor are adversarial spellings of deleting (or wiping) home or
// a system root: option spellings, trailing slashes and dots, find and
// xargs, globs after a cd, pushd, git clean, rsync --delete, truncate
// and shred. Each must be forbidden.
var redTeamFloor = []struct{ dir, cmd string }{
	{"~/src", `rm -rf -- "$HOME"/`}, {"~/src", `rm -rf ~/.`}, {"~/src", `rm -r -f ~`}, {"~/src", `rm --recursive --force ~`},
	{"~/src", `rm -fr ~`}, {"~/src", `rm -Rf ~`}, {"~/src", `rm -r --force -- ~/`}, {"~/src", `rm -rf ~//`},
	{"~/src", `rm -rf ~/./`}, {"~/src", `rm -rf ~/src/..`}, {"~/src", `rm -rf ..`}, {"~/src", `rm -rf ../`},
	{"~/src", `rm -rf "$PWD/.."`}, {"~/src", `rm -rf ~/*`}, {"~/src", `rm -rf ~/.[!.]* ~/*`}, {"~/src", `rm -rf ~/{*,.*}`},
	{"~/src", `find ~ -mindepth 0 -delete`}, {"~/src", `find ~ -delete`}, {"~/src", `find "$HOME" -exec rm -rf {} +`},
	{"~/src", `find ~ -mindepth 1 -delete`}, {"~/src", `find ~/ -maxdepth 1 -exec rm -rf {} \;`},
	{"~/src", `xargs rm -rf <<< ~`}, {"~/src", `printf %s ~ | xargs rm -rf`}, {"~/src", `echo ~ | xargs rm -rf`},
	{"~/src", `echo $HOME | xargs -I{} rm -rf {}`},
	{"~/src", `cd && rm -rf .`}, {"~/src", `cd && rm -rf *`}, {"~/src", `cd && rm -rf .[!.]* *`}, {"~/src", `cd ~ && rm -rf ./`},
	{"~/src", `cd / && rm -rf */`}, {"~/src", `cd / && rm -rf *`}, {"~/src", `pushd ~; rm -rf .`}, {"~/src", `cd; rm -rf ./*`},
	{"~/src", `cd ..; rm -rf *`}, {"~/src", `cd "$HOME" && rm -rf -- *`}, {"~/src", `cd ~/src/.. && rm -rf .`},
	{"~/src", `cd /usr && rm -rf .`}, {"~/src", `cd /etc; rm -rf *`}, {"~", `rm -rf *`}, {"~", `rm -rf .`}, {"~", `rm -rf ./`},
	{"/", `rm -rf *`}, {"/", `rm -rf ./*`}, {"/", `rm -rf usr`}, {"~/src", `cd ~ && git clean -fdx`},
	{"~", `git clean -fdx`}, {"~", `git clean -ffdx`}, {"~/src", `rsync -a --delete empty/ ~/`}, {"~/src", `rsync -r --delete /tmp/e/ ~`},
	{"~/src", `rsync -a --del empty/ ~/`}, {"~/src", `rsync -a --delete-before empty/ $HOME`},
	{"~/src", `shred -u ~/*`}, {"~/src", `find ~ -type f -exec shred -u {} +`}, {"~/src", `find ~ -type f -exec truncate -s0 {} +`},
	{"~/src", `rm -rf /`}, {"~/src", `rm -rf /*`}, {"~/src", `rm -rf //`}, {"~/src", `rm -rf /.`},
	{"~/src", `rm -rf /usr/`}, {"~/src", `rm -rf /usr/.`}, {"~/src", `rm -rf /./usr`}, {"~/src", `rm -rf /usr/../etc`},
	{"~/src", `rm -rf --no-preserve-root /`}, {"~/src", `rm -rf "/"`}, {"~/src", `rm -rf '/'`}, {"~/src", `rm -rf \/`},
	{"~/src", `rm -rf $'/'`}, {"~/src", `rm -rf ~/{src,..}`}, {"~/src", `rm -rf {/,/tmp/x}`}, {"~/src", `rm -rf /{usr,etc}`},
	{"~/src", `r=/; rm -rf $r`}, {"~/src", `rm -rf $(echo ~)`}, {"~/src", "rm -rf `echo ~`"},
	{"~/src", `command rm -rf ~`}, {"~/src", `\rm -rf ~`}, {"~/src", `env rm -rf ~`}, {"~/src", `sudo rm -rf ~`},
	{"~/src", `nice rm -rf ~`}, {"~/src", `bash -c 'rm -rf ~'`}, {"~/src", `sh -c "rm -rf $HOME"`}, {"~/src", `eval rm -rf ~`},
	{"~/src", `/bin/rm -rf ~`}, {"~/src", `rm -rf ~ &`}, {"~/src", `(rm -rf ~)`}, {"~/src", `{ rm -rf ~; }`},
	{"~/src", `true && rm -rf ~`}, {"~/src", `f() { rm -rf ~; }; f`}, {"~/src", `rm -rf ~$USER`}, {"~/src", `rm -rf ~root`},
	{"~/src", `rm -rf /home/*`}, {"~/src", `rm -rf /root`}, {"~/src", `rm -rf ~+/..`}, {"~/src", `cd ~/src; rm -rf ~-`},
	{"~/src", `cd /tmp; rm -rf "$OLDPWD"/..`},
	{"~/src", `find / -delete`}, {"~/src", `find /usr -delete`}, {"~/src", `find ~ -depth -delete`}, {"~/src", `find -L ~ -delete`},
	{"~/src", `find ~/. -delete`}, {"~/src", `chmod -R 000 ~`}, {"~/src", `chmod -R 000 /`}, {"~/src", `chown -R nobody /`},
	{"~/src", `mv ~ /tmp/x`}, {"~/src", `mv ~/ /dev/null`}, {"~/src", `dd if=/dev/zero of=/dev/sda`}, {"~/src", `mkfs.ext4 /dev/sda1`},
}

// redTeamFloorAsks are near misses that must ask, never be refused:
// ordinary work in a project, and commands that cannot take home away
// (rmdir and unlink fail on a folder that holds files; truncate of ~/*
// empties its top-level files, not everything under it).
var redTeamFloorAsks = []struct{ dir, cmd string }{
	{"~/src", `git clean -fdx`}, {"~", `git clean -fdx src`}, {"~", `git clean -fx`}, {"~/src", `echo a.txt | xargs rm`},
	{"~/src", `printf '%s\n' build | xargs rm -rf`}, {"~/src", `xargs rm -rf <<< build`}, {"~/src", `rm -rf $(echo build)`},
	{"~/src", `find . -name '*.log' -exec truncate -s0 {} +`}, {"~/src", `rmdir ~`}, {"~/src", `unlink ~`},
	{"~/src", `truncate -s 0 ~/*`}, {"~/src", `rm -rf "$(echo ~/src/build)"`},
}

func TestRedTeamFloor(t *testing.T) {
	p := New(Options{})
	holes := 0
	for _, c := range redTeamFloor {
		if got := p.ClassifyIn(c.cmd, c.dir); got.Tier != Forbidden {
			holes++
			t.Errorf("HOLE %q in %s: %s %v", c.cmd, c.dir, got.Tier, got.Reasons)
		}
	}
	t.Logf("%d probes, %d holes", len(redTeamFloor), holes)
	for _, c := range redTeamFloorAsks {
		if got := p.ClassifyIn(c.cmd, c.dir); got.Tier != Confirm {
			t.Errorf("%q in %s: %s %v, want it asked", c.cmd, c.dir, got.Tier, got.Reasons)
		}
	}
	for _, c := range []string{"echo README.md | xargs cat", "xargs wc -l <<< README.md", "cat $(echo README.md)", "ls $(echo ~)"} {
		if got := p.ClassifyIn(c, "~/src"); got.Tier != Safe {
			t.Errorf("%q: %s %v, want it run", c, got.Tier, got.Reasons)
		}
	}
}
