import { bcp47, type Language } from '@kith/common';

/**
 * The one look of every Kith e-mail: an HTML part built from tables with inline styles (what mail
 * programs render reliably; no external CSS, images or scripts of its own), a dark-mode variant for
 * the clients that honour `prefers-color-scheme`, and a plain-text part with the same content.
 */

/** A piece of an e-mail body. Texts are plain text: the layout escapes them. */
export type Block =
  | { kind: 'paragraph'; text: string; muted?: boolean }
  | { kind: 'button'; label: string; url: string }
  /** A URL written out, under a button, for mail programs that break buttons. */
  | { kind: 'url'; url: string }
  /** A heading inside the body (a group name in a digest). */
  | { kind: 'heading'; text: string }
  /** A list entry: linked title, a line under it, and an optional square picture. */
  | {
      kind: 'item';
      title: string;
      url: string;
      detail: string;
      imageUrl?: string | null;
      /** A small link after the detail line (a digest item's "Reply by e-mail"). */
      reply?: { label: string; url: string } | null;
    };

export interface MailBody {
  lang: Language;
  /** Shown as the title of the HTML document and, hidden, as the inbox preview line. */
  preview: string;
  blocks: Block[];
  /** Small print under the body; `links` become links in both parts. */
  footer: { text: string; link?: { label: string; url: string } }[];
}

const COLORS = {
  page: '#f2efe9',
  card: '#ffffff',
  text: '#24231f',
  muted: '#6b675e',
  accent: '#2f6f5e',
  line: '#e4dfd5',
} as const;

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

// Mail programs use the reader's fonts: the system ones first, then, for the scripts of the 15
// languages, fonts that systems with those scripts have (Tamil, Hangul, Han, Tifinagh: Windows'
// Ebrima, Android's Noto), so no text shows as empty boxes where the system can show it at all.
const FONT =
  "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,'Noto Sans','Noto Sans Tamil','Nirmala UI','Tamil Sangam MN','Apple SD Gothic Neo','Malgun Gothic','PingFang SC','Microsoft YaHei','Noto Sans CJK SC','Noto Sans Tifinagh',Ebrima,sans-serif";

function blockHtml(block: Block): string {
  switch (block.kind) {
    case 'paragraph':
      return `<p style="margin:0 0 16px;${FONT};font-size:${block.muted === true ? 14 : 16}px;line-height:1.5;color:${block.muted === true ? COLORS.muted : COLORS.text}" class="${block.muted === true ? 'k-muted' : 'k-text'}">${escapeHtml(block.text)}</p>`;
    case 'button':
      return `<table role="presentation" cellspacing="0" cellpadding="0" border="0" style="margin:8px 0 20px"><tr><td style="border-radius:6px;background:${COLORS.accent}" class="k-button"><a href="${escapeHtml(block.url)}" style="display:inline-block;padding:12px 22px;${FONT};font-size:16px;font-weight:600;color:#ffffff;text-decoration:none;border-radius:6px">${escapeHtml(block.label)}</a></td></tr></table>`;
    case 'url':
      return `<p style="margin:0 0 16px;${FONT};font-size:13px;line-height:1.4;word-break:break-all;color:${COLORS.muted}" class="k-muted"><a href="${escapeHtml(block.url)}" style="color:${COLORS.accent}" class="k-link">${escapeHtml(block.url)}</a></p>`;
    case 'heading':
      return `<h2 style="margin:24px 0 8px;padding-bottom:6px;border-bottom:1px solid ${COLORS.line};${FONT};font-size:18px;line-height:1.3;color:${COLORS.text}" class="k-text k-line">${escapeHtml(block.text)}</h2>`;
    case 'item': {
      const picture =
        block.imageUrl === undefined || block.imageUrl === null
          ? ''
          : `<td width="64" valign="top" style="padding:0 12px 0 0"><a href="${escapeHtml(block.url)}"><img src="${escapeHtml(block.imageUrl)}" width="64" height="64" alt="" style="display:block;width:64px;height:64px;border-radius:4px;border:0"></a></td>`;
      return `<table role="presentation" width="100%" cellspacing="0" cellpadding="0" border="0" style="margin:0 0 14px"><tr>${picture}<td valign="top"><a href="${escapeHtml(block.url)}" style="${FONT};font-size:16px;font-weight:600;line-height:1.35;color:${COLORS.accent};text-decoration:none" class="k-link">${escapeHtml(block.title)}</a><div style="${FONT};font-size:13px;line-height:1.4;color:${COLORS.muted};margin-top:2px" class="k-muted">${escapeHtml(block.detail)}${
        block.reply === undefined || block.reply === null
          ? ''
          : ` · <a href="${escapeHtml(block.reply.url)}" style="color:${COLORS.muted};text-decoration:underline" class="k-muted">${escapeHtml(block.reply.label)}</a>`
      }</div></td></tr></table>`;
    }
  }
}

function blockText(block: Block): string {
  switch (block.kind) {
    case 'paragraph':
      return block.text;
    case 'button':
      return `${block.label}:\n${block.url}`;
    case 'url':
      return block.url;
    case 'heading':
      return `== ${block.text} ==`;
    case 'item':
      return `* ${block.title}\n  ${block.detail}\n  ${block.url}${
        block.reply === undefined || block.reply === null ? '' : `\n  ${block.reply.label}: ${block.reply.url}`
      }`;
  }
}

/** The HTML and plain-text parts of a mail. */
export function renderMailBody(body: MailBody): { html: string; text: string } {
  const footerHtml = body.footer
    .map(
      (line) =>
        `<p style="margin:0 0 6px;${FONT};font-size:12px;line-height:1.5;color:${COLORS.muted}" class="k-muted">${escapeHtml(line.text)}${
          line.link === undefined
            ? ''
            : ` <a href="${escapeHtml(line.link.url)}" style="color:${COLORS.muted};text-decoration:underline" class="k-muted">${escapeHtml(line.link.label)}</a>`
        }</p>`,
    )
    .join('');
  const html = `<!DOCTYPE html>
<html lang="${bcp47(body.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="supported-color-schemes" content="light dark">
<title>${escapeHtml(body.preview)}</title>
<style>
@media (prefers-color-scheme: dark) {
  .k-page { background: #16171a !important; }
  .k-card { background: #23252a !important; }
  .k-text { color: #ecebe7 !important; }
  .k-muted { color: #a9a59c !important; }
  .k-link { color: #7fc8b2 !important; }
  .k-line { border-color: #3a3d44 !important; }
}
</style>
</head>
<body style="margin:0;padding:0;background:${COLORS.page}" class="k-page">
<div style="display:none;max-height:0;overflow:hidden;mso-hide:all">${escapeHtml(body.preview)}</div>
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" border="0" style="background:${COLORS.page}" class="k-page"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellspacing="0" cellpadding="0" border="0" style="max-width:600px">
<tr><td style="padding:0 4px 12px;${FONT};font-size:20px;font-weight:700;color:${COLORS.accent}" class="k-link">Kith</td></tr>
<tr><td style="background:${COLORS.card};border-radius:8px;padding:28px 28px 12px" class="k-card">
${body.blocks.map(blockHtml).join('\n')}
</td></tr>
<tr><td style="padding:16px 4px 0">${footerHtml}</td></tr>
</table>
</td></tr></table>
</body>
</html>
`;
  const footerText = body.footer
    .map((line) => (line.link === undefined ? line.text : `${line.text} ${line.link.label}: ${line.link.url}`))
    .join('\n');
  const text = `${body.blocks.map(blockText).join('\n\n')}\n\n-- \n${footerText}\n`;
  return { html, text };
}
