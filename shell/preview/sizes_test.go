package preview

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// size is a size as a preview writes it, read back: its exact bytes (every
// size a preview writes is a whole number of bytes), its unit and how many
// decimals it has.
type size struct {
	bytes    int64
	power    int
	decimals int
}

var sizeRE = regexp.MustCompile(`(\d{1,3}(?:,\d{3})*)(?:\.(\d+))? (B|KB|MB|GB|TB|PB)\b`)

// sizesIn reads back every size in s, in order.
func sizesIn(t *testing.T, s string) []size {
	t.Helper()
	var out []size
	for _, m := range sizeRE.FindAllStringSubmatch(s, -1) {
		p := slices.Index(units[:], m[3])
		digits := strings.ReplaceAll(m[1], ",", "") + m[2]
		n, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			t.Fatalf("size %q in %q: %v", m[0], s, err)
		}
		exp := 3*p - len(m[2])
		if exp < 0 {
			t.Fatalf("size %q in %q is written finer than a byte", m[0], s)
		}
		for range exp {
			n *= 10
		}
		out = append(out, size{bytes: n, power: p, decimals: len(m[2])})
	}
	return out
}

// oneSize is the only size in s.
func oneSize(t *testing.T, s string) size {
	t.Helper()
	got := sizesIn(t, s)
	if len(got) != 1 {
		t.Fatalf("%q holds %d sizes, want one", s, len(got))
	}
	return got[0]
}

var countRE = regexp.MustCompile(`(\d[\d,]*) (folders?|files?)\b`)

// countsIn reads "3 folders, 1,204 files" back.
func countsIn(t *testing.T, s string) (folders, files int64) {
	t.Helper()
	for _, m := range countRE.FindAllStringSubmatch(s, -1) {
		n, err := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(m[2], "folder") {
			folders += n
		} else {
			files += n
		}
	}
	return folders, files
}

// addsUp checks that parts, as written, add up to total as written: those
// in the total's unit have its decimals and sum to it exactly, and the
// others are written in a smaller unit because at the total's precision
// they are nothing, even all together (a few bytes beside megabytes).
func addsUp(t *testing.T, what string, total size, parts []size) {
	t.Helper()
	step := int64(math.Pow10(3*total.power - total.decimals))
	var sum, small int64
	for _, p := range parts {
		switch {
		case p.power == total.power && p.decimals == total.decimals:
			sum += p.bytes
		case p.power < total.power:
			small += p.bytes
		default:
			t.Errorf("%s: part %+v is written unlike the total %+v", what, p, total)
		}
	}
	if sum != total.bytes {
		t.Errorf("%s: the parts add up to %d bytes as written, the total says %d", what, sum, total.bytes)
	}
	// Each of those is itself rounded, by at most 5 % (1.05 KB reads
	// "1.1 KB"); what they hold is below half a step, as written a little
	// more at most.
	if float64(2*small) > 1.05*float64(step) {
		t.Errorf("%s: the parts written in smaller units add up to %d bytes, which the total (%d bytes) would show", what, small, total.bytes)
	}
}

// roundsTo checks that written is bytes rounded at its own precision.
func roundsTo(t *testing.T, what string, written size, bytes int64) {
	t.Helper()
	half := math.Pow10(3*written.power-written.decimals) / 2
	if d := math.Abs(float64(written.bytes - bytes)); d > half {
		t.Errorf("%s: written as %d bytes, but it is %d", what, written.bytes, bytes)
	}
}

// genSizes is a set of sizes like those of a folder's files: spread over
// many orders of magnitude, with empty files and repeats.
func genSizes(r *rand.Rand) []int64 {
	n := 1 + r.IntN(4)
	if r.IntN(3) == 0 {
		n = 1 + r.IntN(30)
	}
	var out []int64
	for range n {
		switch k := r.IntN(10); {
		case k == 0:
			out = append(out, 0)
		case k <= 2 && len(out) > 0:
			out = append(out, out[r.IntN(len(out))])
		default:
			out = append(out, int64(math.Pow(10, r.Float64()*12)))
		}
	}
	return out
}

// A property over generated sets of sizes: for each, every size the
// preview writes is read back, and the lines add up exactly to the
// summary, for each of its totals; so do the lines a surface shows and its
// "more" line, wherever it cuts. Equal files read alike, and each line's
// size is its own rounded.
func TestSizesAddUpToTheSummary(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(21, 13))
	whole, sets := 0, 0
	for set := range 4000 {
		sizes := genSizes(r)
		a := &analyzer{}
		effOf := make([]effect, len(sizes))
		for i, b := range sizes {
			effOf[i] = effDelete
			if r.IntN(4) == 0 {
				effOf[i] = effReplace
			}
			if r.IntN(5) == 0 {
				a.say(fmt.Sprintf("gone%d: no such file or folder", i))
			}
			name := fmt.Sprintf("f%d", i)
			if effOf[i] == effReplace {
				a.add(effReplace, tally{Files: 1, Bytes: b}, func(s string) string { return name + ": file already there, " + s + ", replaced" })
			} else {
				a.add(effDelete, tally{Files: 1, Bytes: b}, func(s string) string { return name + ": file, " + s })
			}
		}
		p := a.render()
		what := fmt.Sprintf("set %d %v", set, sizes)
		if len(p.Lines) > maxLines {
			t.Fatalf("%s: %d lines", what, len(p.Lines))
		}

		// The summary's totals, by verb.
		totals := map[effect]string{}
		for _, ph := range strings.Split(strings.ToLower(p.Summary[:1])+p.Summary[1:], "; ") {
			for _, e := range []effect{effDelete, effReplace} {
				if w, ok := strings.CutPrefix(ph, verbs[e]+" "); ok {
					totals[e] = w
				}
			}
		}
		lineEff := func(l string) (effect, bool) {
			switch {
			case strings.HasSuffix(l, ", replaced"):
				return effReplace, true
			case strings.Contains(l, ": file, "):
				return effDelete, true
			}
			return 0, false
		}
		wantBytes := map[effect]int64{}
		for i, b := range sizes {
			wantBytes[effOf[i]] += b
		}

		allWhole := true
		for e, words := range totals {
			var total size // a total of nothing writes no size
			if wantBytes[e] > 0 {
				total = oneSize(t, words)
				roundsTo(t, what+" total", total, wantBytes[e])
			}
			if total.decimals != natural(wantBytes[e]).Decimals {
				allWhole = false
			}
			// Every cut a surface may make: the lines before it and what
			// More says of the rest add up to the total.
			for cut := 0; cut <= len(p.Lines); cut++ {
				var parts []size
				var files int64
				mores := []string{p.More(cut)}
				for _, l := range p.Lines[:cut] {
					if m, ok := strings.CutPrefix(l, "… and "); ok {
						mores = append(mores, m) // the preview's own last line
					} else if le, ok := lineEff(l); ok && le == e {
						parts = append(parts, oneSize(t, l))
						files++
					}
				}
				for _, more := range mores {
					_, counted, _ := strings.Cut(more, ": ")
					for _, ph := range strings.Split(counted, "; ") {
						if len(totals) > 1 {
							var ok bool
							if ph, ok = strings.CutPrefix(ph, verbs[e]+" "); !ok {
								continue
							}
						}
						_, f := countsIn(t, ph)
						files += f
						parts = append(parts, sizesIn(t, ph)...)
					}
				}
				if total.bytes == 0 {
					continue
				}
				addsUp(t, fmt.Sprintf("%s %s, cut at %d\n%s\n%s", what, verbs[e], cut, p.Summary, strings.Join(p.Lines, "\n")), total, parts)
				if _, wantFiles := countsIn(t, words); files != wantFiles {
					t.Errorf("%s %s, cut at %d: the lines count %d files, the total %d", what, verbs[e], cut, files, wantFiles)
				}
			}
		}

		// Each listed line: its own size, rounded, and equal files alike.
		seen := map[[2]int64]string{}
		listed := 0
		for _, l := range p.Lines {
			e, ok := lineEff(l)
			if !ok {
				continue
			}
			i, _ := strconv.Atoi(strings.TrimPrefix(l[:strings.Index(l, ":")], "f"))
			listed++
			w := oneSize(t, l)
			roundsTo(t, what+" line "+l, w, sizes[i])
			_, text, _ := strings.Cut(l, ", ")
			text = strings.TrimSuffix(strings.TrimPrefix(text, "file already there, "), ", replaced")
			key := [2]int64{int64(e), sizes[i]}
			if prev, ok := seen[key]; ok && prev != text {
				t.Errorf("%s: %d bytes read %q and %q", what, sizes[i], prev, text)
			}
			seen[key] = text
		}
		if len(sizes) == 1 {
			if l := p.Lines[len(p.Lines)-1]; !strings.HasSuffix(l, ", "+Size(sizes[0])) && !strings.Contains(l, ", "+Size(sizes[0])+",") {
				t.Errorf("%s: one file reads %q, not as Size writes it alone (%s)", what, l, Size(sizes[0]))
			}
		}
		if listed > 1 {
			sets++
			if allWhole {
				whole++
			}
		}
	}
	// Not a bound the code must meet (it depends on how many lines there
	// are), but the figure the choice of decimals is judged by.
	t.Logf("%d of %d generated previews of several files (%.0f %%) write their sizes with no more decimals than the totals alone", whole, sets, 100*float64(whole)/float64(sets))
}

// The case that was seen: four files of 110,592 bytes read "111 KB" each
// over a total of "442 KB". Now one decimal more makes them add up.
func TestEqualFilesAddUpToTheTotal(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for i := range 4 {
		sparse(t, filepath.Join(root, fmt.Sprintf("photo%d.jpg", i)), 110_592)
	}
	got := run(t, "rm photo0.jpg photo1.jpg photo2.jpg photo3.jpg", root, root)
	check(t, "rm", got, want{status: Shown, summary: "Deletes 4 files, 442.4 KB",
		lines: []string{"photo0.jpg: file, 110.6 KB", "photo1.jpg: file, 110.6 KB", "photo2.jpg: file, 110.6 KB", "photo3.jpg: file, 110.6 KB"}})
	if m := got.More(1); m != "3 more lines: 3 files, 331.8 KB" {
		t.Errorf("More(1) = %q", m)
	}
}

// A file of a few bytes beside a big folder reads as what it holds, not
// "0 MB", and the total is the folder's.
func TestTinyFileBesideABigFolder(t *testing.T) {
	t.Parallel()
	root := tree(t, "my_notes.txt:6")
	mustMkdirAll(t, filepath.Join(root, "old_builds"))
	sparse(t, filepath.Join(root, "old_builds", "app.img"), 240_000_000)
	got := run(t, "rm -r old_builds my_notes.txt", root, root)
	check(t, "rm", got, want{status: Shown, summary: "Deletes 1 folder, 2 files, 240 MB",
		lines: []string{"old_builds: folder with 1 file, 240 MB", "my_notes.txt: file, 6 B"}})
}

// More than a preview keeps: the last line counts the rest and their size,
// and with the lines kept it adds up to the summary.
func TestMoreLineCarriesItsCountAndSize(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var names []string
	for i := range 15 {
		name := fmt.Sprintf("f%02d", i)
		sparse(t, filepath.Join(root, name), int64(1000+i*37_013))
		names = append(names, name)
	}
	got := run(t, "rm "+strings.Join(names, " "), root, root)
	if got == nil || len(got.Lines) != maxLines || got.Omitted != 4 {
		t.Fatalf("preview %+v", got)
	}
	last := got.Lines[maxLines-1]
	if !strings.HasPrefix(last, "… and 4 more lines: 4 files, ") {
		t.Fatalf("last line %q", last)
	}
	total := oneSize(t, got.Summary)
	var parts []size
	for _, l := range got.Lines {
		parts = append(parts, oneSize(t, l))
	}
	addsUp(t, got.Summary+"\n"+strings.Join(got.Lines, "\n"), total, parts)
	// A surface that shows 4 lines: the more it writes counts the other
	// 11, the 4 hidden behind the last line included.
	m := got.More(4)
	if !strings.HasPrefix(m, "11 more lines: 11 files, ") {
		t.Errorf("More(4) = %q", m)
	}
	parts = nil
	for _, l := range got.Lines[:4] {
		parts = append(parts, oneSize(t, l))
	}
	addsUp(t, "cut at 4: "+m, total, append(parts, oneSize(t, m)))
}

// Several totals: More names each by its verb.
func TestMoreNamesEachTotal(t *testing.T) {
	t.Parallel()
	root := tree(t, "a:2000", "b:3000", "dest/b:5000")
	got := run(t, "rm a; mv b dest/", root, root)
	if got == nil {
		t.Fatal("no preview")
	}
	if want := "Deletes 1 file, 2.0 KB; moves 1 file, 3.0 KB; replaces 1 file, 5.0 KB"; got.Summary != want {
		t.Errorf("summary %q, want %q", got.Summary, want)
	}
	if m, want := got.More(0), "3 more lines: deletes 1 file, 2.0 KB; moves 1 file, 3.0 KB; replaces 1 file, 5.0 KB"; m != want {
		t.Errorf("More(0) = %q, want %q\n%s", m, want, strings.Join(got.Lines, "\n"))
	}
	if m := got.More(len(got.Lines)); m != "" {
		t.Errorf("More past the end = %q", m)
	}
}

// More reads a decoded preview, whatever it holds, without panicking.
func TestMoreOfABadPreview(t *testing.T) {
	t.Parallel()
	p := &Preview{Lines: []string{"a", "b"}, Totals: []Total{{Verb: "deletes", Scale: Scale{Power: 1, Decimals: -3}}},
		Counts: []Count{{Line: 1, Total: 5}, {Line: 7, Total: 0}, {Line: 1, Total: 0, Files: 1, Bytes: 2000, Shown: 2}}}
	if m := p.More(1); m != "1 more line: 1 file, 2 KB" {
		t.Errorf("More = %q", m)
	}
	p.Totals[0].Scale = Scale{Power: 9, Decimals: 40} // past PB, finer than bytes: read as PB to the byte
	if m := p.More(1); m != "1 more line: 1 file, 0.00000000000002 PB" {
		t.Errorf("More with a scale past PB = %q", m)
	}
	if m := (*Preview)(nil).More(0); m != "" {
		t.Errorf("nil More = %q", m)
	}
}

func TestScales(t *testing.T) {
	t.Parallel()
	cases := []struct {
		total int64
		parts []int64
		want  Scale
	}{
		{442_368, []int64{110_592, 110_592, 110_592, 110_592}, Scale{Power: 1, Decimals: 1}},
		{30, []int64{10, 20}, Scale{}},
		{2_400, []int64{1_200, 1_200}, Scale{Power: 1, Decimals: 1}},
		{12_000, []int64{2_400, 9_600}, Scale{Power: 1}},
		{1_500, []int64{500, 1_000}, Scale{Power: 1, Decimals: 1}},          // 0.5 + 1.0 = 1.5
		{3_015, []int64{1_005, 1_005, 1_005}, Scale{Power: 1, Decimals: 1}}, // 1.0 ×3 = 3.0
		{3_150, []int64{1_050, 1_050, 1_050}, Scale{Power: 1, Decimals: 2}}, // 1.1 ×3 ≠ 3.2, 1.05 ×3 = 3.15
		{3_090, []int64{1_000, 1_045, 1_045}, Scale{}},                      // 3.1 ≠ 3.0, 3.09 ≠ 3.1: bytes
	}
	for _, c := range cases {
		if got := scaleFor(c.total, c.parts); got != c.want {
			t.Errorf("scaleFor(%d, %v) = %+v, want %+v", c.total, c.parts, got, c.want)
		}
	}
	for in, w := range map[int64]string{999_999: "1.0 MB", 999_499: "999 KB", 1_000: "1.0 KB", 1 << 62: "4,612 PB"} {
		if got := Size(in); got != w {
			t.Errorf("Size(%d) = %q, want %q", in, got, w)
		}
	}
	if got := (Scale{}).text(3_015, 3_015); got != "3,015 B" {
		t.Errorf("bytes written %q", got)
	}
	if got := (Scale{Power: 2}).text(0, 0); got != "0 B" {
		t.Errorf("an empty file at MB reads %q", got)
	}
}

// sparse makes a file of n bytes that takes no room on the disk.
func sparse(t *testing.T, p string, n int64) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(n); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
