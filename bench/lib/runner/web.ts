/**
 * Web figures (issue 7, item 4). `bench/run.ts` calls `measureWeb(ctx)` while the server is up,
 * after the read scenarios and before anything is posted, and stores the answer as `web` in the
 * results: Debian's chromium opens the big group's feed as one of its members.
 */
import { measureWeb as measure, type WebMetrics } from '../web-metrics.ts';
import type { RunContext } from './types.ts';

export async function measureWeb(ctx: RunContext): Promise<WebMetrics> {
  const member = ctx.manifest.bigGroup.members[0];
  if (member === undefined) throw new Error('the manifest names no member of the big group');
  return measure({
    url: ctx.url,
    groupId: ctx.manifest.bigGroup.id,
    apiKey: member.apiKey,
    runs: ctx.options.smoke ? 1 : 5,
  });
}
