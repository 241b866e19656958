import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { route } from '../../http/route.js';
import { downloadName, listExports, openExportDownload, startExport } from './service.js';

/** A member's exports of their own writing (docs/api §11.12). */
export function exportRoutes(app: FastifyInstance, ctx: AppContext): void {
  route(app, 'GET /api/me/exports', (_request, _reply, user) => listExports(ctx, user));

  route(app, 'POST /api/me/exports', async (_request, reply, user) =>
    reply.code(202).send(await startExport(ctx, user)),
  );

  route(app, 'GET /api/me/exports/{id}/download', async (request, reply, caller) => {
    const { row, stream } = await openExportDownload(ctx, request, caller, request.params.id, request.query);
    return reply
      .header('content-type', 'application/zip')
      .header('content-disposition', `attachment; filename="${downloadName(row)}"`)
      .header('cache-control', 'private, no-store')
      .header('content-length', String(row.size ?? 0))
      .send(stream);
  });
}
