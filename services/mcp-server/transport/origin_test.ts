import assert from "node:assert/strict";
import { originAllowed } from "./origin.ts";
import { SettingsError } from "@svc/shared/settings";
import { SETTINGS } from "../settings.ts";

Deno.test("originAllowed: absent, loopback and listed origins only", async (t) => {
  const listed = new Set(["https://console.example"]);
  await t.step("allowed", () => {
    for (
      const origin of [
        null,
        "http://localhost",
        "http://localhost:6274",
        "https://127.0.0.1:8090",
        "http://[::1]:8090",
        "https://console.example",
      ]
    ) {
      assert.equal(originAllowed(origin, listed), true, String(origin));
    }
  });
  await t.step("refused", () => {
    for (
      const origin of [
        "null",
        "",
        "http://localhost.attacker.example",
        "http://127.0.0.1.nip.io:8090",
        "http://localhost:8090/",
        "https://console.example:443",
        "https://console.example.evil",
        "file://",
      ]
    ) {
      assert.equal(originAllowed(origin, listed), false, origin);
    }
  });
});

Deno.test("--allowed-origins takes origins only (at, and one character past, the shape)", () => {
  const ok = SETTINGS.resolve({
    args: ["--allowed-origins", "https://a.example", "--allowed-origins", "http://b.example:8080"],
  });
  assert.deepEqual(ok.values.allowed_origins, ["https://a.example", "http://b.example:8080"]);
  for (
    const bad of ["https://a.example/", "https://a.example:443", "a.example", "ftp://a.example"]
  ) {
    assert.throws(
      () => SETTINGS.resolve({ args: ["--allowed-origins", bad] }),
      (e: unknown) => e instanceof SettingsError && /must list origins/.test(e.message),
      bad,
    );
  }
});

Deno.test("--public-origin takes an origin; --scopes takes scope tokens", () => {
  assert.equal(
    SETTINGS.resolve({ args: ["--public-origin", "https://a.example"] }).values.public_origin,
    "https://a.example",
  );
  for (const bad of ["https://a.example/", "https://a.example/mcp", "a.example"]) {
    assert.throws(
      () => SETTINGS.resolve({ args: ["--public-origin", bad] }),
      (e: unknown) => e instanceof SettingsError && /must be an origin/.test(e.message),
      bad,
    );
  }
  assert.deepEqual(SETTINGS.resolve({ args: [] }).values.scopes, ["mcp"]);
  assert.deepEqual(
    SETTINGS.resolve({ args: ["--scopes", "mcp:tools", "--scopes", "!~"] }).values.scopes,
    ["mcp:tools", "!~"],
  );
  for (const bad of ['a"b', "a\\b", "é"]) {
    assert.throws(
      () => SETTINGS.resolve({ args: ["--scopes", bad] }),
      (e: unknown) => e instanceof SettingsError && /must list scope tokens/.test(e.message),
      bad,
    );
  }
});
