/**
 * The OpenAPI host at scale: GitHub's REST description (npm `@octokit/openapi`, about 1 200
 * operations) registers with every operation enabled or disabled with a reason, and for 20
 * natural-language tasks the right operation is in the top 3 of search_api. Registration time and
 * search latency are measured in tests/bench/openapi_github.ts (figures in tests/bench/RESULTS.md).
 */
import assert from "node:assert/strict";
import { CapabilityRegistry } from "../../services/mcp-server/capabilities/registry.ts";
import { loadDocument } from "../../services/mcp-server/openapi/document.ts";
import { registerDocument } from "../../services/mcp-server/openapi/host.ts";
import { createSearch } from "../../services/mcp-server/tools/search_api.ts";
import { DEFAULT_LIMITS } from "../../services/mcp-server/limits.ts";

/** The description the npm package ships (installed by `deno install` from the root imports). */
export const GITHUB_DOCUMENT = new URL(
  "../../node_modules/@octokit/openapi/generated/api.github.com.json",
  import.meta.url,
).pathname;

/** Tasks an agent might be given, and the operation that does each. */
export const TASKS: ReadonlyArray<[string, string]> = [
  ["list review comments on a pull request", "gh.pulls_list_review_comments"],
  ["delete a repository webhook", "gh.repos_delete_webhook"],
  ["list workflow runs", "gh.actions_list_workflow_runs_for_repo"],
  ["create a release", "gh.repos_create_release"],
  ["merge a pull request", "gh.pulls_merge"],
  ["list branches", "gh.repos_list_branches"],
  ["search code", "gh.search_code"],
  ["create a comment on an issue", "gh.issues_create_comment"],
  ["get a workflow run", "gh.actions_get_workflow_run"],
  ["create a check run", "gh.checks_create"],
  ["download a repository archive", "gh.repos_download_tarball_archive"],
  ["lock an issue", "gh.issues_lock"],
  ["star a repository", "gh.activity_star_repo_for_authenticated_user"],
  ["add labels to an issue", "gh.issues_add_labels"],
  ["create a gist", "gh.gists_create"],
  ["list organization members", "gh.orgs_list_members"],
  ["create a deploy key", "gh.repos_create_deploy_key"],
  ["add a collaborator to a repository", "gh.repos_add_collaborator"],
  ["cancel a workflow run", "gh.actions_cancel_workflow_run"],
  ["transfer a repository", "gh.repos_transfer"],
];

/** Loads and registers the GitHub description as the API `gh`. */
async function registerGithub() {
  const loaded = await loadDocument(GITHUB_DOCUMENT);
  const registry = new CapabilityRegistry();
  const report = registerDocument(registry, { name: "gh", source: GITHUB_DOCUMENT }, loaded, {
    env: () => undefined,
  });
  return { loaded, registry, report };
}

Deno.test("GitHub REST description: every operation enabled or disabled with a reason", async () => {
  const { loaded, registry, report } = await registerGithub();
  let operations = 0;
  for (const item of Object.values(loaded.doc.paths as Record<string, Record<string, unknown>>)) {
    for (const m of ["get", "put", "post", "delete", "options", "head", "patch", "trace"]) {
      if (item[m]) operations++;
    }
  }
  assert.ok(operations > 1000, `${operations} operations`);
  assert.equal(report.enabled.length + report.disabled.length, operations);
  assert.equal(registry.enabled().length, report.enabled.length);
  for (const d of report.disabled) {
    assert.ok(d.reason.length > 0, d.name);
    assert.equal(registry.get(d.name), undefined, `${d.name} is not visible`);
  }
  const share = report.enabled.length / operations;
  assert.ok(share >= 0.9, `enabled share ${share}`);
  // every enabled capability has a signature and base URL from the document's server
  const pulls = registry.get("gh.pulls_list_review_comments")!;
  assert.match(
    pulls.signature,
    /^gh\.pulls_list_review_comments\(\*, owner: str, repo: str, pull_number: int, /,
  );
});

Deno.test("GitHub REST description: 20 tasks find their operation in the top 3", async () => {
  const { registry } = await registerGithub();
  const search = createSearch(registry, DEFAULT_LIMITS);
  const misses: string[] = [];
  for (const [task, want] of TASKS) {
    const top = search(task).results.slice(0, 3).map((r) => r.name);
    if (!top.includes(want)) misses.push(`${task}: want ${want}, got ${top.join(", ")}`);
  }
  assert.deepEqual(misses, []);
});
