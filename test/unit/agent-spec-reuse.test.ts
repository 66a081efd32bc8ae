// The agents' cache keeps a spec object across watch events that leave it unchanged (status
// writes, label changes: same uid, same generation), so the parse memoized on it is not redone
// per event; a new generation or a new object under the same name brings its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsedAgentSpec, withCachedSpec } from '../../src/controller/agent-spec.js';

const spec = (app: string) => ({
  selector: { matchLabels: { app } },
  ports: [{ name: 'http', port: 8080 }],
  card: { port: 'http' },
});
/** A fresh object as a watch event decodes it: every field its own. */
const agent = (uid: string | undefined, generation: number | undefined, app = 'a') => ({
  metadata: { name: 'a', namespace: 'ns', ...(uid ? { uid } : {}), ...(generation ? { generation } : {}) },
  spec: spec(app),
  status: { observedGeneration: generation },
});

void test('a status write (same uid, same generation) keeps the cached spec object and its parse', () => {
  const cached = agent('u1', 3);
  const parsed = parsedAgentSpec(cached.spec);
  assert.ok(parsed.success);
  const next = withCachedSpec(agent('u1', 3), cached);
  assert.equal(next.spec, cached.spec);
  assert.equal(parsedAgentSpec(next.spec), parsed, 'the memo answers: no second parse');
  assert.equal(next.status.observedGeneration, 3, 'the rest is the new object');
});

void test('a new generation brings its own spec, and the change is seen', () => {
  const cached = agent('u1', 3, 'a');
  const next = withCachedSpec(agent('u1', 4, 'b'), cached);
  assert.notEqual(next.spec, cached.spec);
  const parsed = parsedAgentSpec(next.spec);
  assert.ok(parsed.success);
  assert.deepEqual(parsed.data.selector.matchLabels, { app: 'b' });
});

void test('an agent deleted and recreated under the same name at the same generation is a new object', () => {
  const cached = agent('u1', 1, 'a');
  const next = withCachedSpec(agent('u2', 1, 'b'), cached);
  assert.notEqual(next.spec, cached.spec);
  assert.equal(next.spec.selector.matchLabels.app, 'b');
});

void test('nothing cached, or no uid or generation to compare: the object keeps its own spec', () => {
  const fresh = agent('u1', 1);
  assert.equal(withCachedSpec(fresh, undefined).spec, fresh.spec);
  for (const [next, cached] of [
    [agent(undefined, 1), agent(undefined, 1)],
    [agent('u1', undefined), agent('u1', undefined)],
  ] as const) {
    const own = next.spec;
    assert.equal(withCachedSpec(next, cached).spec, own);
  }
});
