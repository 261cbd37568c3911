/**
 * Test support: a fake GitHub + Actions service and the real clients wired to it (trusting its
 * self-signed certificate).
 *
 * @module
 */
import {
  type FakeGithubOptions,
  startFakeGithub,
} from "../../../tests/fakes/github/fake_github.ts";
import { ActionsClient } from "./actions.ts";
import { ActionsAuth, type GithubCredentials } from "./auth.ts";
import { parseConfigUrl } from "./config_url.ts";
import type { HttpDeps } from "./http.ts";

/** PAT the fake accepts by default. */
export const TEST_PAT = "ghp_testtoken";

/** Starts the fake and builds clients for it. */
export async function githubSetup(
  options: FakeGithubOptions & { credentials?: GithubCredentials } = {},
) {
  const fake = await startFakeGithub({ pats: [TEST_PAT], longPollMs: 300, ...options });
  const client = Deno.createHttpClient({ caCerts: [fake.caCert] });
  const sleeps: number[] = [];
  const http: HttpDeps = {
    fetch: (input, init) => fetch(input, { ...init, client }),
    userAgent: "runner-ctl-test",
    retry: { initialMs: 1, maximumMs: 5 },
    sleep: (ms) => {
      sleeps.push(ms);
      // real clock: the injected sleep records each backoff and waits at most 5 ms of it
      return new Promise((r) => setTimeout(r, Math.min(ms, 5)));
    },
  };
  const configUrl = parseConfigUrl(fake.configUrl);
  const auth = new ActionsAuth({
    configUrl,
    credentials: options.credentials ?? { kind: "token", token: TEST_PAT },
    http,
  });
  const actions = new ActionsClient(auth, http);
  return {
    fake,
    http,
    auth,
    actions,
    sleeps,
    async close() {
      await fake.close();
      client.close();
    },
  };
}
