package speech

import (
	"regexp"
	"strings"
	"unicode"
)

// Whisper marks what is not speech with tags and was trained on subtitles, so
// on silence or noise it tends to "hear" closing lines of videos. Neither may
// reach the agent as if the user had said it.
var (
	// A bracketed or parenthesised span of a few words: [BLANK_AUDIO],
	// [ Silence ], (music), (speaking in foreign language). Longer spans are
	// left alone, as real dictation can contain an aside in parentheses.
	tagRe = regexp.MustCompile(`[\[(【][^\[\]()【】]{0,60}[\])】]`)
	// *laughs*, *coughing*: a starred word or two.
	starRe = regexp.MustCompile(`\*[^*\n]{1,40}\*`)
	// Sung lyrics between note signs, then any stray note signs.
	musicRe = regexp.MustCompile(`[♪♫♬🎵🎶][^♪♫♬🎵🎶]*[♪♫♬🎵🎶]|[♪♫♬🎵🎶]`)
	spaceRe = regexp.MustCompile(`\s+`)
)

// stockPhrases are whisper's typical inventions on near-silent audio, written
// normalised (lower case, letters, digits and single spaces).
var stockPhrases = map[string]bool{
	"you": true, "thank you": true, "thank you very much": true, "thank you so much": true,
	"thanks": true, "thanks for watching": true, "thank you for watching": true,
	"thanks for listening": true, "thank you for listening": true,
	"please subscribe": true, "subscribe": true, "like and subscribe": true,
	"please like and subscribe": true, "subscribe to my channel": true,
	"see you next time": true, "see you in the next video": true,
	"bye": true, "bye bye": true, "goodbye": true, "the end": true,
	"okay": true, "ok": true, "oh": true, "so": true, "um": true, "uh": true, "hmm": true,
	"subtitles by the amara org community": true,
	"transcription by castingwords":        true,
}

// CleanTranscript removes whisper's non-speech output from text: tags such as
// [BLANK_AUDIO] or (music), *laughs*, ♪ lyrics ♪. When the recording was near
// silent (see Level.NearSilent) it also drops text made only of stock phrases
// ("Thank you.", "Thanks for watching!", "you"). What remains has its spaces
// tidied; an empty result means nothing was said.
func CleanTranscript(text string, lv Level) string {
	text = musicRe.ReplaceAllString(text, " ")
	// Tags can nest once ("[ (music) ]"): two passes take both layers.
	for range 2 {
		text = tagRe.ReplaceAllStringFunc(text, func(tag string) string {
			if len(strings.Fields(tag)) > 6 {
				return tag
			}
			return " "
		})
	}
	text = starRe.ReplaceAllString(text, " ")
	text = strings.TrimSpace(spaceRe.ReplaceAllString(text, " "))
	// Whisper's speaker-change marks and dashes left alone by removed tags.
	text = strings.TrimSpace(strings.TrimLeft(text, ">-–— "))
	if !hasWords(text) {
		return ""
	}
	if lv.NearSilent() && onlyStockPhrases(text) {
		return ""
	}
	return text
}

func hasWords(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// onlyStockPhrases reports text whose every sentence is a stock phrase, so
// "Thank you. Thank you." goes too but "Thank you. Now list my files." stays.
func onlyStockPhrases(text string) bool {
	sentences := strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(".!?…,;", r) })
	seen := false
	for _, s := range sentences {
		n := normalise(s)
		if n == "" {
			continue
		}
		if !stockPhrases[n] {
			return false
		}
		seen = true
	}
	return seen
}

func normalise(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(r)
		case r == '\'' || r == '’':
			// "thank's" and "thank’s" alike: apostrophes vanish.
		default:
			space = true
		}
	}
	return b.String()
}
