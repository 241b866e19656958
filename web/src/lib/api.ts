// The one way the client talks to the server: base path, X-AUTH-TOKEN, JSON, and the HTTP status
// checked on every call (contract §13). Errors carry the server's stable `code`.
import { appPath } from './config';
import { clearSession, getApiKey } from './session';

/** An answer outside 2xx, or a network failure (status 0, code 'network_error'). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

function headers(json: boolean): Record<string, string> {
  const result: Record<string, string> = {};
  const key = getApiKey();
  if (key !== null) result['X-AUTH-TOKEN'] = key;
  if (json) result['Content-Type'] = 'application/json';
  return result;
}

async function errorOf(response: Response): Promise<ApiError> {
  let body: { code?: unknown; message?: unknown; field?: unknown } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // Not JSON (a proxy's error page): the status alone tells what happened.
  }
  const code = typeof body.code === 'string' ? body.code : `http_${response.status}`;
  const message = typeof body.message === 'string' ? body.message : response.statusText;
  return new ApiError(response.status, code, message, typeof body.field === 'string' ? body.field : undefined);
}

/** Sends one API call and returns its JSON body (undefined for 204). */
export async function request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(appPath(path), {
      method,
      headers: headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, 'network_error', error instanceof Error ? error.message : String(error));
  }
  if (!response.ok) {
    const error = await errorOf(response);
    // A key that stopped working (reset on another device, account deleted) sends the user back to login.
    if (error.code === 'invalid_api_key' && getApiKey() !== null) clearSession();
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export const api = {
  get: <T>(path: string, signal?: AbortSignal) => request<T>('GET', path, undefined, signal),
  post: <T>(path: string, body: unknown = {}) => request<T>('POST', path, body),
  put: <T>(path: string, body: unknown) => request<T>('PUT', path, body),
  delete: (path: string) => request<void>('DELETE', path),
};

/**
 * Uploads one file as multipart with progress (fetch cannot report upload progress, so this uses
 * XMLHttpRequest). Resolves with the server's File object.
 */
export function uploadFile<T>(file: Blob, name: string, onProgress: (percent: number) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', appPath('/api/files'));
    const key = getApiKey();
    if (key !== null) xhr.setRequestHeader('X-AUTH-TOKEN', key);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(Math.min(100, Math.round((event.loaded / event.total) * 100)));
    };
    xhr.onerror = () => reject(new ApiError(0, 'network_error', 'Network error'));
    xhr.onload = () => {
      let body: { code?: string; message?: string } = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        // handled below by the status
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as T);
      else reject(new ApiError(xhr.status, body.code ?? `http_${xhr.status}`, body.message ?? xhr.statusText));
    };
    const form = new FormData();
    form.append('file', file, name);
    xhr.send(form);
  });
}

/** URL of a thumbnail (fits in w×h) or crop (covers w×h) of a file, read with the media cookie. */
export function imageUrl(kind: 'thumbnail' | 'crop', size: string, fileId: string): string {
  return appPath(`/api/images/${kind}/${size}/${fileId}`);
}

/** URL of a file's bytes from its signed contentUrl. */
export function fileUrl(contentUrl: string): string {
  return appPath(`/files/${contentUrl}`);
}
