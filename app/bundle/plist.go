// Package bundle packages Hark for the desktop: it stamps and checks the
// Info.plist, writes the .icns icon from the embedded app icon, lays out
// Hark.app, writes freedesktop entries, and turns launch at login on and off.
// Everything is pure Go so the macOS artefacts are built and tested on Linux
// too.
package bundle

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A property list value is one of: string, bool, int64, float64, []any (an
// array) or *Dict. That covers everything Hark writes; other types (date,
// data) are rejected on parsing rather than silently dropped.

// Dict is a property list dictionary that keeps its keys in file order, so
// stamping a version changes two lines of the file and nothing else.
type Dict struct {
	Entries []Entry
}

// Entry is one key of a Dict.
type Entry struct {
	Key   string
	Value any
}

// Get returns the value stored under key.
func (d *Dict) Get(key string) (any, bool) {
	for _, e := range d.Entries {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

// Set replaces the value of key, or appends the key when it is new.
func (d *Dict) Set(key string, v any) {
	for i := range d.Entries {
		if d.Entries[i].Key == key {
			d.Entries[i].Value = v
			return
		}
	}
	d.Entries = append(d.Entries, Entry{key, v})
}

// ParsePlist reads an XML property list whose top value is a dictionary.
func ParsePlist(data []byte) (*Dict, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	root, err := nextStart(dec)
	if err != nil {
		return nil, fmt.Errorf("plist: %w", err)
	}
	if root.Name.Local != "plist" {
		return nil, fmt.Errorf("plist: top element is <%s>, want <plist>", root.Name.Local)
	}
	top, err := nextStart(dec)
	if err != nil {
		return nil, fmt.Errorf("plist: %w", err)
	}
	v, err := parseValue(dec, top)
	if err != nil {
		return nil, fmt.Errorf("plist: %w", err)
	}
	d, ok := v.(*Dict)
	if !ok {
		return nil, fmt.Errorf("plist: top value is <%s>, want <dict>", top.Name.Local)
	}
	return d, nil
}

// nextStart skips comments, declarations and whitespace to the next element.
// Meeting an end element or text first is an error.
func nextStart(dec *xml.Decoder) (xml.StartElement, error) {
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return xml.StartElement{}, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return t, nil
		case xml.EndElement:
			return xml.StartElement{}, fmt.Errorf("unexpected </%s>", t.Name.Local)
		case xml.CharData:
			if s := strings.TrimSpace(string(t)); s != "" {
				return xml.StartElement{}, fmt.Errorf("unexpected text %q", s)
			}
		}
	}
}

// nextStartOrEnd is nextStart that also accepts the end of the enclosing
// element (reported as ok == false).
func nextStartOrEnd(dec *xml.Decoder) (xml.StartElement, bool, error) {
	for {
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return xml.StartElement{}, false, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return t, true, nil
		case xml.EndElement:
			return xml.StartElement{}, false, nil
		case xml.CharData:
			if s := strings.TrimSpace(string(t)); s != "" {
				return xml.StartElement{}, false, fmt.Errorf("unexpected text %q", s)
			}
		}
	}
}

func parseValue(dec *xml.Decoder, el xml.StartElement) (any, error) {
	switch el.Name.Local {
	case "string":
		return text(dec)
	case "true", "false":
		if err := dec.Skip(); err != nil {
			return nil, err
		}
		return el.Name.Local == "true", nil
	case "integer":
		s, err := text(dec)
		if err != nil {
			return nil, err
		}
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("<integer>%s</integer>: %w", s, err)
		}
		return n, nil
	case "real":
		s, err := text(dec)
		if err != nil {
			return nil, err
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("<real>%s</real>: %w", s, err)
		}
		return f, nil
	case "array":
		arr := []any{}
		for {
			child, ok, err := nextStartOrEnd(dec)
			if err != nil {
				return nil, err
			}
			if !ok {
				return arr, nil
			}
			v, err := parseValue(dec, child)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
	case "dict":
		d := &Dict{}
		for {
			k, ok, err := nextStartOrEnd(dec)
			if err != nil {
				return nil, err
			}
			if !ok {
				return d, nil
			}
			if k.Name.Local != "key" {
				return nil, fmt.Errorf("in <dict>: found <%s> where a <key> belongs", k.Name.Local)
			}
			key, err := text(dec)
			if err != nil {
				return nil, err
			}
			if _, dup := d.Get(key); dup {
				return nil, fmt.Errorf("key %q appears twice", key)
			}
			vel, err := nextStart(dec)
			if err != nil {
				return nil, fmt.Errorf("key %q: %w", key, err)
			}
			v, err := parseValue(dec, vel)
			if err != nil {
				return nil, fmt.Errorf("key %q: %w", key, err)
			}
			d.Entries = append(d.Entries, Entry{key, v})
		}
	}
	return nil, fmt.Errorf("unsupported element <%s>", el.Name.Local)
}

// text reads character data up to the end of the current element.
func text(dec *xml.Decoder) (string, error) {
	var b strings.Builder
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			b.Write(t)
		case xml.EndElement:
			return b.String(), nil
		case xml.StartElement:
			return "", fmt.Errorf("unexpected <%s> inside text", t.Name.Local)
		}
	}
}

// EncodePlist writes d as an XML property list in Apple's layout.
func EncodePlist(d *Dict) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
	b.WriteString(`<plist version="1.0">` + "\n")
	if err := encodeValue(&b, d, 0); err != nil {
		return nil, err
	}
	b.WriteString("</plist>\n")
	return b.Bytes(), nil
}

func encodeValue(b *bytes.Buffer, v any, depth int) error {
	indent := strings.Repeat("\t", depth)
	esc := func(s string) string {
		var e bytes.Buffer
		_ = xml.EscapeText(&e, []byte(s))
		return e.String()
	}
	switch v := v.(type) {
	case string:
		fmt.Fprintf(b, "%s<string>%s</string>\n", indent, esc(v))
	case bool:
		fmt.Fprintf(b, "%s<%t/>\n", indent, v)
	case int:
		fmt.Fprintf(b, "%s<integer>%d</integer>\n", indent, v)
	case int64:
		fmt.Fprintf(b, "%s<integer>%d</integer>\n", indent, v)
	case float64:
		fmt.Fprintf(b, "%s<real>%s</real>\n", indent, strconv.FormatFloat(v, 'g', -1, 64))
	case []any:
		fmt.Fprintf(b, "%s<array>\n", indent)
		for _, x := range v {
			if err := encodeValue(b, x, depth+1); err != nil {
				return err
			}
		}
		fmt.Fprintf(b, "%s</array>\n", indent)
	case []string:
		fmt.Fprintf(b, "%s<array>\n", indent)
		for _, x := range v {
			fmt.Fprintf(b, "%s\t<string>%s</string>\n", indent, esc(x))
		}
		fmt.Fprintf(b, "%s</array>\n", indent)
	case *Dict:
		fmt.Fprintf(b, "%s<dict>\n", indent)
		for _, e := range v.Entries {
			fmt.Fprintf(b, "%s\t<key>%s</key>\n", indent, esc(e.Key))
			if err := encodeValue(b, e.Value, depth+1); err != nil {
				return fmt.Errorf("key %q: %w", e.Key, err)
			}
		}
		fmt.Fprintf(b, "%s</dict>\n", indent)
	default:
		return fmt.Errorf("cannot write a %T in a property list", v)
	}
	return nil
}
