import type { FastifyInstance } from 'fastify';

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  /** Parsed JSON, or the raw text when the body is not JSON (empty string for 204). */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
  text: string;
}

export interface RequestOptions {
  /** API key sent as X-AUTH-TOKEN. */
  key?: string;
  /** JSON body (objects are serialized); strings are sent as they are. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Client address, for throttling tests. */
  ip?: string;
}

/** An in-process HTTP client for the API (`app.inject`), with the base path and `/api` in front. */
export class ApiClient {
  constructor(
    private readonly app: FastifyInstance,
    private readonly prefix = '/api',
  ) {}

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers['x-auth-token'] = options.key;
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await this.app.inject({
      method: method as 'GET',
      url: `${this.prefix}${path}`,
      headers,
      ...(payload !== undefined ? { payload } : {}),
      ...(options.ip !== undefined ? { remoteAddress: options.ip } : {}),
    });
    let body: unknown = response.body;
    try {
      body = response.body === '' ? '' : JSON.parse(response.body);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.statusCode, headers: response.headers, body, text: response.body };
  }

  get(path: string, options?: RequestOptions) {
    return this.request('GET', path, options);
  }
  post(path: string, options?: RequestOptions) {
    return this.request('POST', path, options);
  }
  put(path: string, options?: RequestOptions) {
    return this.request('PUT', path, options);
  }
  delete(path: string, options?: RequestOptions) {
    return this.request('DELETE', path, options);
  }
}
