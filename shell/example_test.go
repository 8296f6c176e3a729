package shell_test

import (
	"context"
	"fmt"
	"os"

	"github.com/hark-sh/hark/shell"
)

// Classify first, then run: a safe verdict runs at once inside the read-only
// sandbox. The sandbox helper is the test binary itself (see TestMain), as
// it is hark in the real program.
func ExampleRunner_Run() {
	home, err := os.MkdirTemp("", "hark-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)

	const cmd = "echo hi"
	verdict := shell.NewPolicy().Classify(cmd)
	r := shell.NewRunner(shell.RunnerOptions{Shell: "/bin/sh", Home: home})
	res := r.Run(context.Background(), shell.Request{Command: cmd, Verdict: verdict})
	fmt.Printf("tier %s, executed %v, exit %d\n", res.Tier, res.Executed, res.ExitCode)
	fmt.Printf("output %q\n", res.Output)
	// Output:
	// tier safe, executed true, exit 0
	// output "hi\n"
}
