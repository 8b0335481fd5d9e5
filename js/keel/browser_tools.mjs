// Tools for an agent that lives in a web page: the browser's fetch (under its CORS rules), the
// page's text, notes in IndexedDB, files in the origin-private file system, and a question to the
// person in front of the page.
//
//   const store = await openIndexedDbStore();
//   const tools = builtinBrowserTools({store, ask: (question) => myDialog(question)});
//   const agent = await createAgent({model, tools, store, approve});
//
// options: {store (an openIndexedDbStore() store, for memory_save / memory_search; opened on first
// use when absent), dbName ('keel'), ask (async (question) => answer, for ask_user), document (what
// read_page reads; the global document by default), fetch (the global fetch by default),
// maxFetchBytes (100 KB), maxPageChars (20,000), maxFileBytes (100 KB), only (tool names to keep)}.
//
// Risks: file_write is 'high' and fetch_url 'medium' (a request of any method can carry data out
// of the page, and a non-GET one can change things elsewhere), so with the core's default
// approval_threshold ('high') file_write is asked about, and with approval_threshold 'medium'
// every fetch_url is too. The readers are readOnly.
import {openIndexedDbStore} from './indexeddb_store.mjs';

const KB = 1024;

function cut(text, limit, what) {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n\n[${what} cut at ${limit} of ${text.length} characters]`;
}

function requireString(args, key, {optional = false} = {}) {
  const value = args[key];
  if (value === undefined && optional) return undefined;
  if (typeof value !== 'string' || (!optional && !value.trim())) {
    throw new Error(`'${key}' must be ${optional ? 'a string' : 'a non-empty string'}`);
  }
  return value;
}

const TEXT_TYPE = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded|[a-z0-9.+-]*\+(json|xml))|image\/svg\+xml)/i;

// Reads at most `limit` bytes of a response body; {bytes, total?, more}.
async function readCapped(response, limit) {
  if (!response.body) {
    const all = new Uint8Array(await response.arrayBuffer());
    return {bytes: all.subarray(0, limit), more: all.length > limit};
  }
  const reader = response.body.getReader();
  const parts = [];
  let size = 0;
  let more = false;
  for (;;) {
    const {value, done} = await reader.read();
    if (done) break;
    if (size + value.length > limit) {
      parts.push(value.subarray(0, limit - size));
      size = limit;
      more = true;
      await reader.cancel().catch(() => {});
      break;
    }
    parts.push(value);
    size += value.length;
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return {bytes, more};
}

function fetchUrlTool(options) {
  const limit = options.maxFetchBytes ?? 100 * KB;
  return {
    name: 'fetch_url',
    description: `Fetches a URL with the browser's fetch and returns the status line and the text body (at most ${Math.round(limit / KB)} KB). ` +
      'The browser\'s CORS rules apply: a server on another origin must allow this page, or the request is refused. ' +
      'method defaults to GET; body is sent as is for POST, PUT, PATCH and DELETE.',
    parameters: {
      type: 'object',
      properties: {
        url: {type: 'string', description: 'an http(s) URL, or a path relative to the page'},
        method: {type: 'string', enum: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'], description: 'the HTTP method (GET by default)'},
        body: {type: 'string', description: 'the request body (not with GET or HEAD)'},
      },
      required: ['url'],
      additionalProperties: false,
    },
    readOnly: false,
    risk: 'medium',
    timeoutMs: 30000,
    async run(args, {signal} = {}) {
      const raw = requireString(args, 'url');
      const method = (requireString(args, 'method', {optional: true}) || 'GET').toUpperCase();
      if (!['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) throw new Error(`unsupported method '${method}'`);
      const body = requireString(args, 'body', {optional: true});
      if (body !== undefined && (method === 'GET' || method === 'HEAD')) throw new Error(`a ${method} request cannot have a body`);
      let url;
      try {
        url = new URL(raw, globalThis.document?.baseURI || globalThis.location?.href);
      } catch {
        throw new Error(`'${raw}' is not a URL`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`only http and https URLs can be fetched, not ${url.protocol}`);
      const fetchImpl = options.fetch || globalThis.fetch.bind(globalThis);
      let response;
      try {
        response = await fetchImpl(url.href, {
          method, body, signal, mode: 'cors', credentials: 'omit', redirect: 'follow', referrerPolicy: 'no-referrer',
          ...(body !== undefined ? {headers: {'content-type': 'text/plain;charset=utf-8'}} : {}),
        });
      } catch (e) {
        if (signal?.aborted) throw e;
        throw new Error(`the request to ${url.href} was refused or the server is unreachable (possibly by the browser's CORS rules: ` +
          `a server on another origin must answer with Access-Control-Allow-Origin): ${e?.message || e}`);
      }
      const type = response.headers.get('content-type') || '';
      const head = `HTTP ${response.status} ${response.statusText}`.trim() + (type ? ` (${type})` : '');
      let text = '';
      if (method !== 'HEAD') {
        const {bytes, more} = await readCapped(response, limit);
        if (type && !TEXT_TYPE.test(type)) {
          text = `[binary content (${type}), ${more ? `more than ${bytes.length}` : bytes.length} bytes, not shown]`;
        } else {
          text = new TextDecoder('utf-8', {fatal: false}).decode(bytes);
          if (more) text += `\n\n[body cut at ${limit} bytes]`;
        }
      }
      if (!response.ok) throw new Error(`${head} from ${url.href}${text ? `:\n${text.slice(0, 2000)}` : ''}`);
      return `${head}\n\n${text}`;
    },
  };
}

function readPageTool(options) {
  const limit = options.maxPageChars ?? 20000;
  return {
    name: 'read_page',
    description: `Returns the readable text of the current page, or of the first element matching a CSS selector (at most ${limit} characters).`,
    parameters: {
      type: 'object',
      properties: {selector: {type: 'string', description: 'a CSS selector; the whole page when absent'}},
      additionalProperties: false,
    },
    readOnly: true,
    risk: 'low',
    timeoutMs: 5000,
    async run(args) {
      const doc = options.document || globalThis.document;
      if (!doc) throw new Error('read_page needs a page: there is no document here (a worker?)');
      const selector = requireString(args, 'selector', {optional: true});
      let node = doc.body || doc.documentElement;
      if (selector && selector.trim()) {
        try {
          node = doc.querySelector(selector);
        } catch (e) {
          throw new Error(`'${selector}' is not a valid CSS selector`);
        }
        if (!node) throw new Error(`nothing on the page matches '${selector}'`);
      }
      const text = (typeof node.innerText === 'string' ? node.innerText : node.textContent || '').replace(/\n{3,}/g, '\n\n').trim();
      const title = !selector && doc.title ? `Title: ${doc.title}\n\n` : '';
      return cut(title + text, limit, 'page text');
    },
  };
}

function memoryTools(options) {
  let storePromise = null;
  const store = () => {
    if (options.store) return Promise.resolve(options.store);
    storePromise ??= openIndexedDbStore(options.dbName || 'keel').catch((e) => {
      storePromise = null;
      throw new Error(`the notes cannot be opened: ${e?.name || 'Error'}: ${e?.message || e}`);
    });
    return storePromise;
  };
  return [{
    name: 'memory_save',
    description: 'Saves a note in the browser\'s storage (IndexedDB) for later runs, with optional tags.',
    parameters: {
      type: 'object',
      properties: {
        text: {type: 'string', description: 'what to remember'},
        tags: {type: 'array', items: {type: 'string'}, description: 'words to find it by'},
      },
      required: ['text'],
      additionalProperties: false,
    },
    readOnly: false,
    risk: 'low',
    timeoutMs: 10000,
    async run(args) {
      const text = requireString(args, 'text');
      if (args.tags !== undefined && (!Array.isArray(args.tags) || args.tags.some((t) => typeof t !== 'string'))) {
        throw new Error("'tags' must be an array of strings");
      }
      const id = await (await store()).saveNote(text, args.tags || []);
      return `saved note ${id}`;
    },
  }, {
    name: 'memory_search',
    description: 'Searches the notes saved with memory_save by words of their text and tags; the best matches first.',
    parameters: {
      type: 'object',
      properties: {query: {type: 'string', description: 'words to look for; empty lists the newest notes'}},
      required: ['query'],
      additionalProperties: false,
    },
    readOnly: true,
    risk: 'low',
    timeoutMs: 10000,
    async run(args) {
      const query = requireString(args, 'query', {optional: true}) ?? '';
      const notes = await (await store()).searchNotes(query);
      if (!notes.length) return query.trim() ? `no note matches '${query}'` : 'no notes yet';
      return notes.map((n) => `- [${n.id}] ${n.text}${n.tags.length ? ` (tags: ${n.tags.join(', ')})` : ''}`).join('\n');
    },
  }];
}

// A relative OPFS path as its parts; refuses absolute paths and '..'.
export function opfsPathParts(path, {allowEmpty = false} = {}) {
  if (typeof path !== 'string') throw new Error('a path must be a string');
  if (path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:/.test(path) || /^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    throw new Error(`'${path}' is absolute: paths are relative to the page's private folder`);
  }
  if (path.includes('\\')) throw new Error(`'${path}' contains a backslash: use '/' between folders`);
  if (path.includes('\0')) throw new Error('a path cannot contain NUL');
  const parts = path.split('/').filter((p) => p && p !== '.');
  if (parts.includes('..')) throw new Error(`'${path}' leaves the page's private folder ('..' is refused)`);
  if (!parts.length && !allowEmpty) throw new Error('the path names no file');
  return parts;
}

async function opfsRoot() {
  const storage = globalThis.navigator?.storage;
  if (!storage || typeof storage.getDirectory !== 'function') {
    throw new Error('this browser has no origin-private file system (navigator.storage.getDirectory); the page must be served over https or from localhost');
  }
  try {
    return await storage.getDirectory();
  } catch (e) {
    throw new Error(`the origin-private file system cannot be opened: ${e?.name || 'Error'}: ${e?.message || e}`);
  }
}

function notFound(e, path) {
  if (e?.name === 'NotFoundError') return new Error(`'${path}' does not exist`);
  if (e?.name === 'TypeMismatchError') return new Error(`'${path}' is a folder where a file was expected, or a file where a folder was expected`);
  return new Error(`${e?.name || 'Error'}: ${e?.message || e}`);
}

async function folderOf(parts, create, path) {
  let dir = await opfsRoot();
  try {
    for (const part of parts) dir = await dir.getDirectoryHandle(part, {create});
  } catch (e) {
    throw notFound(e, path);
  }
  return dir;
}

function fileTools(options) {
  const limit = options.maxFileBytes ?? 100 * KB;
  return [{
    name: 'file_write',
    description: 'Writes a text file in the page\'s private folder (the origin-private file system), creating folders as needed and replacing the file.',
    parameters: {
      type: 'object',
      properties: {
        path: {type: 'string', description: 'a relative path such as notes/todo.md'},
        content: {type: 'string', description: 'the whole new text of the file'},
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    readOnly: false,
    risk: 'high',
    timeoutMs: 15000,
    async run(args) {
      const path = requireString(args, 'path');
      if (typeof args.content !== 'string') throw new Error("'content' must be a string");
      const parts = opfsPathParts(path);
      const dir = await folderOf(parts.slice(0, -1), true, path);
      let handle;
      try {
        handle = await dir.getFileHandle(parts[parts.length - 1], {create: true});
      } catch (e) {
        throw notFound(e, path);
      }
      if (typeof handle.createWritable !== 'function') {
        throw new Error('this browser cannot write private files from a page (no createWritable); run the agent in a worker or another browser');
      }
      const writable = await handle.createWritable();
      try {
        await writable.write(args.content);
        await writable.close();
      } catch (e) {
        await writable.abort?.().catch(() => {});
        throw new Error(`${path} could not be written: ${e?.name || 'Error'}: ${e?.message || e}`);
      }
      return `wrote ${new TextEncoder().encode(args.content).length} bytes to ${parts.join('/')}`;
    },
  }, {
    name: 'file_read',
    description: `Reads a text file from the page's private folder (at most ${Math.round(limit / KB)} KB).`,
    parameters: {
      type: 'object',
      properties: {path: {type: 'string', description: 'a relative path such as notes/todo.md'}},
      required: ['path'],
      additionalProperties: false,
    },
    readOnly: true,
    risk: 'low',
    timeoutMs: 15000,
    async run(args) {
      const path = requireString(args, 'path');
      const parts = opfsPathParts(path);
      const dir = await folderOf(parts.slice(0, -1), false, path);
      let file;
      try {
        file = await (await dir.getFileHandle(parts[parts.length - 1])).getFile();
      } catch (e) {
        throw notFound(e, path);
      }
      const bytes = new Uint8Array(await file.slice(0, limit).arrayBuffer());
      const text = new TextDecoder('utf-8', {fatal: false}).decode(bytes);
      return file.size > limit ? `${text}\n\n[file cut at ${limit} of ${file.size} bytes]` : text;
    },
  }, {
    name: 'file_list',
    description: 'Lists a folder of the page\'s private folder: files with their sizes, folders ending in /.',
    parameters: {
      type: 'object',
      properties: {dir: {type: 'string', description: 'a relative folder; the top folder when absent'}},
      additionalProperties: false,
    },
    readOnly: true,
    risk: 'low',
    timeoutMs: 15000,
    async run(args) {
      const path = requireString(args, 'dir', {optional: true}) ?? '';
      const parts = opfsPathParts(path, {allowEmpty: true});
      const dir = await folderOf(parts, false, path || '.');
      const rows = [];
      for await (const [name, handle] of dir.entries()) {
        if (handle.kind === 'directory') rows.push(`${name}/`);
        else rows.push(`${name} (${(await handle.getFile()).size} bytes)`);
      }
      rows.sort();
      return rows.length ? rows.join('\n') : `${parts.length ? parts.join('/') : 'the private folder'} is empty`;
    },
  }];
}

function askUserTool(options) {
  return {
    name: 'ask_user',
    description: 'Asks the person using the page a question and returns the answer. Use it when you need a fact or a choice only they have.',
    parameters: {
      type: 'object',
      properties: {question: {type: 'string', description: 'the question, complete in itself'}},
      required: ['question'],
      additionalProperties: false,
    },
    readOnly: false,
    risk: 'low',
    timeoutMs: 30 * 60 * 1000,
    async run(args, {signal} = {}) {
      const question = requireString(args, 'question');
      if (typeof options.ask !== 'function') throw new Error('nobody can be asked here: the page gave no ask(question) function');
      const answer = await options.ask(question, {signal});
      if (answer === undefined || answer === null) throw new Error('the question was not answered');
      return String(answer);
    },
  };
}

// The tools, in a fixed order; options.only keeps the named ones.
export function builtinBrowserTools(options = {}) {
  const all = [fetchUrlTool(options), readPageTool(options), ...memoryTools(options), ...fileTools(options), askUserTool(options)];
  if (!options.only) return all;
  const keep = new Set(options.only);
  return all.filter((t) => keep.has(t.name));
}
