// The browser agent page as it ships (build/wasm/agent-site: web/ with the package in agent/keel-js),
// served as plain static files with no query parameters: the page finds the package where it looks
// by default, loads the WebAssembly core and is ready, with no page error or CSP violation.
//   build/npm/node_modules/.bin/node test/js/agent_site_test.mjs SITE_DIR
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {Checks, launchBrowser, watchdog} from '../web/support.mjs';

const site = path.resolve(process.argv[2] || '');
if (!process.argv[2] || !fs.existsSync(path.join(site, 'agent', 'keel-js', 'keel_core.wasm'))) {
  console.error('usage: agent_site_test.mjs SITE_DIR (build/wasm/agent-site, with agent/keel-js built)');
  process.exit(2);
}
const TYPES = {'.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.svg': 'image/svg+xml', '.wasm': 'application/wasm', '.json': 'application/json'};
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  let file = path.resolve(site, '.' + decodeURIComponent(url.pathname));
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
  if (!file.startsWith(site + path.sep) || !fs.existsSync(file)) return void res.writeHead(404).end();
  res.writeHead(200, {'content-type': TYPES[path.extname(file)] || 'application/octet-stream'});
  fs.createReadStream(file).pipe(res);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const t = new Checks('agent site');
let browser = null;
const guard = watchdog(60000, async () => {
  await browser?.close();
  server.close();
});
try {
  browser = await launchBrowser();
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(`http://127.0.0.1:${server.address().port}/agent/`);
  await page.waitForFunction(() => window.keelAgentPage?.ready === true, null, {timeout: 30000});
  t.ok(true, 'the page loads the package from ./keel-js and is ready');
  const tools = await page.$$eval('[data-testid="tool-list"] li', (items) => items.length);
  t.equal(tools, 8, 'the browser tools are listed');
  t.equal(errors, [], 'no page errors, console errors or CSP violations');
} catch (e) {
  t.ok(false, `unexpected: ${e.stack || e}`);
} finally {
  clearTimeout(guard);
  await browser?.close();
  server.close();
}
process.exit(t.finish());
