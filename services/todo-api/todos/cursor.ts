/**
 * The opaque, tamper-evident page cursor: `base64url(json).base64url(hmac)`. The JSON holds the
 * keyset position (µs timestamp text + id); the HMAC-SHA-256 covers the payload and the caller's
 * owner scope, so an edited cursor, or one minted for another subject, is rejected rather than
 * silently restarting at page one.
 * @module
 */
import { decodeBase64, encodeBase64 } from "@svc/shared/base64";
import { hmacSha256, macEqual } from "@svc/shared/sha256";
import type { OwnerScope, Position } from "./todo_store.ts";

/**
 * Thrown for any cursor we did not mint for this scope; the error boundary
 * (`http/error_boundary.ts`) answers it with 400 `invalid cursor`.
 */
export class InvalidCursorError extends Error {
  /** Stable code. */
  readonly code = "invalid_cursor";
  /** Creates the error. */
  constructor() {
    super("invalid cursor");
    this.name = "InvalidCursorError";
  }
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const B64URL = /^[A-Za-z0-9_-]+$/;
const UTF8 = new TextEncoder();
/** How many recently minted cursors {@linkcode createCursorCodec} keeps. */
const MINTED_CURSORS = 256;
const UTF8_DECODER = new TextDecoder();

/** Unpadded base64url (RFC 4648 §5), natively. */
function toBase64Url(bytes: Uint8Array): string {
  return encodeBase64(bytes, { url: true });
}

function fromBase64Url(text: string): Uint8Array {
  if (!B64URL.test(text)) throw new InvalidCursorError();
  return decodeBase64(text, { url: true });
}

function signedText(payload: string, scope: OwnerScope): string {
  // "\n" cannot appear in base64url, so payload and scope cannot be shifted into each other.
  return `${payload}\n${scope === null ? "*" : `=${scope}`}`;
}

/** Encodes and checks cursors for one HMAC key. */
export interface CursorCodec {
  encode(position: Position, scope: OwnerScope): Promise<string>;
  /** Throws {@linkcode InvalidCursorError} for anything not minted by `encode` for `scope`. */
  decode(cursor: string, scope: OwnerScope): Promise<Position>;
}

/** Builds encode/decode around an HMAC key (≥ 32 random bytes). */
export function createCursorCodec(secret: Uint8Array): Promise<CursorCodec> {
  // The kit's HMAC keeps the key's state: a quarter of node:crypto's createHmac per cursor, and
  // synchronous, unlike WebCrypto.
  const hmac = hmacSha256(secret);
  const mac = (payload: string, scope: OwnerScope) => hmac(signedText(payload, scope));
  // A cursor is a pure function of position and scope under one key. Clients that poll a list
  // ask for the same first page over and over: its `nextCursor` is then taken from here instead
  // of being signed again (the HMAC is most of a page's cursor work). Bounded; oldest out first.
  const minted = new Map<string, string>();
  return Promise.resolve({
    encode(position: Position, scope: OwnerScope): Promise<string> {
      const key = signedText(`${position.createdAt} ${position.id}`, scope);
      let cursor = minted.get(key);
      if (cursor === undefined) {
        const payload = toBase64Url(
          UTF8.encode(JSON.stringify({ v: 1, t: position.createdAt, i: position.id })),
        );
        cursor = `${payload}.${toBase64Url(mac(payload, scope))}`;
        if (minted.size >= MINTED_CURSORS) minted.delete(minted.keys().next().value!);
        minted.set(key, cursor);
      }
      return Promise.resolve(cursor);
    },

    // deno-lint-ignore require-await
    async decode(cursor: string, scope: OwnerScope): Promise<Position> {
      const parts = cursor.split(".");
      if (parts.length !== 2 || cursor.length > 512) throw new InvalidCursorError();
      let given: Uint8Array;
      try {
        given = fromBase64Url(parts[1]);
      } catch {
        throw new InvalidCursorError();
      }
      const expected = mac(parts[0], scope);
      if (!macEqual(given, expected)) {
        throw new InvalidCursorError();
      }
      let body: { v?: unknown; t?: unknown; i?: unknown };
      try {
        body = JSON.parse(UTF8_DECODER.decode(fromBase64Url(parts[0])));
      } catch {
        throw new InvalidCursorError();
      }
      if (
        body?.v !== 1 || typeof body.t !== "string" || !TIMESTAMP.test(body.t) ||
        typeof body.i !== "string" || !UUID.test(body.i)
      ) {
        throw new InvalidCursorError();
      }
      return { createdAt: body.t, id: body.i };
    },
  });
}
