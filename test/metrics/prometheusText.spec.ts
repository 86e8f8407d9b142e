import { describe, expect, it } from 'vitest';
import { parsePrometheusText } from './prometheusText.js';

describe('the test reader of the Prometheus text format', () => {
  it('when the text is well formed, then families, samples, escaped labels and special values are read', () => {
    const families = parsePrometheusText(
      [
        '# HELP requests_seconds Request time.',
        '# TYPE requests_seconds histogram',
        'requests_seconds_bucket{le="0.1",route="/a \\"b\\""} 2',
        'requests_seconds_bucket{le="+Inf",route="/a \\"b\\""} 3',
        'requests_seconds_sum{route="/a \\"b\\""} 0.25',
        'requests_seconds_count{route="/a \\"b\\""} 3',
        '',
        '# HELP lag Lag.',
        '# TYPE lag gauge',
        'lag Nan',
        '',
      ].join('\n'),
    );
    expect([...families.keys()]).toEqual(['requests_seconds', 'lag']);
    expect(families.get('requests_seconds')!.samples[1]).toEqual({
      name: 'requests_seconds_bucket',
      labels: { le: '+Inf', route: '/a "b"' },
      value: 3,
    });
    expect(families.get('lag')!.samples[0]!.value).toBeNaN();
  });

  it.each([
    ['a sample of no declared family', '# TYPE a counter\nb 1\n'],
    ['a malformed label', '# TYPE a counter\na{le=1} 1\n'],
    ['a value that is no number', '# TYPE a counter\na one\n'],
    ['an unknown comment', '# TYPE a counter\n# UNIT a seconds\n'],
    ['no final newline', '# TYPE a counter\na 1'],
  ])('when the text has %s, then it throws', (_, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});
