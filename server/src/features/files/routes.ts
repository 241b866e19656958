import multipart, { type Multipart } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { route, type RouteRequest } from '../../http/route.js';
import { ApiError, notFound } from '../../lib/errors.js';
import type { ByteRange } from '../../storage/file-store.js';
import { fileForBytes, fileForImage, fileForMetadata } from './access.js';
import { ensureImage, imageEtag, parseImageRequest, type ImageFormat } from './images.js';
import { presentFile } from './presenter.js';
import { checkDeclaredSize, storageUsage } from './quota.js';
import {
  discardUpload,
  missingFile,
  receiveUpload,
  recordUpload,
  takeUploadAllowance,
  type ReceivedUpload,
} from './service.js';

/** Headers of every served file (docs/api §7.3): no sniffing, no scripts, no plugins. */
const FILE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
} as const;

/**
 * Whether a stored type is shown in the page (`inline`) or only downloaded (`attachment`). Images,
 * video and audio are shown; anything else, PDF first, is downloaded: a browser's built-in PDF
 * viewer runs the document's JavaScript (`/OpenAction`) on our origin, whatever the CSP sandbox
 * says (docs/decisions.md). The PDF is seen through its first-page picture instead.
 */
export function dispositionOf(type: string): 'inline' | 'attachment' {
  // SVG is never stored (uploads are sniffed), but it is a document with scripts, not a picture.
  return /^(image\/(?!svg)|video\/|audio\/)/.test(type) ? 'inline' : 'attachment';
}

/** `inline` or `attachment` with `filename="…"`, and RFC 5987 `filename*` for names that are not plain ASCII. */
export function contentDisposition(name: string, disposition: 'inline' | 'attachment' = 'inline'): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  if (ascii === name) return `${disposition}; filename="${ascii}"`;
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * One byte range of a `Range: bytes=…` header: the range, `null` when the header is absent or not
 * one we serve (several ranges: the whole file is sent), `unsatisfiable` otherwise.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | null | 'unsatisfiable' {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null) return null;
  const [, from = '', to = ''] = match;
  if (from === '' && to === '') return null;
  if (from === '') {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/** An error of the multipart parser (busboy), as opposed to one of the upload's own checks. */
class MalformedBody extends Error {
  override readonly name = 'MalformedBody';
  constructor(cause: unknown) {
    super((cause as Error | null)?.message ?? 'malformed multipart body', { cause });
  }
}

/** The parts of a multipart body; whatever the parser throws comes out as a MalformedBody. */
async function* formParts(request: FastifyRequest): AsyncGenerator<Multipart> {
  const parts = request.parts();
  try {
    for (;;) {
      let step: IteratorResult<Multipart>;
      try {
        step = await parts.next();
      } catch (error) {
        throw new MalformedBody(error);
      }
      if (step.done === true) return;
      yield step.value;
    }
  } finally {
    // Leaving early (a refused upload) ends the parser's iteration as `for await` would.
    await parts.return?.(undefined);
  }
}

/**
 * The answer for an upload that failed (docs/api §7.1). A broken multipart body is 400
 * `missing_file` with what is wrong with it; busboy says so only in its messages (no codes):
 * "Multipart: Boundary not found" (no boundary parameter), "The needle cannot have a length
 * bigger than 256." (an absurd boundary), "Unexpected end of multipart data" (no closing boundary:
 * the body was cut, the boundary is wrong, or the body is not multipart), "Part terminated early
 * due to unexpected end of multipart data" (cut inside a part, seen by the part's stream).
 */
function uploadError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  const cause = error instanceof MalformedBody ? error.cause : error;
  const code = (cause as { code?: unknown } | null)?.code;
  const text = (cause as { message?: unknown } | null)?.message;
  const message = typeof text === 'string' ? text : '';
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return new ApiError(413, 'file_too_large', 'The file is larger than this instance allows', 'file');
  }
  const malformed = (why: string) => new ApiError(400, 'missing_file', why, 'file');
  if (code === 'FST_MP_PREMATURE_CLOSE' || /terminated early|Unexpected end of multipart/.test(message)) {
    return malformed('The multipart body ends before its closing boundary (cut short, or another boundary)');
  }
  if (/Boundary not found|The needle cannot/.test(message)) {
    return malformed('The Content-Type has no usable multipart boundary');
  }
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return malformed('The multipart body has more parts than an upload may have');
  }
  if (error instanceof MalformedBody || (typeof code === 'string' && code.startsWith('FST_'))) {
    return malformed('The multipart body cannot be read');
  }
  return error;
}

/** Uploads, file metadata and images under /api (docs/api §7.1, §7.2, §7.4). */
export function fileRoutes(app: FastifyInstance, ctx: AppContext): void {
  // Multipart bodies are parsed for the upload route only: every other route keeps the app's
  // JSON-whatever-the-Content-Type parser (docs/api §1.3).
  void app.register(async (scope) => {
    const enabled = Object.entries(ctx.config.upload).filter(([, on]) => on);
    const largest = Math.max(1, ...enabled.map(([kind]) => ctx.config.uploadMaxBytes[kind as 'image']));
    await scope.register(multipart, {
      limits: { fileSize: largest + 1, fields: 20, fieldSize: 64 * 1024, parts: 50, headerPairs: 200 },
      throwFileSizeLimit: true,
      // busboy 3.2 stalls for good on a part it skips (no Content-Disposition, a header line
      // without a colon, past the parts limit) when one write brings more of it than the part's
      // high-water mark together with the next boundary: the request never ends. A socket
      // delivers at most 64 KiB a read, so a mark of 1 MiB is never reached (docs/decisions.md).
      fileHwm: 1024 * 1024,
    });
    route(scope, 'POST /api/files', async (request, reply, user) => {
      await takeUploadAllowance(ctx, user);
      // An upload whose announced size cannot fit is refused before a byte of it is read.
      await checkDeclaredSize(ctx, user, request.headers['content-length']);
      if (!request.isMultipart()) throw missingFile();
      let received: ReceivedUpload | undefined;
      try {
        for await (const part of formParts(request)) {
          if (part.type !== 'file') continue;
          if (received === undefined && part.fieldname === 'file') {
            received = await receiveUpload(ctx, user, part.file, part.filename);
          } else {
            // Only the first part named `file` is used; the others are read and dropped.
            part.file.resume();
          }
        }
      } catch (error) {
        // The body broke after the file was read: the file goes too, nothing of the request stays.
        if (received !== undefined) await discardUpload(ctx, received);
        throw uploadError(error);
      }
      if (received === undefined) throw missingFile();
      return reply.code(201).send(await recordUpload(ctx, received));
    });
  });

  route(app, 'GET /api/me/storage', (_request, _reply, user) => storageUsage(ctx, user));

  route(app, 'GET /api/files/{id}', async (request) =>
    presentFile(ctx, await fileForMetadata(ctx, request, request.params.id)),
  );

  // Fastify answers HEAD from the GET (the picture is small, its length is set).
  route(app, 'GET /api/images/{type}/{w}/{h}/{id}', async (request, reply) => {
    const { type, w, h } = request.params;
    const image = parseImageRequest(type, w, h);
    const file = await fileForImage(ctx, request, request.params, request.query);
    const format: ImageFormat = /\bimage\/webp\b/.test(request.headers.accept ?? '') ? 'webp' : 'jpeg';
    const etag = imageEtag(file, image, format);
    // Set on the picture and on 304 only: a 404 (no picture can be made) must not be kept a day.
    const cacheHeaders = { 'Cache-Control': 'private, max-age=86400', ETag: etag, Vary: 'Accept' };
    const match = request.headers['if-none-match'];
    if (match !== undefined && match.split(',').some((tagValue) => tagValue.trim() === etag)) {
      return reply.code(304).headers(cacheHeaders).send();
    }
    const made = await ensureImage(ctx, file, image, format);
    void reply
      .headers(cacheHeaders)
      .code(200)
      .type(format === 'webp' ? 'image/webp' : 'image/jpeg')
      .header('Content-Length', String(made.size));
    return reply.send(ctx.files.read(made.key));
  });
}

/** File bytes under `<base>/files/<fileId>.<ext>?exp=&sig=` (docs/api §1.9, §7.3). */
export async function fileBytesRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(
    async (scope) => {
      // HEAD is answered by the same handler: it sets the length and sends no bytes.
      route(scope, 'GET /files/{name}', (request, reply) => serveFileBytes(ctx, request, reply), { head: 'same' });
    },
    { prefix: ctx.config.basePath },
  );
}

async function serveFileBytes(ctx: AppContext, request: RouteRequest<'GET /files/{name}'>, reply: FastifyReply) {
  const { exp, sig } = request.query;
  const file = await fileForBytes(ctx, request.params.name, exp, sig);
  const stored = await ctx.files.stat(file.storage_key);
  if (stored === null) throw notFound();

  const size = stored.size;
  const maxAge = Math.max(0, Number(exp) - Math.floor(ctx.clock.now() / 1000));
  void reply.headers({
    ...FILE_HEADERS,
    'Content-Type': file.type,
    'Content-Disposition': contentDisposition(file.name, dispositionOf(file.type)),
    'Cache-Control': `private, max-age=${maxAge}`,
    'Accept-Ranges': 'bytes',
  });
  const range = parseRange(request.headers.range, size);
  if (range === 'unsatisfiable') {
    throw new ApiError(416, 'invalid_field', 'The requested range is outside the file', 'Range', {
      'Content-Range': `bytes */${size}`,
    });
  }
  if (range !== null) {
    void reply
      .code(206)
      .header('Content-Range', `bytes ${range.start}-${range.end}/${size}`)
      .header('Content-Length', String(range.end - range.start + 1));
  } else {
    void reply.code(200).header('Content-Length', String(size));
  }
  if (request.method === 'HEAD' || size === 0) return reply.send();
  return reply.send(ctx.files.read(file.storage_key, range ?? undefined));
}
