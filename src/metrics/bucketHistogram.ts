import type { Histogram, Registry } from 'prom-client';

/** One series of a BucketHistogram: its label values, a count per bucket (not cumulative), the sum and the count. */
export class HistogramSeries {
  private readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    private readonly bounds: readonly number[],
    readonly labels: Readonly<Record<string, string>>,
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let index = 0;
    while (index < bounds.length && value > bounds[index]!) index += 1;
    // A value above the last bound is counted by +Inf alone, which is the count.
    if (index < bounds.length) this.counts[index]! += 1;
    this.sum += value;
    this.count += 1;
  }

  cumulative(index: number): number {
    let total = 0;
    for (let bucket = 0; bucket <= index; bucket += 1) total += this.counts[bucket]!;
    return total;
  }
}

interface HistogramConfig<Label extends string> {
  name: string;
  help: string;
  labelNames: readonly Label[];
  buckets: readonly number[];
  registry: Registry;
}

/**
 * A Prometheus histogram for the request path, exposed through prom-client's registry like its own. prom-client's
 * `observe` checks and hashes the labels on every call (about 250 ns); the HTTP middleware and the read store
 * observe several times per request, which cost the service several per cent of its throughput. Here a caller
 * takes a series once (`series(...)`) and observing is a bucket search and three additions; the registry asks
 * `get()` for the values when scraped, in the shape prom-client's own histograms give.
 */
export class BucketHistogram<Label extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly labelNames: readonly Label[];
  private readonly bounds: readonly number[];
  private readonly bySeries = new Map<string, HistogramSeries>();

  constructor(config: HistogramConfig<Label>) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    this.bounds = [...config.buckets].sort((a, b) => a - b);
    // The registry takes any object that answers get() as its metrics do; its type names only its own classes.
    config.registry.registerMetric(this as unknown as Histogram<Label>);
  }

  /** The series of these label values (in labelNames' order), made on first use. */
  series(...values: string[]): HistogramSeries {
    const key = values.join('\u0000');
    let series = this.bySeries.get(key);
    if (!series) {
      series = new HistogramSeries(this.bounds, Object.fromEntries(this.labelNames.map((name, index) => [name, values[index] ?? ''])));
      this.bySeries.set(key, series);
    }
    return series;
  }

  async get() {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const series of this.bySeries.values()) {
      for (const [index, bound] of this.bounds.entries()) {
        values.push({ labels: { ...series.labels, le: bound }, value: series.cumulative(index), metricName: `${this.name}_bucket` });
      }
      values.push(
        { labels: { ...series.labels, le: '+Inf' }, value: series.count, metricName: `${this.name}_bucket` },
        { labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` },
        { labels: { ...series.labels }, value: series.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.bySeries.clear();
  }
}
