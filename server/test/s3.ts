import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

// A real S3 API for tests: s3rver on 127.0.0.1, its objects in a temporary folder. Each caller
// starts its own (port 0) and creates its own buckets, so test files never share a store.

/** s3rver's built-in account: the only credentials it accepts. */
const ACCESS_KEY_ID = 'S3RVER';
const SECRET_ACCESS_KEY = 'S3RVER';

/** Creates an empty bucket on the test server at `endpoint`. */
export async function createTestBucket(endpoint: string, name: string): Promise<void> {
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
  });
  try {
    await client.send(new CreateBucketCommand({ Bucket: name }));
  } finally {
    client.destroy();
  }
}

export interface TestS3Server {
  /** `http://127.0.0.1:<port>`, to use with path-style addressing (S3_FORCE_PATH_STYLE). */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Creates an empty bucket (3 to 63 lowercase letters, digits, dots or hyphens). */
  createBucket(name: string): Promise<void>;
  /** Stops the server and removes its folder. */
  close(): Promise<void>;
}

/** Starts a fake S3 server on a free loopback port. */
export async function startS3Server(): Promise<TestS3Server> {
  // Imported here: the harness imports this file in every test, and most never start a server.
  const { default: S3rver } = await import('s3rver');
  const directory = mkdtempSync(path.join(tmpdir(), 'kith-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
  let endpoint: string;
  try {
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    endpoint,
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
    createBucket: (name) => createTestBucket(endpoint, name),
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The environment that points the app's file store at `bucket` of the server at `endpoint` (config.ts, S3_*). */
export function s3Env(endpoint: string, bucket: string): Record<string, string> {
  return {
    S3_ENDPOINT: endpoint,
    S3_BUCKET: bucket,
    S3_ACCESS_KEY_ID: ACCESS_KEY_ID,
    S3_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
    S3_FORCE_PATH_STYLE: 'true',
  };
}
