//go:build !linux

package main

import "time"

// cpuTime is unknown here: the figures are taken on Linux.
func cpuTime() time.Duration { return -1 }

// peakRSS is unknown here: the figures are taken on Linux.
func peakRSS() int64 { return 0 }

// processCPU is unknown here: the figures are taken on Linux.
func processCPU(int) time.Duration { return -1 }

// treeRSS is unknown here: the figures are taken on Linux.
func treeRSS(int) (rss, anon int64) { return 0, 0 }

// processPeakRSS is unknown here: the figures are taken on Linux.
func processPeakRSS(int) int64 { return 0 }
