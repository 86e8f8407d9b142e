import { afterEach, describe, expect, it } from 'vitest';
import { UNLIMITED_FOR_TESTS, startApiFixture, type ApiFixture } from '../support/apiFixture.js';
import { freePort, request } from '../support/http.js';
import { parsePrometheusText, type MetricFamily, type Sample } from './prometheusText.js';

/** Every family issue 17 asks for, by the name it is exported under. */
const FAMILIES = [
  'catalogue_http_request_duration_seconds',
  'catalogue_http_requests_in_flight',
  'catalogue_limiter_decisions_total',
  'catalogue_pdf_limiter_decisions_total',
  'catalogue_quota_refusals_total',
  'catalogue_event_log_head_position',
  'catalogue_projection_checkpoint_position',
  'catalogue_projection_lag_events',
  'catalogue_projection_lag_seconds',
  'catalogue_projection_rebuild_checkpoint_position',
  'catalogue_projection_rebuild_progress_ratio',
  'catalogue_event_store_append_duration_seconds',
  'catalogue_read_store_operation_duration_seconds',
  'catalogue_read_store_errors_total',
  'catalogue_redis_up',
  'catalogue_redis_errors_total',
  'catalogue_limits_in_process_fallback',
  'catalogue_job_queue_jobs',
  'catalogue_jobs_finished_total',
  'catalogue_job_duration_seconds',
  'catalogue_webhook_delivery_attempts_total',
  'catalogue_pdf_render_duration_seconds',
  // Node's default process metrics (prom-client's collectDefaultMetrics).
  'process_cpu_seconds_total',
  'process_resident_memory_bytes',
  'nodejs_eventloop_lag_seconds',
  'nodejs_heap_size_used_bytes',
];

let fixture: ApiFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function scrape(baseUrl: string, token?: string): Promise<Map<string, MetricFamily>> {
  const answer = await request<string>(baseUrl, '/metrics', token === undefined ? {} : { token });
  expect(answer.status).toBe(200);
  return parsePrometheusText(answer.body);
}

const samplesOf = (families: Map<string, MetricFamily>, name: string): Sample[] => families.get(name)?.samples ?? [];
const valueOf = (families: Map<string, MetricFamily>, series: string, labels: Record<string, string>): number | undefined =>
  [...families.values()]
    .flatMap((family) => family.samples)
    .find((sample) => sample.name === series && Object.entries(labels).every(([name, value]) => sample.labels[name] === value))?.value;

describe('GET /metrics on the API port', () => {
  it('when asked without the admin token or with a wrong one, then 401 UNAUTHENTICATED and no figures', async () => {
    fixture = await startApiFixture();
    for (const token of [undefined, 'not-the-admin-token-but-long-enough-0123']) {
      const answer = await request(fixture.app.baseUrl, '/metrics', token === undefined ? {} : { token });
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('UNAUTHENTICATED');
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('when scraped with the admin token, then the text format parses and holds every family of the issue, never cached', async () => {
    fixture = await startApiFixture();
    const answer = await request<string>(fixture.app.baseUrl, '/metrics', { token: fixture.app.adminToken });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    const families = parsePrometheusText(answer.body);
    expect(FAMILIES.filter((name) => !families.has(name))).toEqual([]);
    expect(families.get('catalogue_http_request_duration_seconds')!.type).toBe('histogram');
    expect(families.get('catalogue_limiter_decisions_total')!.type).toBe('counter');
    expect(families.get('catalogue_projection_lag_events')!.type).toBe('gauge');
  });

  it('when requests are answered, then the histogram counts them by route template and status class, never by the path sent', async () => {
    fixture = await startApiFixture();
    const { baseUrl, adminToken } = fixture.app;
    expect((await request(baseUrl, '/v1/health')).status).toBe(200);
    expect((await request(baseUrl, '/admin/v1/projects/424242', { token: adminToken })).status).toBe(404);
    expect((await request(baseUrl, '/admin/v1/projects/424242', { method: 'PUT', token: adminToken })).status).toBe(405);
    expect((await request(baseUrl, '/no/such/path/737373')).status).toBe(404);
    expect((await request(baseUrl, '/v1/projects/some-slug-616161')).status).toBe(401);

    const families = await scrape(baseUrl, adminToken);
    const counted = (labels: Record<string, string>) => valueOf(families, 'catalogue_http_request_duration_seconds_count', labels);
    expect(counted({ method: 'GET', route: '/v1/health', status_class: '2xx' })).toBe(1);
    // Thrown by the route and answered by the app's error middleware: the template keeps its mount path.
    expect(counted({ method: 'GET', route: '/admin/v1/projects/:projectId', status_class: '4xx' })).toBe(1);
    expect(counted({ method: 'PUT', route: '/admin/v1/projects/:projectId', status_class: '4xx' })).toBe(1);
    // Not found, and refused by authentication before any route matched.
    expect(counted({ method: 'GET', route: 'unmatched', status_class: '4xx' })).toBe(2);
    const labelledWithThePath = [...families.values()]
      .flatMap((family) => family.samples)
      .filter((sample) => /424242|737373|616161/.test(JSON.stringify(sample.labels)));
    expect(labelledWithThePath).toEqual([]);
    // The scrape itself is in flight while it is rendered.
    expect(valueOf(families, 'catalogue_http_requests_in_flight', {})).toBe(1);
  });

  it('when a key spends its daily quota, then the limiter decisions and the quota refusal are counted', async () => {
    fixture = await startApiFixture();
    const key = await fixture.key({ limits: { ...UNLIMITED_FOR_TESTS, daily: 1 } });
    expect((await fixture.get('/projects', key)).status).toBe(200);
    const refused = await fixture.get('/projects', key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('DAILY_LIMIT_EXCEEDED');

    const families = await scrape(fixture.app.baseUrl, fixture.app.adminToken);
    expect(valueOf(families, 'catalogue_limiter_decisions_total', { code: 'allowed' })).toBe(1);
    expect(valueOf(families, 'catalogue_limiter_decisions_total', { code: 'DAILY_LIMIT_EXCEEDED' })).toBe(1);
    expect(valueOf(families, 'catalogue_quota_refusals_total', { limiter: 'requests', period: 'daily' })).toBe(1);
  });

  it('when commands were appended and projected, then appends and read-store calls are timed and every projection is at the head', async () => {
    fixture = await startApiFixture();
    await fixture.issue();
    await fixture.settle();
    const head = Number(await fixture.app.eventStore.headPosition());

    const families = await scrape(fixture.app.baseUrl, fixture.app.adminToken);
    expect(valueOf(families, 'catalogue_event_store_append_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThanOrEqual(3);
    expect(valueOf(families, 'catalogue_read_store_operation_duration_seconds_count', { operation: 'write' })).toBeGreaterThan(0);
    expect(valueOf(families, 'catalogue_read_store_operation_duration_seconds_count', { operation: 'get' })).toBeGreaterThan(0);
    expect(valueOf(families, 'catalogue_event_log_head_position', {})).toBe(head);
    const lags = samplesOf(families, 'catalogue_projection_lag_events');
    expect(lags.length).toBeGreaterThan(10);
    expect(lags.filter((sample) => sample.value !== 0)).toEqual([]);
    expect(samplesOf(families, 'catalogue_projection_checkpoint_position').every((sample) => sample.value === head)).toBe(true);
    expect(
      samplesOf(families, 'catalogue_job_queue_jobs')
        .map((sample) => `${sample.labels.queue} ${sample.labels.state}`)
        .sort(),
    ).toEqual(
      ['pdf-renders', 'webhook-deliveries'].flatMap((queue) =>
        ['active', 'delayed', 'failed', 'waiting'].map((state) => `${queue} ${state}`),
      ),
    );
  });

  it('when METRICS=off, then /metrics is not served while /livez still is', async () => {
    fixture = await startApiFixture({ env: { METRICS: 'off' } });
    const answer = await request(fixture.app.baseUrl, '/metrics', { token: fixture.app.adminToken });
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('NOT_FOUND');
    expect((await request(fixture.app.baseUrl, '/livez')).status).toBe(200);
  });
});

describe('METRICS_PORT', () => {
  it('when set, then its own server answers /metrics, /livez and /readyz without a token, with the security headers, and nothing else', async () => {
    const port = await freePort();
    fixture = await startApiFixture({ env: { METRICS_PORT: String(port) } });
    const metricsBase = `http://127.0.0.1:${port}`;
    const metrics = await request<string>(metricsBase, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(metrics.headers.get('x-request-id')).toBeTruthy();
    expect(parsePrometheusText(metrics.body).has('catalogue_http_request_duration_seconds')).toBe(true);
    expect((await request(metricsBase, '/livez')).status).toBe(200);
    expect((await request(metricsBase, '/readyz')).status).toBe(200);
    const other = await request(metricsBase, '/v1/health');
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('NOT_FOUND');
    const wrongMethod = await request(metricsBase, '/metrics', { method: 'POST' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    // The API port still wants the token.
    expect((await request(fixture.app.baseUrl, '/metrics')).status).toBe(401);
  });
});
