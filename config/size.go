package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the units ParseSize knows: IEC binary units, and SI
// decimal ones, as the same letters mean elsewhere.
var sizeUnits = map[string]int64{
	"":    1,
	"b":   1,
	"kb":  1e3,
	"mb":  1e6,
	"gb":  1e9,
	"kib": 1 << 10,
	"mib": 1 << 20,
	"gib": 1 << 30,
}

// ParseSize reads a size such as "64MiB", "64 MiB", "100MB", "1.5GiB" or
// "1048576" (bytes). KiB, MiB and GiB are powers of 1024; kB, MB and GB
// powers of 1000; units are matched without regard to case. The result is
// rounded down to a whole byte.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(t)
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := sizeUnits[unit]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q (want B, KiB, MiB, GiB, kB, MB or GB)", strings.TrimSpace(t[i:]))
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, errors.New("want a number of bytes or a size like \"64MiB\"")
	}
	v := f * float64(mult)
	if v >= math.MaxInt64 {
		return 0, errors.New("too large")
	}
	return int64(v), nil
}

// FormatSize renders a size as a person reads it: whole units of B, KiB,
// MiB or GiB where it is a whole number of them ("64 MiB"), one decimal
// otherwise ("100.0 MiB" is a little over 100 MiB when it is not exact).
func FormatSize(n int64) string {
	units := []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for _, u := range units {
		if n >= u.size {
			if n%u.size == 0 {
				return fmt.Sprintf("%d %s", n/u.size, u.name)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}
