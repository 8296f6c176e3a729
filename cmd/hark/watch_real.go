//go:build !e2e

package main

import "time"

// watchEvery is the app's own period for looking at settings.json.
func watchEvery() time.Duration { return 0 }
