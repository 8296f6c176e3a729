package shell

// ProbeError is a failed probe of something Hark needs, for `hark doctor`
// and the app's status line: what is wrong, the exact next step, and
// whether Hark still works without it (Limited). app/doctor reads Fix and
// Limited by method, so this package need not import the app.
type ProbeError struct {
	Problem string // what is wrong, in a sentence fragment
	Next    string // the exact next step: a command to run or a setting to change
	Minor   bool   // Hark works without it, only not fully
}

func (e *ProbeError) Error() string { return e.Problem }

// Fix is the next step.
func (e *ProbeError) Fix() string { return e.Next }

// Limited reports whether Hark works without it.
func (e *ProbeError) Limited() bool { return e.Minor }
