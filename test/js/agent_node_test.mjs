// The JavaScript package's agent under Node against mock model servers on 127.0.0.1: tool rounds,
// streaming, approvals, retries, the Anthropic backend, aborts, a failing session store, one round
// per invocation, and bad input.
//   build/npm/node_modules/.bin/node test/js/agent_node_test.mjs PACKAGE_DIR
import http from 'node:http';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {Checks, watchdog} from '../web/support.mjs';
import {startMockModel} from '../web/mock_model.mjs';

const pkg = process.argv[2];
if (!pkg) {
  console.error('usage: agent_node_test.mjs PACKAGE_DIR');
  process.exit(2);
}
const keel = await import(pathToFileURL(path.join(path.resolve(pkg), 'keel.mjs')).href);
const {createAgent, KeelError} = keel;
const t = new Checks('agent (node)');
const guard = watchdog(120000, () => {});

const calc = {name: 'add', description: 'adds two numbers', readOnly: true,
  parameters: {type: 'object', properties: {a: {type: 'number'}, b: {type: 'number'}}, required: ['a', 'b']},
  run: ({a, b}) => String(a + b)};
const wipe = {name: 'wipe', description: 'deletes everything', risk: 'high', parameters: {type: 'object', properties: {}},
  run: () => { wipe.ran += 1; return 'wiped'; }, ran: 0};
const broken = {name: 'broken', description: 'always throws', readOnly: true, parameters: {type: 'object', properties: {}},
  run: () => { throw new Error('disk on fire'); }};
const types = (events) => events.map((e) => e.type);
const FAST = {maxAttempts: 3, initialDelayMs: 5, maxDelayMs: 20};

const model = await startMockModel({
  sum: (turn) => (turn.step === 0 ? {tool_calls: [{id: 'c1', name: 'add', arguments: {a: 2, b: 3}}]}
    : {text: `The sum is ${turn.toolResults[0]}.`, pieces: 4}),
  wipe: (turn) => (turn.step === 0 ? {tool_calls: [{id: 'w1', name: 'wipe', arguments: {}}]}
    : {text: `result: ${turn.toolResults[0]}`}),
  garbage: () => ({text: ''}),
  broken: (turn) => (turn.step === 0 ? {tool_calls: [{id: 'b1', name: 'broken', arguments: {}}]}
    : {text: `it said: ${turn.toolResults[0]}`}),
  slow: () => ({text: 'a slow answer in many pieces', pieces: 20, piece_delay_ms: 50}),
  chat: (turn) => ({text: `seen ${turn.task.length}`}),
});
const base = {baseUrl: model.baseUrl, name: 'mock', retry: FAST};

try {
  // A multi-round task with a tool and a streamed answer.
  {
    const agent = await createAgent({model: base, tools: [calc]});
    const seen = [];
    const r = await agent.run('[[scn:sum]] add 2 and 3', {onEvent: (e) => seen.push(e)});
    t.equal(r.answer, 'The sum is 5.', 'the tool round feeds the answer');
    t.equal(r.error, null, 'no error');
    t.ok(seen.filter((e) => e.type === 'model_delta').length >= 3, 'the answer streams as model_delta pieces');
    const result = seen.find((e) => e.type === 'tool_result');
    t.equal([result?.name, result?.status, result?.content], ['add', 'ok', '5'], 'tool_result carries the output');
    t.equal(types(seen).at(-1), 'run_finished', 'the last event is run_finished');
    t.equal(r.events.length, seen.length, 'the events returned are those sent');
    const req = model.requests.at(-1).body;
    t.equal(req.messages.find((m) => m.role === 'tool')?.content, '5', 'round 2 sends the tool result');
    t.equal(req.tools?.[0]?.function?.name, 'add', 'round 2 offers the tool');
  }
  // Approval: allowed, then denied.
  {
    const asked = [];
    const agent = await createAgent({model: base, tools: [wipe], approve: async (r) => { asked.push(r); return true; }});
    const r = await agent.run('[[scn:wipe]] clean up');
    t.equal([asked.length, asked[0]?.call?.name, asked[0]?.risk], [1, 'wipe', 'high'], 'a high-risk call is asked about');
    t.equal([wipe.ran, r.answer], [1, 'result: wiped'], 'an allowed call runs');
    const denyAgent = await createAgent({model: base, tools: [wipe], approve: () => false});
    const d = await denyAgent.run('[[scn:wipe]] clean up');
    t.equal(wipe.ran, 1, 'a denied call does not run');
    t.ok(d.events.some((e) => e.type === 'approval_decided' && e.verdict === 'deny'), 'approval_decided deny is reported');
    t.ok(d.events.some((e) => e.type === 'guard_fired' && e.kind === 'permission_denied'), 'the denial is a permission_denied guard');
    t.ok(/denied/.test(d.answer || ''), 'the model sees the denied result');
    const noApprover = await createAgent({model: base, tools: [wipe]});
    const n = await noApprover.run('[[scn:wipe]] clean up');
    t.ok(n.events.some((e) => e.type === 'approval_decided' && e.verdict === 'deny' && /no approver/.test(e.reason)), 'without approve() a call that needs approval is refused');
  }
  // A model that returns garbage: an explicit failure, never a made-up answer.
  {
    const agent = await createAgent({model: base, tools: [calc]});
    const r = await agent.run('[[scn:garbage]] anything');
    t.equal(r.error?.kind, 'model_output', 'empty replies end as a model_output failure');
    t.ok(r.events.some((e) => e.type === 'guard_fired' && e.kind === 'no_usable_call'), 'the no_usable_call guard fires first');
    t.equal(types(r.events).at(-1), 'run_failed', 'the run ends with run_failed');
  }
  // A tool that throws: an error result the model sees; the run goes on.
  {
    const agent = await createAgent({model: base, tools: [broken]});
    const r = await agent.run('[[scn:broken]] try it');
    const res = r.events.find((e) => e.type === 'tool_result');
    t.equal(res?.status, 'error', 'a throwing tool gives an error result');
    t.ok(/disk on fire/.test(res?.content || ''), 'the error names what went wrong');
    t.ok(/disk on fire/.test(r.answer || ''), 'the run goes on to an answer');
  }
  // Retries and failures of the model server.
  {
    let hits = 0;
    const flaky = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        hits += 1;
        if (req.url.includes('/fail401/')) {
          res.writeHead(401, {'content-type': 'application/json'}).end('{"error":{"message":"bad key"}}');
        } else if (req.url.includes('/notjson/')) {
          res.writeHead(200, {'content-type': 'application/json'}).end('<html>a proxy page</html>');
        } else if (hits === 1) {
          res.writeHead(503, {'content-type': 'application/json', 'retry-after': '0'}).end('{"error":{"message":"overloaded"}}');
        } else {
          res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({choices: [{message: {role: 'assistant', content: 'fine'}, finish_reason: 'stop'}], usage: {prompt_tokens: 3, completion_tokens: 1}}));
        }
      });
    });
    await new Promise((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${flaky.address().port}`;
    const agent = await createAgent({model: {baseUrl: `${url}/v1`, name: 'm', retry: FAST}});
    const r = await agent.run('hello');
    t.equal(r.answer, 'fine', 'a 503 is retried');
    const retry = r.events.find((e) => e.type === 'model_retry');
    t.ok(retry && /503/.test(retry.error) && retry.attempt === 1, 'model_retry reports the failed attempt');
    const denied = await createAgent({model: {baseUrl: `${url}/fail401/v1`, name: 'm', retry: FAST}});
    const before = hits;
    const f = await denied.run('hello');
    t.equal(f.error?.kind, 'backend', 'a 401 fails the run as a backend failure');
    t.ok(/401/.test(f.error?.message || '') && /bad key/.test(f.error?.message || ''), 'the failure names the status and the server message');
    t.equal(hits - before, 1, 'a 401 is not retried');
    const html = await createAgent({model: {baseUrl: `${url}/notjson/v1`, name: 'm', retry: FAST}});
    const beforeHtml = hits;
    const h = await html.run('hello');
    t.equal(h.error?.kind, 'backend', 'a reply that is not JSON fails the run as a backend failure');
    t.ok(/not JSON/.test(h.error?.message || '') && /<html>/.test(h.error?.message || ''),
      'the failure says the body is not JSON and quotes its start (as the platform\'s parser does)');
    t.equal(hits - beforeHtml, FAST.maxAttempts, 'a body that is not JSON is retried');
    const gone = await createAgent({model: {baseUrl: 'http://127.0.0.1:9/v1', name: 'm', retry: {maxAttempts: 1}}});
    const g = await gone.run('hello');
    t.ok(g.error?.kind === 'backend' && /cannot be reached/.test(g.error.message), 'an unreachable server is a clear backend failure');
    flaky.close();
  }
  // Anthropic's Messages API, streamed.
  {
    const bodies = [];
    const anthropic = http.createServer((req, res) => {
      const parts = [];
      req.on('data', (p) => parts.push(p));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(parts).toString());
        bodies.push({body, headers: req.headers});
        const send = (obj) => res.write(`event: ${obj.type}\ndata: ${JSON.stringify(obj)}\n\n`);
        res.writeHead(200, {'content-type': 'text/event-stream'});
        send({type: 'message_start', message: {model: 'claude-test', usage: {input_tokens: 10, output_tokens: 0}}});
        const toolTurn = !body.messages.some((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'));
        if (toolTurn) {
          send({type: 'content_block_start', index: 0, content_block: {type: 'tool_use', id: 'toolu_1', name: 'add', input: {}}});
          send({type: 'content_block_delta', index: 0, delta: {type: 'input_json_delta', partial_json: '{"a": 4,'}});
          send({type: 'content_block_delta', index: 0, delta: {type: 'input_json_delta', partial_json: ' "b": 5}'}});
          send({type: 'content_block_stop', index: 0});
          send({type: 'message_delta', delta: {stop_reason: 'tool_use'}, usage: {output_tokens: 7}});
        } else {
          send({type: 'content_block_start', index: 0, content_block: {type: 'text', text: ''}});
          for (const piece of ['Four and five ', 'make nine.']) send({type: 'content_block_delta', index: 0, delta: {type: 'text_delta', text: piece}});
          send({type: 'content_block_stop', index: 0});
          send({type: 'message_delta', delta: {stop_reason: 'end_turn'}, usage: {output_tokens: 5}});
        }
        send({type: 'message_stop'});
        res.end();
      });
    });
    await new Promise((resolve) => anthropic.listen(0, '127.0.0.1', resolve));
    const agent = await createAgent({model: {provider: 'anthropic', baseUrl: `http://127.0.0.1:${anthropic.address().port}`, apiKey: 'k', name: 'claude-test', retry: FAST}, tools: [calc]});
    const r = await agent.run('add 4 and 5');
    t.equal(r.answer, 'Four and five make nine.', 'the Anthropic backend runs a tool round');
    t.equal(r.events.find((e) => e.type === 'tool_result')?.content, '9', 'its streamed tool input is assembled');
    const second = bodies[1]?.body;
    t.equal(second?.messages?.at(-1)?.content?.[0]?.type, 'tool_result', 'the result goes back as a tool_result block');
    t.equal([bodies[0]?.headers['x-api-key'], typeof second?.system], ['k', 'string'], 'the key header and the system text are sent');
    anthropic.close();
  }
  // Abort: an explicit aborted failure.
  {
    const agent = await createAgent({model: base});
    const controller = new AbortController();
    const pending = agent.run('[[scn:slow]] go', {signal: controller.signal, onEvent: (e) => { if (e.type === 'model_delta') controller.abort(new Error('stop button')); }});
    const r = await pending;
    t.equal(r.error?.kind, 'aborted', 'an aborted run fails with kind aborted');
  }
  // The session store: a later run continues the conversation; a failing append loses nothing.
  {
    const saved = new Map();
    let failAt = Infinity;
    let appends = 0;
    const store = {
      async load(id) { return [...(saved.get(id) || [])]; },
      async append(id, messages) {
        appends += 1;
        if (appends >= failAt) throw new DOMException('the quota is spent', 'QuotaExceededError');
        saved.set(id, [...(saved.get(id) || []), ...messages]);
      },
    };
    const agent = await createAgent({model: base, tools: [calc], store});
    const first = await agent.run('[[scn:sum]] add 2 and 3');
    const stored = saved.get(first.sessionId) || [];
    t.equal(stored.map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'assistant'], 'every committed message is stored');
    const second = await agent.run('[[scn:chat]] and now?', {sessionId: first.sessionId});
    const sent = model.requests.at(-1).body.messages.map((m) => m.role);
    t.equal(sent, ['system', 'user', 'assistant', 'tool', 'assistant', 'user'], 'a later run sends the stored conversation');
    t.equal(second.answer?.startsWith('seen'), true, 'and answers');
    const count = saved.get(first.sessionId).length;
    failAt = appends + 1;
    const third = await agent.run('[[scn:sum]] again', {sessionId: first.sessionId});
    t.equal(third.error?.kind, 'store', 'a failing store ends the run with kind store');
    const err = third.events.find((e) => e.type === 'error');
    t.ok(err?.source === 'store' && /QuotaExceededError|quota/.test(err.error + third.error.message), 'an error event names the store failure');
    t.equal(saved.get(first.sessionId).length, count, 'what was stored before is kept');
  }
  // One round per invocation, with an approval across invocations.
  {
    wipe.ran = 0;
    const agent = await createAgent({model: base, tools: [calc, wipe]});
    const a = await agent.runOneRound({task: '[[scn:sum]] add 2 and 3'});
    t.equal([a.done, a.checkpoint.run_start], [false, 1], 'round 1 pauses with a checkpoint');
    t.equal(a.checkpoint.conversation.map((m) => m.role), ['system', 'user', 'assistant', 'tool'], 'the checkpoint holds the round');
    const b = await agent.runOneRound({checkpoint: JSON.parse(JSON.stringify(a.checkpoint))});
    t.equal([b.done, b.answer], [true, 'The sum is 5.'], 'the next invocation finishes from the checkpoint');
    const w = await agent.runOneRound({task: '[[scn:wipe]] clean'});
    t.equal([w.done, w.approvals_needed?.[0]?.call?.name, wipe.ran], [false, 'wipe', 0], 'a call that needs approval pauses before it runs');
    const w2 = await agent.runOneRound({checkpoint: w.checkpoint, approvals: [{call_id: w.approvals_needed[0].call.id, verdict: 'allow'}]});
    t.equal([wipe.ran, w2.done], [1, false], 'the approval given with the checkpoint runs the call');
    const w3 = await agent.runOneRound({checkpoint: w2.checkpoint});
    t.equal(w3.answer, 'result: wiped', 'and the run answers');
    let threw = null;
    try {
      await agent.runOneRound({checkpoint: {conversation: 'x'}});
    } catch (e) {
      threw = e;
    }
    t.ok(threw instanceof KeelError && threw.kind === 'invalid_argument', 'a malformed checkpoint is refused');
  }
  // Bad input.
  {
    const reject = async (fn) => {
      try {
        await fn();
        return null;
      } catch (e) {
        return e;
      }
    };
    const dup = await reject(() => createAgent({model: base, tools: [calc, calc]}));
    t.ok(dup instanceof KeelError && /two tools are named 'add'/.test(dup.message), 'duplicate tool names are refused');
    const key = await reject(() => createAgent({model: base, config: {max_round: 3}}));
    t.ok(key instanceof KeelError && /unknown config key 'max_round'/.test(key.message), 'an unknown config key is refused by the core');
    const nomodel = await reject(() => createAgent({}));
    t.ok(nomodel instanceof KeelError && /needs a model/.test(nomodel.message), 'a missing model is refused');
    const agent = await createAgent({model: base});
    const empty = await reject(() => agent.run('  '));
    t.ok(empty instanceof KeelError, 'an empty task is refused');
  }
} catch (e) {
  t.ok(false, `unexpected: ${e.stack || e}`);
} finally {
  clearTimeout(guard);
  await model.close();
}
process.exit(t.finish());
