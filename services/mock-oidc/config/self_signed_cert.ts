import { encodeBase64 } from "@svc/shared/base64";
/**
 * The in-process self-signed certificate behind `httpServer: {ssl: {}}`: RSA-2048,
 * SHA256withRSA, CN=localhost, SAN `localhost` + `127.0.0.1`, valid 365 days (as upstream); and
 * the self-signed certificate of each signing key, published as its JWK's `x5c`
 * ({@linkcode keyCertificate}). A minimal DER writer keeps this free of extra dependencies.
 *
 * @module
 */

/** PEM certificate and PKCS#8 private key, as `Deno.serve` takes them. */
export interface TlsPair {
  cert: string;
  key: string;
}

const DAY_MS = 86_400_000;

/** Generate a self-signed localhost certificate valid from `nowMs` for 365 days. */
export async function selfSignedCertificate(
  options: { nowMs?: number } = {},
): Promise<TlsPair> {
  const now = options.nowMs ?? Date.now();
  const algorithm = {
    name: "RSASSA-PKCS1-v1_5",
    hash: "SHA-256",
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
  };
  const pair = await crypto.subtle.generateKey(algorithm, true, ["sign", "verify"]);
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", pair.publicKey));
  const sha256WithRsa = seq(oid("1.2.840.113549.1.1.11"), tlv(0x05, new Uint8Array()));
  const name = seq(set(seq(oid("2.5.4.3"), tlv(0x0c, utf8("localhost")))));
  const serial = crypto.getRandomValues(new Uint8Array(16));
  serial[0] &= 0x7f; // positive INTEGER
  const san = seq(tlv(0x82, utf8("localhost")), tlv(0x87, new Uint8Array([127, 0, 0, 1])));
  const extensions = seq(
    extension("2.5.29.17", san),
    extension("2.5.29.37", seq(oid("1.3.6.1.5.5.7.3.1"))),
  );
  const tbs = seq(
    tlv(0xa0, tlv(0x02, new Uint8Array([2]))),
    tlv(0x02, serial),
    sha256WithRsa,
    name,
    seq(utcTime(new Date(now - DAY_MS)), utcTime(new Date(now + 365 * DAY_MS))),
    name,
    spki,
    tlv(0xa3, extensions),
  );
  const signature = new Uint8Array(
    await crypto.subtle.sign("RSASSA-PKCS1-v1_5", pair.privateKey, tbs as BufferSource),
  );
  const cert = seq(tbs, sha256WithRsa, tlv(0x03, concat(new Uint8Array([0]), signature)));
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  return { cert: pem("CERTIFICATE", cert), key: pem("PRIVATE KEY", pkcs8) };
}

/**
 * A self-signed X.509 v3 certificate (DER) for a signing key, signed by that key: CN=mock-oidc,
 * a serial from the SHA-256 of the public key, valid 2020-01-01 to 2049-12-31 (so an RSA or
 * Ed25519 key's certificate is the same bytes every time). RSA keys sign it with SHA256withRSA
 * whatever their JWS algorithm (PKCS#1 v1.5 or PSS), EC keys with ECDSA and the hash of their
 * curve, Ed25519 keys with Ed25519. `jwk` is the private JWK (without `key_ops`/`ext`).
 */
export async function keyCertificate(jwk: JsonWebKey): Promise<Uint8Array> {
  const how = certificateSigning(jwk);
  const privateKey = await crypto.subtle.importKey("jwk", jwk, how.importParams, false, ["sign"]);
  const publicJwk = Object.fromEntries(
    Object.entries(jwk).filter(([name]) => !["d", "p", "q", "dp", "dq", "qi"].includes(name)),
  );
  const publicKey = await crypto.subtle.importKey("jwk", publicJwk, how.importParams, true, [
    "verify",
  ]);
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", publicKey));
  const serial = new Uint8Array(await crypto.subtle.digest("SHA-256", spki)).slice(0, 16);
  serial[0] &= 0x7f; // positive INTEGER
  const name = seq(set(seq(oid("2.5.4.3"), tlv(0x0c, utf8("mock-oidc")))));
  const tbs = seq(
    tlv(0xa0, tlv(0x02, new Uint8Array([2]))),
    tlv(0x02, serial),
    how.algorithmId,
    name,
    seq(
      utcTime(new Date(Date.UTC(2020, 0, 1))),
      utcTime(new Date(Date.UTC(2049, 11, 31, 23, 59, 59))),
    ),
    name,
    spki,
  );
  const raw = new Uint8Array(
    await crypto.subtle.sign(how.signParams, privateKey, tbs as BufferSource),
  );
  const signature = how.ecdsa ? ecdsaDer(raw) : raw;
  return seq(tbs, how.algorithmId, tlv(0x03, concat(new Uint8Array([0]), signature)));
}

/** How a key of this type signs its certificate, and the AlgorithmIdentifier that says so. */
function certificateSigning(jwk: JsonWebKey) {
  if (jwk.kty === "RSA") {
    return {
      importParams: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
      signParams: { name: "RSASSA-PKCS1-v1_5" },
      algorithmId: seq(oid("1.2.840.113549.1.1.11"), tlv(0x05, new Uint8Array())),
      ecdsa: false,
    };
  }
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") {
    return {
      importParams: { name: "Ed25519" },
      signParams: { name: "Ed25519" },
      algorithmId: seq(oid("1.3.101.112")),
      ecdsa: false,
    };
  }
  const bits = { "P-256": 256, "P-384": 384, "P-521": 512 }[jwk.crv ?? ""];
  if (jwk.kty !== "EC" || !bits) throw new Error(`Cannot certify a ${jwk.kty} ${jwk.crv} key`);
  return {
    importParams: { name: "ECDSA", namedCurve: jwk.crv! },
    signParams: { name: "ECDSA", hash: `SHA-${bits}` },
    // ecdsa-with-SHA256, -SHA384, -SHA512
    algorithmId: seq(oid(`1.2.840.10045.4.3.${bits / 128}`)),
    ecdsa: true,
  };
}

/** WebCrypto's r||s ECDSA signature as X.509 wants it: SEQUENCE { INTEGER r, INTEGER s }. */
function ecdsaDer(raw: Uint8Array): Uint8Array {
  const half = raw.length / 2;
  const integer = (bytes: Uint8Array) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    const trimmed = bytes.subarray(i);
    return tlv(0x02, trimmed[0] & 0x80 ? concat(new Uint8Array([0]), trimmed) : trimmed);
  };
  return seq(integer(raw.subarray(0, half)), integer(raw.subarray(half)));
}

function tlv(tag: number, value: Uint8Array): Uint8Array {
  const len = value.length;
  const header = len < 0x80
    ? [tag, len]
    : len < 0x100
    ? [tag, 0x81, len]
    : [tag, 0x82, len >> 8, len & 0xff];
  return concat(new Uint8Array(header), value);
}

function seq(...items: Uint8Array[]): Uint8Array {
  return tlv(0x30, concat(...items));
}

function set(...items: Uint8Array[]): Uint8Array {
  return tlv(0x31, concat(...items));
}

function extension(id: string, value: Uint8Array): Uint8Array {
  return seq(oid(id), tlv(0x04, value));
}

function oid(dotted: string): Uint8Array {
  const [a, b, ...rest] = dotted.split(".").map(Number);
  const bytes = [a * 40 + b];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, new Uint8Array(bytes));
}

function utcTime(date: Date): Uint8Array {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const text = iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10) + iso.slice(11, 13) +
    iso.slice(14, 16) + iso.slice(17, 19) + "Z";
  return tlv(0x17, utf8(text));
}

function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function pem(label: string, der: Uint8Array): string {
  const b64 = encodeBase64(der).replace(/.{64}/g, "$&\n").replace(/\n$/, "");
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}
