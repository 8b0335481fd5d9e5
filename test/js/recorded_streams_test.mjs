// The JavaScript backends (openaiModel, anthropicModel) read the real provider replies recorded by
// other projects (test/llm/recorded_streams, with their citations), as the native clients do in
// test/llm/recorded_streams_test.cpp: each body is served once from 127.0.0.1 and the reply must
// carry the recording's expected text, reasoning, calls, finish reason and usage, or fail naming
// the expected error.
//   build/npm/node_modules/.bin/node test/js/recorded_streams_test.mjs PACKAGE_DIR
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {Checks, ROOT, watchdog} from '../web/support.mjs';

const pkg = path.resolve(process.argv[2] || path.join(ROOT, 'build', 'wasm', 'keel-js'));
const {openaiModel, anthropicModel} = await import(pathToFileURL(path.join(pkg, 'keel.mjs')).href);
const dir = path.join(ROOT, 'test', 'llm', 'recorded_streams');
const t = new Checks('recorded streams (js)');
const guard = watchdog(120000, () => {});

let current = null;  // {status, contentType, body}
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(current.status, {'content-type': current.contentType}).end(current.body));
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;

function served(sidecar, text) {
  const framing = sidecar.framing || '';
  if (framing === 'lines') {
    const body = text.split('\n').filter((l) => l.trim()).map((l) => `data: ${l}\n\n`).join('');
    return {status: sidecar.status || 200, contentType: 'text/event-stream', body};
  }
  return {status: sidecar.status || 200, contentType: framing === 'sse' ? 'text/event-stream' : 'application/json', body: text};
}

const request = {messages: [{role: 'user', content: 'hi'}], tools: [], tools_enabled: true, round: 1, final_round: false, sampling: {}};
let count = 0;
for (const provider of fs.readdirSync(dir).sort()) {
  if (!fs.statSync(path.join(dir, provider)).isDirectory()) continue;
  for (const file of fs.readdirSync(path.join(dir, provider)).filter((f) => f.endsWith('.json')).sort()) {
    const id = `${provider}/${file.slice(0, -5)}`;
    const sidecar = JSON.parse(fs.readFileSync(path.join(dir, provider, file), 'utf8'));
    const text = fs.readFileSync(path.join(dir, provider, file.replace(/\.json$/, '.txt')), 'utf8');
    const want = sidecar.expect;
    current = served(sidecar, text);
    const options = {baseUrl: sidecar.api === 'anthropic' ? base : `${base}/v1`, apiKey: 'k', name: 'm', retry: {maxAttempts: 1}};
    const model = sidecar.api === 'anthropic' ? anthropicModel(options) : openaiModel(options);
    let streamed = '';
    let reply = null;
    let error = null;
    try {
      reply = await model.complete(request, {onDelta: (d) => { streamed += d; }});
    } catch (e) {
      error = e;
    }
    count += 1;
    if (want.error) {
      t.ok(error && String(error.message).includes(want.error), `${id}: fails naming '${want.error}' (got ${error ? error.message : 'a reply'})`);
      continue;
    }
    if (!t.ok(!error, `${id}: reads (${error?.message})`)) continue;
    t.equal(reply.text, want.text || '', `${id}: text`);
    t.equal(reply.reasoning, want.reasoning || '', `${id}: reasoning`);
    t.equal(reply.finish_reason, want.finish_reason || '', `${id}: finish reason`);
    t.equal(reply.tool_calls.map((c) => [c.name, c.arguments]), (want.calls || []).map((c) => [c.name, c.arguments]), `${id}: calls`);
    if (want.usage) t.equal([reply.usage.prompt_tokens, reply.usage.completion_tokens], [want.usage.prompt_tokens, want.usage.completion_tokens], `${id}: usage`);
    t.equal(streamed, reply.text, `${id}: what streamed is the text`);
  }
}
t.ok(count >= 81, `the corpus was read (${count} recordings)`);
clearTimeout(guard);
server.close();
process.exit(t.finish());
