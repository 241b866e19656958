import { LIMITS } from '@kith/common';
import type { Body } from '../../lib/body.js';
import { ApiError, invalidField } from '../../lib/errors.js';

/** The message fields of a create or edit request, checked (docs/api §1.7, §6.1, §6.3). */
export interface MessageInput {
  /** Present when `data` was sent: it replaces title, text and no_embed as a whole. */
  data?: { title: string | null; text: string | null; noEmbed: boolean | null };
  /** Present when `files` was sent: file ids in order, duplicates removed. */
  files?: string[];
}

// A run the 0.5.6 client turns into a link: http(s):// up to the next space, newline or bracket.
const URL_RUN = /https?:\/\/[^\s[\]]*/g;

/**
 * A `"` inside a URL would let it break out of the 0.5.6 client's `href="…"`; stored as `%22` it
 * leads to the same place (docs/api §1.10). Everything else is stored exactly as sent.
 */
export function encodeQuotesInUrls(value: string): string {
  return value.replace(URL_RUN, (url) => url.replaceAll('"', '%22'));
}

/** Reads and checks `data` and `files` of a message body. */
export function readMessageInput(body: Body): MessageInput {
  const input: MessageInput = {};
  const data = body.object('data');
  if (data !== undefined) {
    const title = data.string('title') ?? null;
    const text = data.string('text') ?? null;
    if (title !== null && title.length > LIMITS.title) {
      throw new ApiError(400, 'title_too_long', `The title is longer than ${LIMITS.title} characters.`, 'data.title');
    }
    if (text !== null && text.length > LIMITS.text) {
      throw new ApiError(400, 'text_too_long', `The text is longer than ${LIMITS.text} characters.`, 'data.text');
    }
    input.data = {
      title: title === null ? null : encodeQuotesInUrls(title),
      text: text === null ? null : encodeQuotesInUrls(text),
      noEmbed: data.boolean('no_embed') ?? null,
    };
  }

  const rawFiles = body.raw('files');
  if (rawFiles !== undefined && rawFiles !== null) {
    if (!Array.isArray(rawFiles)) throw invalidField('files', 'files must be a list of file ids');
    const ids: string[] = [];
    for (const item of rawFiles as unknown[]) {
      const id = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : item;
      if (typeof id !== 'string') throw invalidField('files', 'files must be a list of file ids');
      const lower = id.toLowerCase();
      if (!ids.includes(lower)) ids.push(lower);
    }
    if (ids.length > LIMITS.filesPerMessage) {
      throw new ApiError(400, 'too_many_files', `A message can hold at most ${LIMITS.filesPerMessage} files.`, 'files');
    }
    input.files = ids;
  }
  return input;
}

/** A message needs a title, a text (not blank) or a file (docs/api §1.7). */
export function isEmptyMessage(title: string | null, text: string | null, fileCount: number): boolean {
  return (title ?? '').trim() === '' && (text ?? '').trim() === '' && fileCount === 0;
}

export const emptyMessage = () => new ApiError(400, 'empty_message', 'The message is empty and cannot be sent.');
