// Presence (issue 21): the server pushes nothing while Kith is in front of its user, so the browser
// tells it, while its live stream is open, whether some tab of Kith is visible and focused. One
// browser is one device (an id kept in local storage); its tabs share their focus on a
// BroadcastChannel, as they share the stream (features/live/sharedStream.ts), and only the tab
// that reads the stream reports, for all of them: two tabs reporting in turn would contradict
// each other. The server forgets a report after 90 seconds, hence the report every minute.
import type { QueryClient } from '@tanstack/react-query';
import type { EndpointBody, Info } from '@kith/common';
import { keys } from '../../api/queries';
import { appPath } from '../../lib/config';
import { storage } from '../../lib/storage';

/** How often a focused browser says so again (the server keeps a report for 90 s). */
export const PRESENCE_EVERY_MS = 60_000;

/** The storage entry of this browser's device id (cleared with the rest on sign-out). */
const DEVICE_KEY = 'pushDevice';

/** This browser's id for presence reports, made on first use: 1 to 64 of [A-Za-z0-9_-]. */
export function deviceId(): string {
  const kept = storage.get<string>(DEVICE_KEY);
  if (typeof kept === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(kept)) return kept;
  const made = crypto.randomUUID();
  storage.set(DEVICE_KEY, made);
  return made;
}

/**
 * Sends one report. `keepalive` lets the last one (focused: false as the page goes away) outlive
 * the page. Any failure is ignored: presence only spares the user a push, and a server without
 * the route (404) or a lost connection must not disturb the app.
 */
export function reportPresence(apiKey: string, body: EndpointBody<'PUT /api/me/presence'>): void {
  try {
    fetch(appPath('/api/me/presence'), {
      method: 'PUT',
      headers: { 'X-AUTH-TOKEN': apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      keepalive: true,
      cache: 'no-store',
    }).catch(() => undefined);
  } catch {
    // fetch itself may throw synchronously (a keepalive quota exceeded).
  }
}

/** What a browser's tabs tell each other. */
type FocusMessage =
  /** A tab's focus changed (or a tab answers `ask`). */
  | { type: 'focus'; tab: string; focused: boolean }
  /** A new tab asks the others for their focus. */
  | { type: 'ask' };

/** The timers the reporter uses (fake ones in tests). */
interface Timers {
  setInterval(callback: () => void, ms: number): ReturnType<typeof setInterval>;
  clearInterval(id: ReturnType<typeof setInterval>): void;
}

/**
 * The rule of the reports, without the browser around it: while `reporting` (this tab reads an
 * open stream) and `enabled` (the server pushes), it sends whether any tab is focused each time
 * that changes, then every minute while it stays true; it sends false once when reporting stops
 * after it had said true.
 */
export class PresenceReporter {
  private readonly focus = new Map<string, boolean>();
  private reporting = false;
  private lastSent: boolean | null = null;
  private heartbeat: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly send: (focused: boolean) => void,
    private readonly enabled: () => boolean,
    private readonly timers: Timers = globalThis,
  ) {}

  /** Whether some tab of the browser is focused, as far as this tab knows. */
  get focused(): boolean {
    for (const value of this.focus.values()) if (value) return true;
    return false;
  }

  /** A tab's focus (this tab's own, or another's heard on the channel). */
  setFocus(tab: string, focused: boolean): void {
    this.focus.set(tab, focused);
    this.update();
  }

  /** Whether this tab now reads an open stream (the stream connected, was lost, or moved here). */
  setReporting(reporting: boolean): void {
    this.reporting = reporting;
    this.update();
  }

  /** Checks again whether the server pushes (its /api/info was read). */
  refresh(): void {
    this.update();
  }

  private update(): void {
    const active = this.reporting && this.enabled();
    const focused = active && this.focused;
    if (active ? focused !== this.lastSent : this.lastSent === true) {
      this.send(focused);
      this.lastSent = focused;
    }
    if (!active) this.lastSent = null;
    if (focused && this.heartbeat === null) {
      this.heartbeat = this.timers.setInterval(() => this.send(true), PRESENCE_EVERY_MS);
    } else if (!focused && this.heartbeat !== null) {
      this.timers.clearInterval(this.heartbeat);
      this.heartbeat = null;
    }
  }
}

/** What `startPresence` needs. */
export interface PresenceOptions {
  /** The shared stream's channel name (one per key); the tabs' focus goes on `<name>-presence`. */
  name: string;
  /** Sends one report (`reportPresence` with the key and the device id). */
  send: (focused: boolean) => void;
  /** Whether the server pushes at all (/api/info `push`): without pushes nothing is reported. */
  enabled: () => boolean;
}

/** The running presence of this tab. */
export interface Presence {
  /** This tab reads the stream and it is open (true), or not any more (false). */
  setReporting: (reporting: boolean) => void;
  /** Checks `enabled` again. */
  refresh: () => void;
  /** Stops listening; says false first if this tab had reported true. */
  stop: () => void;
}

/** Whether this page is what the user looks at now. */
function pageFocused(): boolean {
  return document.visibilityState === 'visible' && document.hasFocus();
}

/** Follows this tab's focus, shares it with the browser's other tabs, and reports when leading. */
export function startPresence(options: PresenceOptions): Presence {
  const tab = crypto.randomUUID();
  const reporter = new PresenceReporter(options.send, options.enabled);
  const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(`${options.name}-presence`);
  let mine = pageFocused();

  const tell = (focused: boolean) => channel?.postMessage({ type: 'focus', tab, focused } satisfies FocusMessage);

  const onChange = () => {
    const now = pageFocused();
    if (now === mine) return;
    mine = now;
    reporter.setFocus(tab, now);
    tell(now);
  };
  // The page goes away (closed, reloaded, or put in the back/forward cache): it no longer counts.
  const onPageHide = () => {
    mine = false;
    reporter.setFocus(tab, false);
    tell(false);
  };

  if (channel !== null) {
    channel.onmessage = (event: MessageEvent<FocusMessage>) => {
      const message = event.data;
      if (message.type === 'ask') tell(mine);
      else reporter.setFocus(message.tab, message.focused);
    };
  }
  addEventListener('focus', onChange);
  addEventListener('blur', onChange);
  document.addEventListener('visibilitychange', onChange);
  addEventListener('pageshow', onChange);
  addEventListener('pagehide', onPageHide);
  reporter.setFocus(tab, mine);
  tell(mine);
  channel?.postMessage({ type: 'ask' } satisfies FocusMessage);

  return {
    setReporting: (reporting) => reporter.setReporting(reporting),
    refresh: () => reporter.refresh(),
    stop: () => {
      tell(false);
      reporter.setReporting(false);
      removeEventListener('focus', onChange);
      removeEventListener('blur', onChange);
      document.removeEventListener('visibilitychange', onChange);
      removeEventListener('pageshow', onChange);
      removeEventListener('pagehide', onPageHide);
      channel?.close();
    },
  };
}

/**
 * The presence of this tab for the live connection of `apiKey`. Whether the server pushes is read
 * from the cached /api/info (the screens load it), and checked again whenever that is read: this
 * asks nothing of the server itself, so a server without pushes never hears a report.
 */
export function startPushPresence(name: string, apiKey: string, client: QueryClient): Presence {
  const device = deviceId();
  const presence = startPresence({
    name,
    send: (focused) => reportPresence(apiKey, { device, focused }),
    enabled: () => client.getQueryData<Info>(keys.info)?.push === true,
  });
  const unsubscribe = client.getQueryCache().subscribe((event) => {
    const key = event.query.queryKey as readonly unknown[];
    if (event.type === 'updated' && key[0] === keys.info[0]) presence.refresh();
  });
  return {
    ...presence,
    stop: () => {
      unsubscribe();
      presence.stop();
    },
  };
}
