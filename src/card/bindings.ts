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

export function isKnownVersion(value: string): value is ProtocolVersion {
  return value === ProtocolVersion.V1_0 || value === ProtocolVersion.V0_3;
}
