// Package app assembles switchboard's parts — discovery, the host, the
// config watcher and the gateway — the way the command line runs them, so
// that `serve`, `watch` and an embedder are the same few calls (DESIGN.md,
// "Packages").
package app
