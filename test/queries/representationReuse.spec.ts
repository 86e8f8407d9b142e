import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { developerEvent, imageRef, minute, projectCreated, projectEvent, stateEvent } from '../support/catalogueEvents.js';
import { publishedReferenceCatalogue, startApiFixture, type ApiFixture } from '../support/apiFixture.js';

/**
 * Serialised project representations are reused while the project and the documents it names are
 * unchanged (queries/representations.ts); these tests change each input after a first answer.
 */
let api: ApiFixture;
let key: string;

beforeAll(async () => {
  api = await startApiFixture();
  await api.given([
    ...publishedReferenceCatalogue(),
    projectCreated(1, { name: 'Marina Heights', sub_community_id: 1 }, minute(1)),
    projectEvent('GalleryPictureAdded', 1, { picture: { media_id: 1, caption: null, position: 0, image: imageRef('aa11') } }, minute(1)),
    projectEvent('ProjectPublished', 1, {}, minute(1)),
  ]);
  key = await api.key();
});

afterAll(async () => {
  await api.close();
});

/** fetch sends the URL's own Host; node:http lets the test name another name of this machine. */
function getWithHost(url: string, host: string): Promise<{ headers: Headers; body: any }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { host, authorization: `Bearer ${key}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ headers: new Headers({ etag: String(res.headers.etag) }), body: JSON.parse(text) }));
    }).on('error', reject);
  });
}

const views = async () => ({
  detail: await api.get('/projects/1', key),
  list: await api.get('/projects?ids=1', key),
  detailBatch: await api.get('/projects?ids=1&view=detail', key),
});

describe('reused project representations', () => {
  it('when the project or a document it names changes after it was served, then every view answers the change with a new ETag', async () => {
    const changes = [
      {
        event: projectEvent('ProjectRevised', 1, { changes: { name: 'Marina Heights II' } }, minute(2)),
        read: (item: any) => item.name,
        expected: 'Marina Heights II',
      },
      {
        event: developerEvent({ type: 'DeveloperRevised', data: { developer_id: 1, changes: { name: 'Emaar' }, at: minute(3) } }),
        read: (item: any) => item.developer.name,
        expected: 'Emaar',
      },
      {
        event: stateEvent({ type: 'StateRevised', data: { state_id: 1, changes: { name: 'Emirate of Dubai' }, at: minute(4) } }),
        read: (item: any) => item.state.name,
        expected: 'Emirate of Dubai',
      },
    ];
    let before = await views();
    for (const change of changes) {
      await api.given([change.event]);
      const after = await views();
      for (const view of ['detail', 'list', 'detailBatch'] as const) {
        const item = view === 'detail' ? after[view].body.data : after[view].body.data[0];
        expect(change.read(item), `${view} after ${change.event.event.type}`).toBe(change.expected);
        expect(after[view].headers.get('etag'), `${view} after ${change.event.event.type}`).not.toBe(before[view].headers.get('etag'));
      }
      before = after;
    }
  });

  it('when the same project is asked through another base URL, then its addresses follow the base URL', async () => {
    const viaLoopback = await api.get('/projects/1', key);
    const viaOtherHost = await getWithHost(`${api.app.baseUrl}/v1/projects/1`, `localhost:${new URL(api.app.baseUrl).port}`);
    expect(viaLoopback.body.data.developer).toEqual(viaOtherHost.body.data.developer);
    expect(viaLoopback.body.data.cover_image.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\//);
    expect(viaOtherHost.body.data.cover_image.url).toMatch(/^http:\/\/localhost:\d+\/v1\//);
    expect(viaOtherHost.headers.get('etag')).not.toBe(viaLoopback.headers.get('etag'));
  });
});
