package main

// defaultCommand runs when hark is started without arguments. It becomes the
// menu-bar app once that exists.
var defaultCommand = "help"
