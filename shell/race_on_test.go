//go:build race

package shell

// raceEnabled: the race detector's shadow memory is counted in each
// process's own memory, which swamps tests that measure small sets.
const raceEnabled = true
