package source

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/config/internal/doc"
)

// Access is the top-level "access" object of our own config file: which
// of the file's profiles each user and group of a team gateway sees
// (DESIGN.md F65).
//
//	{"access": {"users": {"alice": ["work"]}, "groups": {"sre": ["ops"]},
//	            "claim": "groups", "default": "none"}}
type Access struct {
	// Users and Groups name each user's (the token's subject) and each
	// group's profiles; a caller sees the union of theirs.
	Users, Groups map[string][]string
	// Claim is the token claim that lists a caller's groups; "groups"
	// when the file names none.
	Claim string
	// Default are the profiles of a caller no user or group rule names;
	// none ("default": "none", or no default) refuses such a caller.
	Default []string
}

// NoProfile is the word "default" takes for no profile at all.
const NoProfile = "none"

// Rate is a token bucket: Rate calls a second on average, Burst at once.
type Rate struct {
	Rate  float64 `json:"rate"`
	Burst int     `json:"burst"`
}

// Limits is the top-level "limits" object: token buckets on tool calls
// over HTTP (DESIGN.md F65).
//
//	{"limits": {"perUser": {"rate": 5, "burst": 10},
//	            "perTool": {"github__create_issue": {"rate": 0.2, "burst": 2}}}}
type Limits struct {
	// PerUser bounds each caller's calls, of every tool together; nil
	// bounds none.
	PerUser *Rate
	// PerTool bounds the calls of a tool, by its exposed name, by every
	// caller together.
	PerTool map[string]Rate
}

// ParseAccess reads the "access" and "limits" objects of one of our
// config files, either nil when the file has none. Access may name only
// profiles the same file defines. Anything of the wrong type or value is
// an error naming the file, line and field: these decide who sees what,
// so nothing in them is skipped.
func ParseAccess(path string, data []byte) (*Access, *Limits, error) {
	d, err := parseObject(Location{Path: path}, data, true)
	if err != nil || d == nil {
		return nil, nil, err
	}
	profiles, err := ParseProfiles(path, data)
	if err != nil {
		return nil, nil, err
	}
	p := accessParser{d: d, profiles: profiles}
	var access *Access
	if v := d.Root.Member("access"); !doc.Nullish(v) {
		if access, err = p.access(v); err != nil {
			return nil, nil, err
		}
	}
	var limits *Limits
	if v := d.Root.Member("limits"); !doc.Nullish(v) {
		if limits, err = p.limits(v); err != nil {
			return nil, nil, err
		}
	}
	return access, limits, nil
}

type accessParser struct {
	d        *doc.Doc
	profiles map[string]Profile
}

func (p accessParser) wrong(v *doc.Value, field, want string) error {
	return p.d.Diag(v.Off, "", field, "want "+want+", got "+v.Kind.String())
}

func (p accessParser) access(v *doc.Value) (*Access, error) {
	if v.Kind != doc.Object {
		return nil, p.wrong(v, "access", "an object with users, groups, claim and default")
	}
	a := &Access{Claim: "groups"}
	for _, m := range v.Members {
		field := "access." + m.Key
		if m.Val.Kind == doc.Null {
			continue
		}
		var err error
		switch m.Key {
		case "users":
			a.Users, err = p.ruleMap(m.Val, field)
		case "groups":
			a.Groups, err = p.ruleMap(m.Val, field)
		case "claim":
			if m.Val.Kind != doc.String || strings.TrimSpace(m.Val.Str) == "" {
				return nil, p.d.Diag(m.Val.Off, "", field, "want the name of the token claim that lists a caller's groups")
			}
			a.Claim = m.Val.Str
		case "default":
			a.Default, err = p.profileNames(m.Val, field, true)
		default:
			return nil, p.d.Diag(m.Val.Off, "", field, "unknown field (access has users, groups, claim and default)")
		}
		if err != nil {
			return nil, err
		}
	}
	return a, nil
}

// ruleMap reads a map of names (users, groups) to profile names.
func (p accessParser) ruleMap(v *doc.Value, field string) (map[string][]string, error) {
	if v.Kind != doc.Object {
		return nil, p.wrong(v, field, "an object of profile names by name")
	}
	out := map[string][]string{}
	for _, m := range v.Members {
		names, err := p.profileNames(m.Val, field+"."+m.Key, false)
		if err != nil {
			return nil, err
		}
		out[m.Key] = append(out[m.Key], names...)
	}
	return out, nil
}

// profileNames reads a profile name or an array of them, each one the
// file defines; with orNone, "none" stands for no profile.
func (p accessParser) profileNames(v *doc.Value, field string, orNone bool) ([]string, error) {
	var elems []*doc.Value
	switch v.Kind {
	case doc.String:
		if orNone && v.Str == NoProfile {
			if _, ok := p.profiles[NoProfile]; ok {
				return nil, p.d.Diag(v.Off, "", field, `"none" is both a profile and the word for no profile here: rename the profile`)
			}
			return nil, nil
		}
		elems = []*doc.Value{v}
	case doc.Array:
		elems = v.Elems
	default:
		return nil, p.wrong(v, field, "a profile name or an array of them")
	}
	var out []string
	for _, el := range elems {
		if el.Kind != doc.String {
			return nil, p.d.Diag(el.Off, "", field, "want profile names, got a "+el.Kind.String()+" among them")
		}
		if _, ok := p.profiles[el.Str]; !ok {
			return nil, p.d.Diag(el.Off, "", field, fmt.Sprintf("no profile %q in this file%s", el.Str, p.known()))
		}
		out = append(out, el.Str)
	}
	return out, nil
}

func (p accessParser) known() string {
	if len(p.profiles) == 0 {
		return ` (it has no "profiles")`
	}
	return " (profiles: " + strings.Join(slices.Sorted(maps.Keys(p.profiles)), ", ") + ")"
}

func (p accessParser) limits(v *doc.Value) (*Limits, error) {
	if v.Kind != doc.Object {
		return nil, p.wrong(v, "limits", "an object with perUser and perTool")
	}
	l := &Limits{}
	for _, m := range v.Members {
		field := "limits." + m.Key
		if m.Val.Kind == doc.Null {
			continue
		}
		switch m.Key {
		case "perUser":
			r, err := p.rate(m.Val, field)
			if err != nil {
				return nil, err
			}
			l.PerUser = &r
		case "perTool":
			if m.Val.Kind != doc.Object {
				return nil, p.wrong(m.Val, field, "an object of rates by exposed tool name")
			}
			l.PerTool = map[string]Rate{}
			for _, t := range m.Val.Members {
				r, err := p.rate(t.Val, field+"."+t.Key)
				if err != nil {
					return nil, err
				}
				l.PerTool[t.Key] = r
			}
		default:
			return nil, p.d.Diag(m.Val.Off, "", field, "unknown field (limits has perUser and perTool)")
		}
	}
	return l, nil
}

// rate reads {"rate": calls a second, "burst": calls at once}; a burst
// left out is the rate rounded up, at least 1.
func (p accessParser) rate(v *doc.Value, field string) (Rate, error) {
	if v.Kind != doc.Object {
		return Rate{}, p.wrong(v, field, `an object like {"rate": 5, "burst": 10}`)
	}
	var r Rate
	seen := false
	for _, m := range v.Members {
		f := field + "." + m.Key
		switch m.Key {
		case "rate":
			n, err := p.number(m.Val, f)
			if err != nil {
				return Rate{}, err
			}
			if n <= 0 || math.IsInf(n, 0) {
				return Rate{}, p.d.Diag(m.Val.Off, "", f, "want calls a second above 0, like 5 or 0.5")
			}
			r.Rate, seen = n, true
		case "burst":
			n, err := p.number(m.Val, f)
			if err != nil {
				return Rate{}, err
			}
			if n < 1 || n != math.Trunc(n) || n > math.MaxInt32 {
				return Rate{}, p.d.Diag(m.Val.Off, "", f, "want a whole number of calls, 1 or more")
			}
			r.Burst = int(n)
		default:
			return Rate{}, p.d.Diag(m.Val.Off, "", f, "unknown field (a rate has rate and burst)")
		}
	}
	if !seen {
		return Rate{}, p.d.Diag(v.Off, "", field+".rate", "missing: how many calls a second")
	}
	if r.Burst == 0 {
		r.Burst = max(1, int(math.Ceil(r.Rate)))
	}
	return r, nil
}

func (p accessParser) number(v *doc.Value, field string) (float64, error) {
	if v.Kind != doc.Number {
		return 0, p.wrong(v, field, "a number")
	}
	n, err := strconv.ParseFloat(v.Str, 64)
	if err != nil {
		return 0, p.d.Diag(v.Off, "", field, "want a number, got "+v.Str)
	}
	return n, nil
}
