import { join } from 'node:path';
import { makePrivateDirSync } from '../dataDir.js';
import type { EventStore } from './eventStore.js';
import { createEventStoreDbStore } from './eventStoreDb.js';
import { createSqliteEventStore } from './sqliteEventStore.js';

/** EventStoreDB when a URL is configured (EVENTSTORE_URL), otherwise the embedded SQLite file under dataDir. */
export function createEventStore(options: { eventStoreUrl?: string; dataDir: string }): EventStore {
  if (options.eventStoreUrl) return createEventStoreDbStore({ connectionString: options.eventStoreUrl });
  makePrivateDirSync(options.dataDir);
  return createSqliteEventStore({ file: join(options.dataDir, 'events.sqlite') });
}
