import { useEffect, useReducer, useRef } from 'react';
import type { FileObject } from '@kith/common';
import { uploadFile } from '../../lib/api';
import { nextToStart, type RemoteFile, uploadsReducer } from './uploads';
import { showAlert } from '../../lib/notify';
import { fileEvents } from '../live/useLiveEvents';

/**
 * The composer's files: uploads one at a time in the order they were added, follows conversion
 * progress from live `file` events, and drops a failed upload with error_upload.
 */
export function useUploads(initial: RemoteFile[] = []) {
  const [files, dispatch] = useReducer(uploadsReducer, initial, (remotes) =>
    uploadsReducer([], { type: 'reset', remotes }),
  );
  const running = useRef<string | null>(null);
  // Live file events by id. A fast conversion can report "ready" before the upload's own answer is
  // handled; that event is replayed once the answer arrives, so the file does not stay "not ready".
  const latest = useRef(new Map<string, FileObject>());

  useEffect(() => {
    const key = nextToStart(files);
    const entry = files.find((file) => file.key === key);
    if (key === null || !entry?.local || running.current === key) return;
    running.current = key;
    dispatch({ type: 'start', key });
    uploadFile(entry.local, entry.name, (percent) => dispatch({ type: 'progress', key, percent }))
      .then((remote) => {
        dispatch({ type: 'done', key, remote });
        const later = latest.current.get(remote.id);
        if (later !== undefined) dispatch({ type: 'remoteUpdate', remote: later });
      })
      .catch(() => {
        dispatch({ type: 'failed', key });
        showAlert('errors.error_upload', 'danger');
      })
      .finally(() => {
        running.current = null;
      });
  }, [files]);

  useEffect(() => {
    const onFile = (event: Event) => {
      const file = (event as CustomEvent<FileObject>).detail;
      latest.current.set(file.id, file);
      dispatch({ type: 'remoteUpdate', remote: file });
    };
    fileEvents.addEventListener('file', onFile);
    return () => fileEvents.removeEventListener('file', onFile);
  }, []);

  return { files, dispatch };
}
