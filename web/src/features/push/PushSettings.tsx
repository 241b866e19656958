import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { type EndpointAnswer, type Me, PUSH_CHOICES, type PushChoice } from '@kith/common';
import { useInfo } from '../../api/queries';
import { useSubmit } from '../../hooks/useSubmit';
import { call } from '../../lib/api';
import { SaveButton } from '../../components/SaveButton';
import { type TFunction, useTranslation } from '../../lib/i18n';
import { showAlert, showError } from '../../lib/notify';
import ui from '../../styles/ui.module.css';
import settings from '../settings/Settings.module.css';
import { useSaveMe } from '../settings/useSaveMe';
import {
  currentSubscription,
  describeUserAgent,
  pushChoiceOf,
  pushSupported,
  type QuietHours,
  quietHoursOf,
  quietHoursValue,
  subscribe,
  subscriptionBody,
  timeZone,
} from './push';
import styles from './Push.module.css';

/** The query key of the caller's devices (GET /api/me/push-subscriptions). */
export const PUSH_SUBSCRIPTIONS_KEY = ['push-subscriptions'] as const;

type Device = EndpointAnswer<'GET /api/me/push-subscriptions'>['subscriptions'][number];

/** How the list names this browser: "Firefox on Android" in the user's language. */
function deviceLabel(t: TFunction): string {
  const { browser, os } = describeUserAgent(navigator.userAgent);
  const name = browser ?? t('push.some_browser');
  return os === null ? name : t('push.device_label', { browser: name, os });
}

/**
 * The notifications tab's Web Push section (issue 21): this browser on or off, the devices that
 * receive pushes, what is pushed and the quiet hours. Shown only where it can work: the server
 * pushes (/api/info `push`) and the browser has a service worker, the Push API and notifications.
 */
export function PushSettings({ me }: { me: Me }) {
  // A browser without pushes does not even ask the server.
  return pushSupported() ? <PushSectionIfOffered me={me} /> : null;
}

function PushSectionIfOffered({ me }: { me: Me }) {
  const { data: info } = useInfo();
  return info?.push === true ? <PushSection me={me} /> : null;
}

function PushSection({ me }: { me: Me }) {
  const { t } = useTranslation();
  return (
    <section className={`${settings.section} ${styles.section}`} aria-labelledby="push-title">
      <h2 id="push-title" className={settings.heading}>
        {t('push.title')}
      </h2>
      <p className={ui.muted}>{t('push.intro')}</p>
      <Devices />
      <PushChoicesForm me={me} />
    </section>
  );
}

/** This browser's switch, then the list of the user's devices. */
function Devices() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const list = useQuery({
    queryKey: PUSH_SUBSCRIPTIONS_KEY,
    queryFn: ({ signal }) => call('GET /api/me/push-subscriptions', { signal }),
  });
  const { pending, run } = useSubmit();
  // This browser's subscription endpoint: undefined until read, null without one.
  const [endpoint, setEndpoint] = useState<string | null | undefined>(undefined);
  const [permission, setPermission] = useState<NotificationPermission>(() => Notification.permission);
  const listHeading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    let live = true;
    currentSubscription().then(
      (subscription) => live && setEndpoint(subscription?.endpoint ?? null),
      () => live && setEndpoint(null),
    );
    return () => {
      live = false;
    };
  }, []);

  const devices = list.data?.subscriptions ?? [];
  const mine = endpoint === null || endpoint === undefined ? undefined : devices.find((d) => d.endpoint === endpoint);
  const state = permission === 'denied' ? 'blocked' : mine !== undefined ? 'on' : 'off';
  const reload = () => client.invalidateQueries({ queryKey: PUSH_SUBSCRIPTIONS_KEY });

  const turnOn = () =>
    run(async () => {
      // The button waits for the list, which brings the server's key.
      const publicKey = list.data?.publicKey;
      if (publicKey === undefined) return;
      // Asked only now, on the click: a browser may hide the question, or block the site, when a
      // page asks on its own.
      const answer = await Notification.requestPermission();
      setPermission(answer);
      if (answer !== 'granted') return;
      let body: ReturnType<typeof subscriptionBody> = null;
      try {
        body = subscriptionBody(await subscribe(publicKey), deviceLabel(t));
      } catch {
        // The browser's push service refused or could not be reached.
      }
      if (body === null) {
        showError(t('push.failed'));
        return;
      }
      await call('POST /api/me/push-subscriptions', { body });
      setEndpoint(body.endpoint);
      await reload();
      showAlert('push.turned_on');
    });

  const turnOff = () =>
    run(async () => {
      if (mine !== undefined) await call('DELETE /api/me/push-subscriptions/{id}', { params: { id: mine.id } });
      await (await currentSubscription())?.unsubscribe();
      setEndpoint(null);
      await reload();
      showAlert('push.turned_off');
    });

  const remove = (device: Device) =>
    run(async () => {
      await call('DELETE /api/me/push-subscriptions/{id}', { params: { id: device.id } });
      if (device.endpoint === endpoint) {
        await (await currentSubscription())?.unsubscribe();
        setEndpoint(null);
      }
      await reload();
      // The button that had the focus is gone: the list's heading takes it.
      listHeading.current?.focus();
      showAlert('push.removed');
    });

  return (
    <>
      <div className={styles.block}>
        <h3 className={styles.subheading}>{t('push.this_device')}</h3>
        <p aria-live="polite" className={styles.state} data-state={state}>
          {t(`push.state_${state}`)}
        </p>
        {state === 'blocked' ? (
          <p className={ui.muted}>{t('push.blocked_hint')}</p>
        ) : (
          <div>
            <button
              type="button"
              className={state === 'on' ? ui.buttonSecondary : ui.button}
              disabled={pending || endpoint === undefined || list.data === undefined}
              onClick={() => void (state === 'on' ? turnOff() : turnOn())}
            >
              {t(state === 'on' ? 'push.turn_off' : 'push.turn_on')}
            </button>
          </div>
        )}
      </div>
      <div className={styles.block}>
        <h3 className={styles.subheading} ref={listHeading} tabIndex={-1}>
          {t('push.devices')}
        </h3>
        {list.data !== undefined && devices.length === 0 && <p className={ui.muted}>{t('push.no_devices')}</p>}
        {devices.length > 0 && (
          <ul className={styles.devices}>
            {devices.map((device) => (
              <li key={device.id} className={styles.device}>
                <span className={styles.deviceName}>
                  {device.label}
                  {device.id === mine?.id && <span className={styles.mark}>{t('push.this_device_mark')}</span>}
                </span>
                <button
                  type="button"
                  className={ui.buttonSecondary}
                  disabled={pending}
                  aria-label={t('push.remove_label', { device: device.label })}
                  onClick={() => void remove(device)}
                >
                  {t('push.remove')}
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </>
  );
}

/** What to push and the quiet hours, saved together in the account (every device follows them). */
function PushChoicesForm({ me }: { me: Me }) {
  const { t } = useTranslation();
  const { pending, save } = useSaveMe(me.id);
  const [choice, setChoice] = useState<PushChoice>(() => pushChoiceOf(me.data.push_notifications));
  const [quiet, setQuiet] = useState<QuietHours>(() => quietHoursOf(me.data.quiet_hours));
  const from = useRef<HTMLInputElement>(null);
  const id = useId();
  const zone = timeZone();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const quietHours = quietHoursValue(quiet);
    if (quietHours === null) {
      showError(t('push.quiet_invalid'));
      from.current?.focus();
      return;
    }
    void save({
      data: {
        push_notifications: choice,
        quiet_hours: quietHours,
        ...(zone === undefined ? {} : { time_zone: zone }),
      },
    });
  };

  return (
    <form className={`${ui.form} ${styles.block}`} onSubmit={submit}>
      <fieldset className={settings.fieldset}>
        <legend className={settings.legend}>{t('push.what_legend')}</legend>
        <div className={settings.choices}>
          {PUSH_CHOICES.map((value) => (
            <label key={value} className={settings.choice}>
              <input
                type="radio"
                name={`${id}-what`}
                value={value}
                checked={choice === value}
                onChange={() => setChoice(value)}
              />
              <span>{t(`push.what_${value}`)}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset className={settings.fieldset} aria-describedby={`${id}-quiet-hint`}>
        <legend className={settings.legend}>{t('push.quiet_legend')}</legend>
        <p id={`${id}-quiet-hint`} className={ui.muted}>
          {zone === undefined ? t('push.quiet_hint') : t('push.quiet_hint_zone', { zone })}
        </p>
        <label className={settings.choice}>
          <input
            type="checkbox"
            checked={quiet.on}
            onChange={(event) => setQuiet({ ...quiet, on: event.target.checked })}
          />
          <span>{t('push.quiet_on')}</span>
        </label>
        <div className={styles.times}>
          <label className={ui.label}>
            {t('push.quiet_from')}
            <input
              ref={from}
              type="time"
              className={`${ui.input} ${styles.time}`}
              value={quiet.from}
              disabled={!quiet.on}
              onChange={(event) => setQuiet({ ...quiet, from: event.target.value })}
            />
          </label>
          <label className={ui.label}>
            {t('push.quiet_to')}
            <input
              type="time"
              className={`${ui.input} ${styles.time}`}
              value={quiet.to}
              disabled={!quiet.on}
              onChange={(event) => setQuiet({ ...quiet, to: event.target.value })}
            />
          </label>
        </div>
      </fieldset>
      <SaveButton pending={pending} />
    </form>
  );
}
