//go:build e2e

package main

import (
	"os"
	"time"
)

// watchEvery, in the end-to-end test build only, reads the period of the
// settings look from HARK_E2E_WATCH_EVERY, so that a test can show that
// a file event, not the look, saw a save.
func watchEvery() time.Duration {
	d, _ := time.ParseDuration(os.Getenv("HARK_E2E_WATCH_EVERY"))
	return d
}
