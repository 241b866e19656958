// Reads a raw mail of the outbox (what the server's mailer wrote, `outboxMails`): its decoded
// subject and recipient, and its HTML and text parts as Unicode text, so scenarios can look at a
// mail in another script the way a mail program shows it.

/** A mail of the outbox, decoded. */
export interface Mail {
  to: string;
  subject: string;
  html: string;
  text: string;
}

/** RFC 2047 encoded words (`=?UTF-8?B?…?=`, `=?UTF-8?Q?…?=`) of a header, decoded and joined. */
function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?') // whitespace between two encoded words is not part of the text
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_whole, _charset: string, encoding: string, data: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : Buffer.from(
            data
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
            'latin1',
          ).toString('utf8'),
    );
}

/** Headers of a part (folded lines unfolded), by lower-case name. */
function headers(block: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) result[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return result;
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? '').toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable':
      return Buffer.from(
        body
          .replace(/=\r?\n/g, '')
          .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
        'latin1',
      ).toString('utf8');
    default:
      return body;
  }
}

/** Splits a raw mail into its decoded parts (one level of multipart, as the mailer writes it). */
export function parseMail(raw: string): Mail {
  const split = raw.search(/\r?\n\r?\n/);
  const head = headers(raw.slice(0, split));
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const mail: Mail = { to: decodeHeader(head.to ?? ''), subject: decodeHeader(head.subject ?? ''), html: '', text: '' };
  const boundary = /boundary="?([^";]+)"?/i.exec(head['content-type'] ?? '')?.[1];
  const parts =
    boundary === undefined
      ? [{ head, body }]
      : body
          .split(`--${boundary}`)
          .slice(1, -1)
          .map((part) => {
            const cut = part.search(/\r?\n\r?\n/);
            return { head: headers(part.slice(0, cut)), body: part.slice(cut).replace(/^\r?\n\r?\n/, '') };
          });
  for (const part of parts) {
    const type = (part.head['content-type'] ?? '').toLowerCase();
    const text = decodeBody(part.body, part.head['content-transfer-encoding']);
    if (type.startsWith('text/html')) mail.html = text;
    else if (type.startsWith('text/plain')) mail.text = text;
  }
  return mail;
}
