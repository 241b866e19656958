import { FileObject } from '@kith/common';
import type { AppContext } from '../../context.js';
import { toSeconds } from '../../lib/clock.js';
import { contentUrl } from './signing.js';
import type { FileRow } from '../../db/rows.js';

export { FileObject };

/** What presenting a file needs: the server secret (signed names) and the clock. */
export type FileSigner = Pick<AppContext, 'config' | 'clock'>;

/** The File object (docs/api §2.6), with a signed `contentUrl` valid for the current window. */
export function presentFile(signer: FileSigner, file: FileRow, fileIndex = 0): FileObject {
  return {
    id: file.id,
    entityType: 'file',
    createdAt: toSeconds(file.created_at),
    type: file.type,
    status: file.status,
    contentUrl: contentUrl(signer.config.secretKey, file.id, file.ext, signer.clock.now()),
    size: Number(file.size),
    fileIndex,
    name: file.name,
    progress: file.progress,
    error: file.error,
  };
}
