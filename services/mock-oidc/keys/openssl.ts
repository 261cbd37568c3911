/**
 * RSA/EC signing through the system OpenSSL (libcrypto.so.3) over Deno FFI.
 *
 * Why: Deno's WebCrypto and node:crypto sign RS256 in ≈1.4 ms (pure-Rust RSA); OpenSSL does it
 * in ≈0.3 ms, and token issuance is this service's hot path. When libcrypto or the `--allow-ffi`
 * permission is missing, {@linkcode openOpenSsl} returns undefined and callers use WebCrypto.
 * Signatures are identical in form (RSA PKCS#1 v1.5 is deterministic; ECDSA is converted from
 * DER to the JWS r||s form).
 *
 * @module
 */

import type { AlgorithmSpec } from "./algorithms.ts";
import { createSignSlots } from "./sign_slots.ts";

const SYMBOLS = {
  BIO_new_mem_buf: { parameters: ["buffer", "i32"], result: "pointer" },
  BIO_free: { parameters: ["pointer"], result: "i32" },
  PEM_read_bio_PrivateKey: {
    parameters: ["pointer", "pointer", "pointer", "pointer"],
    result: "pointer",
  },
  EVP_MD_CTX_new: { parameters: [], result: "pointer" },
  EVP_MD_CTX_free: { parameters: ["pointer"], result: "void" },
  EVP_get_digestbyname: { parameters: ["buffer"], result: "pointer" },
  EVP_DigestSignInit: {
    parameters: ["pointer", "buffer", "pointer", "pointer", "pointer"],
    result: "i32",
  },
  EVP_DigestSign: {
    parameters: ["pointer", "buffer", "buffer", "buffer", "usize"],
    result: "i32",
  },
  EVP_DigestSignAsync: {
    name: "EVP_DigestSign",
    parameters: ["pointer", "buffer", "buffer", "buffer", "usize"],
    result: "i32",
    nonblocking: true,
  },
  EVP_PKEY_CTX_set_rsa_padding: { parameters: ["pointer", "i32"], result: "i32" },
  EVP_PKEY_CTX_set_rsa_pss_saltlen: { parameters: ["pointer", "i32"], result: "i32" },
} as const;

type Lib = Deno.DynamicLibrary<typeof SYMBOLS>;

/** A private key loaded into OpenSSL, able to produce JWS signatures. */
export type SignFunction = (data: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/** The loaded library: turns PKCS#8 keys into sign functions. */
export interface OpenSsl {
  signer(pkcs8: Uint8Array, spec: AlgorithmSpec): SignFunction;
  /** Whether signatures are computed on a worker thread (not `MOCK_OIDC_SIGNER=openssl`). */
  offThread: boolean;
}

const RSA_PKCS1_PSS_PADDING = 6;
const RSA_PSS_SALTLEN_DIGEST = -1;
const encoder = new TextEncoder();

/**
 * Load libcrypto, or return undefined when it (or the FFI permission) is unavailable.
 * `MOCK_OIDC_SIGNER` picks the mode: `openssl-thread` (default) signs on a worker thread
 * through nonblocking FFI, so a second core signs while the event loop serves HTTP; `openssl`
 * signs on the event-loop thread; `webcrypto` skips OpenSSL altogether.
 */
export function openOpenSsl(
  options: { path?: string; env?: (name: string) => string | undefined } = {},
): OpenSsl | undefined {
  const env = options.env ?? ((name) => Deno.env.get(name));
  const mode = env("MOCK_OIDC_SIGNER");
  if (mode === "webcrypto") return undefined;
  const offThread = mode !== "openssl";
  // In-flight off-thread signatures (`MOCK_OIDC_SIGNER_THREADS`, default: the core count).
  const threads = Number(env("MOCK_OIDC_SIGNER_THREADS") ?? navigator.hardwareConcurrency ?? 2);
  const slots = createSignSlots(Number.isFinite(threads) && threads > 0 ? threads : 2);
  // Query first: an ungranted permission would otherwise prompt on an interactive terminal.
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return undefined;
  let lib: Lib;
  try {
    lib = Deno.dlopen(options.path ?? "libcrypto.so.3", SYMBOLS);
  } catch {
    return undefined;
  }
  const digests = new Map<string, Deno.PointerValue>();
  const digest = (name: string) => {
    let md = digests.get(name);
    if (md === undefined) {
      md = lib.symbols.EVP_get_digestbyname(encoder.encode(`${name}\0`));
      if (md === null) throw new Error(`Cannot load OpenSSL digest: ${name}`);
      digests.set(name, md);
    }
    return md;
  };
  return {
    offThread,
    signer(pkcs8, spec) {
      const key = { pkey: loadPrivateKey(lib, pkcs8), md: digest(spec.digest), pss: spec.pss };
      const finish = (der: Uint8Array) => spec.ecSize ? derToJose(der, spec.ecSize) : der;
      if (offThread) {
        return (data) => slots.run(async () => finish(await signRawAsync(lib, key, data)));
      }
      return (data) => finish(signRaw(lib, key, data));
    },
  };
}

function loadPrivateKey(lib: Lib, pkcs8: Uint8Array): Deno.PointerValue {
  const b64 = btoa(String.fromCharCode(...pkcs8)).replace(/.{64}/g, "$&\n");
  const pem = encoder.encode(`-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`);
  const bio = lib.symbols.BIO_new_mem_buf(pem, pem.length);
  const pkey = lib.symbols.PEM_read_bio_PrivateKey(bio, null, null, null);
  lib.symbols.BIO_free(bio);
  if (pkey === null) throw new Error("Cannot load private key into OpenSSL");
  return pkey;
}

interface LoadedKey {
  pkey: Deno.PointerValue;
  md: Deno.PointerValue;
  pss: boolean;
}

function initContext(lib: Lib, key: LoadedKey): Deno.PointerValue {
  const s = lib.symbols;
  const ctx = s.EVP_MD_CTX_new();
  const pctxOut = new BigUint64Array(1);
  if (s.EVP_DigestSignInit(ctx, new Uint8Array(pctxOut.buffer), key.md, null, key.pkey) !== 1) {
    s.EVP_MD_CTX_free(ctx);
    throw new Error("Cannot sign: EVP_DigestSignInit failed");
  }
  if (key.pss) {
    const pctx = Deno.UnsafePointer.create(pctxOut[0]);
    s.EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
    s.EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
  }
  return ctx;
}

/** Output buffers of one EVP_DigestSign call, and the signature they hold once it succeeded. */
function signatureBuffers() {
  const sig = new Uint8Array(1024);
  const len = new BigUint64Array([BigInt(sig.length)]);
  return {
    sig,
    len: new Uint8Array(len.buffer),
    result(ok: number): Uint8Array {
      if (ok !== 1) throw new Error("Cannot sign: EVP_DigestSign failed");
      return sig.slice(0, Number(len[0]));
    },
  };
}

function signRaw(lib: Lib, key: LoadedKey, data: Uint8Array): Uint8Array {
  const ctx = initContext(lib, key);
  const out = signatureBuffers();
  try {
    return out.result(
      lib.symbols.EVP_DigestSign(ctx, out.sig, out.len, data, BigInt(data.length)),
    );
  } finally {
    lib.symbols.EVP_MD_CTX_free(ctx);
  }
}

async function signRawAsync(lib: Lib, key: LoadedKey, data: Uint8Array): Promise<Uint8Array> {
  const ctx = initContext(lib, key);
  const out = signatureBuffers();
  try {
    return out.result(
      await lib.symbols.EVP_DigestSignAsync(ctx, out.sig, out.len, data, BigInt(data.length)),
    );
  } finally {
    lib.symbols.EVP_MD_CTX_free(ctx);
  }
}

/** Convert an ASN.1 DER ECDSA signature to the fixed-size r||s form JWS uses. */
export function derToJose(der: Uint8Array, size: number): Uint8Array {
  let offset = 2;
  if (der[1] & 0x80) offset += der[1] & 0x7f;
  const out = new Uint8Array(size * 2);
  for (let part = 0; part < 2; part++) {
    const len = der[offset + 1];
    let value = der.subarray(offset + 2, offset + 2 + len);
    while (value.length > size && value[0] === 0) value = value.subarray(1);
    out.set(value, part * size + (size - value.length));
    offset += 2 + len;
  }
  return out;
}
