/**
 * The one-shot scenario queue: each enqueued scenario alters exactly one token, the next one
 * issued for its issuer (by any grant, including refresh_token), and is then gone.
 * @module
 */

/** A scenario (docs/mock-oidc.md#control-plane) is the protocol side's token callback shape. */
export type { RequestMapping, TokenCallback as Scenario } from "../tokens/callback.ts";
import type { CallbackSource, TokenCallback as Scenario } from "../tokens/callback.ts";

export interface QueuedScenario {
  id: string;
  scenario: Scenario;
}

export interface ScenarioQueueOptions {
  /** Source of scenario ids. @default crypto.randomUUID */
  randomId?: () => string;
  /** Called with the new depth after every change (for the queue-depth gauge). */
  onDepth?: (depth: number) => void;
}

/** FIFO of one-shot scenarios; implements the protocol side's `CallbackSource`. */
export class ScenarioQueue implements CallbackSource {
  #items: QueuedScenario[] = [];
  #randomId: () => string;
  #onDepth: (depth: number) => void;

  constructor(options: ScenarioQueueOptions = {}) {
    this.#randomId = options.randomId ?? (() => crypto.randomUUID());
    this.#onDepth = options.onDepth ?? (() => {});
  }

  get depth(): number {
    return this.#items.length;
  }

  /** Appends a scenario and returns its id. */
  enqueue(scenario: Scenario): string {
    const id = this.#randomId();
    this.#items.push({ id, scenario: structuredClone(scenario) });
    this.#onDepth(this.#items.length);
    return id;
  }

  /** Removes and returns the oldest scenario for `issuerId`, if any. */
  take(issuerId: string): Scenario | undefined {
    const index = this.#items.findIndex((item) => item.scenario.issuer === issuerId);
    if (index < 0) return undefined;
    const [item] = this.#items.splice(index, 1);
    this.#onDepth(this.#items.length);
    return item.scenario;
  }

  /** A copy of the queue, oldest first. */
  list(): QueuedScenario[] {
    return this.#items.map((item) => structuredClone(item));
  }

  clear(): void {
    this.#items = [];
    this.#onDepth(0);
  }
}
