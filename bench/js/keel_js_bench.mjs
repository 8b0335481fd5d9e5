// The JavaScript package's figures: WebAssembly size (raw and gzip), start-up under Node and in a
// page, and the cost per step of keel's agent loop beside a hand-written fetch loop against the
// same model server (another process), under Node and in Chromium, interleaved, medians.
//   build/npm/node_modules/.bin/node bench/js/keel_js_bench.mjs PACKAGE_DIR [RUNS] [STEPS]
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {compare, handLoop, keelAgentOptions, keelLoop, median} from './loops.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const pkg = path.resolve(process.argv[2] || path.join(root, 'build', 'wasm', 'keel-js'));
const runs = Number(process.argv[3] || 41);  // this many: on a loaded 2-core machine single runs swing by 10% and more
const steps = Number(process.argv[4] || 20);
const chromium = process.env.KEEL_CHROMIUM || '/usr/bin/chromium';

const wasm = fs.readFileSync(path.join(pkg, 'keel_core.wasm'));
const glue = fs.readFileSync(path.join(pkg, 'keel_core.mjs'));
const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
console.log(`keel_core.wasm: ${kib(wasm.length)} raw, ${kib(zlib.gzipSync(wasm, {level: 9}).length)} gzip; loader keel_core.mjs ${kib(glue.length)} raw, ${kib(zlib.gzipSync(glue, {level: 9}).length)} gzip`);

const mock = spawn(process.execPath, [path.join(here, 'mock_rounds.mjs')], {env: {...process.env, STEPS: String(steps)}, stdio: ['ignore', 'pipe', 'inherit']});
const port = await new Promise((resolve, reject) => {
  mock.stdout.on('data', (d) => {
    const m = /PORT (\d+)/.exec(String(d));
    if (m) resolve(Number(m[1]));
  });
  mock.on('exit', () => reject(new Error('the mock model server exited')));
});
const baseUrl = `http://127.0.0.1:${port}/v1`;
const task = 'add numbers until told to stop';

// The goal compares keel with the hand loop on the same conversation (the hand loop's system
// prompt); keel's default prompt, ~650 bytes more in every request, is shown beside it.
function report(what, r) {
  const ratio = (x) => `${(x / r.hand).toFixed(2)}x`;
  console.log(`${what}: hand fetch loop ${r.hand.toFixed(3)}, keel ${r.keel.toFixed(3)} (${ratio(r.keel)}, goal <= 1.2x ${r.keel / r.hand <= 1.2 ? 'met' : 'MISSED'}); ` +
    `keel with its default system prompt ${r.keelDefault.toFixed(3)} (${ratio(r.keelDefault)})`);
}

try {
  // Start-up under Node: import, instantiate, first agent (fresh module instance each time).
  const t0 = performance.now();
  const keel = await import(pathToFileURL(path.join(pkg, 'keel.mjs')).href);
  await keel.createAgent(keelAgentOptions(baseUrl, steps));
  const firstMs = performance.now() - t0;
  const again = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    await keel.createAgent({...keelAgentOptions(baseUrl, steps), core: {wasmBinary: wasm}});
    again.push(performance.now() - t);
  }
  console.log(`node start-up: first agent ${firstMs.toFixed(1)} ms (import + compile + instantiate); a fresh core instance ${median(again).toFixed(1)} ms (median of 10)`);

  const agent = await keel.createAgent(keelAgentOptions(baseUrl, steps));
  const keelDefault = await keel.createAgent(keelAgentOptions(baseUrl, steps, {defaultPrompt: true}));
  await handLoop(baseUrl, task);
  await keelLoop(agent, task);  // warm-up
  await keelLoop(keelDefault, task);
  const node = await compare({runs, now: () => performance.now(), loops: {
    hand: () => handLoop(baseUrl, task), keel: () => keelLoop(agent, task), keelDefault: () => keelLoop(keelDefault, task)}});
  report(`node, ms per step (${runs} runs of ${steps + 1} calls)`, node);

  if (fs.existsSync(chromium)) {
    const {launchBrowser} = await import('../../test/web/support.mjs');
    const TYPES = {'.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html'};
    const pkgUrl = '/' + path.relative(root, pkg).split(path.sep).join('/');
    const page = `<!doctype html><meta charset="utf-8"><script type="module">
      const t0 = performance.now();
      const keel = await import('${pkgUrl}/keel.mjs');
      const loops = await import('/bench/js/loops.mjs');
      const agent = await keel.createAgent(loops.keelAgentOptions('${baseUrl}', ${steps}));
      window.startupMs = performance.now() - t0;
      const keelDefault = await keel.createAgent(loops.keelAgentOptions('${baseUrl}', ${steps}, {defaultPrompt: true}));
      window.bench = async (runs) => {
        const task = '${task}';
        await loops.handLoop('${baseUrl}', task);
        await loops.keelLoop(agent, task);
        await loops.keelLoop(keelDefault, task);
        return loops.compare({runs, now: () => performance.now(), loops: {
          hand: () => loops.handLoop('${baseUrl}', task), keel: () => loops.keelLoop(agent, task),
          keelDefault: () => loops.keelLoop(keelDefault, task)}});
      };
    </script>`;
    const server = http.createServer((req, res) => {
      const url = new URL(req.url, 'http://127.0.0.1');
      if (url.pathname === '/') return void res.writeHead(200, {'content-type': 'text/html'}).end(page);
      const file = path.resolve(root, '.' + decodeURIComponent(url.pathname));
      if (!file.startsWith(root + path.sep) || !fs.existsSync(file)) return void res.writeHead(404).end();
      res.writeHead(200, {'content-type': TYPES[path.extname(file)] || 'application/octet-stream'});
      fs.createReadStream(file).pipe(res);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    const browser = await launchBrowser();
    try {
      const tab = await browser.newPage();
      await tab.goto(`http://127.0.0.1:${server.address().port}/`);
      await tab.waitForFunction(() => window.bench, null, {timeout: 30000});
      const startup = await tab.evaluate(() => window.startupMs);
      const b = await tab.evaluate((n) => window.bench(n), runs);
      console.log(`chromium start-up: ${startup.toFixed(1)} ms from the page's script to a ready agent (fetch + compile + instantiate)`);
      report('chromium, ms per step', b);
    } finally {
      await browser.close();
      server.close();
    }
  } else {
    console.log(`chromium: not measured (${chromium} is missing)`);
  }
} finally {
  mock.kill();
}
