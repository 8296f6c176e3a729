package shell

// seatbeltProfile is the macOS sandbox (Seatbelt) profile for read-only
// commands, given to /usr/bin/sandbox-exec with -D TMPDIR=<the run's private
// temporary folder>. It allows by default and then denies what a read-only
// command must not do: a deny-by-default profile would have to list every
// system service that ordinary tools like `ps`, `mdfind` or `system_profiler`
// need, and would break them in ways the user cannot diagnose. Later rules win
// in Seatbelt, so the narrow allows come after the broad deny.
//
// It lives in a file without build constraints so that its text is
// golden-tested on every OS; it can only run on macOS.
const seatbeltProfile = `(version 1)
; Hark: read-only, no-network sandbox for commands that should only read.
(allow default)

; Nothing may be created, changed or deleted, except in the run's own
; temporary folder and the few devices that every tool writes to.
(deny file-write*)
(allow file-write*
    (literal "/dev/null")
    (literal "/dev/zero")
    (literal "/dev/tty")
    (literal "/dev/stdout")
    (literal "/dev/stderr")
    (regex #"^/dev/fd/[0-9]+$")
    (subpath (param "TMPDIR")))

; No network: no connecting out, no listening, no local sockets to daemons.
(deny network*)

; Other apps and LaunchServices run outside the sandbox; driving them would
; be a way out of it.
(deny appleevent-send)
(deny mach-lookup (global-name "com.apple.coreservices.launchservicesd"))
`
