// Package models knows the official whisper.cpp ggml models and installs
// them: a catalog with published sizes and checksums, a list of what is in
// the models folder, and a download that resumes, verifies the checksum and
// only then puts the file in place, so a model on disk is always complete.
package models

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Default is the model used when the settings name none: English-only,
// small enough to load in a second, accurate enough for spoken commands.
const Default = "base.en"

// Model is one downloadable ggml model.
type Model struct {
	Name     string // e.g. "base.en"; the file is ggml-<Name>.bin
	SizeMiB  int    // approximate size as published, for display
	Checksum string // "sha1:<hex>" or "sha256:<hex>" of the whole file
	// FileName, when set, is the file's name instead of ggml-<Name>.bin.
	FileName string
	// BaseURL, when set, is the server folder holding the file, instead of
	// the Downloader's (the modelBaseURL setting, which names the whisper
	// models' folder).
	BaseURL string
}

// File is the model's file name on the server and on disk.
func (m Model) File() string {
	if m.FileName != "" {
		return m.FileName
	}
	return "ggml-" + m.Name + ".bin"
}

// Catalog lists the official ggml conversions of OpenAI's Whisper models
// hosted at huggingface.co/ggerganov/whisper.cpp, with the SHA-1 sums their
// publishers list:
//   - the full-precision models and the q5_0 ones of large-v2, large-v3 and
//     large-v3-turbo: the "Available models" table of models/README.md in
//     github.com/ggml-org/whisper.cpp (commit 233fe1fc, 2026-08-22);
//   - the other quantized models (q5_1, q8_0, medium q5_0): the table of the
//     model card (README.md) of huggingface.co/ggerganov/whisper.cpp, whose
//     rows for the full-precision models match the first source exactly.
//
// Sizes are the published rounded figures. Every sum here is copied from
// those tables, none computed or guessed; a model without a published sum
// is left out rather than downloaded unverified.
var Catalog = []Model{
	{Name: "tiny", SizeMiB: 75, Checksum: "sha1:bd577a113a864445d4c299885e0cb97d4ba92b5f"},
	{Name: "tiny-q5_1", SizeMiB: 31, Checksum: "sha1:2827a03e495b1ed3048ef28a6a4620537db4ee51"},
	{Name: "tiny-q8_0", SizeMiB: 42, Checksum: "sha1:19e8118f6652a650569f5a949d962154e01571d9"},
	{Name: "tiny.en", SizeMiB: 75, Checksum: "sha1:c78c86eb1a8faa21b369bcd33207cc90d64ae9df"},
	{Name: "tiny.en-q5_1", SizeMiB: 31, Checksum: "sha1:3fb92ec865cbbc769f08137f22470d6b66e071b6"},
	{Name: "tiny.en-q8_0", SizeMiB: 42, Checksum: "sha1:802d6668e7d411123e672abe4cb6c18f12306abb"},
	{Name: "base", SizeMiB: 142, Checksum: "sha1:465707469ff3a37a2b9b8d8f89f2f99de7299dac"},
	{Name: "base-q5_1", SizeMiB: 57, Checksum: "sha1:a3733eda680ef76256db5fc5dd9de8629e62c5e7"},
	{Name: "base-q8_0", SizeMiB: 78, Checksum: "sha1:7bb89bb49ed6955013b166f1b6a6c04584a20fbe"},
	{Name: "base.en", SizeMiB: 142, Checksum: "sha1:137c40403d78fd54d454da0f9bd998f78703390c"},
	{Name: "base.en-q5_1", SizeMiB: 57, Checksum: "sha1:d26d7ce5a1b6e57bea5d0431b9c20ae49423c94a"},
	{Name: "base.en-q8_0", SizeMiB: 78, Checksum: "sha1:bb1574182e9b924452bf0cd1510ac034d323e948"},
	{Name: "small", SizeMiB: 466, Checksum: "sha1:55356645c2b361a969dfd0ef2c5a50d530afd8d5"},
	{Name: "small-q5_1", SizeMiB: 181, Checksum: "sha1:6fe57ddcfdd1c6b07cdcc73aaf620810ce5fc771"},
	{Name: "small-q8_0", SizeMiB: 252, Checksum: "sha1:bcad8a2083f4e53d648d586b7dbc0cd673d8afad"},
	{Name: "small.en", SizeMiB: 466, Checksum: "sha1:db8a495a91d927739e50b3fc1cc4c6b8f6c2d022"},
	{Name: "small.en-q5_1", SizeMiB: 181, Checksum: "sha1:20f54878d608f94e4a8ee3ae56016571d47cba34"},
	{Name: "small.en-q8_0", SizeMiB: 252, Checksum: "sha1:9d75ff4ccfa0a8217870d7405cf8cef0a5579852"},
	{Name: "medium", SizeMiB: 1536, Checksum: "sha1:fd9727b6e1217c2f614f9b698455c4ffd82463b4"},
	{Name: "medium-q5_0", SizeMiB: 514, Checksum: "sha1:7718d4c1ec62ca96998f058114db98236937490e"},
	{Name: "medium-q8_0", SizeMiB: 785, Checksum: "sha1:e66645948aff4bebbec71b3485c576f3d63af5d6"},
	{Name: "medium.en", SizeMiB: 1536, Checksum: "sha1:8c30f0e44ce9560643ebd10bbe50cd20eafd3723"},
	{Name: "medium.en-q5_0", SizeMiB: 514, Checksum: "sha1:bb3b5281bddd61605d6fc76bc5b92d8f20284c3b"},
	{Name: "medium.en-q8_0", SizeMiB: 785, Checksum: "sha1:b1cf48c12c807e14881f634fb7b6c6ca867f6b38"},
	{Name: "large-v1", SizeMiB: 2970, Checksum: "sha1:b1caaf735c4cc1429223d5a74f0f4d0b9b59a299"},
	{Name: "large-v2", SizeMiB: 2970, Checksum: "sha1:0f4c8e34f21cf1a914c59d8b3ce882345ad349d6"},
	{Name: "large-v2-q5_0", SizeMiB: 1126, Checksum: "sha1:00e39f2196344e901b3a2bd5814807a769bd1630"},
	{Name: "large-v2-q8_0", SizeMiB: 1536, Checksum: "sha1:da97d6ca8f8ffbeeb5fd147f79010eeea194ba38"},
	{Name: "large-v3", SizeMiB: 2970, Checksum: "sha1:ad82bf6a9043ceed055076d0fd39f5f186ff8062"},
	{Name: "large-v3-q5_0", SizeMiB: 1126, Checksum: "sha1:e6e2ed78495d403bef4b7cff42ef4aaadcfea8de"},
	{Name: "large-v3-turbo", SizeMiB: 1536, Checksum: "sha1:4af2b29d7ec73d781377bfd1758ca957a807e941"},
	{Name: "large-v3-turbo-q5_0", SizeMiB: 547, Checksum: "sha1:e050f7970618a659205450ad97eb95a18d69c9ee"},
	{Name: "large-v3-turbo-q8_0", SizeMiB: 834, Checksum: "sha1:01bf15bedffe9f39d65c1b6ff9b687ea91f59e0e"},
}

// VADBaseURL is where whisper.cpp's project publishes its ggml conversions
// of the Silero voice activity detector (models/download-vad-model.sh).
const VADBaseURL = "https://huggingface.co/ggml-org/whisper-vad/resolve/main"

// VADCatalog lists the Silero voice activity models whisper.cpp runs. Hark
// uses the first one installed to trim silence and refuse recordings without
// speech before whisper runs. The names are those of
// models/download-vad-model.sh in github.com/ggml-org/whisper.cpp (pinned
// commit 9453b4b9), shortened to the major version. The SHA-256 sums are as
// independent projects that pin these files record them (several agree on
// each, with the size 885,098 bytes); the v6.2.0 sum is also that of the
// byte-identical copy whisper.cpp keeps in its repository as
// models/for-tests-silero-v6.2.0-ggml.bin.
var VADCatalog = []Model{
	{Name: "silero-v5", SizeMiB: 1, Checksum: "sha256:29940d98d42b91fbd05ce489f3ecf7c72f0a42f027e4875919a28fb4c04ea2cf", FileName: "ggml-silero-v5.1.2.bin", BaseURL: VADBaseURL},
	{Name: "silero-v6", SizeMiB: 1, Checksum: "sha256:2aa269b785eeb53a82983a20501ddf7c1d9c48e33ab63a41391ac6c9f7fb6987", FileName: "ggml-silero-v6.2.0.bin", BaseURL: VADBaseURL},
}

// All is every model `hark models download` knows: Catalog, then
// VADCatalog.
func All() []Model {
	return append(append([]Model(nil), Catalog...), VADCatalog...)
}

// FindVAD returns the path of the first model of VADCatalog installed in
// dir, or "" when there is none.
func FindVAD(dir string) string {
	for _, m := range VADCatalog {
		path := filepath.Join(dir, m.File())
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
			return path
		}
	}
	return ""
}

// CheckVAD finds the VAD model FindVAD would use and verifies its checksum:
// the name and path of the model, "" when none is installed, and an error
// when the file is not the published one.
func CheckVAD(dir string) (name, path string, err error) {
	path = FindVAD(dir)
	if path == "" {
		return "", "", nil
	}
	for _, m := range VADCatalog {
		if filepath.Join(dir, m.File()) != path {
			continue
		}
		if err := verify(path, m.Checksum); errors.Is(err, ErrChecksum) {
			return m.Name, path, fmt.Errorf("%w: %s is not the published %s file", ErrChecksum, path, m.Name)
		} else if err != nil {
			return m.Name, path, err
		}
		return m.Name, path, nil
	}
	return "", "", nil
}

// Lookup finds a model of catalog by name.
func Lookup(catalog []Model, name string) (Model, error) {
	for _, m := range catalog {
		if m.Name == name {
			return m, nil
		}
	}
	names := make([]string, len(catalog))
	for i, m := range catalog {
		names[i] = m.Name
	}
	return Model{}, fmt.Errorf("no model called %q; known models: %s", name, strings.Join(names, ", "))
}

// Installed is a model file present in the models folder.
type Installed struct {
	Name  string // catalog name, or the file name for a file the catalog does not know
	Path  string
	Bytes int64
	Known bool // in the catalog
}

// List returns the ggml model files in dir, catalog models first in catalog
// order. A missing dir is an empty list. Unfinished downloads (.part) are
// not models and are left out.
func List(dir string, catalog []Model) ([]Installed, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	byFile := map[string]Model{}
	order := map[string]int{}
	for i, m := range catalog {
		byFile[m.File()] = m
		order[m.Name] = i
	}
	var out []Installed
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".bin") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		in := Installed{Name: name, Path: filepath.Join(dir, name), Bytes: info.Size()}
		if m, ok := byFile[name]; ok {
			in.Name, in.Known = m.Name, true
		}
		out = append(out, in)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Known != b.Known {
			return a.Known
		}
		if a.Known {
			return order[a.Name] < order[b.Name]
		}
		return a.Name < b.Name
	})
	return out, nil
}

// Resolve turns the whisperModel setting into a file path: a path to a file
// is used as it is; a catalog name means that model in dir, which must have
// been downloaded.
func Resolve(setting, dir string, catalog []Model) (string, error) {
	if strings.ContainsRune(setting, os.PathSeparator) || strings.HasSuffix(setting, ".bin") {
		if _, err := os.Stat(setting); err != nil {
			return "", fmt.Errorf("model file %s: %w", setting, err)
		}
		return setting, nil
	}
	m, err := Lookup(catalog, setting)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, m.File())
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("model %s is not installed in %s; run `hark models download %s` (about %d MiB)", m.Name, dir, m.Name, m.SizeMiB)
	}
	return path, nil
}

// IsVAD reports whether m is a voice activity model rather than a whisper
// model.
func IsVAD(m Model) bool { return strings.HasPrefix(m.Name, "silero-") }

// English reports whether m knows English only (the ".en" models): it
// transcribes any other language as garbled English.
func English(m Model) bool { return strings.Contains(m.Name, ".en") }

// fits is what each size of whisper model asks of the machine, by family,
// from the memory whisper.cpp's README gives for each (tiny 273 MB, base
// 388 MB, small 852 MB, medium 2.1 GB, large 3.9 GB); the quantized ones
// need less memory but about the same speed.
var fits = []struct{ family, text string }{
	{"tiny", "fits any laptop, least accurate"},
	{"base", "fits any laptop"},
	{"small", "fits most laptops, 1 GB of memory"},
	{"medium", "2 GB of memory, a fast laptop"},
	{"large", "4 GB of memory, Apple silicon or a GPU"},
}

// About says what choosing m costs besides its size, for a menu row: the
// languages it knows and what machine it fits.
func About(m Model) string {
	if IsVAD(m) {
		return "optional: keeps music and typing away from whisper"
	}
	lang := "multilingual"
	if English(m) {
		lang = "English only"
	}
	for _, f := range fits {
		if strings.HasPrefix(m.Name, f.family) {
			return lang + ", " + f.text
		}
	}
	return lang
}

// offerOrder is the whisper models offered to someone who has none, the
// small ones first: every one fits a laptop, and between them they show
// the trade of size, speed and languages.
var offerOrder = []string{"base.en", "small.en", "tiny.en", "base", "small", "tiny"}

// Offers lists the whisper models of catalog to offer when the one the
// setting names is missing: that one first, then the others of
// offerOrder that can hear language ("" and "en" mean English; any other
// rules the English-only models out), at most four in all.
func Offers(setting, language string, catalog []Model) []Model {
	english := language == "" || language == "en"
	var out []Model
	if m, err := Lookup(catalog, setting); err == nil && !IsVAD(m) && (english || !English(m)) {
		out = append(out, m)
	}
	for _, name := range offerOrder {
		if len(out) == 4 {
			break
		}
		m, err := Lookup(catalog, name)
		if err != nil || m.Name == setting || (English(m) && !english) {
			continue
		}
		out = append(out, m)
	}
	return out
}
