/**
 * The answer of a probe its caller gave up on (the reconcile's signal aborted before or while it
 * ran): Pending, which is no verdict. An aborted probe says nothing about the interface, so it
 * must never count as a failure; the next reconcile probes it again.
 */
import { InterfaceState } from '../api/conditions.js';
import type { Verdict } from './probe-result.js';
import { verdict } from './verdict.js';

export function abortedVerdict(what: string): Verdict {
  return verdict(
    InterfaceState.Pending,
    `${what}: not probed to the end (the reconcile was cut short); next reconcile`,
    {},
  );
}
