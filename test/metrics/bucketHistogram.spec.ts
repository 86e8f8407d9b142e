import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { BucketHistogram } from '../../src/metrics/bucketHistogram.js';
import { parsePrometheusText } from './prometheusText.js';

describe('BucketHistogram', () => {
  it("when values are observed, then the registry renders the same series as prom-client's own histogram would", async () => {
    const registry = new Registry();
    const ours = new BucketHistogram({ name: 'ours_seconds', help: 'Ours.', labelNames: ['operation'], buckets: [0.5, 0.1, 1], registry });
    const theirs = new Histogram({
      name: 'theirs_seconds',
      help: 'Theirs.',
      labelNames: ['operation'],
      buckets: [0.1, 0.5, 1],
      registers: [registry],
    });
    new Counter({ name: 'other_total', help: 'Beside them.', registers: [registry] }).inc();
    const values = [0.05, 0.1, 0.3, 0.5, 0.9, 7];
    const find = ours.series('find');
    for (const value of values) {
      find.observe(value);
      theirs.observe({ operation: 'find' }, value);
    }
    ours.series('get').observe(0.2);
    theirs.observe({ operation: 'get' }, 0.2);

    const families = parsePrometheusText(await registry.metrics());
    // Each sample as one line, its labels in name order: the two write them in different orders.
    const samplesOf = (name: string) =>
      families
        .get(name)!
        .samples.map(({ name: series, labels, value }) => {
          const sortedLabels = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
          return `${series.replace('theirs', 'ours')} ${JSON.stringify(sortedLabels)} ${value}`;
        })
        .sort();
    expect(families.get('ours_seconds')!.type).toBe('histogram');
    expect(samplesOf('ours_seconds')).toEqual(samplesOf('theirs_seconds'));
    expect(families.get('ours_seconds')!.samples).toContainEqual({ name: 'ours_seconds_count', labels: { operation: 'find' }, value: 6 });
    expect(families.has('other_total')).toBe(true);
  });

  it('when a series is asked for again, then the same one is handed out; reset forgets them all', async () => {
    const ours = new BucketHistogram({
      name: 'ours_seconds',
      help: 'Ours.',
      labelNames: ['route', 'status_class'],
      buckets: [1],
      registry: new Registry(),
    });
    expect(ours.series('/v1/health', '2xx')).toBe(ours.series('/v1/health', '2xx'));
    expect(ours.series('/v1/health', '2xx')).not.toBe(ours.series('/v1/health', '4xx'));
    ours.reset();
    expect((await ours.get()).values).toEqual([]);
  });
});
