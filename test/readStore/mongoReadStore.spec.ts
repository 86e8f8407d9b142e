import { MongoClient } from 'mongodb';
import { afterAll, describe } from 'vitest';
import { createMongoReadStore } from '../../src/readStore/mongoReadStore.js';
import { readStoreContract } from './readStoreContract.js';

const url = process.env.MONGODB_URL;

if (!url) {
  console.warn('MongoDB read store contract skipped: set MONGODB_URL (e.g. mongodb://127.0.0.1:27017) to run it against a server.');
}

describe.skipIf(!url)('MongoDB adapter', () => {
  // A database of its own per run, dropped afterwards, so runs sharing a server do not meet.
  const dbName = `readstore_contract_${Date.now().toString(36)}`;

  afterAll(async () => {
    const client = new MongoClient(url!);
    try {
      await client.db(dbName).dropDatabase();
    } finally {
      await client.close();
    }
  });

  readStoreContract('MongoDB', async () => createMongoReadStore({ url: url!, dbName }));
});
