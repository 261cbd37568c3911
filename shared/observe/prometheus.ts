/**
 * A small Prometheus client: counters, gauges and histograms in a registry, rendered in the text
 * exposition format (version 0.0.4). It replaces prom-client, whose dependency `bintrees` makes
 * `deno compile` 2.9 crash with a stack overflow (denoland/deno#36746), and whose import cost
 * 100–150 ms of every service start. The constructor options follow prom-client's, so code reads
 * the same.
 *
 * @module
 */

/** Label values of one series, by label name. */
export type Labels<L extends string> = Partial<Record<L, string | number>>;

/** One labelled series of a metric. */
export interface Series {
  /** Its label values. */
  labels: Record<string, string>;
  /** Counter or gauge value; a histogram's count. */
  value: number;
  /** A histogram's per-bucket counts (not cumulative). */
  buckets?: number[];
  /** A histogram's sum of observations. */
  sum?: number;
}

/**
 * A metric's state as plain data (it survives `postMessage`), so several isolates' registries can
 * be merged into one view with {@linkcode mergeSnapshots}.
 */
export interface MetricSnapshot {
  /** See {@linkcode MetricOptions.name}. */
  name: string;
  /** See {@linkcode MetricOptions.help}. */
  help: string;
  /** The `# TYPE`. */
  type: "counter" | "gauge" | "histogram";
  /** See {@linkcode MetricOptions.labelNames}. */
  labelNames: string[];
  /** A histogram's bucket bounds. */
  buckets?: number[];
  /** Every series. */
  series: Series[];
}

/** Options shared by every metric type. */
export interface MetricOptions<L extends string> {
  /** Metric name (`[a-zA-Z_:][a-zA-Z0-9_:]*`). */
  name: string;
  /** The `# HELP` text. */
  help: string;
  /** Names of the labels its series carry. @default {[]} */
  labelNames?: readonly L[];
  /** Registries to add the metric to. */
  registers?: Registry[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function formatValue(value: number): string {
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

function labelText(labels: Record<string, string>, extra?: Record<string, string>): string {
  const all = extra ? { ...labels, ...extra } : labels;
  const parts = Object.entries(all).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
}

/** What counters, gauges and histograms share: a name, help, labels and series. */
export abstract class Metric<L extends string> {
  /** See {@linkcode MetricOptions.name}. */
  readonly name: string;
  /** See {@linkcode MetricOptions.help}. */
  readonly help: string;
  /** See {@linkcode MetricOptions.labelNames}. */
  readonly labelNames: readonly L[];
  /** Series by their label values. */
  protected readonly series: Map<string, Series> = new Map();
  /**
   * Series by the identity of a frozen label object: a hot path (HTTP metrics) passes the same
   * frozen objects on every request, and finds its series without joining the label values into
   * a key. Only frozen objects: a mutable one could hold other values by the next call.
   */
  #byFrozenLabels = new WeakMap<object, Series>();
  /** The `# TYPE` of the metric. */
  abstract readonly type: "counter" | "gauge" | "histogram";

  /** Creates the metric and adds it to `options.registers`. */
  constructor(options: MetricOptions<L>) {
    if (!NAME.test(options.name)) {
      throw new TypeError(`Cannot create metric: invalid name "${options.name}"`);
    }
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames ?? [];
    for (const registry of options.registers ?? []) registry.register(this);
  }

  /** The series of `labels`, created on first use. */
  protected seriesFor(labels: Labels<L> = {}): Series {
    const known = this.#byFrozenLabels.get(labels);
    if (known) return known;
    let key = "";
    for (const name of this.labelNames) key += String(labels[name] ?? "") + "\u0001";
    let series = this.series.get(key);
    if (!series) {
      const values: Record<string, string> = {};
      for (const name of this.labelNames) {
        if (labels[name] !== undefined) values[name] = String(labels[name]);
      }
      for (const name of Object.keys(labels)) {
        if (!this.labelNames.includes(name as L)) {
          throw new TypeError(`Cannot record metric "${this.name}": unknown label "${name}"`);
        }
      }
      series = this.newSeries(values);
      this.series.set(key, series);
    }
    if (Object.isFrozen(labels)) this.#byFrozenLabels.set(labels, series);
    return series;
  }

  /** A fresh series with `labels`. */
  protected newSeries(labels: Record<string, string>): Series {
    return { labels, value: 0 };
  }

  /** Forgets every recorded series. */
  reset(): void {
    this.series.clear();
    this.#byFrozenLabels = new WeakMap();
  }

  /** Its state as plain data. */
  snapshot(): MetricSnapshot {
    const series = [...this.series.values()].map((s) => ({
      ...s,
      labels: { ...s.labels },
      ...(s.buckets ? { buckets: [...s.buckets] } : {}),
    }));
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      labelNames: [...this.labelNames],
      series,
    };
  }

  /** Adds `series` (values, sums and bucket counts) into the matching series of this metric. */
  add(series: readonly Series[]): void {
    for (const s of series) {
      const own = this.seriesFor(s.labels as Labels<L>);
      own.value += s.value;
      if (own.sum !== undefined) own.sum += s.sum ?? 0;
      own.buckets?.forEach((_, i) => own.buckets![i] += s.buckets?.[i] ?? 0);
    }
  }

  /** Exposition lines of this metric. */
  render(defaults: Record<string, string>): string {
    const help = this.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
    let out = `# HELP ${this.name} ${help}\n# TYPE ${this.name} ${this.type}\n`;
    if (this.series.size === 0 && this.labelNames.length === 0) this.seriesFor();
    for (const series of this.series.values()) out += this.renderSeries(series, defaults);
    return out;
  }

  /** Exposition lines of one series. */
  protected renderSeries(series: Series, defaults: Record<string, string>): string {
    return `${this.name}${labelText({ ...series.labels, ...defaults })} ${
      formatValue(series.value)
    }\n`;
  }
}

/**
 * A monotonically increasing count.
 *
 * @example Usage
 * ```ts
 * import { Counter, Registry } from "@svc/shared/metrics";
 * const registry = new Registry();
 * const tokens = new Counter({ name: "tokens_total", help: "Tokens", labelNames: ["grant"], registers: [registry] });
 * tokens.inc({ grant: "password" });
 * ```
 */
export class Counter<L extends string = string> extends Metric<L> {
  /** Always `counter`. */
  readonly type: "counter" = "counter";
  /** Adds `value` (default 1) to the series of `labels`. */
  inc(labels?: Labels<L> | number, value = 1): void {
    if (typeof labels === "number") [labels, value] = [undefined, labels];
    if (!(value >= 0)) throw new RangeError(`Cannot decrease counter "${this.name}"`);
    this.seriesFor(labels).value += value;
  }
}

/**
 * A value that goes up and down.
 *
 * @example Usage
 * ```ts
 * import { Gauge } from "@svc/shared/metrics";
 * const depth = new Gauge({ name: "queue_depth", help: "Queued items" });
 * depth.set(3);
 * ```
 */
export class Gauge<L extends string = string> extends Metric<L> {
  /** Always `gauge`. */
  readonly type: "gauge" = "gauge";
  /** Sets the series of `labels` (or the unlabelled series) to `value`. */
  set(labels: Labels<L> | number, value?: number): void {
    if (typeof labels === "number") this.seriesFor().value = labels;
    else this.seriesFor(labels).value = value ?? 0;
  }
  /** Adds `value` (default 1) to the series of `labels`. */
  inc(labels?: Labels<L> | number, value = 1): void {
    if (typeof labels === "number") [labels, value] = [undefined, labels];
    this.seriesFor(labels).value += value;
  }
  /** Subtracts `value` (default 1) from the series of `labels`. */
  dec(labels?: Labels<L> | number, value = 1): void {
    if (typeof labels === "number") [labels, value] = [undefined, labels];
    this.seriesFor(labels).value -= value;
  }
}

/** Options of {@linkcode Histogram}. */
export interface HistogramOptions<L extends string> extends MetricOptions<L> {
  /** Upper bounds of the buckets, ascending. @default Prometheus' default buckets */
  buckets?: number[];
}

/**
 * Observations counted into cumulative buckets, with their sum and count.
 *
 * @example Usage
 * ```ts
 * import { Histogram } from "@svc/shared/metrics";
 * const latency = new Histogram({ name: "latency_seconds", help: "Latency", buckets: [0.1, 1] });
 * latency.observe(0.25);
 * ```
 */
export class Histogram<L extends string = string> extends Metric<L> {
  /** Always `histogram`. */
  readonly type: "histogram" = "histogram";
  /** Upper bounds of the buckets, ascending. */
  readonly buckets: readonly number[];
  /** Creates the histogram and adds it to `options.registers`. */
  constructor(options: HistogramOptions<L>) {
    super(options);
    this.buckets = [
      ...(options.buckets ?? [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
    ]
      .sort((a, b) => a - b);
  }
  /** Its state as plain data, bucket bounds included. */
  override snapshot(): MetricSnapshot {
    return { ...super.snapshot(), buckets: [...this.buckets] };
  }
  /** A fresh series with empty buckets. */
  protected override newSeries(labels: Record<string, string>): Series {
    return { labels, value: 0, sum: 0, buckets: this.buckets.map(() => 0) };
  }
  /** Records `value` in the series of `labels`. */
  observe(labels: Labels<L> | number, value?: number): void {
    if (typeof labels === "number") [labels, value] = [{}, labels];
    const series = this.seriesFor(labels);
    const v = value ?? 0;
    series.value++;
    series.sum! += v;
    const buckets = this.buckets;
    for (let i = 0; i < buckets.length; i++) { // no closure per observation
      if (v <= buckets[i]) {
        series.buckets![i]++;
        break;
      }
    }
  }
  /** Bucket, sum and count lines of one series. */
  protected override renderSeries(series: Series, defaults: Record<string, string>): string {
    const labels = { ...series.labels, ...defaults };
    let out = "";
    let cumulative = 0;
    this.buckets.forEach((bound, i) => {
      cumulative += series.buckets![i];
      out += `${this.name}_bucket${labelText(labels, { le: formatValue(bound) })} ${cumulative}\n`;
    });
    out += `${this.name}_bucket${labelText(labels, { le: "+Inf" })} ${series.value}\n`;
    out += `${this.name}_sum${labelText(labels)} ${formatValue(series.sum!)}\n`;
    out += `${this.name}_count${labelText(labels)} ${series.value}\n`;
    return out;
  }
}

/**
 * A set of metrics rendered together, with labels added to every series.
 *
 * @example Usage
 * ```ts
 * import { Counter, Registry } from "@svc/shared/metrics";
 * const registry = new Registry();
 * registry.setDefaultLabels({ service: "todo-api" });
 * new Counter({ name: "x_total", help: "X", registers: [registry] }).inc();
 * await registry.metrics(); // "# HELP x_total X\n# TYPE x_total counter\nx_total{service=\"todo-api\"} 1\n"
 * ```
 */
export class Registry {
  /** Content type of the exposition text. */
  readonly contentType: string = "text/plain; version=0.0.4; charset=utf-8";
  #metrics = new Map<string, Metric<string>>();
  #defaults: Record<string, string> = {};

  /** Labels added to every series of every metric of this registry. */
  setDefaultLabels(labels: Record<string, string>): void {
    this.#defaults = { ...labels };
  }

  /** Adds a metric; names are unique per registry. */
  register(metric: Metric<string>): void {
    if (this.#metrics.has(metric.name)) {
      throw new TypeError(`Cannot register metric: "${metric.name}" is already registered`);
    }
    this.#metrics.set(metric.name, metric);
  }

  /** Every metric's state as plain data. */
  snapshot(): MetricSnapshot[] {
    return [...this.#metrics.values()].map((m) => m.snapshot());
  }

  /** The metric registered under `name`. */
  get(name: string): Metric<string> | undefined {
    return this.#metrics.get(name);
  }

  /** The text exposition of every metric. Async to match prom-client's signature. */
  metrics(): Promise<string> {
    let out = "";
    for (const metric of this.#metrics.values()) out += metric.render(this.#defaults) + "\n";
    return Promise.resolve(out);
  }
}

/**
 * Merges the snapshots of several registries (one per worker isolate, say) into one registry:
 * series with the same labels add up, counters, histograms and gauges alike (gauges of counts,
 * such as requests in flight, add up too). The first snapshot of a name decides its type, help
 * and buckets; a later one whose type or buckets differ is skipped.
 *
 * @example Two workers' counters, one view
 * ```ts
 * import assert from "node:assert/strict";
 * import { Counter, mergeSnapshots, Registry } from "@svc/shared/metrics";
 * const workers = [new Registry(), new Registry()];
 * for (const [i, registry] of workers.entries()) {
 *   new Counter({ name: "hits_total", help: "Hits", registers: [registry] }).inc(i + 1);
 * }
 * const merged = mergeSnapshots(workers.map((r) => r.snapshot()));
 * assert.match(await merged.metrics(), /^hits_total 3$/m);
 * ```
 */
export function mergeSnapshots(snapshots: readonly MetricSnapshot[][]): Registry {
  const registry = new Registry();
  for (const snapshot of snapshots) {
    for (const m of snapshot) {
      let metric = registry.get(m.name);
      if (!metric) {
        const options = {
          name: m.name,
          help: m.help,
          labelNames: m.labelNames,
          registers: [registry],
        };
        metric = m.type === "counter"
          ? new Counter(options)
          : m.type === "gauge"
          ? new Gauge(options)
          : new Histogram({ ...options, buckets: m.buckets });
      }
      const buckets = metric instanceof Histogram ? metric.buckets : undefined;
      if (metric.type !== m.type || String(buckets) !== String(m.buckets)) continue;
      metric.add(m.series);
    }
  }
  return registry;
}
