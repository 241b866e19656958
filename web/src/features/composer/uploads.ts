/**
 * The composer's attached files as a pure reducer (product spec). A picked file starts `initial`
 * (client only), becomes `uploading` with a percentage, then takes the server's status: `raw`
 * while video or audio is still converting, `ready` otherwise. A failed upload is dropped (the UI
 * shows error_upload). One upload runs at a time; only uploaded files that are not marked
 * `removed` are sent with the message.
 */

import { UPLOAD_EXTENSIONS, type UploadKind } from '@kith/common';

export type { UploadKind };

// File names may use other spellings than the extensions `file-type` reports.
const NAME_EXTENSIONS: Readonly<Record<string, UploadKind>> = {
  ...UPLOAD_EXTENSIONS,
  jpeg: 'image',
  heif: 'image',
  tiff: 'image',
};

/** The fields of the server's file object (docs/api §2.6) that the composer uses. */
export interface RemoteFile {
  id: string;
  type: string;
  status: 'raw' | 'ready';
  contentUrl: string;
  progress: number | null;
  name?: string | null;
}

/** One entry of the composer's file list. */
export interface ComposerFile {
  key: string;
  name: string;
  kind: UploadKind;
  status: 'initial' | 'uploading' | 'raw' | 'ready';
  progress: number;
  removed: boolean;
  local: File | null;
  remote: RemoteFile | null;
}

export type UploadAction =
  | { type: 'add'; files: File[] }
  | { type: 'start'; key: string }
  | { type: 'progress'; key: string; percent: number }
  | { type: 'done'; key: string; remote: RemoteFile }
  | { type: 'failed'; key: string }
  | { type: 'toggleRemoved'; key: string }
  | { type: 'remoteUpdate'; remote: RemoteFile }
  | { type: 'reset'; remotes?: RemoteFile[] };

/** The upload kind of a MIME type, or null when the product does not accept it. */
export function kindOf(mime: string): UploadKind | null {
  const type = mime.trim().toLowerCase();
  if (type === 'application/pdf') return 'pdf';
  const slash = type.indexOf('/');
  // "image/" alone is not a type; insist on a subtype.
  if (slash <= 0 || slash === type.length - 1) return null;
  const top = type.slice(0, slash);
  return top === 'image' || top === 'video' || top === 'audio' ? top : null;
}

function kindOfName(name: string | null | undefined): UploadKind | null {
  const dot = name?.lastIndexOf('.') ?? -1;
  if (name === null || name === undefined || dot < 0) return null;
  return NAME_EXTENSIONS[name.slice(dot + 1).toLowerCase()] ?? null;
}

/** The upload kind of a picked file: its MIME type, else its name's ending; null when not accepted. */
export function kindOfFile(file: Pick<File, 'type' | 'name'>): UploadKind | null {
  return file.type === '' ? kindOfName(file.name) : kindOf(file.type);
}

let counter = 0;

function nextKey(): string {
  counter += 1;
  return `upload-${counter}`;
}

function clampPercent(percent: number): number {
  return Math.min(100, Math.max(0, percent));
}

// The fields that follow the server's copy of a file. Its MIME type is detected from the bytes,
// so it wins over the browser's guess.
function fromRemote(
  remote: RemoteFile,
  fallbackKind: UploadKind,
): Pick<ComposerFile, 'kind' | 'status' | 'progress' | 'remote'> {
  return {
    kind: kindOf(remote.type) ?? fallbackKind,
    status: remote.status,
    progress: remote.status === 'ready' ? 100 : clampPercent(remote.progress ?? 0),
    remote,
  };
}

function updateByKey(
  state: ComposerFile[],
  key: string,
  update: (file: ComposerFile) => ComposerFile | null,
): ComposerFile[] {
  const index = state.findIndex((f) => f.key === key);
  const file = state[index];
  if (file === undefined) return state;
  const next = update(file);
  if (next === file) return state;
  return next === null ? state.filter((_, i) => i !== index) : state.map((f, i) => (i === index ? next : f));
}

/** Applies one composer action to the file list, returning the same array when nothing changes. */
export function uploadsReducer(state: ComposerFile[], action: UploadAction): ComposerFile[] {
  switch (action.type) {
    case 'add': {
      const added: ComposerFile[] = [];
      for (const local of action.files) {
        // Files the product does not accept are skipped here; the picker warns about them.
        const kind = kindOfFile(local);
        if (kind === null) continue;
        added.push({
          key: nextKey(),
          name: local.name,
          kind,
          status: 'initial',
          progress: 0,
          removed: false,
          local,
          remote: null,
        });
      }
      return added.length === 0 ? state : [...state, ...added];
    }
    case 'start':
      return updateByKey(state, action.key, (f) =>
        f.status === 'initial' ? { ...f, status: 'uploading', progress: 0 } : f,
      );
    case 'progress':
      return updateByKey(state, action.key, (f) => {
        // Late progress events can arrive after the answer; they must not undo it.
        if (f.status !== 'uploading' || Number.isNaN(action.percent)) return f;
        const progress = clampPercent(action.percent);
        return progress === f.progress ? f : { ...f, progress };
      });
    case 'done':
      return updateByKey(state, action.key, (f) => ({
        ...f,
        ...fromRemote(action.remote, f.kind),
        name: action.remote.name ?? f.name,
      }));
    case 'failed':
      return updateByKey(state, action.key, () => null);
    case 'toggleRemoved':
      return updateByKey(state, action.key, (f) => ({ ...f, removed: !f.removed }));
    case 'remoteUpdate': {
      const { remote } = action;
      if (!state.some((f) => f.remote?.id === remote.id)) return state;
      return state.map((f) => (f.remote?.id === remote.id ? { ...f, ...fromRemote(remote, f.kind) } : f));
    }
    case 'reset':
      return (action.remotes ?? []).map((remote) => ({
        key: nextKey(),
        name: remote.name ?? '',
        // Every kind the server stores has a known MIME type; a generic document is the harmless guess.
        ...fromRemote(remote, kindOfName(remote.name) ?? 'pdf'),
        removed: false,
        local: null,
      }));
  }
}

/** The key of the next file to upload: the first waiting one, and only while nothing is uploading. */
export function nextToStart(state: ComposerFile[]): string | null {
  if (state.some((f) => f.status === 'uploading')) return null;
  // A file removed before its turn is not uploaded unless the user restores it.
  return state.find((f) => f.status === 'initial' && !f.removed)?.key ?? null;
}

/** True while a kept file is waiting or uploading, so the message cannot be sent yet. */
export function isUploading(state: ComposerFile[]): boolean {
  // Removed files are never sent, so they must not hold the message back.
  return state.some((f) => !f.removed && (f.status === 'initial' || f.status === 'uploading'));
}

function isSent(f: ComposerFile): f is ComposerFile & { remote: RemoteFile } {
  return !f.removed && f.remote !== null && (f.status === 'ready' || f.status === 'raw');
}

/** The server ids of the files to send with the message, in list order. */
export function filesToSend(state: ComposerFile[]): string[] {
  return state.filter(isSent).map((f) => f.remote.id);
}

/** Sent video and audio files still converting, so the UI can say they will appear later. */
export function notReady(state: ComposerFile[]): ComposerFile[] {
  return state.filter((f) => isSent(f) && f.status === 'raw' && (f.kind === 'video' || f.kind === 'audio'));
}
