import type WebPush from 'web-push';
import { lazyModule } from '../../lib/lazy-module.js';
import type { AppContext } from '../../context.js';
import { deleteAllSubscriptions, insertMetaIfAbsent, readMeta, replaceMeta } from './queries.js';

/** web-push loads with the first key made or push sent: most servers never do either. */
export const webpush = lazyModule<typeof WebPush>('web-push');

/**
 * The VAPID key pair (RFC 8292) that signs every push, so push services accept them only from this
 * server. Given by configuration (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY), or generated on first use
 * and kept in the database (`kith_meta`), sealed with the server secret: the database is the one
 * store every process of the scale-out mode shares (DATA_DIR need not be), and the keys stay with
 * the subscriptions made with them, through backups and `migrate-data` alike (docs/decisions.md).
 */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

const META_KEY = 'vapid_keys';

const loaded = new WeakMap<AppContext, Promise<VapidKeys>>();

/** The keys of this instance, read (or made) once per context. */
export function vapidKeys(ctx: AppContext): Promise<VapidKeys> {
  let keys = loaded.get(ctx);
  if (keys === undefined) {
    keys = loadKeys(ctx);
    // A failed read (database away) is tried again by the next caller.
    keys.catch(() => loaded.delete(ctx));
    loaded.set(ctx, keys);
  }
  return keys;
}

function isKeyPair(value: unknown): value is VapidKeys {
  const v = value as Partial<VapidKeys> | null;
  return typeof v?.publicKey === 'string' && typeof v.privateKey === 'string';
}

async function loadKeys(ctx: AppContext): Promise<VapidKeys> {
  if (ctx.config.push.vapidKeys !== null) return ctx.config.push.vapidKeys;
  const db = ctx.db.kysely;
  let stored = await readMeta(db, META_KEY);
  if (stored === undefined) {
    // Two processes starting at once both generate; the first insert wins and both read it back.
    await insertMetaIfAbsent(db, META_KEY, ctx.secretBox.seal(JSON.stringify(webpush().generateVAPIDKeys())));
    stored = (await readMeta(db, META_KEY)) ?? '';
  }
  try {
    const keys: unknown = JSON.parse(ctx.secretBox.open(stored));
    if (isKeyPair(keys)) return keys;
  } catch {
    // Sealed with another SECRET_KEY: handled below.
  }
  // Nobody can read the old private key any more, so no push can be signed for the devices that
  // subscribed with it: start again with new keys, and the devices subscribe again (the web
  // client does when the public key it sees has changed).
  ctx.log.warn(
    'the stored VAPID keys cannot be opened with the current SECRET_KEY: new keys, devices must subscribe again',
  );
  const fresh = webpush().generateVAPIDKeys();
  await deleteAllSubscriptions(db);
  await replaceMeta(db, META_KEY, ctx.secretBox.seal(JSON.stringify(fresh)));
  return fresh;
}
