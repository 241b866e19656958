import { Type, type Static } from 'typebox';

/**
 * Web Push (issue 21, docs/api §11.9): the devices of the caller that receive notifications while
 * Kith is closed, and the focus reports that keep pushes away while Kith is in front of them.
 */

const Id = Type.String({ description: 'lowercase UUID v4' });
const Seconds = Type.Integer({ description: 'Unix time in seconds' });

/** What a browser's `PushSubscription.toJSON()` gives, plus a name for the list in the settings. */
export const PushSubscriptionBody = Type.Object({
  endpoint: Type.String({
    description: 'the push service URL the server will call: https, on a public address, at most 2048 characters',
  }),
  keys: Type.Object({
    p256dh: Type.String({ description: 'the device’s P-256 public key, base64url (65 bytes)' }),
    auth: Type.String({ description: 'the device’s auth secret, base64url (16 bytes)' }),
  }),
  label: Type.Optional(
    Type.String({
      description: 'how the settings name this device, e.g. "Firefox on Android"; at most 100 characters',
    }),
  ),
});
export type PushSubscriptionBody = Static<typeof PushSubscriptionBody>;

/** One device of the caller. `endpoint` lets a client find which entry is itself. */
export const PushSubscription = Type.Object({
  id: Id,
  endpoint: Type.String(),
  label: Type.String(),
  createdAt: Seconds,
  lastPushAt: Type.Union([Seconds, Type.Null()], { description: 'the last push this device accepted' }),
});
export type PushSubscription = Static<typeof PushSubscription>;

/** The caller's devices, with the server's VAPID public key to subscribe a new one with. */
export const PushSubscriptionList = Type.Object({
  publicKey: Type.String({ description: 'the VAPID application server key, base64url (uncompressed P-256 point)' }),
  subscriptions: Type.Array(PushSubscription, { description: 'oldest first' }),
});
export type PushSubscriptionList = Static<typeof PushSubscriptionList>;

/**
 * A tab's report that Kith is (or is no longer) in front of its user on this browser. The client
 * sends it while its live stream is open: on focus and blur, and every minute while focused; the
 * server counts a report as current for 90 seconds, so a browser that vanished stops counting.
 */
export const PresenceBody = Type.Object({
  device: Type.String({ description: 'an id the browser chose for itself (1 to 64 of [A-Za-z0-9_-])' }),
  focused: Type.Boolean(),
});
export type PresenceBody = Static<typeof PresenceBody>;

/**
 * What a push carries to the service worker, as JSON (encrypted end to end, RFC 8291). `tag`
 * makes a later push replace an earlier one on the device (one per message); `url` is the page the
 * tap opens, relative to the app's base.
 */
export const PushPayload = Type.Object({
  title: Type.String(),
  body: Type.String(),
  url: Type.String({ description: 'path under the app, e.g. /messages/{id}/{commentId}' }),
  tag: Type.String(),
  lang: Type.String({ description: 'the recipient’s language, e.g. ko-KR' }),
  count: Type.Integer({ description: 'how many notifications this push stands for (collapsed within a minute)' }),
});
export type PushPayload = Static<typeof PushPayload>;
