import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectAggregate, type Project } from '../../src/catalogue/project.js';
import { loadAggregate } from '../../src/domain/commandHandler.js';
import { idSequenceStream } from '../../src/domain/idAllocator.js';
import { slugStream } from '../../src/domain/slugReservations.js';
import type { EventStore } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { ImportKeys } from '../../src/import/importKeys.js';
import { MAX_LINE_BYTES } from '../../src/import/ndjsonLines.js';
import { ndjson, partLines, picture, projectLine, referenceLines, runImport, wholeLog } from './importLines.js';

let eventStore: EventStore;

beforeEach(() => {
  eventStore = createSqliteEventStore({ file: ':memory:' });
});

afterEach(async () => {
  await eventStore.close();
});

async function idOf(type: Parameters<ImportKeys['get']>[0], key: string): Promise<number> {
  const binding = (await ImportKeys.load(eventStore)).get(type, key);
  if (!binding) throw new Error(`${type} ${key} was not imported`);
  return binding.id;
}

async function projectOf(key: string): Promise<Project> {
  const loaded = await loadAggregate(eventStore, projectAggregate, await idOf('project', key));
  return loaded!.state!;
}

describe('importCatalogue', () => {
  it('when reference data, projects and their parts are imported, then each record exists and names the others by the ids of their keys', async () => {
    const { report, refusals } = await runImport(
      eventStore,
      ndjson(...referenceLines, projectLine('p1'), ...partLines('p1'), projectLine('p2', { related_projects: ['p1'], published: false })),
    );

    expect(refusals).toEqual([]);
    expect(report).toMatchObject({ lines: 13, accepted: 13, refused: 0, created: 13, revised: 0, unchanged: 0 });
    const p1 = await projectOf('p1');
    expect(p1).toMatchObject({
      name: 'Tower p1',
      developer_id: await idOf('developer', 'dev-emaar'),
      state_id: await idOf('state', 'st-dubai'),
      community_id: await idOf('community', 'c-marina'),
      sub_community_id: await idOf('sub_community', 'sc-promenade'),
      unit_type_ids: [await idOf('unit_type', 'ut-studio'), await idOf('unit_type', 'ut-1br')],
      amenities: [{ name: 'Pool', icon: 'pool' }],
      published: true,
    });
    const floorPlanId = await idOf('floor_plan', 'p1-fp-a');
    expect(p1.floor_plans[floorPlanId]).toMatchObject({
      title: 'Type A',
      unit_type_id: await idOf('unit_type', 'ut-studio'),
      price: 900_000,
    });
    expect(Object.values(p1.payment_plans)).toMatchObject([{ payment_plan_id: await idOf('payment_plan', 'p1-pp'), name: '60/40' }]);
    expect(p1.gallery[await idOf('gallery_picture', 'p1-g1')]).toMatchObject({ caption: 'Facade', position: 0, image: picture('facade') });
    expect(await projectOf('p2')).toMatchObject({ related_project_ids: [await idOf('project', 'p1')], published: false });
    const projectEvents = (await eventStore.readStream(projectAggregate.streamName(await idOf('project', 'p1')))).map(
      (event) => event.type,
    );
    expect(projectEvents).toEqual([
      'ProjectCreated',
      'AmenitiesSet',
      'ProjectPublished',
      'FloorPlanAdded',
      'PaymentPlanAdded',
      'GalleryPictureAdded',
    ]);
    expect((await eventStore.readStream(projectAggregate.streamName(1)))[0]!.metadata).toEqual({
      actor: 'import',
      at: '2025-03-01T09:00:00.000Z',
    });
  });

  it('when lines are refused, then each is reported with its line number and its fields as the line names them, and nothing of it is appended', async () => {
    await runImport(eventStore, ndjson(...referenceLines, projectLine('p1')));
    const logBefore = await wholeLog(eventStore);

    const { report, refusals } = await runImport(
      eventStore,
      ndjson(
        '{"type": "project", "key": ',
        { type: 'villa', key: 'v1', data: {} },
        projectLine('p2', { name: '', colour: 'blue' }),
        projectLine('p3', { developer: 'dev-unknown', unit_types: ['ut-studio', 'ut-penthouse'] }),
        projectLine('p4', { slug: 'tower-p1' }),
        projectLine('p5', { state: 'st-abu-dhabi', community: 'c-saadiyat', sub_community: 'sc-promenade' }),
        { type: 'payment_plan', key: 'pp', data: { project: 'p1', name: 'Half', milestones: [{ label: 'Down', percent: 50, due: null }] } },
        { type: 'floor_plan', key: 'fp', data: { project: 'p1', title: 'B', image: picture('not-stored') } },
        `{"type":"developer","key":"d","data":{"name":"${'x'.repeat(MAX_LINE_BYTES)}"}}`,
      ),
    );

    expect(report).toMatchObject({ lines: 9, accepted: 0, refused: 9, events: 0 });
    expect(refusals).toEqual([
      {
        line: 1,
        type: null,
        key: null,
        error: {
          code: 'VALIDATION_FAILED',
          message: 'The line is not valid JSON.',
          details: { fields: { line: 'must be one JSON object' } },
        },
      },
      {
        line: 2,
        type: 'villa',
        key: 'v1',
        error: expect.objectContaining({ details: { fields: { type: expect.stringContaining('must be one of state') } } }),
      },
      {
        line: 3,
        type: 'project',
        key: 'p2',
        error: expect.objectContaining({
          code: 'VALIDATION_FAILED',
          details: { fields: { 'data.name': expect.any(String), 'data.colour': 'is not a known field' } },
        }),
      },
      {
        line: 4,
        type: 'project',
        key: 'p3',
        error: expect.objectContaining({
          code: 'VALIDATION_FAILED',
          details: {
            fields: {
              'data.developer': 'names no developer "dev-unknown" of an earlier line or import',
              'data.unit_types.1': 'names no unit-type "ut-penthouse" of an earlier line or import',
            },
          },
        }),
      },
      {
        line: 5,
        type: 'project',
        key: 'p4',
        error: expect.objectContaining({ code: 'SLUG_TAKEN', details: { fields: { 'data.slug': 'already in use' } } }),
      },
      {
        line: 6,
        type: 'project',
        key: 'p5',
        error: expect.objectContaining({
          code: 'VALIDATION_FAILED',
          details: { fields: { 'data.sub_community': expect.stringContaining('lies in community') } },
        }),
      },
      {
        line: 7,
        type: 'payment_plan',
        key: 'pp',
        error: expect.objectContaining({ details: { fields: { 'data.milestones': 'percents must sum to 100; they sum to 50' } } }),
      },
      {
        line: 8,
        type: 'floor_plan',
        key: 'fp',
        error: expect.objectContaining({ details: { fields: { 'data.image.key': expect.stringContaining('names no stored file') } } }),
      },
      {
        line: 9,
        type: null,
        key: null,
        error: expect.objectContaining({ details: { fields: { line: `is longer than ${MAX_LINE_BYTES} bytes` } } }),
      },
    ]);
    expect(await wholeLog(eventStore)).toEqual(logBefore);
  });

  it('when an import reports progress batch by batch, then each report counts up to the final one, its seconds included', async () => {
    const progress: Array<{ lines: number; accepted: number; seconds: number }> = [];
    const text = ndjson(...referenceLines, projectLine('p1'), ...partLines('p1'), projectLine('p2'));

    const { report } = await runImport(eventStore, text, {
      batchLines: 3,
      onProgress: ({ lines, accepted, seconds }) => progress.push({ lines, accepted, seconds }),
    });

    expect(progress.length).toBe(Math.ceil(report.lines / 3));
    expect(progress.at(-1)).toMatchObject({ lines: report.lines, accepted: report.accepted });
    for (const [index, update] of progress.entries()) {
      const before = progress[index - 1] ?? { lines: 0, seconds: 0 };
      expect(update.lines).toBeGreaterThan(before.lines);
      expect(update.seconds).toBeGreaterThan(before.seconds);
    }
    expect(progress.at(-1)!.seconds).toBeLessThanOrEqual(report.seconds);
  });

  it('when the same file is imported twice, then the second import appends nothing and reports every line unchanged', async () => {
    const file = ndjson(...referenceLines, projectLine('p1'), ...partLines('p1'), projectLine('p2', { related_projects: ['p1'] }));
    await runImport(eventStore, file);
    const head = await eventStore.headPosition();

    const again = await runImport(eventStore, file);

    expect(again.report).toMatchObject({ accepted: 13, unchanged: 13, created: 0, revised: 0, events: 0 });
    expect(await eventStore.headPosition()).toBe(head);
  });

  it('when a line whose data changed is imported again, then its record is revised under the same id with only what changed', async () => {
    await runImport(eventStore, ndjson(...referenceLines, projectLine('p1'), ...partLines('p1')));
    const projectId = await idOf('project', 'p1');
    const revisionBefore = await eventStore.streamRevision(projectAggregate.streamName(projectId));
    const [floorPlan, paymentPlan, picture] = partLines('p1');

    const { report } = await runImport(
      eventStore,
      ndjson(
        ...referenceLines,
        projectLine('p1', { name: 'Tower One', amenities: [], published: false }),
        { ...floorPlan, data: { ...floorPlan!.data, price: 950_000 } },
        paymentPlan!,
        picture!,
      ),
    );

    expect(report).toMatchObject({ revised: 2, unchanged: 10, created: 0 });
    const revised = await eventStore.readStream(projectAggregate.streamName(projectId), { fromRevision: revisionBefore! + 1 });
    expect(revised.map((event) => [event.type, event.data])).toEqual([
      ['ProjectRevised', { project_id: projectId, changes: { name: 'Tower One' }, at: '2025-03-01T09:00:00.000Z' }],
      ['AmenitiesSet', { project_id: projectId, items: [], at: '2025-03-01T09:00:00.000Z' }],
      ['ProjectUnpublished', { project_id: projectId, at: '2025-03-01T09:00:00.000Z' }],
      [
        'FloorPlanRevised',
        {
          project_id: projectId,
          floor_plan_id: await idOf('floor_plan', 'p1-fp-a'),
          changes: { price: 950_000 },
          at: '2025-03-01T09:00:00.000Z',
        },
      ],
    ]);
  });

  it('when a record takes a new slug twice in one batch, then only its last slug stays reserved and another record can take the others', async () => {
    await runImport(
      eventStore,
      ndjson(
        ...referenceLines,
        projectLine('p1', { slug: 'first' }),
        projectLine('p1', { slug: 'second' }),
        projectLine('p1', { slug: 'third' }),
      ),
    );

    const slugEvents = async (slug: string) =>
      (await eventStore.readStream(slugStream('project', slug))).map((event) => [
        event.type,
        (event.data as { resourceId: number }).resourceId,
      ]);
    const p1 = await idOf('project', 'p1');
    expect(await slugEvents('first')).toEqual([
      ['SlugReserved', p1],
      ['SlugReleased', p1],
    ]);
    expect(await slugEvents('second')).toEqual([
      ['SlugReserved', p1],
      ['SlugReleased', p1],
    ]);
    expect(await slugEvents('third')).toEqual([['SlugReserved', p1]]);
    const { refusals } = await runImport(eventStore, ndjson(...referenceLines, projectLine('p2', { slug: 'second' })));
    expect(refusals).toEqual([]);
    expect((await projectOf('p2')).slug).toBe('second');
  });

  it('when a key comes again later in the file, then that line revises the record, so two projects can name each other', async () => {
    const { report } = await runImport(
      eventStore,
      ndjson(
        ...referenceLines,
        projectLine('a'),
        projectLine('b', { related_projects: ['a'] }),
        projectLine('a', { related_projects: ['b'] }),
      ),
      { batchLines: 9 },
    );

    expect(report).toMatchObject({ created: 10, revised: 1 });
    expect((await projectOf('a')).related_project_ids).toEqual([await idOf('project', 'b')]);
    expect((await projectOf('b')).related_project_ids).toEqual([await idOf('project', 'a')]);
  });

  it('when a part names another project than the one its key was imported into, then it is refused at data.project', async () => {
    await runImport(eventStore, ndjson(...referenceLines, projectLine('p1'), projectLine('p2'), ...partLines('p1')));
    const [floorPlan] = partLines('p1');

    const { refusals } = await runImport(eventStore, ndjson({ ...floorPlan, data: { ...floorPlan!.data, project: 'p2' } }));

    expect(refusals).toMatchObject([
      {
        line: 1,
        error: { code: 'VALIDATION_FAILED', details: { fields: { 'data.project': expect.stringContaining('another project') } } },
      },
    ]);
  });

  it('when another command takes the next id while a batch is decided, then the batch is decided again on fresh ids', async () => {
    let raced = false;
    const racing: EventStore = {
      ...eventStore,
      appendToStreams: async (appends) => {
        const sequence = idSequenceStream('project');
        if (!raced && appends.some((append) => append.streamName === sequence)) {
          raced = true;
          await eventStore.appendToStream(sequence, [{ type: 'IdAllocated', data: { resourceType: 'project' } }], {
            expectedRevision: 'any',
          });
        }
        return eventStore.appendToStreams(appends);
      },
    };

    const { report } = await runImport(racing, ndjson(...referenceLines, projectLine('p1')));

    expect(report).toMatchObject({ accepted: 9, created: 9 });
    expect(raced).toBe(true);
    expect(await idOf('project', 'p1')).toBe(2);
    expect((await projectOf('p1')).name).toBe('Tower p1');
  });
});

describe('importCatalogue after a crash', () => {
  const file = ndjson(
    ...referenceLines,
    projectLine('p1'),
    ...partLines('p1'),
    projectLine('p2', { related_projects: ['p1'] }),
    ...partLines('p2'),
  );

  /** What the catalogue holds by key, without the times: a crashed and resumed import must end as a clean one. */
  async function catalogueByKey(store: EventStore) {
    const keys = await ImportKeys.load(store);
    const summary: Record<string, unknown> = {};
    for (const key of ['p1', 'p2']) {
      const id = keys.get('project', key)!.id;
      const project = (await loadAggregate(store, projectAggregate, id))!.state!;
      summary[key] = {
        name: project.name,
        published: project.published,
        related: project.related_project_ids.map((related) => (related === keys.get('project', 'p1')!.id ? 'p1' : 'p2')),
        floor_plans: Object.values(project.floor_plans).map((floorPlan) => floorPlan.title),
        payment_plans: Object.values(project.payment_plans).map((plan) => plan.name),
        gallery: Object.values(project.gallery).map((item) => item.caption),
      };
    }
    return summary;
  }

  /** How many times the log records each kind of creation: a duplicate would show as a count above the clean import's. */
  async function creations(store: EventStore) {
    const counts: Record<string, number> = {};
    for (const event of await wholeLog(store)) {
      if (/Created$|Added$|^SlugReserved$/.test(event.type)) counts[event.type] = (counts[event.type] ?? 0) + 1;
    }
    return counts;
  }

  /**
   * The store as a crash at its `crashAt`-th append leaves it: a store without transactions across streams
   * (EventStoreDB) writes a batch's streams one by one, so the crash may come between two of them; the
   * embedded store writes a batch's streams in one transaction, so the crash comes before or after the batch.
   */
  function crashingAt(store: EventStore, crashAt: number, streamByStream: boolean): EventStore {
    let appends = 0;
    const crash = () => {
      if (++appends === crashAt) throw new Error(`crash at append ${crashAt}`);
    };
    return {
      ...store,
      appendToStreams: async (streams) => {
        if (!streamByStream) {
          crash();
          return store.appendToStreams(streams);
        }
        const results = [];
        for (const { streamName, events, expectedRevision } of streams) {
          crash();
          results.push(await store.appendToStream(streamName, events, { expectedRevision }));
        }
        return results;
      },
    };
  }

  it.each([
    ['one transaction per batch', false],
    ['a batch stream by stream', true],
  ])(
    'when the import stops at any of its appends (%s), then running it again completes the catalogue without a duplicate',
    async (_, streamByStream) => {
      let appends = 0;
      const counting: EventStore = {
        ...eventStore,
        appendToStreams: (streams) => {
          appends += streamByStream ? streams.length : 1;
          return eventStore.appendToStreams(streams);
        },
      };
      await runImport(counting, file, { batchLines: 5 });
      const clean = { catalogue: await catalogueByKey(eventStore), creations: await creations(eventStore) };
      expect(appends).toBeGreaterThan(streamByStream ? 20 : 3);

      for (let crashAt = 1; crashAt <= appends; crashAt++) {
        const store = createSqliteEventStore({ file: ':memory:' });
        await expect(runImport(crashingAt(store, crashAt, streamByStream), file, { batchLines: 5 })).rejects.toThrow(
          `crash at append ${crashAt}`,
        );

        const resumed = await runImport(store, file, { batchLines: 5 });

        expect(resumed.refusals).toEqual([]);
        expect(await catalogueByKey(store)).toEqual(clean.catalogue);
        expect(await creations(store)).toEqual(clean.creations);
        await store.close();
      }
    },
  );
});
