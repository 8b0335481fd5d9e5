// Server-Sent Events over fetch(): unlike EventSource, fetch can send the Authorization header, so
// the token never goes into a URL. SseParser implements the event-stream format (WHATWG HTML
// "Server-sent events": lines end in CRLF, LF or CR; `data` lines join with "\n"; `id`, `event`,
// `retry`; lines starting with ":" are comments). openEventStream() reads a stream, reconnects
// after a drop with `Last-Event-ID` set to the last id seen, and aborts a connection that has been
// silent longer than the idle timeout (the server pings every 15 s), so it never hangs.
//
//   const stream = openEventStream(url, {
//     headers: () => ({Authorization: 'Bearer T'}),
//     after: 0,                               // first connection: ?after=0 (every stored event)
//     onEvent: (e) => console.log(e.id, e.event, JSON.parse(e.data)),
//     onStatus: (status, detail) => {},       // connecting | open | reconnecting | error | closed
//   });
//   stream.close();

// Incremental parser: feed it decoded text in any chunking; it calls onEvent({id, event, data})
// for every complete event and onRetry(ms) for a `retry:` field.
export class SseParser {
  constructor(onEvent, onRetry = () => {}) {
    this.onEvent = onEvent;
    this.onRetry = onRetry;
    this.buffer = '';
    this.skipLeadingLf = false;  // the last chunk ended in CR: a following LF belongs to it
    this.lastEventId = '';
    this.resetEvent();
  }

  resetEvent() {
    this.data = [];
    this.eventType = '';
    this.hasData = false;
  }

  push(text) {
    let chunk = text;
    if (this.skipLeadingLf && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.skipLeadingLf = false;
    this.buffer += chunk;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      this.line(this.buffer.slice(start, i));
      if (c === '\r') {
        if (i + 1 < this.buffer.length) {
          if (this.buffer[i + 1] === '\n') i++;
        } else {
          this.skipLeadingLf = true;
        }
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
  }

  line(line) {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.data.push(value);
      this.hasData = true;
    } else if (field === 'event') {
      this.eventType = value;
    } else if (field === 'id') {
      if (!value.includes('\u0000')) this.lastEventId = value;
    } else if (field === 'retry') {
      if (/^[0-9]+$/.test(value)) this.onRetry(Number(value));
    }
  }

  dispatch() {
    if (this.hasData) {
      this.onEvent({id: this.lastEventId, event: this.eventType || 'message', data: this.data.join('\n')});
    }
    this.resetEvent();
  }
}

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 8000;
const DEFAULT_IDLE_MS = 45000;

// Opens `url` as an event stream and keeps it open until close(). Statuses that stop for good
// (401, 403, 404, 410) end with onStatus('error', message) and no reconnect.
export function openEventStream(url, options) {
  const headers = options.headers || (() => ({}));
  const onEvent = options.onEvent;
  const onStatus = options.onStatus || (() => {});
  const idleMs = options.idleTimeoutMs || DEFAULT_IDLE_MS;
  let lastEventId = options.lastEventId === undefined ? '' : String(options.lastEventId);
  let after = options.after;
  let delay = FIRST_DELAY_MS;
  let serverRetry = 0;
  let closed = false;
  let controller = null;
  let reconnectTimer = null;
  let wake = () => {};
  let idleTimer = null;

  const armIdle = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => controller && controller.abort(), idleMs);
  };

  async function connectOnce() {
    controller = new AbortController();
    const requestHeaders = {Accept: 'text/event-stream', ...headers()};
    if (lastEventId !== '') requestHeaders['Last-Event-ID'] = lastEventId;
    let target = url;
    if (lastEventId === '' && after !== undefined) {
      target += `${url.includes('?') ? '&' : '?'}after=${encodeURIComponent(after)}`;
    }
    onStatus('connecting');
    armIdle();
    const response = await fetch(target, {headers: requestHeaders, signal: controller.signal, cache: 'no-store'});
    if (!response.ok) {
      const fatal = [401, 403, 404, 410].includes(response.status);
      let message = `${response.status} ${response.statusText}`.trim();
      try {
        const body = await response.json();
        if (body && body.error && body.error.message) message = body.error.message;
      } catch {
        // not JSON
      }
      return {fatal, message};
    }
    onStatus('open');
    const parser = new SseParser((event) => {
      if (event.id !== '') {
        lastEventId = event.id;
        after = undefined;
      }
      delay = FIRST_DELAY_MS;
      onEvent(event);
    }, (ms) => { serverRetry = ms; });
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const {value, done} = await reader.read();
      if (done) break;
      armIdle();
      parser.push(decoder.decode(value, {stream: true}));
    }
    return {fatal: false, message: 'the stream ended'};
  }

  async function run() {
    while (!closed) {
      let outcome;
      try {
        outcome = await connectOnce();
      } catch (error) {
        outcome = {fatal: false, message: error && error.name === 'AbortError' ? 'no data within the idle timeout' : String(error && error.message)};
      }
      clearTimeout(idleTimer);
      if (closed) break;
      if (outcome.fatal) {
        onStatus('error', outcome.message);
        return;
      }
      const wait = Math.max(delay, serverRetry);
      onStatus('reconnecting', `${outcome.message}; reconnecting in ${(wait / 1000).toFixed(1)} s`);
      await new Promise((resolve) => {
        wake = resolve;
        reconnectTimer = setTimeout(resolve, wait);
      });
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    }
    onStatus('closed');
  }

  run();
  return {
    close() {
      closed = true;
      clearTimeout(reconnectTimer);
      clearTimeout(idleTimer);
      if (controller) controller.abort();
      wake();
    },
    get lastEventId() {
      return lastEventId;
    },
  };
}
