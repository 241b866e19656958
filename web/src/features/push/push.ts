// The browser's side of Web Push (issue 21): whether this browser can receive pushes, subscribing
// it with the server's VAPID key and unsubscribing it, and the small rules of the settings (a
// device's name, quiet hours). The settings section (PushSettings.tsx) puts them on screen.
import { PUSH_CHOICES, type PushChoice } from '@kith/common';

/** Whether this browser can receive pushes at all: a service worker, the Push API and notifications. */
export function pushSupported(scope: object = globalThis): boolean {
  const navigatorOf = (scope as { navigator?: object }).navigator;
  return (
    'PushManager' in scope && 'Notification' in scope && navigatorOf !== undefined && 'serviceWorker' in navigatorOf
  );
}

/** The choice of what to push as saved, else everything (what a user who turned a device on expects). */
export function pushChoiceOf(saved: string | undefined): PushChoice {
  return (PUSH_CHOICES as readonly string[]).includes(saved ?? '') ? (saved as PushChoice) : 'all';
}

/** Quiet hours as the form shows them: off, or from–to in the user's time zone. */
export interface QuietHours {
  on: boolean;
  from: string;
  to: string;
}

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/** The form's quiet hours from `data.quiet_hours` ("HH:MM-HH:MM" or ""); off shows 22:00–07:00 to start from. */
export function quietHoursOf(saved: string | undefined): QuietHours {
  const [from = '', to = ''] = (saved ?? '').split('-');
  if (TIME.test(from) && TIME.test(to) && from !== to) return { on: true, from, to };
  return { on: false, from: '22:00', to: '07:00' };
}

/**
 * What the form saves as `data.quiet_hours`: "" when off, "HH:MM-HH:MM" when on, or null when the
 * two times are not a period (missing, malformed, or the same time).
 */
export function quietHoursValue(quiet: QuietHours): string | null {
  if (!quiet.on) return '';
  // A time input may give seconds ("22:00:00") when its step asks for them; minutes are enough.
  const from = quiet.from.slice(0, 5);
  const to = quiet.to.slice(0, 5);
  if (!TIME.test(from) || !TIME.test(to) || from === to) return null;
  return `${from}-${to}`;
}

/** The device's time zone (IANA), sent with the quiet hours so that the server reads them in it. */
export function timeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
}

/** The browser and the system a user agent names, for the device's name in the list; null when unknown. */
export function describeUserAgent(userAgent: string): { browser: string | null; os: string | null } {
  const browser = /\bEdg(e|A|iOS)?\//.test(userAgent)
    ? 'Edge'
    : /\b(OPR|Opera)\//.test(userAgent)
      ? 'Opera'
      : /\bSamsungBrowser\//.test(userAgent)
        ? 'Samsung Internet'
        : /\b(Firefox|FxiOS)\//.test(userAgent)
          ? 'Firefox'
          : /\b(Chrome|CriOS|Chromium)\//.test(userAgent)
            ? 'Chrome'
            : /\bVersion\/[\d.]+.*\bSafari\//.test(userAgent)
              ? 'Safari'
              : null;
  // iOS before Android and macOS: an iPhone's agent says "like Mac OS X".
  const os = /\b(iPhone|iPad|iPod)\b/.test(userAgent)
    ? 'iOS'
    : /\bAndroid\b/.test(userAgent)
      ? 'Android'
      : /\bCrOS\b/.test(userAgent)
        ? 'ChromeOS'
        : /\bWindows\b/.test(userAgent)
          ? 'Windows'
          : /\bMac OS X\b|\bMacintosh\b/.test(userAgent)
            ? 'macOS'
            : /\bLinux\b/.test(userAgent)
              ? 'Linux'
              : null;
  return { browser, os };
}

/** The VAPID key as the Push API takes it: the bytes of the base64url text. */
export function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function sameBytes(a: ArrayBuffer | null, b: Uint8Array): boolean {
  if (a === null || a.byteLength !== b.length) return false;
  const view = new Uint8Array(a);
  return view.every((byte, i) => byte === b[i]);
}

/** The registration of the app's service worker, or null before main.tsx has registered it. */
export async function appRegistration(): Promise<ServiceWorkerRegistration | null> {
  return (await navigator.serviceWorker.getRegistration()) ?? null;
}

/** This browser's push subscription, if it has one. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  const registration = await appRegistration();
  return (await registration?.pushManager.getSubscription()) ?? null;
}

/**
 * Subscribes this browser with the server's key and answers the subscription. One made with
 * another key (the server's key changed) is replaced: the push service would refuse the new one.
 */
export async function subscribe(publicKey: string): Promise<PushSubscription> {
  const registration = await navigator.serviceWorker.ready;
  const key = keyBytes(publicKey);
  const existing = await registration.pushManager.getSubscription();
  if (existing !== null) {
    if (sameBytes(existing.options.applicationServerKey, key)) return existing;
    await existing.unsubscribe();
  }
  return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
}

/** The body of POST /api/me/push-subscriptions for a subscription, or null if it lacks its keys. */
export function subscriptionBody(
  subscription: PushSubscription,
  label: string,
): { endpoint: string; keys: { p256dh: string; auth: string }; label: string } | null {
  const json = subscription.toJSON();
  const p256dh = json.keys?.p256dh;
  const auth = json.keys?.auth;
  if (json.endpoint === undefined || p256dh === undefined || auth === undefined) return null;
  return { endpoint: json.endpoint, keys: { p256dh, auth }, label: label.slice(0, 100) };
}
