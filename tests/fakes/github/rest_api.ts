/**
 * The GitHub REST API part of the fake (GHES shape, under `/api/v3`): App installation tokens
 * (RS256 JWT verified with the App's public key), registration tokens by scope, and
 * `runner-registration`, which hands out the Actions-service URL and an admin token.
 *
 * @module
 */
import { verify } from "node:crypto";
import { fakeJwt, json, restError } from "./errors.ts";
import { bearer, type World } from "./world.ts";

function verifyAppJwt(w: World, jwt: string): boolean {
  const app = w.options.app;
  if (!app) return false;
  const [h, p, s] = jwt.split(".");
  if (!h || !p || !s) return false;
  try {
    const dec = (x: string) =>
      Uint8Array.from(atob(x.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
    const header = JSON.parse(new TextDecoder().decode(dec(h)));
    const claims = JSON.parse(new TextDecoder().decode(dec(p)));
    const now = Date.now() / 1000;
    if (header.alg !== "RS256" || claims.iss !== app.clientId) return false;
    if (claims.exp - claims.iat > 600 || claims.exp < now || claims.iat > now + 60) return false;
    return verify("sha256", new TextEncoder().encode(`${h}.${p}`), app.publicKeyPem, dec(s));
  } catch {
    return false;
  }
}

/** Answers a REST API request, or undefined when the path is not one of these. */
export async function handleRest(
  w: World,
  req: Request,
  path: string,
): Promise<Response | undefined> {
  const method = req.method;
  // REST API (GHES shape).
  let m: RegExpExecArray | null = /^\/api\/v3\/app\/installations\/(\d+)\/access_tokens$/.exec(
    path,
  );
  if (m && method === "POST") {
    const jwt = bearer(req);
    if (!jwt || !verifyAppJwt(w, jwt)) {
      return restError(401, "A JSON web token could not be decoded");
    }
    // Compared exactly: installation ids are int64 and may exceed 2^53.
    const installation = w.options.app?.installationId;
    if (installation === undefined || BigInt(m[1]) !== BigInt(installation)) {
      return restError(404, "Not Found");
    }
    const token = `ghs_${crypto.randomUUID().replace(/-/g, "")}`;
    w.installTokens.add(token);
    return json({ token, expires_at: new Date(Date.now() + 3600_000).toISOString() }, 201);
  }
  m = /^\/api\/v3\/(orgs|repos)\/(.+)\/actions\/runners\/registration-token$/.exec(path);
  if (m && method === "POST") {
    const t = bearer(req);
    if (!t || !(w.pats.has(t) || w.installTokens.has(t))) return restError(401, "Bad credentials");
    const scopeOk = (m[1] === "orgs") === !w.target.includes("/") && m[2] === w.target;
    if (!scopeOk) return restError(404, "Not Found");
    const token = `REG${crypto.randomUUID().replace(/-/g, "")}`;
    w.regTokens.add(token);
    return json({ token, expires_at: new Date(Date.now() + 3600_000).toISOString() }, 201);
  }
  if (path === "/api/v3/actions/runner-registration" && method === "POST") {
    const auth = /^RemoteAuth (.+)$/.exec(req.headers.get("authorization") ?? "")?.[1];
    if (!auth || !w.regTokens.has(auth)) return restError(401, "Bad credentials");
    const body = await req.json().catch(() => null);
    if (!body || typeof body.url !== "string" || body.runner_event !== "register") {
      return restError(400, "Bad request");
    }
    const expMs = Date.now() + (w.options.adminTokenTtlMs ?? 3600_000);
    const token = fakeJwt(expMs, "admin");
    w.adminTokens.set(token, expMs);
    return json({ url: `${w.origin}/tenant/1/`, token, token_schema: "OAuthAccessToken" }, 201);
  }

  return undefined;
}
