/**
 * DSSE v1 pre-authentication encoding: `"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`,
 * where LEN is the byte length in ASCII decimal. This is what the Ed25519 signature covers.
 *
 * @module
 */

/** The PAE bytes of a payload type and body. */
export function preAuthEncoding(payloadType: string, body: Uint8Array): Uint8Array {
  const enc = new TextEncoder();
  const type = enc.encode(payloadType);
  const head = enc.encode(`DSSEv1 ${type.length} `);
  const mid = enc.encode(` ${body.length} `);
  const out = new Uint8Array(head.length + type.length + mid.length + body.length);
  out.set(head, 0);
  out.set(type, head.length);
  out.set(mid, head.length + type.length);
  out.set(body, head.length + type.length + mid.length);
  return out;
}
