/**
 * Responses of the fake in the real service's shapes: JSON with an optional UTF-8 byte order mark
 * (the Actions service sends one), and `typeName` exception bodies.
 *
 * @module
 */

/** A JSON response, BOM-prefixed when `bom` is on. */
export function json(body: unknown, status = 200, bom = false, headers: HeadersInit = {}) {
  const text = (bom ? "\ufeff" : "") + JSON.stringify(body);
  return new Response(text, {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** An Actions-service exception body (`typeName` is what clients switch on). */
export function exception(status: number, typeKey: string, message: string, bom = false) {
  return json(
    {
      $id: "1",
      innerException: null,
      message,
      typeName: `GitHub.DistributedTask.WebApi.${typeKey}, GitHub.DistributedTask.WebApi`,
      typeKey,
      errorCode: 0,
      eventId: 3000,
    },
    status,
    bom,
    { ActivityId: crypto.randomUUID() },
  );
}

/** A GitHub REST API error body. */
export function restError(status: number, message: string) {
  return json({ message, documentation_url: "https://docs.github.com/rest" }, status);
}

/** An unsigned JWT carrying `exp` (the real admin and queue tokens are JWTs clients decode). */
export function fakeJwt(expMs: number, sub: string): string {
  const enc = (o: unknown) =>
    btoa(JSON.stringify(o)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const nonce = crypto.randomUUID();
  return `${enc({ alg: "none", typ: "JWT" })}.${
    enc({ sub, exp: Math.floor(expMs / 1000), nonce })
  }.sig`;
}
