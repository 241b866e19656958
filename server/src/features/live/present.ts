import type { LiveEvent } from '@kith/common';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { presentFile, type FileSigner } from '../files/presenter.js';
import { findFile } from '../files/queries.js';
import { previewAnswer } from '../messages/service.js';
import { findMessage, lineageOf, reactionViewsOf } from '../messages/queries.js';
import { presentReactionsEvent } from '../reactions/presenter.js';
import { ALL_INCLUDES, presentNotification } from '../notifications/presenter.js';
import { findOwnNotification } from '../notifications/queries.js';
import { presentExport } from '../exports/presenter.js';
import { findExport } from '../exports/queries.js';
import { ApiError } from '../../lib/errors.js';
import type { KithEvent } from '../../events/event-bus.js';
import type { PublishedEvent } from '../../events/event-bus.js';

/**
 * One Server-Sent Events frame: `id`, `event` and a one-line JSON `data`, ended by a blank line. The
 * names and their data are typed by common/src/api/events.ts, which the web client reads them with.
 */
export function sseFrame(id: number, live: LiveEvent): string {
  // JSON.stringify escapes every line break inside strings, so the data is always a single line.
  return `id: ${id}\nevent: ${live.event}\ndata: ${JSON.stringify(live.data)}\n\n`;
}

/** A card, or null when the message is gone by now (deleted between the commit and the send). */
async function previewOrNull(signer: FileSigner, db: Kysely<Database>, id: string) {
  try {
    return await previewAnswer(signer, db, id, null);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/**
 * The `data` of an event as every allowed subscriber receives it, or `null` when nothing is sent:
 * the thing is gone, or the event is not one a stream shows (`disconnect`). A `file` event carries
 * the File object as it is when sent (§11.4).
 *
 * The payload does not depend on who receives it: access is checked per subscriber beforehand
 * (`audience.ts`), so it is built once per event.
 */
async function presentEvent(signer: FileSigner, db: Kysely<Database>, event: KithEvent): Promise<LiveEvent | null> {
  switch (event.type) {
    case 'notification': {
      const view = await findOwnNotification(db, event.userId, event.notificationId);
      return view === undefined ? null : { event: 'notification', data: presentNotification(view, ALL_INCLUDES) };
    }
    case 'message': {
      const card = await previewOrNull(signer, db, event.messageId);
      return card === null ? null : { event: 'message', data: card };
    }
    case 'pin': {
      const card = await previewOrNull(signer, db, event.messageId);
      return card === null ? null : { event: 'pin', data: card };
    }
    case 'comment': {
      const [preview, row] = await Promise.all([
        previewOrNull(signer, db, event.messageId),
        findMessage(db, event.messageId),
      ]);
      if (preview === null || row === undefined) return null;
      const data = {
        ...preview,
        parent: row.parent_id === null ? null : { id: row.parent_id, entityType: 'message' as const },
        lineage: lineageOf(row),
      };
      return { event: 'comment', data };
    }
    case 'reactions': {
      if (!signer.config.reactions) return null;
      const [row, views] = await Promise.all([
        findMessage(db, event.messageId),
        reactionViewsOf(db, [event.messageId]),
      ]);
      if (row === undefined || row.is_deleted === 1) return null;
      return { event: 'reactions', data: presentReactionsEvent(row, views.get(row.id) ?? []) };
    }
    case 'file': {
      const file = await findFile(db, event.fileId);
      return file === undefined ? null : { event: 'file', data: presentFile(signer, file) };
    }
    case 'export': {
      const row = await findExport(db, event.exportId);
      return row === undefined ? null : { event: 'export', data: presentExport(signer, row) };
    }
    case 'disconnect':
      return null;
  }
}

/** The whole frame of a published event, or `null` when it is not sent (see `presentEvent`). */
export async function presentFrame(
  signer: FileSigner,
  db: Kysely<Database>,
  published: PublishedEvent,
): Promise<string | null> {
  const { event } = published;
  if (event.type === 'disconnect') return null;
  const live = await presentEvent(signer, db, event);
  return live === null ? null : sseFrame(published.id, live);
}
