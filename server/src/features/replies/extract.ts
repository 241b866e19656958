/**
 * PLACEHOLDER for the reply-text extraction written in the wt-strip worktree (issue 21): the lead
 * replaces this file with the real one at the merge. It keeps the same signature so that the
 * mail-replies feature builds and runs now: the text part (else the HTML with its tags removed), cut
 * at the first quoted line, trimmed.
 */
export function extractReply(parts: { text?: string | undefined; html?: string | undefined }): string {
  const source =
    parts.text ??
    (parts.html ?? '')
      .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
      .replace(/<br\s*\/?>|<\/(p|div)>/gi, '\n')
      .replace(/<[^>]*>/g, '')
      .replace(/&nbsp;/g, ' ')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  const lines: string[] = [];
  for (const line of source.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.startsWith('>')) break;
    lines.push(line);
  }
  return lines.join('\n').trim();
}
