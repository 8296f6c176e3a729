package main

// defaultCommand runs when hark is started without arguments: the menu-bar
// app.
var defaultCommand = "run"
