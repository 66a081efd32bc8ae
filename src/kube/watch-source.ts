/**
 * The two API calls an informer makes, behind function types so unit tests can script them.
 * The defaults LIST through `KubeClient` (counted, typed errors, paginated) and WATCH through
 * client-node's low-level `Watch.watch`, which, unlike `ListWatch`, lets us send
 * `allowWatchBookmarks=true`.
 */
import { Watch, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { KubeClient, QueryValue } from './client.js';

export interface ListResult<T> {
  resourceVersion: string;
  items: T[];
}

export type ListFn<T> = (
  path: string,
  query: Record<string, QueryValue>,
  signal: AbortSignal,
) => Promise<ListResult<T>>;

export interface WatchHandle {
  abort(): void;
}

/**
 * Starts a watch. `onEvent` gets each decoded event; `onDone` is called once when the stream
 * ends (`err` undefined/null on a clean server close). An HTTP error status is reported to
 * `onDone` as an error carrying `statusCode`.
 */
export type WatchFn = (
  path: string,
  query: Record<string, QueryValue>,
  onEvent: (type: string, object: unknown) => void,
  onDone: (err: unknown) => void,
) => Promise<WatchHandle>;

interface RawList<T> {
  kind?: string;
  apiVersion?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  items?: T[];
}

/** Paginated LIST (500 per page). Items get `apiVersion`/`kind`, which lists leave out. */
export function clientList<T extends KubernetesObject>(client: KubeClient, pageSize = 500): ListFn<T> {
  return async (path, query, signal) => {
    const items: T[] = [];
    let cont: string | undefined;
    let rv = '';
    do {
      const page = await client.get<RawList<T>>(path, { ...query, limit: pageSize, continue: cont }, signal);
      const kind = page.kind?.replace(/List$/, '');
      for (const it of page.items ?? []) {
        it.apiVersion ??= page.apiVersion;
        it.kind ??= kind;
        items.push(it);
      }
      rv = page.metadata?.resourceVersion ?? rv;
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return { resourceVersion: rv, items };
  };
}

export function clientNodeWatch(kc: KubeConfig): WatchFn {
  const watch = new Watch(kc);
  return async (path, query, onEvent, onDone) => {
    const controller = await watch.watch(
      path,
      query,
      (type: string, obj: unknown) => onEvent(type, obj),
      onDone,
    );
    return { abort: () => controller.abort() };
  };
}

/** The HTTP status a watch's `onDone` error carries, if any. */
export function watchErrorStatus(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const s =
    (err as { statusCode?: unknown; status?: unknown }).statusCode ?? (err as { status?: unknown }).status;
  return typeof s === 'number' ? s : undefined;
}
