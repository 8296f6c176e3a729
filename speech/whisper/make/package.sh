#!/bin/sh
# package.sh: the distribution's whisper.cpp, as its package manager knows it.
#
#   package.sh name   the development package that installs whisper.cpp here
#                     (libwhisper-dev, whisper-cpp-devel, whisper.cpp …), or
#                     nothing when this system's package manager has none
#   package.sh hint   the one command that gets whisper.cpp on this system:
#                     installing that package, or `make whisper` where there
#                     is none
#
# The package manager is asked, not a list of releases: Debian 12 has no
# libwhisper-dev and sid has one, and the next release will say for itself.
# Only shell built-ins and the package manager are used (`make prereqs` runs
# under a PATH of its own).

name() {
	if command -v apt-cache >/dev/null 2>&1; then
		# An unknown package prints nothing; a known one that cannot be
		# installed from any source says "Candidate: (none)".
		apt-cache policy libwhisper-dev 2>/dev/null | while read -r key value; do
			if [ "$key" = "Candidate:" ] && [ -n "$value" ] && [ "$value" != "(none)" ]; then
				echo libwhisper-dev
				break
			fi
		done
	elif command -v dnf >/dev/null 2>&1; then
		dnf info --quiet whisper-cpp-devel 2>/dev/null | named whisper-cpp-devel
	elif command -v pacman >/dev/null 2>&1; then
		for n in whisper.cpp whisper-cpp; do
			pacman -Si "$n" 2>/dev/null | named "$n" && break
		done
	fi
}

# named PKG prints PKG when the package manager's description on stdin is
# of PKG ("Name : PKG"): an answer is read, not just an exit status.
named() {
	while read -r key colon value; do
		if [ "$key" = Name ] && [ "$colon" = : ] && [ "$value" = "$1" ]; then
			echo "$1"
			return 0
		fi
	done
	return 1
}

# install prints the command that installs packages here, with sudo unless
# this is root already.
install() {
	if command -v apt-get >/dev/null 2>&1; then
		cmd="apt-get install"
	elif command -v dnf >/dev/null 2>&1; then
		cmd="dnf install"
	elif command -v pacman >/dev/null 2>&1; then
		cmd="pacman -S"
	else
		return 1
	fi
	[ "$(id -u 2>/dev/null)" = 0 ] || cmd="sudo $cmd"
	echo "$cmd"
}

case "$1" in
name) name ;;
install) install ;;
hint)
	pkg=$(name)
	if [ -n "$pkg" ] && cmd=$(install); then
		echo "$cmd $pkg"
	else
		echo "make whisper"
	fi
	;;
*)
	echo "usage: package.sh name | install | hint" >&2
	exit 2
	;;
esac
