/**
 * The agent-error value a capability handler throws (or returns) to disclose a message to the
 * program's author: `capability failed: <message>`, sanitized and bounded to 256 bytes.
 * @module
 */

/** Maximum bytes of the disclosed message, including a trailing `...` when truncated. */
export const MAX_AGENT_MESSAGE_BYTES = 256;

/** Throw (or return) this from a handler to show `message` to the agent. */
export class AgentError extends Error {
  /** Stable code (the client sees `capability failed: <message>`). */
  readonly code = "agent_error";
  /**
   * Creates an agent error.
   * @param message Shown to the agent after sanitizing (at most 256 bytes).
   */
  constructor(message: string) {
    super(message);
    this.name = "AgentError";
  }
}

const PRINTABLE = /[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u;

/**
 * Non-printable runes become spaces, invalid UTF-8 (lone surrogates) becomes U+FFFD, and the
 * result is cut on a rune boundary to at most 256 bytes including a trailing `...`.
 */
export function sanitizeAgentMessage(message: string): string {
  let out = "";
  for (const char of message.toWellFormed()) out += PRINTABLE.test(char) ? char : " ";
  const enc = new TextEncoder();
  if (enc.encode(out).length <= MAX_AGENT_MESSAGE_BYTES) return out;
  let cut = "";
  let bytes = 0;
  for (const char of out) {
    const size = enc.encode(char).length;
    if (bytes + size > MAX_AGENT_MESSAGE_BYTES - 3) break;
    cut += char;
    bytes += size;
  }
  return `${cut}...`;
}
