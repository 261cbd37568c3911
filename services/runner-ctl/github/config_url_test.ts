import assert from "node:assert/strict";
import { ConfigUrlError, parseConfigUrl } from "./config_url.ts";

Deno.test("parseConfigUrl", async (t) => {
  await t.step("hosted org and repo map to api.github.com", () => {
    const org = parseConfigUrl("https://github.com/acme");
    assert.equal(org.scope, "org");
    assert.equal(org.apiBase, "https://api.github.com");
    assert.equal(org.registrationTokenPath, "/orgs/acme/actions/runners/registration-token");
    const repo = parseConfigUrl("https://www.github.com/acme/app/");
    assert.equal(repo.scope, "repo");
    assert.equal(repo.apiBase, "https://api.github.com");
    assert.equal(repo.registrationTokenPath, "/repos/acme/app/actions/runners/registration-token");
    assert.equal(parseConfigUrl("https://acme.ghe.com/acme").apiBase, "https://api.acme.ghe.com");
  });
  await t.step("names with dots that are not dot segments are kept as written", () => {
    const u = parseConfigUrl("https://github.com/octo.org/app..x");
    assert.equal(u.owner, "octo.org");
    assert.equal(u.repo, "app..x");
    assert.equal(u.url, "https://github.com/octo.org/app..x");
  });
  await t.step("self-hosted maps to /api/v3 and keeps a valid port", () => {
    const u = parseConfigUrl("https://ghes.example.com:8443/acme/app");
    assert.equal(u.hosted, false);
    assert.equal(u.apiBase, "https://ghes.example.com:8443/api/v3");
    assert.equal(
      parseConfigUrl("https://ghes.example.com:65535/a").apiBase.includes("65535"),
      true,
    );
    assert.equal(parseConfigUrl("https://ghes.example.com:1/a").apiBase.includes(":1/"), true);
  });
  const rejected: [string, string][] = [
    ["http://github.com/acme", "must use https"],
    ["github.com/acme", "must be an absolute URL"],
    ["https://github.com:443/acme", "hosted domains take no port"],
    ["https://x.ghe.com:8443/acme", "hosted domains take no port"],
    ["https://ghes.example.com:0/acme", "must have a valid port"],
    ["https://ghes.example.com:/acme", "must have a valid port"],
    ["https://ghes.example.com:65536/acme", "must be an absolute URL"],
    ["https://github.com/enterprises/big", "enterprise URLs are not supported"],
    ["https://github.com./acme", "must not end its host with a dot"],
    ["https://user:pw@github.com/acme", "must not contain user information"],
    ["https://github.com/acme?x=1", "must not contain a query"],
    ["https://github.com/acme#frag", "must not contain a fragment"],
    ["https://github.com/ac%6De", "must not contain escaped path segments"],
    ["https://github.com/", "must name an organization or a repository"],
    ["https://github.com/a/b/c", "must name an organization or a repository"],
    ["https://github.com//acme", "must name an organization or a repository"],
    ["https://github.com/a b", "must not contain whitespace"],
    ["https://github.com\\acme", "must name an organization or a repository"],
    ["https://github.com/acme\\repo", "must name an organization or a repository"],
    ["https:\\\\github.com/acme", "must name an organization or a repository"],
    // Dot segments, which the URL parser would remove before the shape check.
    ["https://github.com/x/../octo-org", "must name an organization or a repository"],
    ["https://github.com/./octo-org", "must name an organization or a repository"],
    ["https://github.com/octo-org/.", "must name an organization or a repository"],
    ["https://github.com/octo-org/..", "must name an organization or a repository"],
    ["https://github.com/octo-org/app/..", "must name an organization or a repository"],
    ["https://github.com/..", "must name an organization or a repository"],
    ["https://ghes.example.com:8443/x/../octo-org", "must name an organization or a repository"],
    ["https://github.com/x/%2e%2e/octo-org", "must not contain escaped path segments"],
    ["https://github.com/x/%2E%2E/octo-org", "must not contain escaped path segments"],
    ["https://github.com/%2e/octo-org", "must not contain escaped path segments"],
    ["https://github.com/x/.%2e/octo-org", "must not contain escaped path segments"],
  ];
  for (const [url, reason] of rejected) {
    await t.step(`rejects ${url} without repeating it`, () => {
      assert.throws(() => parseConfigUrl(url), (err: unknown) => {
        assert.ok(err instanceof ConfigUrlError);
        assert.equal(err.message, reason);
        return true;
      });
    });
  }
});
