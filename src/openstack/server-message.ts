/**
 * The human text of an OpenStack error body. Each service words it differently (reference/keystone.md §9):
 * Glance `{"message": "…<br /><br />…"}`, Keystone `{"error": {"message"}}`, Placement `{"errors": [{"detail"}]}`
 * whose detail is "generic sentence\n\n specific text  ". An HTML body yields its text, trimmed.
 */
export function serverMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return cleanText(body.replace(/<[^>]*>/g, ' '));
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  if (typeof record.message === 'string') return cleanText(record.message.split('<br')[0] ?? record.message);
  const error = record.error;
  if (typeof error === 'object' && error !== null && typeof (error as Record<string, unknown>).message === 'string') {
    return cleanText((error as Record<string, string>).message ?? '');
  }
  const errors = record.errors;
  if (Array.isArray(errors) && errors.length > 0) {
    const first = errors[0] as Record<string, unknown>;
    if (typeof first.detail === 'string') {
      const parts = first.detail.split('\n\n');
      return cleanText(parts.length > 1 ? parts.slice(1).join(' ') : first.detail);
    }
  }
  return undefined;
}

function cleanText(text: string): string | undefined {
  const cleaned = text.replace(/\s+/g, ' ').trim();
  return cleaned === '' ? undefined : cleaned;
}
