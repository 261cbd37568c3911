/**
 * describe_api: exact lookup of an enabled capability, with its signature and the input and
 * output notation of docs/mcp-server.md#signatures-and-type-notation, in field declaration order.
 * @module
 */
import type { CapabilityRegistry } from "../capabilities/registry.ts";
import { describeInput, describeOutput, type FieldDescription } from "../capabilities/notation.ts";
import { ErrorText, ToolError } from "./errors.ts";

/** describe_api's structured output. */
export interface DescribeOutput {
  name: string;
  signature: string;
  summary: string;
  description: string;
  input: FieldDescription[];
  output: FieldDescription[];
}

/** Describes one enabled capability. @throws {ToolError} `capability not found`. */
export function describeCapability(registry: CapabilityRegistry, name: string): DescribeOutput {
  const cap = registry.get(name);
  if (!cap) throw new ToolError(ErrorText.capabilityNotFound);
  return {
    name: cap.name,
    signature: cap.signature,
    summary: cap.summary,
    description: cap.description,
    input: describeInput(cap.input),
    output: describeOutput(cap.output),
  };
}
