package whisper

// What make found when it built this binary (see `make whisper-config`),
// set with -X. A build made without make leaves them empty, and the
// doctor line says less.
var (
	// libVersion is whisper.cpp's version as its whisper.pc gives it.
	libVersion string
	// libOrigin says where that whisper.cpp came from: the package that
	// installed it, Nix, Homebrew, a build in ~/.local or `make whisper`.
	libOrigin string
	// pluginDir is the folder of ggml's CPU plug-in when ggml loads its
	// backends at run time. ggml looks in the folder it was built with and
	// beside the program; Nix puts the plug-ins in its bin instead, where
	// only this tells Hark to look.
	pluginDir string
	// installHint is, in a build without whisper.cpp, the one command that
	// gets it on this system (the distribution's package, or `make
	// whisper`), as `make prereqs` would offer it.
	installHint string
)
