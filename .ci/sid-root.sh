#!/usr/bin/env bash
# Makes the Debian sid root that the real-engine tests run in: llama.cpp's
# llama-server (llama.cpp-tools), libwhisper-dev for the whisper-tagged build,
# and python3-gguf to write a tiny random-weight model at test time. The host
# stays untouched apart from the debootstrap package; everything else lives
# under $HARK_CI_ROOT (default /var/lib/hark-ci/sid).
#
# Idempotent: a root whose marker file (.hark-ready) lists every package below
# is left alone; a root without it (an earlier run cut short) is completed, and
# one whose debootstrap never finished is made again. Needs root and the Debian
# mirror. Prints the root on its last line.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

root="${HARK_CI_ROOT:-/var/lib/hark-ci/sid}"
mirror="${HARK_CI_MIRROR:-http://deb.debian.org/debian}"
packages=(
  llama.cpp-tools              # llama-server
  libwhisper-dev               # whisper.cpp for the whisper-tagged build
  python3-gguf python3-numpy   # the tiny model is written at test time
  gcc g++ libc6-dev pkg-config make  # cgo (libwhisper links libstdc++) and make
  portaudio19-dev              # cmd/hark's cgo audio, so the tagged app builds too
)
marker="$root/.hark-ready"

ready() {
  [ -f "$marker" ] || return 1
  local p
  for p in "${packages[@]}"; do
    awk -v p="$p" '$1 == p { found = 1 } END { exit !found }' "$marker" || return 1
  done
}

if ready; then
  echo "$root"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "sid-root: making $root needs root" >&2
  exit 1
fi

mkdir -p "$(dirname "$root")"
# One maker at a time: two CI runs (or two engineers) may start together.
exec 9>"$(dirname "$root")/.lock"
flock 9
if ready; then
  echo "$root"
  exit 0
fi

if ! command -v debootstrap >/dev/null; then
  echo "sid-root: installing debootstrap on the host"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

# debootstrap leaves its own folder behind until it has finished; such a root
# is half made and cannot be completed, so start again.
if [ -d "$root/debootstrap" ] || { [ -d "$root" ] && [ ! -x "$root/usr/bin/apt-get" ]; }; then
  echo "sid-root: removing the unfinished root at $root"
  rm -rf --one-file-system "$root"
fi
if [ ! -d "$root" ]; then
  echo "sid-root: debootstrap sid into $root (a few minutes)"
  debootstrap --variant=minbase sid "$root" "$mirror" >"$(dirname "$root")/debootstrap.log" 2>&1 || {
    tail -20 "$(dirname "$root")/debootstrap.log" >&2
    exit 1
  }
fi

# No services start inside the root; apt reaches the mirror with the host's resolver.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
echo "deb $mirror sid main" >"$root/etc/apt/sources.list"
# The mirror this machine reaches may serve a sid whose Release file has
# passed its Valid-Until date (a frozen or slow mirror, or a clock ahead of
# it); the signature is still checked.
echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99hark-ci"

echo "sid-root: installing ${packages[*]}"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
in_root apt-get update -qq
in_root apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
in_root apt-get clean

# The marker lists each package with the version installed, then the server's
# own build line, so a test log can say exactly what it ran against.
{
  for p in "${packages[@]}"; do
    printf '%s %s\n' "$p" "$(in_root dpkg-query -W -f='${Version}' "$p")"
  done
  # The server's own words for its build, which docs/models.md names.
  printf '# %s\n' "$(in_root llama-server --version 2>&1 | grep -m1 '^version')"
} >"$marker.tmp"
mv "$marker.tmp" "$marker"
echo "$root"
