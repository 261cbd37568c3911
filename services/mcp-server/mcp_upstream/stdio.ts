/**
 * MCP servers started as a command (`--mcp NAME=stdio:COMMAND ARG...`): the child process, its
 * JSON-RPC lines on stdin/stdout (each line read bounded by `--mcp-max-response-bytes`), its
 * stderr handed line by line to the log (never to our stdout, which carries JSON-RPC under the
 * stdio transport), and its stop. Spawning needs the run grant the operator adds on purpose
 * (`--allow-run=COMMAND`): {@linkcode runGrantProblem} says so at start-up.
 *
 * @module
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Longest stderr line logged, in characters; the rest of the line is dropped. */
const STDERR_LINE_CHARS = 1000;

/** How long a stop waits for the child to exit after SIGTERM before SIGKILL, ms. */
const STOP_GRACE_MS = 2_000;

/**
 * Why `command` cannot be started here (no run grant for it), or undefined when it can.
 * Queried, never requested: an ungranted permission would prompt on an interactive terminal.
 */
export function runGrantProblem(command: string): string | undefined {
  const { state } = Deno.permissions.querySync({ name: "run", command });
  return state === "granted" ? undefined : `it needs --allow-run=${command}`;
}

/** The message line was longer than the bound (the connection is closed with it). */
export class LineTooLong extends Error {
  constructor(readonly limit: number) {
    super(`response larger than ${limit} bytes`);
    this.name = "LineTooLong";
  }
}

/** A transport over a child process's stdin and stdout, newline-delimited JSON-RPC. */
export class ChildProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #child?: Deno.ChildProcess;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #closed = false;
  readonly #encoder = new TextEncoder();

  /**
   * @param command the program and its arguments
   * @param maxLineBytes largest message line read from stdout (without its newline)
   * @param stderrLine receives each stderr line (at most {@linkcode STDERR_LINE_CHARS})
   * @param state `tooLarge` set when a line was over the bound
   */
  constructor(
    readonly command: readonly string[],
    readonly maxLineBytes: number,
    readonly stderrLine: (line: string) => void,
    readonly state: { tooLarge: boolean } = { tooLarge: false },
  ) {}

  /** Spawns the child. @throws what `Deno.Command` throws (NotFound, NotCapable). */
  start(): Promise<void> {
    const child = new Deno.Command(this.command[0], {
      args: this.command.slice(1),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    void this.#readStdout(child.stdout);
    void this.#readStderr(child.stderr);
    void child.status.then(() => this.close());
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed || !this.#writer) throw new Error("the MCP server's process has ended");
    await this.#writer.write(this.#encoder.encode(serializeMessage(message)));
  }

  /** Stops the child (stdin closed, SIGTERM, SIGKILL after a grace) and reports the close. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const child = this.#child;
    if (child) {
      await this.#writer?.close().catch(() => {});
      try {
        child.kill("SIGTERM");
      } catch { /* already exited */ }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const exited = await Promise.race([
        child.status.then(() => true),
        new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), STOP_GRACE_MS)),
      ]);
      clearTimeout(timer);
      if (!exited) {
        try {
          child.kill("SIGKILL");
        } catch { /* exited meanwhile */ }
        await child.status;
      }
    }
    this.onclose?.();
  }

  async #readStdout(stdout: ReadableStream<Uint8Array>): Promise<void> {
    let buffer = new Uint8Array(0);
    try {
      for await (const chunk of stdout) {
        const joined = new Uint8Array(buffer.length + chunk.length);
        joined.set(buffer);
        joined.set(chunk, buffer.length);
        buffer = joined;
        let newline;
        while ((newline = buffer.indexOf(0x0a)) !== -1) {
          const line = new TextDecoder().decode(buffer.subarray(0, newline)).replace(/\r$/, "");
          if (newline > this.maxLineBytes) throw new LineTooLong(this.maxLineBytes);
          buffer = buffer.subarray(newline + 1);
          if (line.trim() === "") continue;
          let message;
          try {
            message = deserializeMessage(line);
          } catch (err) {
            this.onerror?.(err as Error);
            continue;
          }
          this.onmessage?.(message);
        }
        if (buffer.length > this.maxLineBytes) throw new LineTooLong(this.maxLineBytes);
      }
    } catch (err) {
      if (err instanceof LineTooLong) this.state.tooLarge = true;
      this.onerror?.(err as Error);
      await stdout.cancel().catch(() => {});
      await this.close();
    }
  }

  async #readStderr(stderr: ReadableStream<Uint8Array>): Promise<void> {
    let line = "";
    let dropping = false;
    try {
      for await (const text of stderr.pipeThrough(new TextDecoderStream())) {
        let rest = text;
        let newline;
        while ((newline = rest.indexOf("\n")) !== -1) {
          if (!dropping) line += rest.slice(0, newline);
          if (!dropping && line !== "") this.stderrLine(line.slice(0, STDERR_LINE_CHARS));
          line = "";
          dropping = false;
          rest = rest.slice(newline + 1);
        }
        if (!dropping) line += rest;
        if (line.length > STDERR_LINE_CHARS) {
          this.stderrLine(line.slice(0, STDERR_LINE_CHARS));
          line = "";
          dropping = true;
        }
      }
      if (line !== "") this.stderrLine(line);
    } catch { /* the child's stderr went away */ }
  }
}
