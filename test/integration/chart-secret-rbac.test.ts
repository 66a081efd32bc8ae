/**
 * The chart's Secret access (docs/security.md): GET only, never list/watch; narrowed to names
 * with rbac.secretNames, dropped with rbac.readSecrets=false, and in the recommended namespaced
 * install granted per watched namespace only, nothing cluster-scoped.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { find, renderChart, type Manifest, type PolicyRule } from '../harness/helm.js';

const rules = (m: Manifest): PolicyRule[] => (m as unknown as { rules: PolicyRule[] }).rules;
const secretRules = (ms: Manifest[]): { where: string; rule: PolicyRule }[] =>
  [...find(ms, 'ClusterRole'), ...find(ms, 'Role')].flatMap((m) =>
    rules(m)
      .filter((r) => r.resources.includes('secrets'))
      .map((rule) => ({ where: `${m.kind} ${m.metadata.namespace ?? ''}/${m.metadata.name}`, rule })),
  );

describe('chart RBAC for Secrets', () => {
  test('default: one cluster-wide GET, no names, no list/watch', async () => {
    const found = secretRules(await renderChart());
    assert.equal(found.length, 1);
    assert.match(found[0]!.where, /^ClusterRole /);
    assert.deepEqual(found[0]!.rule, { apiGroups: [''], resources: ['secrets'], verbs: ['get'] });
  });

  test('recommended namespaced install: GET in each watched namespace only, nothing cluster-scoped', async () => {
    const ms = await renderChart(['rbac.namespaced=true', 'watchNamespaces={payments,weather}']);
    assert.equal(find(ms, 'ClusterRole').length, 0);
    assert.equal(find(ms, 'ClusterRoleBinding').length, 0);
    const found = secretRules(ms);
    assert.deepEqual(
      found.map((f) => f.where.split('/')[0]),
      ['Role payments', 'Role weather'],
    );
    for (const f of found) assert.deepEqual(f.rule.verbs, ['get']);
  });

  test('rbac.secretNames narrows GET to those names', async () => {
    const found = secretRules(
      await renderChart([
        'rbac.namespaced=true',
        'watchNamespaces={payments}',
        'rbac.secretNames={billing-probe,card-key}',
      ]),
    );
    assert.equal(found.length, 1);
    assert.deepEqual(found[0]!.rule, {
      apiGroups: [''],
      resources: ['secrets'],
      resourceNames: ['billing-probe', 'card-key'],
      verbs: ['get'],
    });
  });

  test('rbac.readSecrets=false: no Secret access at all', async () => {
    assert.deepEqual(secretRules(await renderChart(['rbac.readSecrets=false'])), []);
  });
});
