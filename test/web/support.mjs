// Shared pieces of the web UI's browser tests: playwright-core from build/npm, Debian's chromium,
// a static server for web/ on 127.0.0.1, screenshots, checks that collect failures, and timeouts.
//
//   const t = new Checks('sanitizer');
//   t.equal(actual, expected, 'what is checked');
//   process.exit(t.finish());
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {createRequire} from 'node:module';
import {fileURLToPath} from 'node:url';

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '..', '..');
export const WEB_DIR = path.join(ROOT, 'web');
export const CHROMIUM = process.env.KEEL_CHROMIUM || '/usr/bin/chromium';
export const ARTIFACTS = path.resolve(process.env.KEEL_WEB_ARTIFACTS || path.join(ROOT, 'build', 'web-artifacts'));

export function loadPlaywright() {
  const modules = process.env.KEEL_NPM_MODULES || path.join(ROOT, 'build', 'npm', 'node_modules');
  const require = createRequire(path.join(modules, 'noop.js'));
  return require('playwright-core');
}

export async function launchBrowser() {
  const {chromium} = loadPlaywright();
  return chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true, timeout: 30000});
}

// Collects failures instead of stopping at the first, and prints a summary.
export class Checks {
  constructor(name) {
    this.name = name;
    this.failures = [];
    this.count = 0;
  }

  ok(condition, what) {
    this.count += 1;
    if (!condition) {
      this.failures.push(what);
      console.error(`FAIL ${what}`);
    }
    return Boolean(condition);
  }

  equal(actual, expected, what) {
    const same = JSON.stringify(actual) === JSON.stringify(expected);
    return this.ok(same, same ? what : `${what}\n    expected: ${JSON.stringify(expected)}\n    actual:   ${JSON.stringify(actual)}`);
  }

  finish() {
    if (this.failures.length) {
      console.error(`${this.name}: ${this.failures.length} of ${this.count} checks failed`);
      return 1;
    }
    console.log(`${this.name}: all ${this.count} checks passed`);
    return 0;
  }
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

// Serves web/ as keel serve does (GET / -> index.html, GET /ui/FILE -> web/FILE) plus `pages`
// (path -> HTML text) on 127.0.0.1; `handler(req, res)` may answer anything else and returns
// true when it did.
export async function startStaticServer({pages = {}, handler = null, headers = {}} = {}) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (handler && handler(req, res, url)) return;
    if (req.method !== 'GET') {
      res.writeHead(405).end();
      return;
    }
    if (pages[url.pathname] !== undefined) {
      res.writeHead(200, {'Content-Type': TYPES['.html'], ...headers});
      res.end(pages[url.pathname]);
      return;
    }
    let file = null;
    if (url.pathname === '/') file = path.join(WEB_DIR, 'index.html');
    if (url.pathname.startsWith('/ui/')) {
      const rel = decodeURIComponent(url.pathname.slice(4));
      const resolved = path.resolve(WEB_DIR, rel);
      if (resolved.startsWith(WEB_DIR + path.sep)) file = resolved;
    }
    if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, {'Content-Type': 'text/plain'}).end('not found');
      return;
    }
    res.writeHead(200, {'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream', ...headers});
    res.end(fs.readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

// Rejects after `ms` with a message naming what did not finish.
export function withTimeout(promise, ms, what) {
  let timer;
  const guard = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

export async function screenshot(page, name) {
  fs.mkdirSync(ARTIFACTS, {recursive: true});
  const file = path.join(ARTIFACTS, `${name}.png`);
  try {
    await page.screenshot({path: file, fullPage: true, timeout: 10000});
  } catch (error) {
    console.error(`screenshot ${name} failed: ${error.message}`);
  }
  return file;
}

// Ends the process after `ms` whatever happens (a last resort against a hang), running `cleanup`.
export function watchdog(ms, cleanup) {
  const timer = setTimeout(async () => {
    console.error(`FAIL the test ran longer than ${ms / 1000} s`);
    try {
      await withTimeout(Promise.resolve(cleanup()), 5000, 'cleanup');
    } finally {
      process.exit(1);
    }
  }, ms);
  timer.unref();
  return timer;
}
