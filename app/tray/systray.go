//go:build !(darwin && !cgo)

package tray

import (
	"runtime"

	"fyne.io/systray"

	"github.com/hark-sh/hark/app"
)

// New returns a Tray drawing into fyne.io/systray. Call it before Run or in
// its onReady callback; Render may be called from any goroutine.
func New(o Options) *Tray { return newTray(systrayBackend{}, o) }

// Run starts the tray on the calling goroutine, which must be the main one
// (macOS draws the menu bar only from the main thread). onReady runs on its
// own goroutine once the tray exists and must return promptly: on Linux the
// menu is not served over D-Bus until it has. Run returns after Quit.
func Run(onReady, onExit func()) error {
	if runtime.GOOS != "darwin" {
		// Before Run this only names the item: hosts list it as "Hark".
		systray.SetTitle("Hark")
	}
	systray.Run(onReady, onExit)
	return nil
}

// Quit ends Run.
func Quit() { systray.Quit() }

type systrayBackend struct{}

type item struct{ m *systray.MenuItem }

func (i item) Clicked() <-chan struct{} { return i.m.ClickedCh }

func (systrayBackend) reset() { systray.ResetMenu() }

func (systrayBackend) add(parent handle, it app.MenuItem) handle {
	var m *systray.MenuItem
	checkbox := it.Kind == app.ItemCheckbox
	it.Label = Text(runtime.GOOS, it)
	switch p, ok := parent.(item); {
	case ok && checkbox:
		m = p.m.AddSubMenuItemCheckbox(it.Label, it.Tooltip, it.Checked)
	case ok:
		m = p.m.AddSubMenuItem(it.Label, it.Tooltip)
	case checkbox:
		m = systray.AddMenuItemCheckbox(it.Label, it.Tooltip, it.Checked)
	default:
		m = systray.AddMenuItem(it.Label, it.Tooltip)
	}
	if !Enabled(it) {
		m.Disable()
	}
	return item{m}
}

func (systrayBackend) separator(parent handle) {
	if p, ok := parent.(item); ok {
		p.m.AddSeparator()
		return
	}
	systray.AddSeparator()
}

func (systrayBackend) update(h handle, it app.MenuItem) {
	m := h.(item).m
	m.SetTitle(Text(runtime.GOOS, it))
	m.SetTooltip(it.Tooltip)
	if it.Kind == app.ItemCheckbox {
		// Linux never toggles a checkbox by itself; the core's model decides.
		if it.Checked {
			m.Check()
		} else {
			m.Uncheck()
		}
	}
	if Enabled(it) {
		m.Enable()
	} else {
		m.Disable()
	}
}

func (systrayBackend) hide(h handle) { h.(item).m.Hide() }

func (systrayBackend) show(h handle) { h.(item).m.Show() }

func (systrayBackend) setIcon(name string, regular, template []byte) {
	if runtime.GOOS == "darwin" && len(template) > 0 {
		systray.SetTemplateIcon(template, regular)
		return
	}
	systray.SetIcon(regular)
}

func (systrayBackend) setTooltip(s string) { systray.SetTooltip(s) }

func (systrayBackend) setTitle(s string) {
	// On Linux the SNI Title is the item's name in the host, not text beside
	// the icon; streaming words there would rename the item.
	if runtime.GOOS == "darwin" {
		systray.SetTitle(s)
	}
}
