import { Type, type Static } from 'typebox';

/**
 * Exports (issue 22, docs/api §11.12): a member's zip of everything they wrote, built in the
 * background, downloaded while it lasts. The zip's own format is documented in docs/api §11.12.
 */

const Seconds = Type.Integer({ description: 'Unix time in seconds' });

/** Where an export is: being built, ready to download, or failed (a new one may be started). */
export const EXPORT_STATES = ['building', 'ready', 'failed'] as const;
export type ExportState = (typeof EXPORT_STATES)[number];

/** One export of the caller. */
export const ExportObject = Type.Object({
  id: Type.String({ description: 'lowercase UUID v4' }),
  entityType: Type.Literal('export'),
  state: Type.Union([Type.Literal('building'), Type.Literal('ready'), Type.Literal('failed')], {
    description: 'building, ready or failed',
  }),
  createdAt: Seconds,
  finishedAt: Type.Union([Seconds, Type.Null()], { description: 'when it became ready or failed' }),
  expiresAt: Type.Union([Seconds, Type.Null()], { description: 'when a ready export and its file are deleted' }),
  size: Type.Union([Type.Integer(), Type.Null()], { description: 'bytes of the zip, once ready' }),
  downloadUrl: Type.Union([Type.String(), Type.Null()], {
    description:
      'once ready: `/api/me/exports/{id}/download?exp=&sig=`, relative to the instance, which opens without a key for 12 to 24 hours (a browser link); the owner’s key also opens the path without them',
  }),
});
export type ExportObject = Static<typeof ExportObject>;

/** The caller's exports and what they may do next. */
export const ExportList = Type.Object({
  exports: Type.Array(ExportObject, { description: 'newest first; expired ones are gone' }),
  /** When the caller may start the next export (seconds), or null when they may now. */
  nextAllowedAt: Type.Union([Seconds, Type.Null()], {
    description: 'null when a new export may be started now; else when (one building at a time, one per hour)',
  }),
});
export type ExportList = Static<typeof ExportList>;
