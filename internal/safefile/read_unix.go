//go:build unix

package safefile

import "syscall"

// openFlags make an open that cannot block or take a terminal: O_NONBLOCK
// returns at once from a named pipe with no writer (the read end of a
// FIFO otherwise waits for one for ever, deaf to SIGINT), and O_NOCTTY
// keeps a terminal that won the race from becoming ours.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
