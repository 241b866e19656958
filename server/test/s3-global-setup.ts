import type { TestProject } from 'vitest/node';
import { startS3Server } from './s3.js';

declare module 'vitest' {
  export interface ProvidedContext {
    s3Endpoint: string;
  }
}

/**
 * One S3 server (s3rver) for the run of the scale-out project; each test app creates a bucket of
 * its own in it (harness.ts), so files never see each other's objects.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startS3Server();
  project.provide('s3Endpoint', server.endpoint);
  return () => server.close();
}
