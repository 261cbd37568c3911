import assert from "node:assert/strict";
import { DeadlineError, ErrorText, errorText, ToolError, toolErrorOf } from "./errors.ts";
import { AgentError } from "./agent_error.ts";
import { PermissionDenied } from "../auth/authorizer.ts";
import { InvalidToken } from "../auth/bearer.ts";
import { PolicyError, PolicyEvaluationError } from "../auth/policy.ts";
import { BindError } from "../capabilities/bind.ts";
import { ProjectionError } from "../capabilities/project.ts";
import { RegistrationError } from "../capabilities/registry.ts";
import { QueryLimitError } from "../search/tokens.ts";
import { ApiError } from "../openapi/host.ts";
import { DocumentError } from "../openapi/document.ts";
import { ReadFailed, ReadRefused } from "../openapi/read_within.ts";
import { Unexpressible } from "../openapi/schema_map.ts";
import { EndpointError } from "../transport/endpoint_error.ts";

Deno.test("ToolError: the code is the stable text, the message the text the client sees", () => {
  const bare = new ToolError(ErrorText.capabilityFailed);
  assert.equal(bare.code, "capability failed");
  assert.equal(bare.message, "capability failed");
  const detailed = new ToolError(ErrorText.invalidArguments, "n: got float, want int");
  assert.equal(detailed.code, "invalid capability arguments");
  assert.equal(detailed.message, "invalid capability arguments: n: got float, want int");
  assert.equal(errorText(detailed), detailed.message);
  assert.equal(new ToolError(ErrorText.invalidProgram, "").message, "invalid program");
});

Deno.test("toolErrorOf: a text back from a worker keeps its text and finds its code", async (t) => {
  for (const code of Object.values(ErrorText)) {
    await t.step(code, () => {
      for (const text of [code, `${code}: <program>:1:2: detail: with colons`]) {
        const err = toolErrorOf(text);
        assert.equal(err.message, text);
        assert.equal(err.code, code);
      }
    });
  }
  await t.step("any other text is an internal failure", () => {
    for (const text of ["", "capability failedx", "capability failed:x", "boom"]) {
      const err = toolErrorOf(text);
      assert.equal(err.message, "internal failure", text);
      assert.equal(err.code, "internal failure", text);
    }
  });
});

Deno.test("every error class of mcp-server carries a stable code", () => {
  const errors: Array<[Error & { code: string }, string]> = [
    [new ToolError(ErrorText.permissionDenied), "permission denied"],
    [new DeadlineError(), "deadline_exceeded"],
    [new AgentError("m"), "agent_error"],
    [new PermissionDenied(), "permission_denied"],
    [new InvalidToken("m"), "invalid_token"],
    [new PolicyError("m"), "policy_invalid"],
    [new PolicyEvaluationError("m"), "policy_failure"],
    [new BindError("m"), "invalid_arguments"],
    [new ProjectionError("m"), "invalid_result"],
    [new RegistrationError("a.b", "m"), "registration_refused"],
    [new QueryLimitError("m"), "query_limit_exceeded"],
    [new ApiError("m"), "api_unusable"],
    [new DocumentError("m"), "document_unreadable"],
    [new ReadRefused("m"), "read_refused"],
    [new ReadFailed("timeout", "m"), "timeout"],
    [new Unexpressible("m"), "unexpressible"],
    [new EndpointError(401, "invalid_token", {}), "invalid_token"],
  ];
  for (const [err, code] of errors) assert.equal(err.code, code, err.name);
});
