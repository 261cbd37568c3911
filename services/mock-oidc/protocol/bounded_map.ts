/**
 * The bounded map of the protocol state: a module of its own, so that the state
 * (`state.ts`) and the client registry it holds (`client_registry.ts`) both import it without
 * importing each other.
 *
 * @module
 */

/** A Map that forgets its oldest entries past `max`. */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly #max: number;
  constructor(max: number) {
    super();
    this.#max = max;
  }
  override set(key: K, value: V): this {
    super.set(key, value);
    if (this.size > this.#max) this.delete(this.keys().next().value as K);
    return this;
  }
}
