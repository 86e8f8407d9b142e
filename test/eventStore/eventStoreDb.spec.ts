import { describe } from 'vitest';
import { createEventStoreDbStore } from '../../src/eventStore/eventStoreDb.js';
import { eventStoreContract } from './eventStoreContract.js';

const connectionString = process.env.EVENTSTORE_URL;

if (!connectionString) {
  console.warn(
    'EventStoreDB event store contract skipped: set EVENTSTORE_URL (e.g. esdb://127.0.0.1:2113?tls=false) to run it against a server.',
  );
}

describe.skipIf(!connectionString)('EventStoreDB adapter', () => {
  eventStoreContract(
    'EventStoreDB',
    async () => createEventStoreDbStore({ connectionString: connectionString! }),
    'keeps_streams_before_it',
  );
});
