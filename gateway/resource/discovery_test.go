package resource

import (
	"slices"
	"testing"
)

// An issuer with a path (Keycloak's realms) is looked for where RFC 8414
// puts it (the well-known path first) and where OpenID puts it (after).
func TestDiscoveryURLs(t *testing.T) {
	for issuer, want := range map[string][]string{
		"https://idp.example": {
			"https://idp.example/.well-known/oauth-authorization-server",
			"https://idp.example/.well-known/openid-configuration",
		},
		"https://idp.example/realms/team/": {
			"https://idp.example/.well-known/oauth-authorization-server/realms/team",
			"https://idp.example/.well-known/openid-configuration/realms/team",
			"https://idp.example/realms/team/.well-known/openid-configuration",
		},
	} {
		if got := discoveryURLs(issuer); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", issuer, got, want)
		}
	}
}
