/**
 * The operator's own modules as they ship (dist/, emitted by tsc), for the benches' side of a
 * comparison. The benches run under tsx, whose transform keeps function names by wrapping every
 * function made at run time (each closure) in a defineProperty call; the operator runs from
 * dist/, which has no such wrapping. A Prober loaded from src/ under tsx paid about 4 % more CPU
 * per probe than the operator's (profile of `bench:probe`), so a bare loop or a `bench:probe`
 * figure built on it would flatter the operator. Loaded by path at run time, after the build:
 * typechecking needs no dist/. tsx also turns on source-mapped stack traces, which the operator
 * runs without: see `stackTracesAsShipped`.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as api from '../../src/api/a2aagent.js';
import type * as cardClaims from '../../src/card/card-claims.js';
import type * as card from '../../src/card/index.js';
import type * as interfaceMap from '../../src/observation/interface-map.js';
import type * as portMapping from '../../src/observation/port-mapping.js';
import type * as probe from '../../src/probe/index.js';

const ROOT = join(import.meta.dirname, '..', '..');

export interface Shipped {
  probe: typeof probe;
  card: typeof card;
  cardClaims: typeof cardClaims;
  api: typeof api;
  interfaceMap: typeof interfaceMap;
  portMapping: typeof portMapping;
}

/**
 * Stack traces as the operator makes them: without source maps. tsx turns them on, and grpc-js
 * reads two stacks for every call that ends with an error status (every GetTask probe: NOT_FOUND),
 * which mapped through source maps cost ~40 µs of a ~135 µs call: both sides of `bench:probe`,
 * and the bench's bare loop (not the operator), paid it, hiding the Prober's own cost.
 */
export function stackTracesAsShipped(): void {
  process.setSourceMapsEnabled(false);
}

/** `npm run build`: dist/ as it ships, from the working tree. */
export function buildDist(): void {
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

export async function loadShipped(): Promise<Shipped> {
  const load = (path: string): Promise<unknown> => import(pathToFileURL(join(ROOT, 'dist', path)).href);
  const [probeM, cardM, cardClaimsM, apiM, interfaceMapM, portMappingM] = await Promise.all([
    load('probe/index.js'),
    load('card/index.js'),
    load('card/card-claims.js'),
    load('api/a2aagent.js'),
    load('observation/interface-map.js'),
    load('observation/port-mapping.js'),
  ]);
  return {
    probe: probeM,
    card: cardM,
    cardClaims: cardClaimsM,
    api: apiM,
    interfaceMap: interfaceMapM,
    portMapping: portMappingM,
  } as Shipped;
}
