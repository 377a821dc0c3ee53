// Package layers holds no code: its test keeps the import graph the way
// docs/DESIGN.md draws it, so that a dependency pointing the wrong way
// fails CI instead of creeping in.
package layers
