// The src/kube runtime: list-watch caches, work queue and reconcile engine, leader election,
// server-side apply and events, on @kubernetes/client-node 1.4.0.
export * from './apply.js';
export * from './backoff.js';
export * from './client.js';
export * from './clock.js';
export * from './config.js';
export * from './controller.js';
export * from './errors.js';
export * from './events.js';
export * from './informer.js';
export * from './leader-election.js';
export * from './lease-store.js';
export * from './selector.js';
export * from './store.js';
export * from './watch-source.js';
export * from './workqueue.js';
