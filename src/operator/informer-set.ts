/**
 * One cache over several namespaces: an informer per watched namespace (or one for all), so a
 * namespace-scoped install needs only namespaced RBAC. Reads go to the namespace's informer.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { KubeClient } from '../kube/client.js';
import { Informer, type InformerHandlers, type InformerObserver } from '../kube/informer.js';
import type { IndexFn } from '../kube/store.js';
import type { LabelSelector } from '../kube/selector.js';

export interface InformerSetOptions<T extends KubernetesObject> {
  client: KubeClient;
  /** `/api/v1` or `/apis/<group>/<version>`. */
  prefix: string;
  plural: string;
  /** Empty: all namespaces. */
  namespaces: string[];
  labelSelector?: string;
  /** Applied to every object before caching (Informer's default strips managedFields). */
  transform?: (obj: T) => T;
  /** A secondary index; its values should start with the namespace (see byIndex). */
  index?: IndexFn<T>;
  observer?: InformerObserver;
}

export class InformerSet<T extends KubernetesObject> {
  private readonly all?: Informer<T>;
  private readonly byNs = new Map<string, Informer<T>>();

  constructor(opts: InformerSetOptions<T>) {
    const make = (path: string) =>
      new Informer<T>({
        path,
        client: opts.client,
        labelSelector: opts.labelSelector,
        transform: opts.transform,
        index: opts.index,
        observer: opts.observer,
      });
    if (opts.namespaces.length === 0) this.all = make(`${opts.prefix}/${opts.plural}`);
    else
      for (const ns of opts.namespaces)
        this.byNs.set(ns, make(`${opts.prefix}/namespaces/${ns}/${opts.plural}`));
  }

  private get informers(): Informer<T>[] {
    return this.all ? [this.all] : [...this.byNs.values()];
  }

  addHandlers(h: InformerHandlers<T>): void {
    for (const i of this.informers) i.addHandlers(h);
  }

  start(): void {
    for (const i of this.informers) i.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  hasSynced(): boolean {
    return this.informers.every((i) => i.hasSynced());
  }

  async waitForSync(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.waitForSync()));
  }

  get(namespace: string, name: string): T | undefined {
    return (this.all ?? this.byNs.get(namespace))?.get(namespace, name);
  }

  /** Objects of `namespace` whose index value is `value`. */
  byIndex(namespace: string, value: string): T[] {
    return (this.all ?? this.byNs.get(namespace))?.byIndex(value) ?? [];
  }

  /** Objects of `namespace` whose labels match `selector` (through the label index). */
  select(namespace: string, selector: LabelSelector | undefined): T[] {
    return (this.all ?? this.byNs.get(namespace))?.select(namespace, selector) ?? [];
  }

  list(namespace?: string): T[] {
    if (this.all) return this.all.list(namespace);
    if (namespace !== undefined) return this.byNs.get(namespace)?.list(namespace) ?? [];
    return [...this.byNs.values()].flatMap((i) => i.list());
  }
}
