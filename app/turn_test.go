package app

import (
	"reflect"
	"testing"
)

// TestTurnRunCannotReachApp guards the split between the loop and a
// turn's goroutine: no field of turnRun, followed through structs,
// pointers and containers, may lead to an App, whose state only the loop
// may touch. (Interface values are adapters; their concrete types are the
// wiring's, not the core's.)
func TestTurnRunCannotReachApp(t *testing.T) {
	t.Parallel()
	app := reflect.TypeOf(App{})
	seen := map[reflect.Type]bool{}
	var walk func(ty reflect.Type, path string)
	walk = func(ty reflect.Type, path string) {
		if ty == app {
			t.Errorf("a turn's goroutine reaches App through %s", path)
			return
		}
		if seen[ty] {
			return
		}
		seen[ty] = true
		switch ty.Kind() {
		case reflect.Struct:
			for i := range ty.NumField() {
				f := ty.Field(i)
				walk(f.Type, path+"."+f.Name)
			}
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
			walk(ty.Elem(), path+"[elem]")
		case reflect.Map:
			walk(ty.Key(), path+"[key]")
			walk(ty.Elem(), path+"[value]")
		}
	}
	walk(reflect.TypeOf(turnRun{}), "turnRun")
	if !seen[reflect.TypeOf(turnConfirmer{})] {
		t.Error("the walk never reached turnConfirmer: the check does not cover the confirmer a turn hands to the agent")
	}
}
