package app

// Every invitation to speak — "Say yes or no", "hold the hotkey and
// speak", the ready line, Say it again — reads the one state here, so
// Hark never asks for a voice it cannot hear.

// listenParts are the problem sources that stop voice input: without one
// of them a recording cannot start, or cannot be turned into words.
var listenParts = []string{"voice", "hotkey", "microphone", "transcriber"}

// listenWhy says why voice input cannot work now, "" when it can: the
// recorder and transcriber exist and no problem stands in their way.
func listenWhy(hasVoice bool, problems map[string]ProblemInfo) string {
	for _, src := range listenParts {
		if p, ok := problems[src]; ok {
			if p.Title != "" {
				return p.Title
			}
			return "voice input is not available"
		}
	}
	if !hasVoice {
		return "voice input is not available"
	}
	return ""
}

// cantListen is listenWhy for the app now.
func (a *App) cantListen() string {
	return listenWhy(a.o.Recorder != nil && a.o.Transcriber != nil, a.problems)
}

// noVoiceAnswer is how a spoken approval ends when a spoken answer cannot
// be heard: where to answer instead.
const noVoiceAnswer = "Answer in the menu or the notification."

// answerPrompt is the last thing said about an approval: how to answer
// it. byVoice says a spoken answer can be heard now; without it the
// prompt sends the person to the menu or the notification.
func answerPrompt(p Pending, byVoice bool) string {
	click := needsClick(p)
	switch {
	case p.Client != "":
		// A spoken answer never reaches another program's approval
		// (voiceAnswerable): only a click does.
		return "Answer it in the menu or the notification."
	case !byVoice && click != "":
		return sentence(click) + " " + noVoiceAnswer
	case !byVoice:
		return noVoiceAnswer
	case click != "":
		return sentence(click) + " Or say no."
	case p.TrashOffered:
		return "Say yes to move it to the Trash, delete it to delete, or no."
	}
	return "Say yes or no."
}

// speakHint is what to do to make a request now, for a notification that
// ends with the next step: hold (or press) the hotkey where Hark can
// listen, else type, with why voice is off.
func (a *App) speakHint() string {
	if why := a.cantListen(); why != "" {
		how := "run  hark send \"your request\"  in a terminal"
		if a.o.Prompter != nil {
			how = "use Type a request… in the Hark menu"
		}
		return "To ask something, " + how + " (voice input is off — see Problems…)."
	}
	if a.settings.HotkeyMode == ModeToggle {
		return "Press " + a.hotkeyName() + " and speak."
	}
	return "Hold " + a.hotkeyName() + " and speak."
}
