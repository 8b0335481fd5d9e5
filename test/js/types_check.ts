// Type-checks the package's declarations (keel.d.ts, edge.d.ts) against typical use, with Deno's
// TypeScript: `deno check test/js/types_check.ts` (test/js/run.sh runs it). Nothing here runs.
// @ts-types="../../js/keel/keel.d.ts"
import {builtinBrowserTools, createAgent, KeelError, type KeelEvent, openIndexedDbStore, wllamaModel} from '../../js/keel/keel.mjs';
// @ts-types="../../js/keel/edge.d.ts"
import {createEdgeHandler, serveOnNode} from '../../js/keel/edge.mjs';

export async function typical(signal: AbortSignal): Promise<string> {
  const store = await openIndexedDbStore('keel');
  const agent = await createAgent({
    model: {baseUrl: 'http://127.0.0.1:11434/v1', apiKey: 'k', name: 'qwen2.5:7b', retry: {maxAttempts: 2}},
    tools: [...builtinBrowserTools({store, ask: async (q: string) => `answer to ${q}`}),
      {name: 'add', description: 'adds', parameters: {type: 'object'}, readOnly: true, run: ({a, b}: {a: number; b: number}) => a + b}],
    maxRounds: 20,
    config: {approval_threshold: 'medium'},
    approve: async ({call, risk}) => (risk === 'high' ? {verdict: 'deny', reason: `no ${call.name}`} : true),
    store,
  });
  const events: KeelEvent[] = [];
  const r = await agent.run('task', {onEvent: (e) => events.push(e), signal});
  if (r.error) throw new KeelError();
  const step = await agent.runOneRound({task: 'next'});
  if (!step.done) await agent.runOneRound({checkpoint: step.checkpoint, approvals: [{call_id: 'c1', verdict: 'allow'}]});
  const local = wllamaModel({wllama: {}, toolChoice: 'auto'});
  void local;
  const handler = await createEdgeHandler({model: {baseUrl: 'http://127.0.0.1:1/v1'}, apiKey: 'k', allowedHosts: ['edge.example']});
  const served = await serveOnNode(handler, {port: 0});
  await served.close();
  return r.answer ?? '';
}
