#!/bin/sh
# build.sh: build the pinned whisper.cpp release into Hark's own prefix, for
# systems whose distribution packages none (`make whisper`, and `make run`
# after asking). Static libraries, so the prefix needs nothing at run time;
# `make whisper-config` finds it there with no variable set.
#
#   build.sh [-ask]   -ask: ask first on a terminal, and only print how to
#                     build it elsewhere
#
# Environment, all set by the Makefile:
#   WHISPER_GIT          where the source comes from (a local mirror works)
#   WHISPER_RELEASE      the release, e.g. 1.9.3 (tag v1.9.3)
#   WHISPER_COMMIT       the commit that tag must be; anything else is refused
#   HARK_WHISPER_PREFIX  where it is installed
#   WHISPER_TTY          a command that succeeds when it may ask
#   WHISPER_JOBS         parallel compile jobs (default: the processors)
#
# Every failure ends in one line that says why and that Hark is built
# without voice input, and exit status 1; a refusal or no terminal is not a
# failure (status 0).

release=${WHISPER_RELEASE:?}
commit=${WHISPER_COMMIT:?}
prefix=${HARK_WHISPER_PREFIX:?}
git_url=${WHISPER_GIT:-https://github.com/ggml-org/whisper.cpp.git}
here=${0%/*}

fail() {
	echo "whisper.cpp was not built: $*."
	echo "Hark is built without voice input ('hark send' and Type a request… still work); 'make whisper' tries again."
	exit 1
}

built() {
	for l in "$prefix/lib" "$prefix/lib64"; do
		[ -f "$l/pkgconfig/whisper.pc" ] && [ -f "$prefix/include/whisper.h" ] && return 0
	done
	return 1
}

if built; then
	echo "whisper.cpp $release is already built in $prefix."
	exit 0
fi

if [ "$1" = -ask ]; then
	if ! eval "${WHISPER_TTY:-false}"; then
		echo "To build whisper.cpp $release for Hark (a few minutes; needs cmake, a C++ compiler and git), run: make whisper"
		exit 0
	fi
	printf 'Build whisper.cpp %s into %s now? It takes a few minutes. [y/N] ' "$release" "$prefix"
	answer=""
	read -r answer || true
	case "$answer" in
	[yY] | [yY][eE][sS]) ;;
	*)
		echo "Not building it: Hark starts without voice input; 'make whisper' builds it later."
		exit 0
		;;
	esac
fi

# The tools, named with this distribution's package names when it has a
# package manager Hark knows.
missing=""
command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
cxx=""
for c in "${CXX:-}" c++ g++ clang++; do
	if [ -n "$c" ] && command -v "$c" >/dev/null 2>&1; then
		cxx=$c
		break
	fi
done
[ -n "$cxx" ] || missing="$missing c++"
command -v git >/dev/null 2>&1 || missing="$missing git"
if [ -n "$missing" ]; then
	cxxpkg=c++
	if command -v apt-get >/dev/null 2>&1; then
		cxxpkg=g++
	elif command -v dnf >/dev/null 2>&1; then
		cxxpkg=gcc-c++
	elif command -v pacman >/dev/null 2>&1; then
		cxxpkg=gcc
	fi
	pkgs=""
	for m in $missing; do
		[ "$m" = c++ ] && m=$cxxpkg
		pkgs="$pkgs $m"
	done
	if install=$("${HARK_SH:-/bin/sh}" "$here/package.sh" install); then
		echo "Building whisper.cpp needs cmake, a C++ compiler and git. Install what is missing with:"
		echo "  $install$pkgs"
	fi
	fail "missing:$missing (building it needs cmake, a C++ compiler and git)"
fi

work="$prefix.build"
rm -rf "$work" || fail "cannot clear $work"
mkdir -p "$work" || fail "cannot make $work"
# The sources and the build tree go once the install is done; nothing is
# kept but the prefix.
trap 'rm -rf "$work"' EXIT

echo "Fetching whisper.cpp v$release from $git_url …"
git -c advice.detachedHead=false clone --depth 1 --branch "v$release" "$git_url" "$work/src" ||
	fail "git could not fetch tag v$release from $git_url"
got=$(git -C "$work/src" rev-parse HEAD) || fail "git cannot read the fetched source"
[ "$got" = "$commit" ] ||
	fail "the source at $git_url, tag v$release, is commit $got, not the pinned $commit"

jobs=${WHISPER_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
echo "Configuring (cmake) …"
# A release tag is no development build: its version has no -dev.
cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
	-DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
	-DWHISPER_BUILD_EXAMPLES=OFF -DWHISPER_BUILD_TESTS=OFF -DWHISPER_BUILD_SERVER=OFF \
	-DWHISPER_BUILD_IS_DEV=OFF ||
	fail "cmake could not configure the build (see above)"
echo "Compiling with $jobs jobs (cmake prints the percentage done) …"
# Every target, not only whisper: `cmake --install` installs all the
# libraries the release defines (since 1.9, libparakeet beside libwhisper).
cmake --build "$work/build" -j "$jobs" || fail "the compile failed (see above)"
# Installed beside the prefix, then moved into place: a prefix that exists
# is a whole one. whisper.pc keeps the configured prefix, the final one.
cmake --install "$work/build" --prefix "$work/stage" || fail "cmake --install failed (see above)"
rm -rf "$prefix" && mkdir -p "${prefix%/*}" && mv "$work/stage" "$prefix" || fail "cannot move the install to $prefix"
built || fail "the install in $prefix has no whisper.h or whisper.pc"
echo "whisper.cpp $release (commit $commit) is built in $prefix; 'make build' uses it by itself."
