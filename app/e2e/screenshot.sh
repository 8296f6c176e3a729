#!/bin/sh
# Makes assets/screenshots/tray-linux.png: Hark's tray menu with a pending
# approval in xfce4-panel's status tray, and xfce4-notifyd's notification,
# on Xvfb. Needs: xvfb xfce4-panel xfce4-notifyd x11-xserver-utils xdotool
# imagemagick.
set -eu
cd "$(dirname "$0")/../.."
out=${1:-assets/screenshots/tray-linux.png}
# HARK_SCREEN_W and HARK_SCREEN_H make room for a taller menu.
# HARK_SCREENSHOT_SCENE picks another scene (screenshots-all.sh lists them;
# assets/screenshots/README.md says what each shows); HARK_SCREENSHOT_MENU=0
# leaves the menu shut, to see a notification whole. HARK_E2E_TEST runs that
# prebuilt e2e test binary (go test -c) instead of go test. The PNG is
# stripped and given a 256-colour palette (text stays sharp, a quarter the size).
W=${HARK_SCREEN_W:-580} H=${HARK_SCREEN_H:-900}
cfg=$(mktemp -d)
mkdir -p "$cfg/xfce4/xfconf/xfce-perchannel-xml"
# One top panel holding only a spacer and the status tray, so the tray icon
# is at the right end; notifications in the bottom right.
cat > "$cfg/xfce4/xfconf/xfce-perchannel-xml/xfce4-panel.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-panel" version="1.0">
  <property name="configver" type="int" value="2"/>
  <property name="panels" type="array">
    <value type="int" value="1"/>
    <property name="panel-1" type="empty">
      <property name="position" type="string" value="p=6;x=0;y=0"/>
      <property name="length" type="uint" value="100"/>
      <property name="position-locked" type="bool" value="true"/>
      <property name="size" type="uint" value="26"/>
      <property name="plugin-ids" type="array">
        <value type="int" value="1"/>
        <value type="int" value="2"/>
      </property>
    </property>
  </property>
  <property name="plugins" type="empty">
    <property name="plugin-1" type="string" value="separator">
      <property name="expand" type="bool" value="true"/>
      <property name="style" type="uint" value="0"/>
    </property>
    <property name="plugin-2" type="string" value="systray">
      <property name="icon-size" type="int" value="22"/>
    </property>
  </property>
</channel>
XML
cat > "$cfg/xfce4/xfconf/xfce-perchannel-xml/xfce4-notifyd.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-notifyd" version="1.0">
  <property name="notify-location" type="uint" value="3"/>
  <property name="expire-timeout" type="int" value="0"/>
</channel>
XML
# The first display from :71 on with no server (another scene's may still
# be shutting down).
n=71
while [ -e /tmp/.X$n-lock ] || [ -e /tmp/.X11-unix/X$n ]; do n=$((n + 1)); done
Xvfb :$n -screen 0 ${W}x${H}x24 -nolisten tcp &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; wait $xvfb 2>/dev/null; rm -rf "$cfg"' EXIT
sleep 1
export DISPLAY=:$n
export XDG_CONFIG_HOME="$cfg" HARK_SCREENSHOT="$(realpath -m "$out")" HARK_SCREEN_WIDTH=$W
xsetroot -solid '#3b4252'
dbus-run-session -- sh -c '
  xfce4-panel --disable-wm-check >/dev/null 2>&1 &
  /usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd >/dev/null 2>&1 &
  sleep 3
  if [ -n "${HARK_E2E_TEST:-}" ]; then
    cd app/e2e && "$HARK_E2E_TEST" -test.count=1 -test.run "^TestTrayScreenshot\$" -test.v
  else
    go test -tags e2e -count=1 -run "^TestTrayScreenshot\$" -v ./app/e2e/
  fi
'
convert "$out" -strip "PNG8:$out.tmp" && mv "$out.tmp" "$out"
echo "wrote $out ($(wc -c < "$out") bytes)"
