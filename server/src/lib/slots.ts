import type { AppContext } from '../context.js';
import { whenReady } from './redis.js';

/**
 * Claims the run of `name` for one time slot (e.g. the hour of an hourly task), so that work every
 * server process schedules runs once per slot across all of them. With Redis, the first process to
 * set the slot's key wins (`SET … NX`, kept for two slots); alone (no Redis), the process always
 * wins. If Redis does not answer, nobody runs: the next slot will.
 */
export async function claimSlot(
  ctx: Pick<AppContext, 'redis'> & { config: Pick<AppContext['config'], 'redisPrefix'> },
  name: string,
  slot: number,
  slotMs: number,
): Promise<boolean> {
  if (ctx.redis === null) return true;
  try {
    // Just started, the connection may not be up yet (commands would fail at once).
    await whenReady(ctx.redis, 2000);
    const set = await ctx.redis.set(`${ctx.config.redisPrefix}:slot:${name}:${slot}`, '1', 'PX', 2 * slotMs, 'NX');
    return set === 'OK';
  } catch {
    return false;
  }
}
