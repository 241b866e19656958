// The one way the client talks to the server: base path, X-AUTH-TOKEN, JSON, and the HTTP status
// checked on every call (docs/api §13). Errors carry the server's stable `code`.
import type { EndpointAnswer, EndpointBody, EndpointKey, EndpointParams, EndpointQuery } from '@kith/common';
import { appPath } from './config';
import { takeEarlyAnswer } from './earlyAnswers';
import { EVENT_ID_HEADER, noteAnswerEventId } from './eventClock';
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

/**
 * The answer to a request: the one the page's early script already asked for (lib/earlyAnswers.ts)
 * when it is on offer for this very GET and did not fail, else a fetch's.
 */
async function answerOf(
  url: string,
  init: RequestInit,
  early: Promise<Response | null> | undefined,
): Promise<Response> {
  const answer = early === undefined ? null : await early;
  if (answer === null) return fetch(url, init);
  // A read cancelled while its early answer was on its way ends as a cancelled fetch would.
  init.signal?.throwIfAborted();
  return answer;
}

/** Sends one request and returns its JSON body (undefined for 204). */
async function send(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
  const url = appPath(path);
  // Taken before any await: answers are on offer only while the first screen's reads start.
  const early = method === 'GET' ? takeEarlyAnswer(url) : undefined;
  let response: Response;
  try {
    response = await answerOf(
      url,
      {
        method,
        headers: headers(body !== undefined),
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        signal,
      },
      early,
    );
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, 'network_error', error instanceof Error ? error.message : String(error));
  }
  noteAnswerEventId(response.headers.get(EVENT_ID_HEADER));
  if (!response.ok) {
    const error = await errorOf(response);
    // A key that stopped working (reset on another device, account deleted or disabled by the
    // administrator) sends the user back to login, where a disabled account is told why.
    if ((error.code === 'invalid_api_key' || error.code === 'account_disabled') && getApiKey() !== null) clearSession();
    throw error;
  }
  if (response.status === 204) return undefined;
  return response.json();
}

/** The API's endpoints (the files' bytes are no call: they are URLs, see `fileUrl`). */
export type ApiEndpoint = Extract<EndpointKey, `${string} /api/${string}`>;

type ParamsOption<K extends ApiEndpoint> = [keyof EndpointParams<K>] extends [never]
  ? { params?: never }
  : { params: EndpointParams<K> };
type BodyOption<K extends ApiEndpoint> =
  EndpointBody<K> extends undefined ? { body?: never } : { body: EndpointBody<K> };
type QueryOption<K extends ApiEndpoint> =
  EndpointQuery<K> extends undefined ? { query?: never } : { query?: EndpointQuery<K> };

/** What a call of endpoint `K` takes: its path parameters, body and query, as the table types them. */
export type CallOptions<K extends ApiEndpoint> = ParamsOption<K> &
  BodyOption<K> &
  QueryOption<K> & { signal?: AbortSignal };

// The options may be left out only when nothing in them is required.
type CallArgs<K extends ApiEndpoint> =
  object extends CallOptions<K> ? [options?: CallOptions<K>] : [options: CallOptions<K>];

/** The path of a call: the endpoint's path with its parameters filled in, then the query string. */
export function pathOf(endpoint: ApiEndpoint, params?: Record<string, string>, query?: object): string {
  const template = endpoint.slice(endpoint.indexOf(' ') + 1);
  const path = template.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(params?.[name] ?? ''));
  const pairs = Object.entries(query ?? {}).filter(([, value]) => value !== undefined && value !== null);
  if (pairs.length === 0) return path;
  return `${path}?${pairs.map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`).join('&')}`;
}

/**
 * Calls one endpoint of the API's table (common/src/api/endpoints.ts) and returns its answer, typed
 * by the table: a path, parameter, body or answer that does not match it does not compile.
 */
export async function call<K extends ApiEndpoint>(endpoint: K, ...[options]: CallArgs<K>): Promise<EndpointAnswer<K>> {
  const method = endpoint.slice(0, endpoint.indexOf(' '));
  const opts = (options ?? {}) as {
    params?: Record<string, string>;
    body?: unknown;
    query?: object;
    signal?: AbortSignal;
  };
  // Writes always send a JSON object, `{}` when the endpoint reads none (as the 0.5.6 client does).
  const body = method === 'POST' || method === 'PUT' ? (opts.body ?? {}) : undefined;
  return (await send(method, pathOf(endpoint, opts.params, opts.query), body, opts.signal)) as EndpointAnswer<K>;
}

/**
 * Uploads one file as multipart with progress (fetch cannot report upload progress, so this uses
 * XMLHttpRequest). Resolves with the server's File object.
 */
export function uploadFile(
  file: Blob,
  name: string,
  onProgress: (percent: number) => void,
): Promise<EndpointAnswer<'POST /api/files'>> {
  return new Promise((resolve, reject) => {
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
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as EndpointAnswer<'POST /api/files'>);
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
