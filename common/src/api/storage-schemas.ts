import { Type, type Static } from 'typebox';

/**
 * Storage quotas (issue 22, part 4): how much of the stored uploads the caller holds, and what the
 * instance's limits (QUOTA_USER_MB, QUOTA_INSTANCE_MB) leave them.
 */
export const StorageUsage = Type.Object({
  used: Type.Integer({ description: 'bytes of the stored files the caller uploaded (thumbnails not counted)' }),
  limit: Type.Union([Type.Integer(), Type.Null()], {
    description: 'the caller’s limit in bytes (QUOTA_USER_MB); null when there is none',
  }),
  available: Type.Union([Type.Integer(), Type.Null()], {
    description:
      'bytes the caller may still upload under both their own limit and the instance’s (QUOTA_INSTANCE_MB); null when neither is set',
  }),
});
export type StorageUsage = Static<typeof StorageUsage>;
