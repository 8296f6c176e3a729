#!/bin/sh
# locate.sh: where the whisper.cpp on this machine is, for the Makefile.
#
#   locate.sh pcpath          the PKG_CONFIG_PATH under which pkg-config finds
#                             whisper.pc (unchanged when it already does)
#   locate.sh origin PCDIR PATH
#                             where the whisper.pc in PCDIR came from, in words
#                             (PATH: the PKG_CONFIG_PATH pcpath printed)
#
# pkg-config alone finds only what is in its default folders. Distributions,
# Nix, Homebrew on Linux and builds into a home folder put whisper.cpp in
# places it does not look, and Fedora's whisper-cpp-devel ships no whisper.pc
# at all; this finds each of them. Besides shell built-ins it runs only
# pkg-config, mkdir and mv (to write a whisper.pc) and the package manager's
# "which package owns this file": `make prereqs` runs under a PATH of its own.
#
# Environment: HOME; WHISPER_ROOT, a folder standing in for / (tests lay out a
# distribution's files there); WHISPER_PCDIR, where a whisper.pc is written for
# an install that has none; HARK_WHISPER_PREFIX, the prefix `make whisper`
# builds into.

root=${WHISPER_ROOT:-}
pcdir=${WHISPER_PCDIR:-}
own=${HARK_WHISPER_PREFIX:-}

pcpath() {
	base=${PKG_CONFIG_PATH:-}
	if pkg-config --exists whisper 2>/dev/null; then
		printf '%s\n' "$base"
		return
	fi
	# Prefixes that install a whisper.pc where pkg-config does not look by
	# default, in the order a person would expect them to win: their own
	# build, the package managers of their own, then the one `make whisper`
	# made for Hark.
	for p in "$HOME/.local" "$HOME/.nix-profile" "$root/nix/var/nix/profiles/default" \
		"$root/run/current-system/sw" "$root/home/linuxbrew/.linuxbrew" "$HOME/.linuxbrew" \
		"$root/usr/local" "$own"; do
		[ -n "$p" ] || continue
		for l in "$p/lib" "$p/lib64" "$p"/lib/*-linux-gnu*; do
			if [ -f "$l/pkgconfig/whisper.pc" ]; then
				printf '%s\n' "$l/pkgconfig${base:+:$base}"
				return
			fi
		done
	done
	# No whisper.pc anywhere: a header and a library in a system prefix
	# (Fedora deletes whisper.pc from whisper-cpp-devel) get one written for
	# them, so that everything after this reads pkg-config as usual.
	for p in "$root/usr" "$root/usr/local"; do
		[ -f "$p/include/whisper.h" ] || continue
		for l in "$p/lib64" "$p/lib" "$p"/lib/*-linux-gnu*; do
			if [ -e "$l/libwhisper.so" ] || [ -e "$l/libwhisper.a" ]; then
				if writepc "$p" "$l"; then
					printf '%s\n' "$pcdir${base:+:$base}"
					return
				fi
			fi
		done
	done
	printf '%s\n' "$base"
}

# writepc PREFIX LIBDIR writes $pcdir/whisper.pc for a whisper.cpp installed
# without one. The version comes from the library's file name
# (libwhisper.so.1.7.1), the only place such an install keeps it.
writepc() {
	[ -n "$pcdir" ] || return 1
	version=unknown
	for f in "$2"/libwhisper.so.*.*.*; do
		[ -e "$f" ] && version=${f##*/libwhisper.so.}
	done
	mkdir -p "$pcdir" || return 1
	tmp="$pcdir/whisper.pc.$$"
	{
		printf 'prefix=%s\nlibdir=%s\nincludedir=%s/include\n\n' "$1" "$2" "$1"
		printf 'Name: whisper\nDescription: whisper.cpp as installed without a whisper.pc (written by Hark'\''s Makefile)\n'
		printf 'Version: %s\nLibs: -L${libdir} -lwhisper\nCflags: -I${includedir}\n' "$version"
	} >"$tmp" && mv -f "$tmp" "$pcdir/whisper.pc"
}

# owner FILE: the package that installed FILE, asked of the package manager.
owner() {
	if command -v dpkg-query >/dev/null 2>&1; then
		o=$(dpkg-query -S "$1" 2>/dev/null) && { printf '%s\n' "${o%%:*}"; return; }
	fi
	if command -v rpm >/dev/null 2>&1; then
		o=$(rpm -qf --qf '%{NAME}\n' "$1" 2>/dev/null) && { printf '%s\n' "$o"; return; }
	fi
	if command -v pacman >/dev/null 2>&1; then
		o=$(pacman -Qqo "$1" 2>/dev/null) && { printf '%s\n' "$o"; return; }
	fi
	return 1
}

origin() {
	dir=$1
	PKG_CONFIG_PATH=$2
	export PKG_CONFIG_PATH
	prefix=$(pkg-config --variable=prefix whisper 2>/dev/null)
	case "$dir" in
	"$pcdir") ;;
	"$own"/*) printf 'built by Hark (make whisper) in %s\n' "$own"; return ;;
	*/nix/* | */.nix-profile/* | */run/current-system/*) printf 'Nix, %s\n' "$prefix"; return ;;
	*/linuxbrew/* | */Cellar/* | */homebrew/*) printf 'Homebrew, %s\n' "$prefix"; return ;;
	"$HOME/.local"/*) printf 'your build in %s\n' "$prefix"; return ;;
	esac
	inc=$(pkg-config --variable=includedir whisper 2>/dev/null)
	# The package manager knows the real path, not the test root's.
	if pkg=$(owner "${inc#"$root"}/whisper.h"); then
		printf 'package %s, %s\n' "$pkg" "${prefix#"$root"}"
		return
	fi
	printf '%s\n' "${prefix:-$dir}"
}

case "$1" in
pcpath) pcpath ;;
origin) origin "$2" "$3" ;;
*)
	echo "usage: locate.sh pcpath | origin PCDIR PKG_CONFIG_PATH" >&2
	exit 2
	;;
esac
