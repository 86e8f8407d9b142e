import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { fetchServedDocuments } from '../support/servedDocuments.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REDOCLY = join(ROOT, 'node_modules/.bin/redocly');
const CONFIG = fileURLToPath(new URL('./redocly.yaml', import.meta.url));

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
}

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'redocly-lint-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** `redocly lint` with test/contract/redocly.yaml on one document, as the CLI reports it in JSON. */
async function lint(name: string, yaml: string): Promise<LintReport> {
  const file = join(folder, name);
  writeFileSync(file, yaml);
  // The CLI exits 1 when it finds errors; its report is on stdout either way.
  const { stdout } = await promisify(execFile)(REDOCLY, ['lint', '--config', CONFIG, '--format', 'json', file], {
    cwd: folder,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return JSON.parse(stdout) as LintReport;
}

const summary = (report: LintReport) =>
  report.problems.map((problem) => `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`);

describe('redocly lint, recommended ruleset', () => {
  it('when both served documents are linted, then there is no error and no warning', async () => {
    const { publicDocument, adminDocument } = await fetchServedDocuments();
    const [publicReport, adminReport] = await Promise.all([lint('public.yaml', publicDocument), lint('admin.yaml', adminDocument)]);
    expect(summary(publicReport)).toEqual([]);
    expect(summary(adminReport)).toEqual([]);
    expect([publicReport.totals, adminReport.totals]).toEqual([
      { errors: 0, warnings: 0, ignored: 0 },
      { errors: 0, warnings: 0, ignored: 0 },
    ]);
  }, 120_000);

  it('when an operation documents neither a 2XX nor a redirect, then the rule that replaces operation-2xx-response reports it', async () => {
    const responses = (status: string) => ({ [status]: { description: 'The only answer.' } });
    const document = {
      openapi: '3.1.0',
      info: { title: 'Lint fixture', version: '1' },
      paths: {
        '/refused': { get: { operationId: 'refused', responses: responses('404') } },
        '/elsewhere': { get: { operationId: 'elsewhere', responses: responses('302') } },
        '/here': { get: { operationId: 'here', responses: responses('200') } },
      },
    };
    const report = await lint('fixture.yaml', stringify(document));
    const success = report.problems.filter((problem) => problem.ruleId === 'rule/operation-success-response');
    expect(success.map((problem) => problem.location[0]?.pointer)).toEqual(['#/paths/~1refused/get/responses']);
    expect(report.problems.map((problem) => problem.ruleId)).not.toContain('operation-2xx-response');
  }, 60_000);
});
