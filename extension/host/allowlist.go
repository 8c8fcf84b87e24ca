// allowlist.go: which browser extensions may start this host.
//
// Chrome starts a native-messaging host with the caller's origin, "chrome-extension://<ID>/", as argv[1]
// (on Windows a --parent-window argument may follow). The host refuses to run for any origin that is not
// the Sprint extension's ("the host accepts only this extension"). The browser also checks
// the host manifest's allowed_origins; this is the host's own, independent check.
package main

import (
	"fmt"
	"strings"
)

// AllowedExtensionOrigins lists the Sprint extension's origins, comma-separated: the ID derived from the
// public key in extension/manifest.json ("key"), as computed by extension/install/extension-id.ts
// (SHA-256 of the DER key, first 32 hex digits mapped 0-f → a-p). Change both together.
const AllowedExtensionOrigins = "chrome-extension://aieflfmlkjpkgldfefpdcbfiogenabna/"

// EnvAllowedOrigins names the environment variable that adds origins to the allowlist, comma-separated.
// Meant for tests that load the extension from a different directory (and so get a different ID).
const EnvAllowedOrigins = "SPRINT_HOST_ALLOWED_ORIGINS"

// isExtensionOrigin reports whether s has the exact shape of a Chrome extension origin.
func isExtensionOrigin(s string) bool {
	id, ok := strings.CutPrefix(s, "chrome-extension://")
	if !ok {
		return false
	}
	id, ok = strings.CutSuffix(id, "/")
	if !ok || len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 'a' || id[i] > 'p' {
			return false
		}
	}
	return true
}

// CheckCaller decides whether the host may run for the process arguments args, given the compiled
// allowlist and the value of SPRINT_HOST_ALLOWED_ORIGINS (empty when unset). It returns the caller's origin.
func CheckCaller(args []string, compiled, fromEnv string) (string, error) {
	if len(args) < 2 {
		return "", fmt.Errorf("no caller origin: this program is a native-messaging host started by the browser with chrome-extension://<ID>/ as its first argument")
	}
	caller := args[1]
	if !isExtensionOrigin(caller) {
		return "", fmt.Errorf("first argument %q is not a chrome-extension://<32 letters a-p>/ origin", truncate(caller, 100))
	}
	allowed := map[string]bool{}
	for _, o := range strings.Split(compiled, ",") {
		if o = strings.TrimSpace(o); o != "" {
			allowed[o] = true
		}
	}
	for _, o := range strings.Split(fromEnv, ",") {
		if o = strings.TrimSpace(o); o == "" {
			continue
		}
		if !isExtensionOrigin(o) {
			return "", fmt.Errorf("%s contains %q, which is not a chrome-extension://<32 letters a-p>/ origin", EnvAllowedOrigins, truncate(o, 100))
		}
		allowed[o] = true
	}
	if !allowed[caller] {
		return "", fmt.Errorf("caller %s is not the Sprint extension (allowed: %s)", caller, strings.Join(sortedKeys(allowed), ", "))
	}
	return caller, nil
}
