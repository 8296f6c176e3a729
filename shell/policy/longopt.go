package policy

// LongMatch reports whether the option a ("--rec", "--recursive=x") is,
// or abbreviates, the long option long ("--recursive"), as GNU tools read
// it. The preview reads long options with this same function, so what the
// classifier asks about and what the preview shows cannot disagree on an
// abbreviation.
func LongMatch(a, long string) bool { return longMatch(a, long) }
