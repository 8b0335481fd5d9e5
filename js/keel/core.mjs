// The WebAssembly core: loads keel_core.wasm once and drives HostedMachine instances through its
// JSON entry points (src/wasm/keel_wasm.cpp). Every decision is the core's; this file only moves JSON.
import createKeelCore from './keel_core.mjs';

let corePromise = null;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const isServerRuntime = () =>
  (typeof process === 'object' && process?.versions?.node) || typeof globalThis.Deno === 'object';

// Resolves to the instantiated core. In a page or worker the .wasm is fetched next to this module;
// under Node and Deno it is read from disk (the emscripten loader of the toolchain only knows CommonJS
// there). `wasmBinary` (bytes) or `wasmUrl` override where it comes from.
export function loadCore({wasmBinary, wasmUrl} = {}) {
  if (!corePromise || wasmBinary || wasmUrl) {
    const promise = (async () => {
      const url = wasmUrl ? new URL(wasmUrl, import.meta.url) : new URL('./keel_core.wasm', import.meta.url);
      let bytes = wasmBinary;
      if (!bytes && isServerRuntime() && url.protocol === 'file:') {
        const fs = await import('node:fs/promises');
        bytes = await fs.readFile(url);
      }
      const module = await createKeelCore(bytes ? {wasmBinary: bytes} : {locateFile: () => url.href});
      return new KeelCore(module);
    })();
    if (wasmBinary || wasmUrl) return promise;
    corePromise = promise;
    corePromise.catch(() => { corePromise = null; });  // a failed load may be tried again
  }
  return corePromise;
}

export class KeelCore {
  constructor(module) {
    this.module = module;
  }

  // One request to keel_call; answers the parsed JSON object.
  call(request) {
    return this.withText(JSON.stringify(request), (ptr) => this.module._keel_call(ptr));
  }

  // A machine's first decision, and its next one for `event`: the calls of every step, through
  // keel_start and keel_step (no envelope to read).
  start(handle) {
    return this.answer(this.module._keel_start(handle));
  }

  step(handle, event) {
    return this.withText(JSON.stringify(event), (ptr) => this.module._keel_step(handle, ptr));
  }

  // Runs send(ptr) with `text` in the module's memory, as NUL-terminated UTF-8 encoded by the
  // platform (TextEncoder); answers what send() returns, read by answer().
  withText(text, send) {
    const m = this.module;
    const bytes = encoder.encode(text);
    const ptr = m._malloc(bytes.length + 1);
    try {
      m.HEAPU8.set(bytes, ptr);  // HEAPU8 is read after malloc: memory growth replaces the view
      m.HEAPU8[ptr + bytes.length] = 0;
      return this.answer(send(ptr));
    } finally {
      m._free(ptr);
    }
  }

  // The JSON answer at `out` in the module's memory, decoded by the platform (TextDecoder).
  answer(out) {
    const heap = this.module.HEAPU8;
    const end = heap.indexOf(0, out);
    return JSON.parse(decoder.decode(heap.subarray(out, end)));
  }

  version() {
    return this.call({op: 'version'}).version;
  }

  // A new machine for `spec` (HostedMachine::create's form); throws a KeelError naming what is wrong.
  createMachine(spec) {
    const answer = this.call({op: 'create', spec});
    if (answer.error) throw new KeelError('invalid_argument', answer.error);
    return new Machine(this, answer.machine);
  }
}

// One agent state machine inside the core.
export class Machine {
  constructor(core, handle) {
    this.core = core;
    this.handle = handle;
  }

  start() { return this.core.start(this.handle); }
  step(event) { return this.core.step(this.handle, event); }
  state() { return this.core.call({op: 'state', machine: this.handle}); }
  guide(text) { this.core.call({op: 'guidance', machine: this.handle, text}); }
  compact() { this.core.call({op: 'compact', machine: this.handle}); }

  free() {
    if (this.handle) this.core.call({op: 'free', machine: this.handle});
    this.handle = 0;
  }
}

// An error with a stable kind: invalid_argument, backend, tool, aborted, internal.
export class KeelError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = 'KeelError';
    this.kind = kind;
  }
}
