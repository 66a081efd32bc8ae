/**
 * Each host name `check` dials is resolved once and every connection to it goes to that address:
 * the base host cannot resolve to one address for the card fetch and another (the metadata
 * service, a loopback admin port) for a probe. IP literals are used as they are.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** An address, or why there is none. */
export type Resolve = (host: string) => Promise<string>;

/** The first IPv4 address, else the first: a local server on `localhost` usually listens on IPv4. */
async function systemResolve(host: string): Promise<string> {
  const all = await lookup(host, { all: true, verbatim: true });
  const chosen = all.find((a) => a.family === 4) ?? all[0];
  if (!chosen) throw Object.assign(new Error(`no address for ${host}`), { code: 'ENOTFOUND' });
  return chosen.address;
}

export class HostPins {
  private readonly pins = new Map<string, Promise<string | { code: string }>>();

  constructor(private readonly resolve: Resolve = systemResolve) {}

  address(host: string): Promise<string | { code: string }> {
    if (isIP(host)) return Promise.resolve(host);
    let pin = this.pins.get(host);
    if (!pin) {
      pin = this.resolve(host).then(
        (address) => address,
        (err: unknown) => ({ code: (err as NodeJS.ErrnoException).code ?? 'ERESOLVE' }),
      );
      this.pins.set(host, pin);
    }
    return pin;
  }
}
