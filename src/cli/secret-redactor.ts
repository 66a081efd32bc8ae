/**
 * The CLI's last line of defence: every known secret (the bearer token, credentials a card's URLs
 * embed) is replaced by `***` in whatever the CLI prints, in each form it may be printed in
 * (as is, JSON-escaped, control characters escaped, percent-encoded).
 */
import { printable } from '../text/display-text.js';

const REDACTED = '***';

export class SecretRedactor {
  private readonly forms = new Set<string>();
  private sorted: string[] = [];

  /** Registers `secret`; ignored when shorter than `minLength` (a 1-character password would wreck the output). */
  add(secret: string, minLength = 1): void {
    if (secret.length < Math.max(1, minLength)) return;
    for (const form of [
      secret,
      JSON.stringify(secret).slice(1, -1),
      printable(secret),
      encodeURIComponent(secret),
    ]) {
      if (form.length > 0) this.forms.add(form);
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.sorted = [...this.forms].sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let out = text;
    for (const form of this.sorted) if (out.includes(form)) out = out.split(form).join(REDACTED);
    return out;
  }
}
