package logs

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hark-sh/hark/app/settings"
)

// FileName is the log file inside settings.Paths.Logs.
const FileName = "hark.log"

// File is the path of the current log, for the tray's "Open log".
func File(p settings.Paths) string { return filepath.Join(p.Logs, FileName) }

// Setup opens the rotating log in p.Logs and returns a logger writing
// redacted text records to it: debug and up with verbose, info and up
// otherwise. Close the Closer on exit.
func Setup(p settings.Paths, verbose bool) (*slog.Logger, io.Closer, error) {
	if p.Logs == "" {
		return nil, nil, fmt.Errorf("logs: no log folder configured")
	}
	f, err := OpenRotating(File(p), DefaultMaxSize, DefaultKeep)
	if err != nil {
		return nil, nil, fmt.Errorf("logs: %w (check that %s is writable, or set HARK_HOME)", err, p.Logs)
	}
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(NewHandler(f, level)), f, nil
}

// NewHandler is a text handler that redacts every record (see Redact).
func NewHandler(w io.Writer, level slog.Leveler) slog.Handler {
	return slog.NewTextHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: Redact})
}

// Redacted replaces the value of an attribute that holds a secret.
const Redacted = "[redacted]"

// outputKeys hold what a command printed. The audit log keeps the command and
// its outcome; the general log keeps only how much there was.
var outputKeys = map[string]bool{"output": true, "stdout": true, "stderr": true, "transcript_output": true}

// secretWords are the words of an attribute name that mark its value as a
// secret. Whole words only, so "tokens" (a count) or "author" stay readable.
var secretWords = map[string]bool{
	"password": true, "passwd": true, "passphrase": true, "pass": true, "secret": true,
	"token": true, "apikey": true, "auth": true, "authorization": true, "cookie": true,
	"credential": true, "credentials": true, "privatekey": true, "bearer": true, "sessionid": true,
}

// secretKey reports whether an attribute name (snake_case, camelCase or
// dotted) names a secret. Adjacent words are joined too, so api_key and
// apiKey both count.
func secretKey(key string) bool {
	words := splitWords(key)
	for i, w := range words {
		if secretWords[w] || (i > 0 && secretWords[words[i-1]+w]) {
			return true
		}
	}
	return false
}

func splitWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			if prevLower {
				flush()
			}
			cur = append(cur, r)
			prevLower = false
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			cur = append(cur, r)
			prevLower = true
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return words
}

// Secrets written inside free text: assignments to secret-looking variables,
// bearer tokens, well-known token shapes, and passwords in URLs.
var (
	// Environment-style NAME=value, as in a command line or an env dump.
	secretAssign = regexp.MustCompile(`\b([A-Z0-9_]*(?:PASS(?:WORD|WD)?|SECRET|TOKEN|API_?KEY|CREDENTIALS?|PRIVATE_?KEY|AUTH)[A-Z0-9_]*)(=|: ?)("[^"]*"|'[^']*'|\S+)`)
	// Query-string or flag style, any case: password=…, --token=….
	secretParam = regexp.MustCompile(`(?i)\b(password|passwd|secret|token|api[_-]?key|access[_-]?key|auth)(=)([^\s&]+)`)
	bearer      = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}`)
	tokenShapes = regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|glpat-[A-Za-z0-9_-]{20,})\b`)
	urlPassword = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]+:)[^@\s/]+@`)
)

// Redact is a slog ReplaceAttr function: a secret-looking key loses its value,
// command output keeps only its length, and secrets inside any other string
// (an error message, a command line) are masked.
func Redact(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindGroup {
		return a // the handler calls Redact again for each member
	}
	key := a.Key
	switch {
	case outputKeys[strings.ToLower(key)]:
		return slog.String(key, fmt.Sprintf("[%d bytes omitted]", outputLen(a.Value)))
	case secretKey(key):
		return slog.String(key, Redacted)
	}
	switch a.Value.Kind() {
	case slog.KindString:
		return slog.String(key, RedactString(a.Value.String()))
	case slog.KindAny:
		// Errors and Stringers are rendered to text before masking.
		if v := a.Value.Any(); v != nil {
			switch v := v.(type) {
			case error:
				return slog.String(key, RedactString(v.Error()))
			case fmt.Stringer:
				return slog.String(key, RedactString(v.String()))
			case []byte:
				return slog.String(key, RedactString(string(v)))
			}
		}
	}
	return a
}

func outputLen(v slog.Value) int {
	if v.Kind() == slog.KindAny {
		if b, ok := v.Any().([]byte); ok {
			return len(b)
		}
	}
	return len(v.String())
}

// RedactString masks secrets in free text.
func RedactString(s string) string {
	s = secretAssign.ReplaceAllString(s, "${1}${2}"+Redacted)
	s = secretParam.ReplaceAllString(s, "${1}${2}"+Redacted)
	s = bearer.ReplaceAllString(s, "${1} "+Redacted)
	s = tokenShapes.ReplaceAllString(s, Redacted)
	s = urlPassword.ReplaceAllString(s, "${1}"+Redacted+"@")
	return s
}
