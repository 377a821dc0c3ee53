package source

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-mcp/switchboard/config"
)

const accessProfiles = `"profiles": {"work": {"servers": ["github"]}, "ops": {"tools": {"allow": ["*__read*"]}}}`

func TestParseAccess(t *testing.T) {
	data := `{
  // The team's rules.
  ` + accessProfiles + `,
  "access": {
    "users": {"alice": ["work"], "bob": "ops"},
    "groups": {"sre": ["ops", "work"]},
    "claim": "roles",
    "default": "work",
  },
  "limits": {
    "perUser": {"rate": 5, "burst": 10},
    "perTool": {"github__create_issue": {"rate": 0.5}},
  },
}`
	a, l, err := ParseAccess("/etc/sb/mcp.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want := &Access{
		Users:   map[string][]string{"alice": {"work"}, "bob": {"ops"}},
		Groups:  map[string][]string{"sre": {"ops", "work"}},
		Claim:   "roles",
		Default: []string{"work"},
	}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("access (-want +got):\n%s", diff)
	}
	wantLimits := &Limits{PerUser: &Rate{Rate: 5, Burst: 10}, PerTool: map[string]Rate{"github__create_issue": {Rate: 0.5, Burst: 1}}}
	if diff := cmp.Diff(wantLimits, l); diff != "" {
		t.Errorf("limits (-want +got):\n%s", diff)
	}
}

func TestParseAccessDefaults(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       *Access
	}{
		{"none", `{` + accessProfiles + `}`, nil},
		{"claim defaults to groups", `{` + accessProfiles + `, "access": {"users": {"alice": "work"}}}`,
			&Access{Users: map[string][]string{"alice": {"work"}}, Claim: "groups"}},
		{"default none", `{` + accessProfiles + `, "access": {"default": "none"}}`, &Access{Claim: "groups"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, l, err := ParseAccess("mcp.json", []byte(tc.data))
			if err != nil || l != nil {
				t.Fatalf("limits %v, error %v", l, err)
			}
			if diff := cmp.Diff(tc.want, a); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Every mistake is one line naming the file, line and field.
func TestParseAccessErrors(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"access": []}`, `mcp.json:1:12: field "access": want an object with users, groups, claim and default, got array`},
		{`{` + accessProfiles + `, "access": {"users": {"alice": ["wrok"]}}}`,
			`field "access.users.alice": no profile "wrok" in this file (profiles: ops, work)`},
		{`{"access": {"users": {"alice": "work"}}}`, `field "access.users.alice": no profile "work" in this file (it has no "profiles")`},
		{`{` + accessProfiles + `, "access": {"users": {"alice": 3}}}`, `field "access.users.alice": want a profile name or an array of them, got number`},
		{`{` + accessProfiles + `, "access": {"groups": {"sre": [true]}}}`, `field "access.groups.sre": want profile names, got a boolean among them`},
		{`{` + accessProfiles + `, "access": {"claim": ""}}`, `field "access.claim": want the name of the token claim`},
		{`{` + accessProfiles + `, "access": {"default": "ghost"}}`, `field "access.default": no profile "ghost"`},
		{`{` + accessProfiles + `, "access": {"user": {}}}`, `field "access.user": unknown field (access has users, groups, claim and default)`},
		{`{"profiles": {"none": {}}, "access": {"default": "none"}}`, `field "access.default": "none" is both a profile and the word for no profile here`},
		{`{"limits": {"perUser": {"burst": 3}}}`, `field "limits.perUser.rate": missing: how many calls a second`},
		{`{"limits": {"perUser": {"rate": 0}}}`, `field "limits.perUser.rate": want calls a second above 0`},
		{`{"limits": {"perUser": {"rate": "5"}}}`, `field "limits.perUser.rate": want a number, got string`},
		{`{"limits": {"perTool": {"x": {"rate": 1, "burst": 1.5}}}}`, `field "limits.perTool.x.burst": want a whole number of calls, 1 or more`},
		{`{"limits": {"perTool": []}}`, `field "limits.perTool": want an object of rates by exposed tool name, got array`},
		{`{"limits": {"perSession": {}}}`, `field "limits.perSession": unknown field`},
		{`{"profiles": {"a": 1}, "access": {}}`, `field "profiles.a": want an object`},
	} {
		_, _, err := ParseAccess("mcp.json", []byte(tc.data))
		if err == nil {
			t.Errorf("%s: no error, want %q", tc.data, tc.want)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || !strings.HasPrefix(msg, "mcp.json:") || strings.Contains(msg, "\n") {
			t.Errorf("%s:\n got %q\nwant one line with %q", tc.data, msg, tc.want)
		}
	}
}

// FuzzParseAccess: any file gives rules that name only its profiles and
// rates a bucket can hold, or one positioned error.
func FuzzParseAccess(f *testing.F) {
	for _, s := range []string{
		"", "{}", `{"access": null}`, `{"access": {"users": {"a": "work"}}, ` + accessProfiles + `}`,
		`{` + accessProfiles + `, "access": {"groups": {"g": ["ops", "work"]}, "default": ["ops"]}}`,
		`{"limits": {"perUser": {"rate": 1e308, "burst": 2147483647}, "perTool": {"t": {"rate": 0.5}}}}`,
		`{"limits": {"perUser": {"rate": -1}}}`, `{"access": {"default": "none"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, l, err := ParseAccess("f.json", data)
		if err != nil {
			var d *config.Diagnostic
			if !errors.As(err, &d) || d.Line < 1 || d.Column < 1 {
				t.Errorf("badly positioned error %q", err)
			}
			return
		}
		if a != nil {
			profiles, _ := ParseProfiles("f.json", data)
			for _, names := range append(slices.Collect(maps.Values(a.Users)), append(slices.Collect(maps.Values(a.Groups)), a.Default)...) {
				for _, n := range names {
					if _, ok := profiles[n]; !ok {
						t.Errorf("rule names profile %q, which the file lacks", n)
					}
				}
			}
		}
		if l != nil {
			rates := slices.Collect(maps.Values(l.PerTool))
			if l.PerUser != nil {
				rates = append(rates, *l.PerUser)
			}
			for _, r := range rates {
				if !(r.Rate > 0) || r.Burst < 1 {
					t.Errorf("rate %+v a bucket cannot hold", r)
				}
			}
		}
	})
}
