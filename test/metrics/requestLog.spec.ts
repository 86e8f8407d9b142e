import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiFixture, type ApiFixture } from '../support/apiFixture.js';
import { request } from '../support/http.js';

describe('the request log line', () => {
  let api: ApiFixture;
  const lines: Array<Record<string, unknown>> = [];
  const requestLines = (requestId: string | null) =>
    lines.filter((line) => line.msg === 'request completed' && requestId !== null && line.requestId === requestId);

  beforeAll(async () => {
    api = await startApiFixture({
      env: { LOG_LEVEL: 'info' },
      logDestination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
  });
  afterAll(() => api.close());

  it('when a key is verified, then its request has one line with the route template, the path, the client id and the request id, never the key', async () => {
    const issued = await api.issue();
    const answer = await api.get('/projects/no-such-project', issued.key);
    expect(answer.status).toBe(404);

    const [line, ...more] = requestLines(answer.headers.get('x-request-id'));
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      method: 'GET',
      route: '/v1/projects/:project',
      path: '/v1/projects/no-such-project',
      status: 404,
      clientId: issued.clientId,
      durationMs: expect.any(Number),
    });
    expect(JSON.stringify(lines)).not.toContain(issued.key.slice('svc_live_'.length));
  });

  it('when a request is refused before any route, then its line says unmatched and names no client', async () => {
    const answer = await request(api.app.baseUrl, '/v1/projects');
    expect(answer.status).toBe(401);
    const [line] = requestLines(answer.headers.get('x-request-id'));
    expect(line).toMatchObject({ route: 'unmatched', status: 401 });
    expect(line).not.toHaveProperty('clientId');
  });
});
