package bundle

import (
	"bufio"
	"bytes"
	"strings"
)

// DesktopEntry returns a freedesktop .desktop file that starts exe. With
// autostart it is meant for ~/.config/autostart and carries the GNOME key that
// session managers show as an on/off switch.
func DesktopEntry(exe string, autostart bool) []byte {
	var b bytes.Buffer
	b.WriteString("[Desktop Entry]\n")
	b.WriteString("Type=Application\n")
	b.WriteString("Version=1.5\n")
	b.WriteString("Name=Hark\n")
	b.WriteString("GenericName=Voice commands for the terminal\n")
	b.WriteString("Comment=Hold a key, say what you want done; Hark proposes shell commands and asks before anything changes\n")
	b.WriteString("Exec=" + desktopExecArg(exe) + "\n")
	b.WriteString("Icon=hark\n")
	b.WriteString("Terminal=false\n")
	b.WriteString("Categories=Utility;\n")
	b.WriteString("Keywords=voice;speech;terminal;shell;\n")
	b.WriteString("StartupNotify=false\n")
	if autostart {
		b.WriteString("X-GNOME-Autostart-enabled=true\n")
	}
	return b.Bytes()
}

// desktopExecArg quotes one argument of an Exec key: the specification wants
// arguments with reserved characters in double quotes with ", `, $ and \
// backslash-escaped, and then the whole value escaped once more as a string
// (so a backslash is written as four), with % doubled as a field code escape.
func desktopExecArg(arg string) string {
	arg = strings.ReplaceAll(arg, "%", "%%")
	if !strings.ContainsAny(arg, " \t\n\"'\\><~|&;$*?#()`") {
		return arg
	}
	var q strings.Builder
	q.WriteByte('"')
	for _, r := range arg {
		switch r {
		case '"', '`', '$':
			q.WriteString(`\\`) // an escaping backslash, itself escaped for the string
			q.WriteRune(r)
		case '\\':
			q.WriteString(`\\\\`)
		case '\n':
			q.WriteString(`\n`)
		default:
			q.WriteRune(r)
		}
	}
	q.WriteByte('"')
	return q.String()
}

// desktopKeys reads the [Desktop Entry] group of a .desktop file.
func desktopKeys(data []byte) map[string]string {
	keys := map[string]string{}
	group := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			group = line
		case group == "[Desktop Entry]":
			if k, v, ok := strings.Cut(line, "="); ok {
				keys[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
	}
	return keys
}
