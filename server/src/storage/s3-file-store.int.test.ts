import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileStoreCases } from '../../test/file-store-cases.js';
import { startS3Server, type TestS3Server } from '../../test/s3.js';
import type { S3Config } from '../config.js';
import { S3FileStore } from './s3-file-store.js';

// The FileStore contract against a real S3 API (s3rver), then what is S3's own: readiness.

const BUCKET = 'kith-s3-file-store';

function configFor(server: TestS3Server, bucket: string): S3Config {
  return {
    endpoint: server.endpoint,
    bucket,
    region: 'us-east-1',
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    forcePathStyle: true,
  };
}

/** Every object name in the bucket under `prefix/`, read through the S3 API itself. */
async function objectKeys(client: S3Client, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${prefix}/`, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? []) if (object.Key !== undefined) keys.push(object.Key);
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return keys.sort();
}

describe('S3FileStore', () => {
  fileStoreCases(async () => {
    const server = await startS3Server();
    await server.createBucket(BUCKET);
    const client = new S3Client({
      endpoint: server.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    });
    return {
      store: new S3FileStore(configFor(server, BUCKET)),
      keys: (prefix) => objectKeys(client, prefix),
      async close() {
        client.destroy();
        await server.close();
      },
    };
  });
});

describe('S3FileStore reads left early', () => {
  let server: TestS3Server;
  beforeAll(async () => {
    server = await startS3Server();
    await server.createBucket('kith-early');
  });
  afterAll(() => server.close());

  it('give their connection back, before and after the store answered', async () => {
    const store = new S3FileStore(configFor(server, 'kith-early'));
    await store.write('video.mp4', Readable.from([Buffer.alloc(4 * 1024 * 1024, 7)]));
    // More readers than the store keeps connections (256): one that held its connection after its
    // reader left would make the last read below wait forever.
    const leaveAtOnce = Array.from({ length: 300 }, () => store.read('video.mp4'));
    for (const stream of leaveAtOnce) stream.destroy();
    for (let i = 0; i < 300; i++) {
      const stream = store.read('video.mp4');
      await once(stream, 'data');
      stream.destroy();
    }
    let size = 0;
    for await (const chunk of store.read('video.mp4') as AsyncIterable<Buffer>) size += chunk.length;
    expect(size).toBe(4 * 1024 * 1024);
  });
});

describe('S3FileStore.ready', () => {
  let server: TestS3Server;
  beforeAll(async () => {
    server = await startS3Server();
    await server.createBucket('kith-ready');
  });
  afterAll(() => server.close());

  it('resolves when the bucket exists and rejects, naming it, when it does not', async () => {
    await expect(new S3FileStore(configFor(server, 'kith-ready')).ready()).resolves.toBeUndefined();
    await expect(new S3FileStore(configFor(server, 'kith-missing')).ready()).rejects.toThrow(
      'The S3 bucket kith-missing does not exist',
    );
  });

  it('rejects when the store does not answer', async () => {
    const gone = await startS3Server();
    const store = new S3FileStore(configFor(gone, 'kith-ready'));
    await gone.close();
    await expect(store.ready()).rejects.toThrow(/^The S3 bucket kith-ready does not answer/);
  });
});
