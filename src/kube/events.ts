/**
 * Kubernetes Event recorder (events.k8s.io/v1), for transitions only.
 *
 * An event identical to one already recorded for the same object (type, reason, action, note)
 * does not create a new Event: the existing one's `series.count` is raised instead, as
 * client-go's EventCorrelator does, so a flapping agent cannot flood etcd. Identity is the
 * event's own fields, kept in an LRU across objects, not "the last event of each object": an
 * interface flapping between two states records two Events per transition in turn, and each
 * must find its own series. Writes happen in the background in order; `record()` never throws
 * and failures go to `onError` (an Event is never worth failing a reconcile for).
 */
import { microTime, realClock, type Clock } from './clock.js';
import { ContentType, type Requester } from './client.js';
import { isNotFound } from './errors.js';

export const REPORTING_CONTROLLER = 'a2a.dev/operator';

export interface EventRegarding {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
}

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  client: Requester;
  /** Identifies this replica, e.g. the pod name (at most 128 characters). */
  reportingInstance: string;
  reportingController?: string;
  /** How many distinct events (object + fields) are remembered for aggregation (default 4096). */
  maxTracked?: number;
  onError?: (err: unknown) => void;
  clock?: Clock;
}

interface Series {
  namespace: string;
  eventName: string;
  count: number;
}

const MAX_NOTE = 1024; // events.k8s.io validation limit, in bytes

export class EventRecorder {
  private readonly series = new Map<string, Series>();
  private chain: Promise<void> = Promise.resolve();
  private readonly clock: Clock;
  private seq = 0;

  constructor(private readonly opts: EventRecorderOptions) {
    this.clock = opts.clock ?? realClock;
  }

  /** Queues an event about `regarding`; `action` defaults to `reason`. */
  record(regarding: EventRegarding, type: EventType, reason: string, note: string, action = reason): void {
    const objKey = regarding.uid ?? `${regarding.kind}/${regarding.namespace ?? ''}/${regarding.name}`;
    const trimmed = truncate(note);
    const key = JSON.stringify([objKey, type, reason, action, trimmed]);
    this.chain = this.chain
      .then(() => this.write(key, regarding, type, reason, trimmed, action))
      .catch((err: unknown) => this.opts.onError?.(err));
  }

  /** Resolves when every queued event has been written (or has failed). */
  flush(): Promise<void> {
    return this.chain;
  }

  private async write(
    key: string,
    regarding: EventRegarding,
    type: EventType,
    reason: string,
    note: string,
    action: string,
  ): Promise<void> {
    const now = this.clock.now();
    const prev = this.series.get(key);
    if (prev) {
      try {
        await this.opts.client.request({
          method: 'PATCH',
          path: `/apis/events.k8s.io/v1/namespaces/${prev.namespace}/events/${prev.eventName}`,
          body: { series: { count: prev.count + 1, lastObservedTime: microTime(now) } },
          contentType: ContentType.merge,
        });
        prev.count++;
        this.remember(key, prev);
        return;
      } catch (err) {
        // The Event expired (TTL) or was deleted: start a new one below.
        if (!isNotFound(err)) throw err;
      }
    }
    const namespace = regarding.namespace || 'default';
    // Event names are DNS subdomains (253): a long object name is cut so the suffix still fits.
    const base = regarding.name.slice(0, 230).replace(/[.-]+$/, '');
    const eventName = `${base}.${(now * 1000 + (this.seq++ % 1000)).toString(16)}`;
    await this.opts.client.request({
      method: 'POST',
      path: `/apis/events.k8s.io/v1/namespaces/${namespace}/events`,
      body: {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: eventName, namespace },
        eventTime: microTime(now),
        reportingController: this.opts.reportingController ?? REPORTING_CONTROLLER,
        reportingInstance: this.opts.reportingInstance.slice(0, 128),
        action,
        reason,
        note,
        type,
        regarding,
      },
    });
    this.remember(key, { namespace, eventName, count: 1 });
  }

  /** Map insertion order doubles as LRU order; evicts the oldest beyond the cap. */
  private remember(key: string, v: Series): void {
    this.series.delete(key);
    this.series.set(key, v);
    const max = this.opts.maxTracked ?? 4096;
    while (this.series.size > max) this.series.delete(this.series.keys().next().value!);
  }
}

function truncate(note: string): string {
  if (Buffer.byteLength(note) <= MAX_NOTE) return note;
  let s = note.slice(0, MAX_NOTE);
  while (Buffer.byteLength(s) > MAX_NOTE - 3) s = s.slice(0, -1);
  return `${s}...`;
}
