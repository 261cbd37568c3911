/**
 * `--signer openssl`: RSA/EC signing through the system OpenSSL (libcrypto) over Deno FFI, for
 * load tests. Why opt-in: it needs `--allow-ffi`, which lifts Deno's sandbox; the default
 * WebCrypto pool (`webcrypto_pool.ts`) needs no such grant. Why offered: WebCrypto signs RS256
 * in ≈1.3 ms, OpenSSL in ≈0.3 ms. Each signature runs on a worker thread through nonblocking FFI
 * (at most `threads` at once). Signatures are identical in form to WebCrypto's (RSA PKCS#1 v1.5
 * is deterministic; ECDSA is converted from DER to the JWS r||s form). Keys loaded into OpenSSL
 * are freed, and the library closed, by `close()`.
 *
 * @module
 */

import { encodeBase64 } from "@svc/shared/base64";
import type { AlgorithmSpec } from "./algorithms.ts";
import { Semaphore } from "@svc/shared/semaphore";
import type { Signer } from "./signer.ts";

const SYMBOLS = {
  BIO_new_mem_buf: { parameters: ["buffer", "i32"], result: "pointer" },
  BIO_free: { parameters: ["pointer"], result: "i32" },
  PEM_read_bio_PrivateKey: {
    parameters: ["pointer", "pointer", "pointer", "pointer"],
    result: "pointer",
  },
  EVP_PKEY_free: { parameters: ["pointer"], result: "void" },
  EVP_MD_CTX_new: { parameters: [], result: "pointer" },
  EVP_MD_CTX_free: { parameters: ["pointer"], result: "void" },
  EVP_get_digestbyname: { parameters: ["buffer"], result: "pointer" },
  EVP_DigestSignInit: {
    parameters: ["pointer", "buffer", "pointer", "pointer", "pointer"],
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

const RSA_PKCS1_PSS_PADDING = 6;
const RSA_PSS_SALTLEN_DIGEST = -1;
const encoder = new TextEncoder();

/** The library loaded when no name is configured (`--signer-libcrypto`). */
export const DEFAULT_LIBCRYPTO = "libcrypto.so.3";

/** Options of {@linkcode createOpenSslSigner}. */
export interface OpenSslOptions {
  /** Name or path of the libcrypto shared library. @default {"libcrypto.so.3"} */
  library?: string;
  /** Signatures in flight at once, each on its own FFI thread. @default {the core count} */
  threads?: number;
}

/**
 * Why OpenSSL signing cannot run here (no `--allow-ffi`, or libcrypto does not load), or
 * undefined when it can. Tests of the OpenSSL path use it to be ignored with that reason.
 */
export function openSslUnavailable(library = DEFAULT_LIBCRYPTO): string | undefined {
  // Query first: an ungranted permission would otherwise prompt on an interactive terminal.
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") {
    return "it needs --allow-ffi";
  }
  try {
    Deno.dlopen(library, { EVP_MD_CTX_new: SYMBOLS.EVP_MD_CTX_new }).close();
    return undefined;
  } catch (err) {
    return `cannot load ${library}: ${(err as Error).message}`;
  }
}

/**
 * Load libcrypto and return a signer backed by it.
 *
 * @throws {Error} "Cannot use --signer openssl: …" without `--allow-ffi` or when the library
 * does not load.
 */
export function createOpenSslSigner(options: OpenSslOptions = {}): Signer {
  const library = options.library ?? DEFAULT_LIBCRYPTO;
  const why = openSslUnavailable(library);
  if (why) throw new Error(`Cannot use --signer openssl: ${why}`);
  const lib: Lib = Deno.dlopen(library, SYMBOLS);
  // Each nonblocking FFI call runs on its own thread; with 16 signatures in flight the event loop
  // would be one runnable thread among 17. Capping in-flight signatures at the core count keeps
  // the event loop scheduled while every core still signs.
  const threads = options.threads ?? navigator.hardwareConcurrency ?? 2;
  const slots = new Semaphore(Math.max(1, Math.floor(threads)));
  const loaded = new Set<Deno.PointerValue>();
  const inFlight = new Set<Promise<unknown>>();
  const digests = new Map<string, Deno.PointerValue>();
  let closed = false;
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
    name: "openssl",
    bind(pkcs8, spec: AlgorithmSpec) {
      if (closed) throw new Error("Cannot bind a key: the signer is closed");
      // EdDSA signs with no digest of its own (EVP_DigestSign's one-shot form, md NULL).
      const md = spec.digest ? digest(spec.digest) : null;
      const key = { pkey: loadPrivateKey(lib, pkcs8), md, pss: spec.pss };
      loaded.add(key.pkey);
      const finish = (der: Uint8Array) => spec.ecSize ? derToJose(der, spec.ecSize) : der;
      return (data) => {
        if (closed) return Promise.reject(new Error("Cannot sign: the signer is closed"));
        const done = slots.run(async () => finish(await signRawAsync(lib, key, data)));
        inFlight.add(done);
        done.then(() => inFlight.delete(done), () => inFlight.delete(done));
        return done;
      };
    },
    ready: () => Promise.resolve(),
    async close() {
      if (closed) return;
      closed = true;
      // A key freed under a running EVP_DigestSign would be a use after free.
      await Promise.allSettled([...inFlight]);
      for (const pkey of loaded) lib.symbols.EVP_PKEY_free(pkey);
      loaded.clear();
      lib.close();
    },
  };
}

function loadPrivateKey(lib: Lib, pkcs8: Uint8Array): Deno.PointerValue {
  // No blank line before the footer when the base64 fills its last line exactly (an Ed25519 key's
  // 48 bytes are 64 characters): PEM_read_bio refuses one.
  const b64 = encodeBase64(pkcs8).replace(/.{64}/g, "$&\n").replace(/\n$/, "");
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
function derToJose(der: Uint8Array, size: number): Uint8Array {
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
