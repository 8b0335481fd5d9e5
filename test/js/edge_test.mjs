// The edge host (js/keel/edge.mjs) served by Node on 127.0.0.1, driven by the official `openai`
// npm client as any OpenAI-compatible client would; plus its one-round-per-invocation endpoint and
// its refusals (key, Origin, Host, bad bodies).
//   build/npm/node_modules/.bin/node test/js/edge_test.mjs PACKAGE_DIR
import http from 'node:http';
import path from 'node:path';
import {createRequire} from 'node:module';
import {pathToFileURL} from 'node:url';
import {Checks, ROOT, watchdog} from '../web/support.mjs';
import {startMockModel} from '../web/mock_model.mjs';

const pkg = process.argv[2];
if (!pkg) {
  console.error('usage: edge_test.mjs PACKAGE_DIR');
  process.exit(2);
}
const {createEdgeHandler, serveOnNode} = await import(pathToFileURL(path.join(path.resolve(pkg), 'edge.mjs')).href);
const require = createRequire(path.join(process.env.KEEL_NPM_MODULES || path.join(ROOT, 'build', 'npm', 'node_modules'), 'noop.js'));
const OpenAI = require('openai').default ?? require('openai');
const t = new Checks('edge (node)');
const guard = watchdog(90000, () => {});

const model = await startMockModel({
  sum: (turn) => (turn.step === 0 ? {tool_calls: [{id: 'c1', name: 'add', arguments: {a: 2, b: 3}}]}
    : {text: `The sum is ${turn.toolResults[0]}.`, pieces: 3}),
  garbage: () => ({text: ''}),
});
const calc = {name: 'add', description: 'adds two numbers', readOnly: true,
  parameters: {type: 'object', properties: {a: {type: 'number'}, b: {type: 'number'}}}, run: ({a, b}) => String(a + b)};
const KEY = 'edge-test-key';
const handler = await createEdgeHandler({model: {baseUrl: model.baseUrl, name: 'mock', retry: {maxAttempts: 1}}, tools: [calc], apiKey: KEY, modelName: 'keel-edge'});
const server = await serveOnNode(handler);

function raw(method, urlPath, {headers = {}, body} = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(server.url);
    const req = http.request({host: u.hostname, port: u.port, method, path: urlPath, headers: {authorization: `Bearer ${KEY}`, ...headers}}, (res) => {
      const parts = [];
      res.on('data', (p) => parts.push(p));
      res.on('end', () => resolve({status: res.statusCode, body: Buffer.concat(parts).toString()}));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(typeof body === 'string' ? body : JSON.stringify(body));
    req.end();
  });
}

try {
  const client = new OpenAI({baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0});
  const whole = await client.chat.completions.create({model: 'keel-edge', messages: [{role: 'system', content: 'ignored'}, {role: 'user', content: '[[scn:sum]] add 2 and 3'}]});
  t.equal(whole.choices[0].message.content, 'The sum is 5.', 'the openai client completes a run with a tool round');
  t.ok(whole.usage.prompt_tokens > 0 && whole.usage.total_tokens === whole.usage.prompt_tokens + whole.usage.completion_tokens, 'usage is reported');
  const stream = await client.chat.completions.create({model: 'keel-edge', stream: true, messages: [{role: 'user', content: '[[scn:sum]] add 2 and 3'}]});
  let text = '';
  let pieces = 0;
  let finish = null;
  for await (const chunk of stream) {
    const c = chunk.choices[0];
    if (c?.delta?.content) {
      text += c.delta.content;
      pieces += 1;
    }
    if (c?.finish_reason) finish = c.finish_reason;
  }
  t.equal([text, finish], ['The sum is 5.', 'stop'], 'the streamed answer arrives through the openai client');
  t.ok(pieces >= 2, 'in several pieces');
  const models = await client.models.list();
  t.equal(models.data.map((m) => m.id), ['keel-edge'], '/v1/models lists the served model');
  const failed = await client.chat.completions.create({model: 'keel-edge', messages: [{role: 'user', content: '[[scn:garbage]] x'}]}).catch((e) => e);
  t.ok(failed?.status === 500 && /model_output/.test(failed.message), 'a failed run is an error the client sees, not an answer');

  const wrong = await new OpenAI({baseURL: `${server.url}/v1`, apiKey: 'nope', maxRetries: 0}).models.list().catch((e) => e);
  t.equal(wrong?.status, 401, 'a wrong key is refused');
  t.equal((await raw('GET', '/v1/models', {headers: {origin: 'https://evil.example'}})).status, 403, 'a foreign Origin is refused');
  t.equal((await raw('GET', '/v1/models', {headers: {host: 'evil.example'}})).status, 421, 'a foreign Host is refused');
  const notJson = await raw('POST', '/v1/chat/completions', {headers: {'content-type': 'application/json'}, body: '{'});
  t.ok(notJson.status === 400 && /not JSON/.test(notJson.body), 'a body that is not JSON is a 400');
  const huge = await raw('POST', '/v1/chat/completions', {headers: {'content-type': 'application/json'}, body: `{"messages":"${'x'.repeat(5 * 1024 * 1024)}"}`});
  t.ok(huge.status === 400 && /over 4194304 bytes/.test(huge.body), 'a body over 4 MiB is refused');
  const noUser = await raw('POST', '/v1/chat/completions', {body: {messages: [{role: 'assistant', content: 'hi'}]}});
  t.ok(noUser.status === 400 && /last message must be a user message/.test(noUser.body), 'a conversation without a task is a 400');

  const first = JSON.parse((await raw('POST', '/v1/keel/step', {body: {task: '[[scn:sum]] add 2 and 3'}})).body);
  t.equal([first.done, first.checkpoint.conversation.length], [false, 4], 'step: round 1 returns a checkpoint');
  t.ok(first.events.some((e) => e.type === 'tool_result' && e.content === '5'), 'step: with the round\'s events');
  const second = JSON.parse((await raw('POST', '/v1/keel/step', {body: {checkpoint: first.checkpoint}})).body);
  t.equal([second.done, second.answer], [true, 'The sum is 5.'], 'step: the next invocation answers from the checkpoint alone');
  const bad = await raw('POST', '/v1/keel/step', {body: {checkpoint: {conversation: []}}});
  t.equal(bad.status, 400, 'step: a malformed checkpoint is a 400');

  let refused = null;
  try {
    await createEdgeHandler({model: {baseUrl: model.baseUrl}});
  } catch (e) {
    refused = e;
  }
  t.ok(refused && /needs an apiKey/.test(refused.message), 'a handler without a key is refused at creation');
} catch (e) {
  t.ok(false, `unexpected: ${e.stack || e}`);
} finally {
  clearTimeout(guard);
  await server.close();
  await model.close();
}
process.exit(t.finish());
