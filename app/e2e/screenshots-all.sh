#!/bin/sh
# Retakes every screenshot in assets/screenshots/ on xfce4-panel and
# xfce4-notifyd (see screenshot.sh; assets/screenshots/README.md says what
# each one shows). Builds the e2e tests once, then runs one scene per
# picture, each on a fresh desktop. Prints each failed scene and exits 1 if
# any failed; a failed scene leaves the old picture in place.
# Usage: app/e2e/screenshots-all.sh [scene-name-filter]
set -u
cd "$(dirname "$0")/../.."
dir=assets/screenshots
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go test -c -tags e2e -o "$bin/e2e.test" ./app/e2e/ || exit 1
failed=
# name  scene (- the default)  menu (1 open, 0 shut)  screen width  height
while read -r name scene menu width height; do
  case $name in ''|'#'*) continue ;; esac
  case $name in *${1:-}*) ;; *) continue ;; esac
  [ "$scene" = - ] && scene=
  echo "== $name"
  # A scene that shows a change also saves the screen before it.
  if HARK_E2E_TEST="$bin/e2e.test" HARK_SCREENSHOT_SCENE=$scene HARK_SCREENSHOT_MENU=$menu \
    HARK_SCREENSHOT_BEFORE="$bin/$name-before.png" \
    HARK_SCREEN_W=$width HARK_SCREEN_H=$height sh app/e2e/screenshot.sh "$bin/$name.png" </dev/null >"$bin/$name.log" 2>&1; then
    mv "$bin/$name.png" "$dir/$name.png"
    if [ -e "$bin/$name-before.png" ]; then
      convert "$bin/$name-before.png" -strip "PNG8:$dir/$name-before.png"
    fi
    grep 'SCREENSHOT SHOWS A GAP' "$bin/$name.log"
    echo "   $(wc -c < "$dir/$name.png") bytes"
  else
    tail -40 "$bin/$name.log"
    failed="$failed $name"
  fi
done <<'LIST'
tray-linux                        -                   1 580 900
walk-A10-approval-notification    -                   0 580 900
walk-7-long-command-menu          long-deletion       1 580 900
walk-B2-download-ready            download-ready      1 580 900
walk-B3-did-not-happen            did-not-happen      0 580 900
walk-B4-model-missing-menu        model-missing       1 580 900
walk-B5-status-no-model           no-model            1 580 900
walk-C10-retry-after-timeout      retry-timeout       1 580 900
walk-C11-settings-fixed           settings-fixed      1 580 900
walk-C13-always-allow             always-allow        1 900 900
walk-C14-cpu-spill                cpu-spill           1 580 900
walk-C16-download-cancelled       download-cancelled  1 580 900
walk-D17-retry-title              retry-after-deny    0 580 900
walk-D18-tooltip-during-download  download            1 580 900
walk-D19-after-trash              after-trash         0 580 900
walk-D20-read-only-answer         read-only           0 580 900
walk-D22-mcp-home                 mcp-home            1 580 900
LIST
if [ -n "$failed" ]; then
  echo "FAILED:$failed" >&2
  exit 1
fi
echo "all screenshots retaken in $dir"
