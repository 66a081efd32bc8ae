/**
 * What a card claims beyond its interfaces: the extensions a client must declare
 * (`capabilities.extensions[].required`) and the capability flags the capability probes check
 * (`capabilities.streaming`, `pushNotifications`, `extendedAgentCard`; v0.3:
 * `supportsAuthenticatedExtendedCard`). Read from the raw card, bounded, never throwing.
 */

/** At most this many required extension URIs are sent (a card may list any number). */
export const MAX_REQUIRED_EXTENSIONS = 16;
/** A URI longer than this is not sent (a header carries them all). */
export const MAX_EXTENSION_URI = 512;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Visible ASCII without comma or space: fits a comma-separated header value as it is. */
function headerSafe(uri: string): boolean {
  if (uri.length === 0 || uri.length > MAX_EXTENSION_URI) return false;
  for (let i = 0; i < uri.length; i++) {
    const c = uri.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f || c === 0x2c) return false;
  }
  return true;
}

/**
 * The URIs of `capabilities.extensions[]` entries with `required: true`, in card order, without
 * duplicates; URIs a header cannot carry as they are (control characters, spaces, commas, over
 * 512 characters) are left out, and at most 16 are kept.
 */
export function requiredExtensions(raw: Record<string, unknown>): string[] {
  const caps = raw.capabilities;
  if (!isObject(caps) || !Array.isArray(caps.extensions)) return [];
  const out: string[] = [];
  for (const e of caps.extensions as unknown[]) {
    if (out.length >= MAX_REQUIRED_EXTENSIONS) break;
    if (!isObject(e) || e.required !== true || typeof e.uri !== 'string') continue;
    if (headerSafe(e.uri) && !out.includes(e.uri)) out.push(e.uri);
  }
  return out;
}

/** The capabilities the probes can check. */
export const Capability = {
  Streaming: 'streaming',
  PushNotifications: 'pushNotifications',
  ExtendedAgentCard: 'extendedAgentCard',
} as const;
export type Capability = (typeof Capability)[keyof typeof Capability];
export const CAPABILITIES: readonly Capability[] = Object.values(Capability);

/** Each capability as the card declares it: absent or anything but `true` is `false` (the proto default). */
export function capabilityClaims(raw: Record<string, unknown>): Record<Capability, boolean> {
  const caps = isObject(raw.capabilities) ? raw.capabilities : {};
  return {
    streaming: caps.streaming === true,
    pushNotifications: caps.pushNotifications === true,
    extendedAgentCard: caps.extendedAgentCard === true || raw.supportsAuthenticatedExtendedCard === true,
  };
}
