/** The normalised card model every other module works from, whatever shape the agent served. */

/** `v1.0`: `supportedInterfaces` only; `v0.3`: `url`/`preferredTransport`/`additionalInterfaces`;
 * `hybrid`: both (the SDK's compat card, v0.3 fields with `supportedInterfaces` embedded). */
export type CardShape = 'v1.0' | 'v0.3' | 'hybrid';

export interface CardInterface {
  url: string;
  /** Canonical for the core bindings (`JSONRPC`, `HTTP+JSON`, `GRPC`), else as declared. */
  protocolBinding: string;
  /** `Major.Minor` (a v0.3 card's `0.3.0` becomes `0.3`), else as declared. */
  protocolVersion: string;
  /** Opaque; absent when the card has none or an empty string. */
  tenant?: string;
  /** Position in `ParsedCard.interfaces`. */
  index: number;
  /** Where in the card it was declared, for messages: `supportedInterfaces[1]`, `url+preferredTransport`. */
  declaredAt: string;
  /**
   * The card's required extension URIs (`capabilities.extensions[].required`), which every probe
   * declares in `A2A-Extensions`; absent when the card requires none. The same for every
   * interface of a card: carried here so each probe has it.
   */
  requiredExtensions?: readonly string[];
}

/** The v0.3 fields of a v0.3 or hybrid card, kept for the consistency checks. */
export interface LegacyView {
  url: string;
  /** As declared (canonical spelling); `JSONRPC` when the card omits it (the v0.3 default). */
  preferredTransport: string;
  preferredTransportDeclared: boolean;
  additionalInterfaces: { url: string; transport: string }[];
  protocolVersion: string;
}

export interface PreferredInterface {
  index: number;
  url: string;
  protocolBinding: string;
  /** Why this one: which card rule made it the first choice of a client. */
  why: string;
}

export interface ParsedCard {
  shape: CardShape;
  /** Card order, preferred first. */
  interfaces: CardInterface[];
  /** Undefined only when the card declares no interface at all. */
  preferred: PreferredInterface | undefined;
  legacy?: LegacyView;
  /** The card exactly as parsed from JSON. */
  raw: Record<string, unknown>;
}
