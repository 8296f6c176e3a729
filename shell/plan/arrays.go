package plan

import (
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// assocMark and sparseMark start, in Place.Vars, the value of an
// associative array and of an indexed array with gaps (a=(); a[3]=x):
// pairs of Go-quoted key and element follow, keys of a sparse array in
// ascending order.
const (
	assocMark  = "\x00assoc\x00"
	sparseMark = "\x00sparse\x00"
)

// restKey, among an array's keys, says that the array may hold more
// elements than those listed, with values the model does not know: after
// a[3]=x or declare -A m on a name the line never set, a[3] and m[k] are
// known while the rest of the array is not.
const restKey = "\x00rest"

// partial says whether an array value may hold unlisted elements.
func partial(v string) bool { return strings.Contains(v, strconv.Quote(restKey)) }

func pairsValue(mark string, keys, vals []string) string {
	var sb strings.Builder
	sb.WriteString(mark)
	for i := range keys {
		sb.WriteString(strconv.Quote(keys[i]))
		sb.WriteString(strconv.Quote(vals[i]))
	}
	return sb.String()
}

func assocValue(m map[string]string) string {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
	vals := make([]string, len(keys))
	for i, k := range keys {
		vals[i] = m[k]
	}
	return pairsValue(assocMark, keys, vals)
}

func pairsOf(v, mark string) (keys, vals []string, ok bool) {
	rest, ok := strings.CutPrefix(v, mark)
	if !ok {
		return nil, nil, false
	}
	for rest != "" {
		var pair [2]string
		for i := range pair {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, nil, false
			}
			pair[i], _ = strconv.Unquote(q)
			rest = rest[len(q):]
		}
		keys, vals = append(keys, pair[0]), append(vals, pair[1])
	}
	return keys, vals, true
}

// assocOf is the map of an associative array value.
func assocOf(v string) (map[string]string, bool) {
	keys, vals, ok := pairsOf(v, assocMark)
	if !ok {
		return nil, false
	}
	m := make(map[string]string, len(keys))
	for i, k := range keys {
		m[k] = vals[i]
	}
	return m, true
}

// indexedOf is an indexed array value (dense or sparse) as its elements
// and their indexes.
func indexedOf(v string) (idx []int, vals []string, ok bool) {
	if elems, ok := denseOf(v); ok {
		idx = make([]int, len(elems))
		for i := range idx {
			idx[i] = i
		}
		return idx, elems, true
	}
	keys, all, ok := pairsOf(v, sparseMark)
	if !ok {
		return nil, nil, false
	}
	for i, k := range keys {
		if k == restKey {
			continue
		}
		n, _ := strconv.Atoi(k)
		idx, vals = append(idx, n), append(vals, all[i])
	}
	return idx, vals, true
}

// indexedValue is the value of an indexed array, dense when it has no gaps.
func indexedValue(idx []int, vals []string, rest bool) string {
	dense := !rest
	for i, n := range idx {
		dense = dense && n == i
	}
	if dense {
		return arrayValue(vals)
	}
	keys := make([]string, len(idx))
	for i, n := range idx {
		keys[i] = strconv.Itoa(n)
	}
	if rest {
		keys, vals = append(keys, restKey), append(vals, "")
	}
	return pairsValue(sparseMark, keys, vals)
}

// variable is a value of Place.Vars as the expansion library reads it.
func variable(v string) expand.Variable {
	if m, ok := assocOf(v); ok {
		delete(m, restKey)
		return expand.Variable{Set: true, Kind: expand.Associative, Map: m}
	}
	if idx, vals, ok := indexedOf(v); ok {
		vr := expand.Variable{Set: true, Kind: expand.Indexed, List: vals}
		if !strings.HasPrefix(v, arrayMark) {
			vr.Indexes = idx
		}
		return vr
	}
	return expand.Variable{Set: true, Kind: expand.String, Str: v}
}

// subscript is the key an element assignment or expansion names: any
// literal word for an associative array, digits for an indexed one.
func subscript(index syntax.ArithmExpr, assoc bool) (string, bool) {
	w, ok := index.(*syntax.Word)
	if !ok {
		return "", false
	}
	l, ok := Literal(w)
	if !ok || !assoc && !isDigits(l) {
		return "", false
	}
	if !assoc {
		n, err := strconv.Atoi(l)
		if err != nil || n > 1<<20 {
			return "", false
		}
		return strconv.Itoa(n), true
	}
	return l, true
}

// elemAssign is the value of NAME[KEY]=VALUE over the old value: an
// associative array gains the key, an indexed array or a string (its
// element 0) the element. An old value the model cannot tell, or a
// subscript only known when it runs, is not followed.
func (w *walker) elemAssign(p Place, a *syntax.Assign, val string) string {
	name := a.Name.Value
	if val == unknownVar || a.Append {
		return unknownVar
	}
	old, known := lookupKnown(w.env, p, name)
	rest := partial(old)
	if raw, set := p.Vars[name]; !known && (!set || raw == unknownVar) {
		// what it held is not known, but this element will be
		old, rest = arrayValue(nil), true
	}
	if m, ok := assocOf(old); ok {
		k, ok := subscript(a.Index, true)
		if !ok {
			return unknownVar
		}
		m[k] = val
		return assocValue(m)
	}
	k, ok := subscript(a.Index, false)
	if !ok {
		return unknownVar
	}
	n, _ := strconv.Atoi(k)
	idx, vals, isArray := indexedOf(old)
	if !isArray {
		idx, vals = nil, nil
		if raw, set := p.Vars[name]; set && raw != unsetVar || !set && w.env.Vars != nil && hasKey(w.env.Vars, name) {
			idx, vals = []int{0}, []string{old}
		}
	}
	i, found := slices.BinarySearch(idx, n)
	if found {
		vals[i] = val
	} else {
		idx, vals = slices.Insert(idx, i, n), slices.Insert(vals, i, val)
	}
	return indexedValue(idx, vals, rest)
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// declareAssoc is what declare -A NAME leaves in NAME: an associative
// array kept as it was, a string become its element "0", or, for a name
// the line never set, an array whose elements are not known.
func declareAssoc(env Env, p Place, name string) string {
	old, known := lookupKnown(env, p, name)
	switch {
	case !known:
		return assocValue(map[string]string{restKey: ""})
	case strings.HasPrefix(old, assocMark):
		return old
	case strings.HasPrefix(old, "\x00"):
		return unknownVar // an indexed array: bash refuses to convert it
	case p.Vars[name] == unsetVar || env.Vars != nil && !hasKey(env.Vars, name) && !hasKey(p.Vars, name):
		return assocValue(nil)
	}
	return assocValue(map[string]string{"0": old})
}

// assocAssign is the value of NAME=([k]=v …) for an associative array;
// every element needs its literal key.
func (w *walker) assocAssign(p Place, a *syntax.Assign) string {
	if a.Append {
		return unknownVar
	}
	m := map[string]string{}
	for _, e := range a.Array.Elems {
		if e.Index == nil || e.Value == nil {
			return unknownVar
		}
		k, ok := subscript(e.Index, true)
		if !ok {
			return unknownVar
		}
		// bash 5.2 does not expand a tilde at the start of an element of
		// an associative list: declare -A m=([k]=~) holds a literal ~
		v := ""
		if lit, ok := e.Value.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
			l, ok := Literal(e.Value)
			if !ok {
				return unknownVar
			}
			v = l
		} else {
			v = w.scalar(p, e.Value)
		}
		if v == unknownVar {
			return unknownVar
		}
		m[k] = v
	}
	return assocValue(m)
}

// declAssign is an assignment inside declare, typeset, local, export or
// readonly; assoc says -A was given before it.
func (w *walker) declAssign(in []Place, a *syntax.Assign, assoc bool) []Place {
	if !assoc || a.Array == nil {
		if assoc && a.Index == nil {
			return markUnknown(in, "declare -A with a value that is not a list")
		}
		return w.assign(in, a)
	}
	return w.mapPlaces(in, func(p Place) Place { return setVar(p, a.Name.Value, w.assocAssign(p, a)) })
}

// hasElem says whether an array value lists the element key.
func hasElem(v, key string) bool {
	if m, ok := assocOf(v); ok {
		_, has := m[key]
		return has
	}
	idx, _, _ := indexedOf(v)
	n, err := strconv.Atoi(key)
	return err == nil && slices.Contains(idx, n)
}
