// extension_id_test.go: the compiled allowlist (allowlist.go) names exactly the extension whose public key is
// in ../manifest.json, so the host accepts the Sprint extension and nothing else.
package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"
)

// extensionIDFromKey is Chrome's rule: SHA-256 of the DER public key, first 32 hex digits, 0-f mapped to a-p.
func extensionIDFromKey(t *testing.T, key string) string {
	der, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		t.Fatalf("manifest key is not base64: %v", err)
	}
	sum := sha256.Sum256(der)
	id := []byte(hex.EncodeToString(sum[:])[:32])
	for i, c := range id {
		if c <= '9' {
			id[i] = 'a' + (c - '0')
		} else {
			id[i] = 'a' + 10 + (c - 'a')
		}
	}
	return string(id)
}

func TestAllowlistMatchesManifestKey(t *testing.T) {
	raw, err := os.ReadFile("../manifest.json")
	if err != nil {
		t.Fatalf("read extension manifest: %v", err)
	}
	var m struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || m.Key == "" {
		t.Fatalf("extension manifest has no key (err %v)", err)
	}
	want := "chrome-extension://" + extensionIDFromKey(t, m.Key) + "/"
	if AllowedExtensionOrigins != want {
		t.Fatalf("AllowedExtensionOrigins = %q, the manifest key gives %q", AllowedExtensionOrigins, want)
	}
	if _, err := CheckCaller([]string{"sprint-host", want}, AllowedExtensionOrigins, ""); err != nil {
		t.Fatalf("the Sprint extension is refused: %v", err)
	}
}
