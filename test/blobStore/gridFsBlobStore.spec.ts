import { Binary, MongoClient } from 'mongodb';
import { afterAll, describe } from 'vitest';
import { createGridFsBlobStore } from '../../src/blobStore/gridFsBlobStore.js';
import { blobStoreContract } from './blobStoreContract.js';

const url = process.env.MONGODB_URL;

if (!url) {
  console.warn('GridFS blob store contract skipped: set MONGODB_URL (e.g. mongodb://127.0.0.1:27017) to run it against a server.');
}

describe.skipIf(!url)('GridFS adapter', () => {
  // A database of its own per test (the contract wants an empty store each time), all dropped afterwards.
  const run = `blobstore_contract_${Date.now().toString(36)}`;
  const dbNames: string[] = [];
  let client: MongoClient | undefined;
  const inspector = (): MongoClient => (client ??= new MongoClient(url!));

  afterAll(async () => {
    if (!client) client = new MongoClient(url!);
    try {
      for (const dbName of dbNames) await client.db(dbName).dropDatabase();
    } finally {
      await client.close();
    }
  });

  blobStoreContract('GridFS', async () => {
    const dbName = `${run}_${dbNames.length}`;
    dbNames.push(dbName);
    return {
      store: createGridFsBlobStore({ url: url!, dbName }),
      async corrupt(sha256) {
        const db = inspector().db(dbName);
        const file = await db.collection('blobs.files').findOne({ filename: sha256 });
        const chunk = await db.collection('blobs.chunks').findOne({ files_id: file!._id, n: 0 });
        const bytes = Buffer.from((chunk!.data as Binary).buffer);
        bytes[0] = bytes[0]! ^ 0xff;
        await db.collection('blobs.chunks').updateOne({ _id: chunk!._id }, { $set: { data: new Binary(bytes) } });
      },
    };
  });
});
