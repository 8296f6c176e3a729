package main

import (
	"os"

	"github.com/hark-sh/hark/shell/policy"
	"github.com/hark-sh/hark/speech"
)

// machineVocabulary is whisper's initial prompt: the settings' words and
// the names that matter on this machine (folders in home, programs on PATH
// that the policy knows, the branches of the repository Hark was started
// in), cached and capped by speech.MachineVocabulary.
func machineVocabulary(settingsWords string) string {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	return speech.MachineVocabulary(settingsWords, home, os.Getenv("PATH"), cwd, policy.Knows)
}
