// Throw-away TLS certificates for the HTTP/2 demo origin (h2-origin.ts):
// browsers speak HTTP/2 only over TLS, so the h2 origin needs a certificate,
// and the browser must trust exactly that one. `makeSelfSignedCert` makes a
// self-signed ECDSA P-256 certificate with the `openssl` CLI in a private
// temporary directory (removed before it returns); `spkiHashOf` gives the
// base64 SHA-256 of its SubjectPublicKeyInfo, the value Chromium's
// `--ignore-certificate-errors-spki-list` takes (demo/chromium-flags.ts
// `spkiTrustFlags`), so the browser trusts this one key and nothing else.

import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import * as net from 'net';
import { tmpdir } from 'os';
import * as path from 'path';

export interface TlsIdentity {
  /** PEM certificate. */
  readonly cert: string;
  /** PEM private key (PKCS#8). */
  readonly key: string;
  /** base64 SHA-256 of the certificate's SubjectPublicKeyInfo (DER). */
  readonly spkiHash: string;
}

export interface SelfSignedCertOptions {
  /** Names the certificate is for (IP addresses or DNS names). Default 127.0.0.1, ::1 and localhost. */
  readonly hosts?: readonly string[];
  /** Validity in days. Default 7. */
  readonly days?: number;
  /** The openssl binary. Default `openssl` on PATH. */
  readonly openssl?: string;
}

function runOpenssl(openssl: string, args: string[], input?: string): Buffer {
  try {
    return execFileSync(openssl, args, { input, stdio: ['pipe', 'pipe', 'pipe'], timeout: 20_000 });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT')
      throw new Error(`${openssl} not found: install openssl (apt-get install openssl) to make the HTTP/2 origin's certificate`);
    const detail = e.stderr?.toString('utf8').trim() || e.message;
    throw new Error(`${openssl} ${args[0] ?? ''} failed: ${detail}`);
  }
}

/** A subjectAltName entry for one host: `IP:` for addresses, `DNS:` for names. */
function sanEntry(host: string): string {
  if (!/^[0-9A-Za-z.:-]+$/.test(host)) throw new Error(`certificate host ${JSON.stringify(host)} is not an IP address or DNS name`);
  return net.isIP(host) !== 0 ? `IP:${host}` : `DNS:${host}`;
}

/** base64 SHA-256 of the SubjectPublicKeyInfo of a PEM certificate, extracted with the openssl CLI. */
export function spkiHashOf(certPem: string, openssl = 'openssl'): string {
  if (!certPem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('spkiHashOf: expected a PEM certificate');
  const publicKeyPem = runOpenssl(openssl, ['x509', '-noout', '-pubkey'], certPem).toString('utf8');
  const spkiDer = runOpenssl(openssl, ['pkey', '-pubin', '-outform', 'DER'], publicKeyPem);
  return createHash('sha256').update(spkiDer).digest('base64');
}

/** Makes a self-signed certificate and key for `hosts`; no file is left behind. */
export function makeSelfSignedCert(opts: SelfSignedCertOptions = {}): TlsIdentity {
  const openssl = opts.openssl ?? 'openssl';
  const hosts = opts.hosts ?? ['127.0.0.1', '::1', 'localhost'];
  if (hosts.length === 0) throw new Error('makeSelfSignedCert: at least one host is needed');
  const days = opts.days ?? 7;
  if (!Number.isInteger(days) || days < 1) throw new Error(`makeSelfSignedCert: days must be an integer >= 1, got ${String(days)}`);
  const san = hosts.map(sanEntry).join(',');
  const dir = mkdtempSync(path.join(tmpdir(), 'sprint-cert-'));
  try {
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    runOpenssl(openssl, [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      String(days),
      '-subj',
      '/CN=sprint demo origin',
      '-addext',
      `subjectAltName=${san}`,
    ]);
    const cert = readFileSync(certFile, 'utf8');
    const key = readFileSync(keyFile, 'utf8');
    return { cert, key, spkiHash: spkiHashOf(cert, openssl) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
