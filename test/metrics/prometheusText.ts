/**
 * A strict reader of Prometheus' text exposition format (version 0.0.4), for tests: every line must be a
 * HELP, a TYPE, a sample of a family declared before it, or empty; anything else throws, naming the line.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const HELP_LINE = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE_LINE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE_LINE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/;

/** The series names a family's samples may have. */
const SUFFIXES: Record<MetricFamily['type'], readonly string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

/** As Prometheus reads a value (Go's ParseFloat): NaN and infinities in any letter case, so prom-client's `Nan` too. */
function parseValue(text: string, line: string): number {
  if (/^nan$/i.test(text)) return NaN;
  if (/^[+-]?inf(inity)?$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (!/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`Not a sample value in: ${line}`);
  return Number(text);
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== '') {
    const match = LABEL.exec(rest);
    if (!match) throw new Error(`Malformed labels in: ${line}`);
    const [whole, name, escaped] = match;
    if (name! in labels) throw new Error(`Label ${name} repeated in: ${line}`);
    labels[name!] = escaped!.replace(/\\(["\\n])/g, (_, character: string) => (character === 'n' ? '\n' : character));
    rest = rest.slice(whole.length);
  }
  return labels;
}

export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  if (!text.endsWith('\n')) throw new Error('The exposition must end with a newline.');
  const families = new Map<string, MetricFamily>();
  const helps = new Map<string, string>();
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    const help = HELP_LINE.exec(line);
    if (help) {
      helps.set(help[1]!, help[2]!);
      continue;
    }
    const type = TYPE_LINE.exec(line);
    if (type) {
      const name = type[1]!;
      if (families.has(name)) throw new Error(`Family ${name} declared twice.`);
      families.set(name, { name, help: helps.get(name) ?? '', type: type[2] as MetricFamily['type'], samples: [] });
      continue;
    }
    if (line.startsWith('#')) throw new Error(`Unknown comment line: ${line}`);
    const sample = SAMPLE_LINE.exec(line);
    if (!sample) throw new Error(`Not a sample line: ${line}`);
    const [, name, labelText, valueText] = sample;
    const family = [...families.values()].find((candidate) =>
      SUFFIXES[candidate.type].some((suffix) => `${candidate.name}${suffix}` === name),
    );
    if (!family) throw new Error(`Sample of no declared family: ${line}`);
    family.samples.push({ name: name!, labels: parseLabels(labelText ?? '', line), value: parseValue(valueText!, line) });
  }
  return families;
}
