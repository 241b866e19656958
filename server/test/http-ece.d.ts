// The part of http_ece (Encrypted Content-Encoding for HTTP, RFC 8188, shipped without types) that
// server/test/push-service.ts uses to read what the server pushed.
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';

  interface DecryptParams {
    version: 'aes128gcm';
    /** The receiver's key pair. */
    privateKey: ECDH;
    /** The 16-byte auth secret of the subscription. */
    authSecret: Buffer;
  }

  export function decrypt(buffer: Buffer, params: DecryptParams): Buffer;
}
