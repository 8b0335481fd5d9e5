// In-page local inference: llama.cpp compiled to WebAssembly (@wllama/wllama, single-thread) runs a
// random-weight GGUF in Chromium, driven by keel's WebAssembly core through a tool round:
//   build/npm/node_modules/.bin/node test/js/wllama_test.mjs [PACKAGE_DIR]
// PACKAGE_DIR (default build/wasm/keel-js) must lie inside the repository. Needs the native build's
// build/default/keel_gguf_fixture, llama.cpp's vocab-only GGUF files under build/llama, build/npm
// (scripts/install-test-npm.sh) and chromium.
//
// The weights are noise, so the model says nothing sensible; the tool-call grammar (the core's, in
// the model's ChatML syntax, choice 'required') still makes the first reply a call whose arguments
// match the tool's schema. The final round runs free and writes gibberish: the run may end with
// run_finished or run_failed, but the tool round must have happened.
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {Checks, launchBrowser, watchdog} from '../web/support.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const pkg = path.resolve(process.argv[2] || path.join(root, 'build', 'wasm', 'keel-js'));
const pkgUrl = '/' + path.relative(root, pkg).split(path.sep).join('/');
const fixtureTool = process.env.KEEL_GGUF_FIXTURE || path.join(root, 'build', 'default', 'keel_gguf_fixture');
const vocab = process.env.KEEL_LLAMA_VOCAB || path.join(root, 'build', 'llama', 'models', 'ggml-vocab-llama-bpe.gguf');
const wllamaDir = path.join(root, 'build', 'npm', 'node_modules', '@wllama', 'wllama');
for (const need of [path.join(pkg, 'wllama_model.mjs'), fixtureTool, vocab, path.join(wllamaDir, 'esm', 'index.js')]) {
  if (!fs.existsSync(need)) {
    console.error(`wllama test: missing ${need}`);
    process.exit(1);
  }
}
const wllamaUrl = '/' + path.relative(root, wllamaDir).split(path.sep).join('/') + '/esm';

// The random-weight model, with a ChatML template (the one the native end-to-end test uses): its
// family's calls are <tool_call>{...}</tool_call>, which the core's parser reads.
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'keel-wllama-'));
const templateFile = path.join(work, 'template.jinja');
fs.writeFileSync(templateFile, "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{% endfor %}");
const modelFile = path.join(work, 'tiny.gguf');
execFileSync(fixtureTool, [vocab, modelFile, '--seed', '42', '--template', templateFile], {stdio: 'inherit'});

const PAGE = `<!doctype html><meta charset="utf-8"><title>wllama</title><script type="module">
import {Wllama} from '${wllamaUrl}/index.js';
import {createAgent} from '${pkgUrl}/keel.mjs';
import {wllamaModel} from '${pkgUrl}/wllama_model.mjs';
window.runAll = async () => {
  const log = [];
  const wllama = new Wllama({default: '${wllamaUrl}/wasm/wllama.wasm'}, {suppressNativeLog: true});
  const gguf = await (await fetch('/fixture/tiny.gguf')).blob();
  await wllama.loadModel([gguf], {n_ctx: 4096, n_threads: 1, n_gpu_layers: 0, seed: 42});
  const info = {template: wllama.getChatTemplate(), multithread: wllama.isMultithread()};
  const ran = [];
  const tools = [{
    name: 'read_note',
    description: 'Reads the note about a topic.',
    parameters: {type: 'object', properties: {topic: {type: 'string', enum: ['alpha', 'beta']}}, required: ['topic'],
      additionalProperties: false},
    readOnly: true,
    run: (args) => {
      ran.push(args);
      return 'The ' + args.topic + ' note says: ship on Friday.';
    },
  }];
  const model = wllamaModel({wllama, tools, toolChoice: 'required', maxCallsPerReply: 1, maxStringChars: 24, nPredict: 200,
    temperature: 0, seed: 42});
  const agent = await createAgent({model, tools, config: {tool_protocol: 'text', max_rounds: 1}});
  const deltas = [];
  const r = await agent.run('Read the alpha note and tell me what it says.', {onEvent: (e) => {
    if (e.type === 'model_delta') deltas.push(e.text);
  }});
  // The lazy grammar (toolChoice 'auto') is accepted by wllama's llama.cpp: a free reply that may
  // or may not open a call.
  let lazy;
  try {
    const free = wllamaModel({wllama, tools, nPredict: 8, temperature: 0});
    const reply = await free.complete({messages: [{role: 'user', content: 'hi'}], tools: [], tools_enabled: true,
      round: 1, final_round: false, sampling: {}});
    lazy = {ok: true, text: reply.text, finish_reason: reply.finish_reason};
  } catch (e) {
    lazy = {ok: false, error: String(e.message || e)};
  }
  // An aborted signal stops a call before it starts.
  let aborted;
  try {
    const c = new AbortController();
    c.abort(new Error('stopped by the test'));
    await model.complete({messages: [{role: 'user', content: 'hi'}], tools: [], tools_enabled: false, round: 1,
      final_round: true, sampling: {}}, {signal: c.signal});
    aborted = 'completed';
  } catch (e) {
    aborted = String(e.message || e);
  }
  await wllama.exit();
  return {info, ran, deltas: deltas.length, describe: model.describe(), lazy, aborted,
    events: r.events.map((e) => ({type: e.type, ...(e.type === 'model_reply' ? {text: e.text, finish_reason: e.finish_reason, usage: e.usage} : {}),
      ...(e.type === 'tool_call' ? {name: e.name, arguments: e.arguments} : {}),
      ...(e.type === 'tool_result' ? {name: e.name, status: e.status, content: e.content} : {}),
      ...(e.type === 'guard_fired' ? {guard: e.kind || e.guard, detail: e.detail || e.message} : {}),
      ...(e.type === 'run_finished' ? {answer: e.answer} : {}),
      ...(e.type === 'run_failed' ? {kind: e.kind, error: e.error} : {})})),
    answer: r.answer, error: r.error};
};
window.ready = true;
</script>`;

const TYPES = {'.mjs': 'text/javascript', '.js': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm',
  '.html': 'text/html', '.gguf': 'application/octet-stream'};
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (url.pathname === '/') {
    res.writeHead(200, {'content-type': 'text/html'}).end(PAGE);
    return;
  }
  if (url.pathname === '/favicon.ico') {
    res.writeHead(204).end();
    return;
  }
  const file = url.pathname === '/fixture/tiny.gguf' ? modelFile : path.resolve(root, '.' + decodeURIComponent(url.pathname));
  if (file !== modelFile && !file.startsWith(root + path.sep)) {
    res.writeHead(404).end();
    return;
  }
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, {'content-type': TYPES[path.extname(file)] || 'application/octet-stream', 'content-length': fs.statSync(file).size});
  fs.createReadStream(file).pipe(res);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
let browser = null;
const cleanup = async () => {
  await browser?.close();
  server.close();
  fs.rmSync(work, {recursive: true, force: true});
};
const guard = watchdog(170000, cleanup);
const t = new Checks('wllama');
try {
  browser = await launchBrowser();
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') console.error(`page console: ${m.text()}`);
  });
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => window.ready === true, null, {timeout: 30000});
  const result = await page.evaluate(() => window.runAll());
  console.log(`model: ${result.describe}; template from the GGUF: ${JSON.stringify(result.info.template?.slice(0, 40))}...; multithread: ${result.info.multithread}`);
  const cut = (text) => (text.length > 160 ? `${text.slice(0, 160)}...` : text);
  for (const e of result.events) {
    if (e.type === 'model_delta') continue;
    const shown = {...e};
    if (typeof e.text === 'string') shown.text = cut(e.text);
    if (typeof e.answer === 'string') shown.answer = cut(e.answer);
    console.log(`  ${JSON.stringify(shown)}`);
  }
  console.log(`streamed ${result.deltas} model_delta events; tool ran with ${JSON.stringify(result.ran)}`);
  console.log(`lazy grammar (toolChoice auto): ${JSON.stringify(result.lazy)}`);
  console.log(`aborted call: ${result.aborted}`);

  t.ok(result.info.template?.includes('<|im_start|>'), 'wllama reads the chat template from the GGUF');
  t.ok(result.describe.includes('chatml format'), `the backend picked the ChatML family (${result.describe})`);
  const types = result.events.map((e) => e.type);
  const calls = result.events.filter((e) => e.type === 'tool_call');
  t.ok(calls.length >= 1, 'the first reply is a tool call (the grammar forces one)');
  const first = result.events.find((e) => e.type === 'model_reply');
  t.ok(first && /^<tool_call>\s*\{[\s\S]*\}\s*<\/tool_call>$/.test(first.text.trim()),
    `the first reply is a call in the ChatML syntax: ${JSON.stringify(first?.text)}`);
  for (const c of calls) {
    const args = typeof c.arguments === 'string' ? JSON.parse(c.arguments) : c.arguments;
    t.equal(c.name, 'read_note', 'the call names the tool');
    t.ok(args && typeof args === 'object' && ['alpha', 'beta'].includes(args.topic) && Object.keys(args).length === 1,
      `the arguments match the schema: ${JSON.stringify(args)}`);
  }
  t.ok(result.ran.length >= 1 && result.ran.every((a) => ['alpha', 'beta'].includes(a.topic)), 'the tool ran with schema-valid arguments');
  const toolResult = result.events.find((e) => e.type === 'tool_result');
  t.ok(toolResult && toolResult.status === 'ok' && toolResult.content.includes('ship on Friday'), 'a tool_result event carries the tool\'s output');
  t.ok(types.indexOf('tool_result') > types.indexOf('tool_call'), 'the result follows the call');
  const end = types[types.length - 1];
  t.ok(end === 'run_finished' || end === 'run_failed', `the run ended explicitly (${end})`);
  t.ok(types.filter((x) => x === 'model_reply').length >= 2, 'the model was called again after the tool round');
  t.ok(result.deltas > 0, 'tokens were streamed as model_delta events');
  t.ok(result.lazy.ok, `wllama accepts the lazy grammar (${JSON.stringify(result.lazy)})`);
  t.ok(result.aborted.includes('stopped by the test'), `an aborted signal stops the call (${result.aborted})`);
  t.equal(errors, [], 'no uncaught page errors');
} catch (e) {
  t.ok(false, `the page run failed: ${e.stack || e}`);
} finally {
  clearTimeout(guard);
  await cleanup();
}
process.exit(t.finish());
