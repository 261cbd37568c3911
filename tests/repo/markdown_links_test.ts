import assert from "node:assert/strict";
import { checkMarkdownLinks, headingAnchors, markdownLinks, slug } from "./markdown_links.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The tracked Markdown files (what a reader of the repository gets). */
async function trackedMarkdown(): Promise<string[]> {
  const out = await new Deno.Command("git", {
    args: ["ls-files", "-z", "--", "*.md"],
    cwd: ROOT,
    stdout: "piped",
  }).output();
  assert.ok(out.success, "git ls-files lists the tracked files");
  return new TextDecoder().decode(out.stdout).split("\0").filter((f) => f !== "");
}

Deno.test("every relative link and anchor in the tracked Markdown files resolves", async () => {
  const files = await trackedMarkdown();
  assert.ok(files.includes("README.md") && files.includes("docs/README.md"), files.join(", "));
  const broken = await checkMarkdownLinks({ root: ROOT, files });
  assert.deepEqual(
    broken.map((b) => `${b.file}:${b.line}: ${b.target}: ${b.reason}`),
    [],
  );
});

Deno.test("markdownLinks finds inline, image, reference and HTML links, not code", () => {
  const text = [
    'See [a](a.md) and ![img](pic.png "title") and <img src="x/y.png" width="2">.',
    "Code `[not](a link)` is text.",
    "```sh",
    "[not](either)",
    "```",
    "[ref]: docs/ref.md#part",
  ].join("\n");
  assert.deepEqual(markdownLinks(text), [
    { line: 1, target: "a.md" },
    { line: 1, target: "pic.png" },
    { line: 1, target: "x/y.png" },
    { line: 6, target: "docs/ref.md#part" },
  ]);
});

Deno.test("slug and headingAnchors follow GitHub's anchors", () => {
  assert.equal(
    slug("Decisions where the contract is silent"),
    "decisions-where-the-contract-is-silent",
  );
  assert.equal(slug("`If-Range`: evaluated (RFC 9110)"), "if-range-evaluated-rfc-9110");
  assert.equal(slug("mock-oidc — `services/mock-oidc/`"), "mock-oidc--servicesmock-oidc");
  assert.equal(slug("Über_alles 2"), "über_alles-2");
  const anchors = headingAnchors('# A\n## A\n```\n# not\n```\n### B c\n<a id="x"></a>\n');
  assert.deepEqual([...anchors].sort(), ["a", "a-1", "b-c", "x"]);
});

Deno.test("checkMarkdownLinks reports missing files, missing anchors and escapes", async () => {
  const files: Record<string, string> = {
    "/r/README.md": [
      "[ok](docs/a.md#one) [ok dir](docs/) [self](#top) [web](https://x.test/#y)",
      "[gone](docs/missing.md) [bad anchor](docs/a.md#two) [out](../etc/passwd)",
      "[abs](/docs/a.md) [own](#nope)",
      "# Top",
    ].join("\n"),
    "/r/docs/a.md": "# One\n",
  };
  const broken = await checkMarkdownLinks({
    root: "/r/",
    files: ["README.md"],
    readTextFile: (p) => Promise.resolve(files[p]),
    exists: (p) => Promise.resolve(p in files || p === "/r/docs/"),
  });
  assert.deepEqual(broken.map((b) => [b.line, b.target, b.reason]), [
    [2, "docs/missing.md", "no such file or directory"],
    [2, "docs/a.md#two", "no heading with anchor #two"],
    [2, "../etc/passwd", "points outside the repository"],
    [3, "/docs/a.md", "absolute path: write it relative to the file"],
    [3, "#nope", "no heading with anchor #nope"],
  ]);
});
