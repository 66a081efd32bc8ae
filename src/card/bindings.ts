/**
 * The protocol bindings and versions the operator can probe, and how card spellings map onto them.
 * Bindings are open strings in the spec (custom ones SHOULD be URIs); only these three are probed.
 */
export const ProtocolBinding = {
  JSONRPC: 'JSONRPC',
  HTTP_JSON: 'HTTP+JSON',
  GRPC: 'GRPC',
} as const;
export type ProtocolBinding = (typeof ProtocolBinding)[keyof typeof ProtocolBinding];

/** Protocol versions the probes know the wire forms of (`Major.Minor`, spec 3.6). */
export const ProtocolVersion = { V1_0: '1.0', V0_3: '0.3' } as const;
export type ProtocolVersion = (typeof ProtocolVersion)[keyof typeof ProtocolVersion];

const knownBindings: readonly string[] = Object.values(ProtocolBinding);

/**
 * The canonical spelling of a core binding, matched case-insensitively (cards in the wild say
 * `grpc`, `jsonrpc`); any other string is returned unchanged, as the open value it is.
 */
export function canonicalBinding(value: string): string {
  const upper = value.trim().toUpperCase();
  return knownBindings.includes(upper) ? upper : value;
}

export function isKnownBinding(value: string): value is ProtocolBinding {
  return knownBindings.includes(value);
}

/**
 * `Major.Minor` of a declared version: v0.3 cards say `0.3.0`, the spec wants `0.3`.
 * Returns the input unchanged when it is not a dotted number.
 */
export function majorMinor(version: string): string {
  const m = /^\s*(\d+)\.(\d+)(?:\.\d+)?\s*$/.exec(version);
  return m ? `${Number(m[1])}.${Number(m[2])}` : version.trim();
}

/**
 * The wire a `Major.Minor` version is probed over: every 1.x speaks the v1 wire (minors are
 * additive: `GetTask` exists in each, `lf.a2a.v1.A2AService`, no `/v1` REST prefix), 0.3 its own.
 * Other majors (and 0.x other than 0.3) have no known wire. Linear: digits and one dot only.
 */
export function wireOf(version: string): 'v1' | 'v0.3' | undefined {
  if (version === ProtocolVersion.V0_3) return 'v0.3';
  if (!version.startsWith('1.') || version.length < 3 || version.length > 8) return undefined;
  for (let i = 2; i < version.length; i++) {
    const c = version.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return undefined;
  }
  return 'v1';
}

/** Versions the probes can speak: 0.3 and any 1.x (sent as declared in `A2A-Version`). */
export function isKnownVersion(value: string): boolean {
  return wireOf(value) !== undefined;
}
