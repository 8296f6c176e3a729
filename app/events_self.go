package app

import "context"

// selfHandled is an event of the loop's own that names the method it
// means, so that handle stays one screen: handle calls handleBy, on the
// event loop like every other case.
type selfHandled interface {
	Event
	handleBy(ctx context.Context, a *App)
}

func (e stageEvent) handleBy(_ context.Context, a *App)   { a.turnStage(e) }
func (e agentEvent) handleBy(_ context.Context, a *App)   { a.agentProgress(e) }
func (e pendingAdd) handleBy(_ context.Context, a *App)   { a.addPending(e) }
func (countdown) handleBy(_ context.Context, a *App)      { a.countdownTick() }
func (e heard) handleBy(_ context.Context, a *App)        { a.heardText(e) }
func (e convChosen) handleBy(_ context.Context, a *App)   { a.convChosen(e) }
func (e answerHeard) handleBy(_ context.Context, a *App)  { a.answerHeardText(e) }
func (e speechPart) handleBy(_ context.Context, a *App)   { a.speechPartDone(e) }
func (e speechEnded) handleBy(_ context.Context, a *App)  { a.speechDone(e) }
func (e partialHeard) handleBy(_ context.Context, a *App) { a.partialText(e) }
func (e turnDone) handleBy(_ context.Context, a *App)     { a.finish(e) }
func (renderFlush) handleBy(_ context.Context, a *App)    { a.flushRender() }
func (e recentLoaded) handleBy(_ context.Context, a *App) { a.gotRecent(e) }
