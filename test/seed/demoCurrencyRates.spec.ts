import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedBlobStore } from '../../src/blobStore/embeddedBlobStore.js';
import { loadAggregate } from '../../src/domain/commandHandler.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { currencyRateAggregate, currencyRateId, type RatedCurrency } from '../../src/pdf/currencyRate.js';
import { createEmbeddedReadStore } from '../../src/readStore/embedded/index.js';
import { seedDemoCatalogue } from '../../src/seed/demoCatalogue.js';
import { DemoPictureRenders } from '../../src/seed/demoMedia.js';

const PRESENT = () => new Date('2030-01-01T00:00:00.000Z');
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function freshStores() {
  const blobDir = mkdtempSync(join(tmpdir(), 'seed-rates-'));
  const stores = {
    eventStore: createSqliteEventStore({ file: ':memory:' }),
    readStore: createEmbeddedReadStore(),
    blobStore: createEmbeddedBlobStore({ dataDir: blobDir }),
    clock: PRESENT,
  };
  closers.push(async () => {
    await stores.eventStore.close();
    await stores.readStore.close();
    await stores.blobStore.close();
    rmSync(blobDir, { recursive: true, force: true });
  });
  return stores;
}

describe('demo currency rates', () => {
  it('when the demo is seeded, then EUR, GBP and INR have rates set through the command, and a later seed leaves an edited rate alone', async () => {
    const stores = freshStores();
    const renders = new DemoPictureRenders();
    await seedDemoCatalogue(stores, { projects: 0, renders });
    const rate = async (code: RatedCurrency) =>
      (await loadAggregate(stores.eventStore, currencyRateAggregate, currencyRateId(code)))?.state?.per_aed ?? null;
    expect({ EUR: await rate('EUR'), GBP: await rate('GBP'), INR: await rate('INR'), USD: await rate('USD') }).toEqual({
      EUR: 0.2515,
      GBP: 0.2145,
      INR: 22.74,
      USD: null,
    });

    await stores.eventStore.appendToStream(
      currencyRateAggregate.streamName(currencyRateId('EUR')),
      [{ type: 'CurrencyRateSet', data: { code: 'EUR', per_aed: 0.26, at: PRESENT().toISOString() } }],
      { expectedRevision: 0 },
    );
    await seedDemoCatalogue(stores, { projects: 0, renders });
    expect(await rate('EUR')).toBe(0.26);
  });
});
