// tlsroots.go: the certificate roots TLS connections are verified against.
//
// TLS origins are verified normally, with the system's roots. Tests may add one extra CA
// (for a local test origin) through an environment variable; it is added to the system roots, never
// replacing them, and there is no way to skip verification.
package main

import (
	"crypto/x509"
	"fmt"
	"log"
	"os"
)

// EnvExtraCA names the environment variable holding a path to a PEM file of extra trusted CA certificates.
const EnvExtraCA = "SPRINT_HOST_EXTRA_CA"

// LoadRootCAs returns the system root pool plus the certificates in the PEM file extraPath (if not empty).
// An unreadable or certificate-free file is an error: a test that asked for a CA must not silently run
// without it. If the system pool cannot be loaded, that is logged and TLS connections will fail
// verification (plain connections still work).
func LoadRootCAs(extraPath string, logger *log.Logger) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		logger.Printf("warning: cannot load the system's CA roots (%v); TLS servers will fail verification", err)
		pool = x509.NewCertPool()
	}
	if extraPath == "" {
		return pool, nil
	}
	pem, err := os.ReadFile(extraPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", EnvExtraCA, err)
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: %s contains no PEM certificate", EnvExtraCA, extraPath)
	}
	return pool, nil
}
