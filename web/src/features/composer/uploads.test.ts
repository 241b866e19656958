import { describe, expect, it } from 'vitest';
import { filesToSend, isUploading, kindOf, kindOfFile, nextToStart, notReady, uploadsReducer } from './uploads.ts';
import type { ComposerFile, RemoteFile, UploadAction } from './uploads.ts';

const file = (name: string, type: string) => new File(['x'], name, { type });
const remote = (id: string, over: Partial<RemoteFile> = {}): RemoteFile => ({
  id,
  type: 'image/jpeg',
  status: 'ready',
  contentUrl: `${id}.jpg`,
  progress: null,
  name: `${id}.jpg`,
  ...over,
});

function run(actions: UploadAction[], start: ComposerFile[] = []): ComposerFile[] {
  return actions.reduce(uploadsReducer, start);
}

function keyOf(state: ComposerFile[], index: number): string {
  const f = state[index];
  if (f === undefined) throw new Error(`no file at ${index}`);
  return f.key;
}

describe('kindOf', () => {
  it('maps the accepted MIME families', () => {
    expect(kindOf('image/png')).toBe('image');
    expect(kindOf('video/quicktime')).toBe('video');
    expect(kindOf('audio/mpeg')).toBe('audio');
    expect(kindOf('application/pdf')).toBe('pdf');
    expect(kindOf('IMAGE/HEIC')).toBe('image');
  });

  it('rejects everything else', () => {
    expect(kindOf('')).toBeNull();
    expect(kindOf('text/plain')).toBeNull();
    expect(kindOf('application/zip')).toBeNull();
    expect(kindOf('image/')).toBeNull();
    expect(kindOf('image')).toBeNull();
    expect(kindOf('application/pdfx')).toBeNull();
  });

  it('falls back to the file name when the browser gives no type', () => {
    expect(kindOfFile({ type: '', name: 'IMG_1.HEIC' })).toBe('image');
    expect(kindOfFile({ type: '', name: 'clip.mkv' })).toBe('video');
    expect(kindOfFile({ type: '', name: 'notes.txt' })).toBeNull();
    expect(kindOfFile({ type: '', name: 'noextension' })).toBeNull();
    expect(kindOfFile({ type: 'text/plain', name: 'x.jpg' })).toBeNull();
  });
});

describe('uploadsReducer', () => {
  it('adds accepted files as initial and skips the rest', () => {
    const state = run([{ type: 'add', files: [file('a.jpg', 'image/jpeg'), file('b.txt', 'text/plain')] }]);
    expect(state).toHaveLength(1);
    expect(state[0]).toMatchObject({ name: 'a.jpg', kind: 'image', status: 'initial', progress: 0, removed: false });
    expect(state[0]?.local).toBeInstanceOf(File);
    expect(state[0]?.remote).toBeNull();
  });

  it('gives every file a distinct key', () => {
    const state = run([
      { type: 'add', files: [file('a.jpg', 'image/jpeg'), file('a.jpg', 'image/jpeg')] },
      { type: 'add', files: [file('a.jpg', 'image/jpeg')] },
    ]);
    expect(new Set(state.map((f) => f.key)).size).toBe(3);
  });

  it('returns the same state for unknown keys and empty adds', () => {
    const state = run([{ type: 'add', files: [file('a.jpg', 'image/jpeg')] }]);
    for (const action of [
      { type: 'start', key: 'nope' },
      { type: 'progress', key: 'nope', percent: 5 },
      { type: 'done', key: 'nope', remote: remote('r') },
      { type: 'failed', key: 'nope' },
      { type: 'toggleRemoved', key: 'nope' },
      { type: 'remoteUpdate', remote: remote('unknown') },
      { type: 'add', files: [file('x.zip', 'application/zip')] },
    ] satisfies UploadAction[]) {
      expect(uploadsReducer(state, action)).toBe(state);
    }
  });

  it('never mutates the previous state', () => {
    const state = Object.freeze(run([{ type: 'add', files: [file('a.jpg', 'image/jpeg')] }]));
    const first = Object.freeze(state[0]!);
    const key = first.key;
    const next = run(
      [
        { type: 'start', key },
        { type: 'progress', key, percent: 40 },
        { type: 'toggleRemoved', key },
      ],
      state as ComposerFile[],
    );
    expect(first.status).toBe('initial');
    expect(first.removed).toBe(false);
    expect(next[0]).toMatchObject({ status: 'uploading', progress: 40, removed: true });
  });

  it('walks a video through initial, uploading and raw to ready', () => {
    let state = run([{ type: 'add', files: [file('v.mov', 'video/quicktime')] }]);
    const key = keyOf(state, 0);
    state = uploadsReducer(state, { type: 'start', key });
    expect(state[0]).toMatchObject({ status: 'uploading', progress: 0 });
    state = uploadsReducer(state, { type: 'progress', key, percent: 150 });
    expect(state[0]?.progress).toBe(100);
    state = uploadsReducer(state, { type: 'progress', key, percent: -3 });
    expect(state[0]?.progress).toBe(0);
    const raw = remote('f1', { type: 'video/quicktime', status: 'raw', progress: 0, name: 'v.mov' });
    state = uploadsReducer(state, { type: 'done', key, remote: raw });
    expect(state[0]).toMatchObject({ status: 'raw', progress: 0, remote: raw });
    state = uploadsReducer(state, { type: 'remoteUpdate', remote: { ...raw, progress: 42 } });
    expect(state[0]).toMatchObject({ status: 'raw', progress: 42 });
    state = uploadsReducer(state, { type: 'remoteUpdate', remote: { ...raw, status: 'ready', type: 'video/mp4' } });
    expect(state[0]).toMatchObject({ status: 'ready', progress: 100, kind: 'video', key });
  });

  it('ignores progress once the upload has answered', () => {
    let state = run([{ type: 'add', files: [file('a.jpg', 'image/jpeg')] }]);
    const key = keyOf(state, 0);
    state = run(
      [
        { type: 'start', key },
        { type: 'done', key, remote: remote('r1') },
      ],
      state,
    );
    expect(uploadsReducer(state, { type: 'progress', key, percent: 50 })).toBe(state);
    expect(uploadsReducer(state, { type: 'start', key })).toBe(state);
  });

  it('ignores progress before the upload starts', () => {
    const state = run([{ type: 'add', files: [file('a.jpg', 'image/jpeg')] }]);
    expect(uploadsReducer(state, { type: 'progress', key: keyOf(state, 0), percent: 50 })).toBe(state);
  });

  it('takes the kind the server detected from the bytes', () => {
    let state = run([{ type: 'add', files: [file('x', 'image/png')] }]);
    const key = keyOf(state, 0);
    state = uploadsReducer(state, { type: 'done', key, remote: remote('r', { type: 'application/pdf', name: null }) });
    expect(state[0]).toMatchObject({ kind: 'pdf', name: 'x' });
  });

  it('drops a failed file', () => {
    let state = run([{ type: 'add', files: [file('a.jpg', 'image/jpeg'), file('b.jpg', 'image/jpeg')] }]);
    state = uploadsReducer(state, { type: 'failed', key: keyOf(state, 0) });
    expect(state.map((f) => f.name)).toEqual(['b.jpg']);
  });

  it('toggles removed back and forth', () => {
    let state = run([{ type: 'add', files: [file('a.jpg', 'image/jpeg')] }]);
    const key = keyOf(state, 0);
    state = uploadsReducer(state, { type: 'toggleRemoved', key });
    expect(state[0]?.removed).toBe(true);
    state = uploadsReducer(state, { type: 'toggleRemoved', key });
    expect(state[0]?.removed).toBe(false);
  });

  it('resets to empty or to the files of an existing message', () => {
    const state = run([{ type: 'add', files: [file('a.jpg', 'image/jpeg')] }]);
    expect(uploadsReducer(state, { type: 'reset' })).toEqual([]);
    const edited = uploadsReducer(state, {
      type: 'reset',
      remotes: [remote('p'), remote('v', { type: 'video/mp4', status: 'raw', progress: 30, name: 'v.mp4' })],
    });
    expect(edited).toHaveLength(2);
    expect(edited[0]).toMatchObject({ kind: 'image', status: 'ready', progress: 100, local: null, removed: false });
    expect(edited[1]).toMatchObject({ kind: 'video', status: 'raw', progress: 30, name: 'v.mp4' });
    expect(edited[0]?.key).not.toBe(edited[1]?.key);
  });

  it('guesses a kind from the name when the remote type is unusual', () => {
    const [audio, other] = uploadsReducer([], {
      type: 'reset',
      remotes: [remote('a', { type: 'application/ogg', name: 'a.ogg' }), remote('b', { type: 'x/y', name: null })],
    });
    expect(audio?.kind).toBe('audio');
    expect(other).toMatchObject({ kind: 'pdf', name: '' });
  });
});

describe('queue and sending', () => {
  function three() {
    return run([
      {
        type: 'add',
        files: [file('a.jpg', 'image/jpeg'), file('b.mp4', 'video/mp4'), file('c.pdf', 'application/pdf')],
      },
    ]);
  }

  it('starts one upload at a time, in order', () => {
    let state = three();
    const [a, b, c] = [keyOf(state, 0), keyOf(state, 1), keyOf(state, 2)];
    expect(nextToStart(state)).toBe(a);
    state = uploadsReducer(state, { type: 'start', key: a });
    expect(nextToStart(state)).toBeNull();
    state = uploadsReducer(state, { type: 'done', key: a, remote: remote('ra') });
    expect(nextToStart(state)).toBe(b);
    state = uploadsReducer(state, { type: 'start', key: b });
    state = uploadsReducer(state, { type: 'failed', key: b });
    expect(nextToStart(state)).toBe(c);
  });

  it('skips removed files until they are restored', () => {
    let state = three();
    const a = keyOf(state, 0);
    state = uploadsReducer(state, { type: 'toggleRemoved', key: a });
    expect(nextToStart(state)).toBe(keyOf(state, 1));
    state = uploadsReducer(state, { type: 'toggleRemoved', key: a });
    expect(nextToStart(state)).toBe(a);
  });

  it('reports uploading while a kept file waits or uploads', () => {
    let state = three();
    expect(isUploading([])).toBe(false);
    expect(isUploading(state)).toBe(true);
    for (let i = 0; i < 3; i++) {
      const key = keyOf(state, i);
      state = run(
        [
          { type: 'start', key },
          { type: 'done', key, remote: remote(`r${i}`) },
        ],
        state,
      );
    }
    expect(isUploading(state)).toBe(false);
  });

  it('does not wait for removed files', () => {
    let state = run([{ type: 'add', files: [file('a.jpg', 'image/jpeg')] }]);
    state = uploadsReducer(state, { type: 'start', key: keyOf(state, 0) });
    expect(isUploading(state)).toBe(true);
    state = uploadsReducer(state, { type: 'toggleRemoved', key: keyOf(state, 0) });
    expect(isUploading(state)).toBe(false);
  });

  it('sends ready and raw files that are not removed, in order', () => {
    const state = uploadsReducer([], {
      type: 'reset',
      remotes: [
        remote('one'),
        remote('two', { type: 'video/mp4', status: 'raw', progress: 0 }),
        remote('three', { type: 'audio/mpeg', status: 'raw', progress: 5 }),
        remote('four', { type: 'application/pdf' }),
      ],
    });
    const withRemoved = uploadsReducer(state, { type: 'toggleRemoved', key: keyOf(state, 2) });
    expect(filesToSend(state)).toEqual(['one', 'two', 'three', 'four']);
    expect(filesToSend(withRemoved)).toEqual(['one', 'two', 'four']);
    expect(notReady(state).map((f) => f.remote?.id)).toEqual(['two', 'three']);
    expect(notReady(withRemoved).map((f) => f.remote?.id)).toEqual(['two']);
  });

  it('sends nothing that has not been uploaded', () => {
    const state = three();
    expect(filesToSend(state)).toEqual([]);
    expect(notReady(state)).toEqual([]);
  });
});
