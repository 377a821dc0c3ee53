//go:build !race

package toolsearch

const raceOn = false
