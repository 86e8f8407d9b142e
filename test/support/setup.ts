// First: nock's interceptor must wrap the recording fetch, not the other way round.
import { takeRecordedExchanges } from './recordedResponses.js';
import nock from 'nock';
import { afterAll } from 'vitest';

// Tests never reach beyond loopback.
nock.disableNetConnect();
nock.enableNetConnect((host) => /^(127\.0\.0\.1|localhost|\[::1\]|::1)(:\d+)?$/.test(host));

/**
 * OPENAPI_RESPONSES=report lists the answers the served documents do not describe instead of failing the
 * test file (to survey a change to the documents before fixing them).
 */
const reportOnly = process.env.OPENAPI_RESPONSES === 'report';

// Every answer this file's tests received from /v1 or /admin/v1 must be one the served document describes.
afterAll(async () => {
  const exchanges = await takeRecordedExchanges();
  if (exchanges.length === 0) return;
  const { undocumentedAnswers } = await import('./servedDocuments.js');
  const mismatches = await undocumentedAnswers(exchanges);
  const report = `${mismatches.length} mismatches in ${exchanges.length} answers checked against the served OpenAPI documents`;
  if (reportOnly) console.warn([report, ...mismatches].join('\n'));
  else if (mismatches.length > 0) throw new Error([report, ...mismatches].join('\n'));
});
