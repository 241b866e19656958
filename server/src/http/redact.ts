/**
 * Removes secrets from a URL before it is logged: invitation keys, public-link and unsubscribe
 * tokens, password-reset keys and signatures never reach the logs.
 */
export function redactUrl(url: string): string {
  const [pathPart = '', query] = url.split('?', 2);
  const path = pathPart
    .replace(/(\/invitation\/)[^/]+/g, '$1[redacted]')
    .replace(/(\/public\/)[^/]+/g, '$1[redacted]')
    .replace(/(\/stop-notification-emails\/[^/]+\/)[^/]+/g, '$1[redacted]');
  if (query === undefined) return path;
  const params = query
    .split('&')
    .map((pair) => {
      const [name = ''] = pair.split('=', 1);
      return /^(key|token|sig|mail|api_key|apikey)$/i.test(name) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${path}?${params}`;
}
