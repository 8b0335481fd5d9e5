// One HTTP attempt of a model call: POST JSON, classify failures for the retry loop, time out.
import {ModelError, deadline, isRetryableStatus, retryAfterMs, withRetries} from './retry.mjs';

// Sends `body` to `url`; resolves to {response, done} where done() stops the attempt's timer once
// the body has been read. Throws ModelError (retryable for network errors, timeouts and transient
// statuses) with the server's message when it answers with an error.
export async function postJson(fetchImpl, url, headers, body, {signal, timeoutMs, what}) {
  const limit = deadline(signal, timeoutMs);
  let response;
  try {
    response = await fetchImpl(url, {method: 'POST', headers: {'content-type': 'application/json', ...headers},
      body: JSON.stringify(body), signal: limit.signal});
  } catch (e) {
    limit.clear();
    if (signal?.aborted) throw e;
    const timedOut = limit.signal.aborted;
    throw new ModelError(timedOut ? `${what} at ${url}: no answer within ${timeoutMs} ms`
      : `${what} at ${url} cannot be reached: ${e.message || e}` +
        (typeof window === 'object' ? ' (the server may refuse this page by CORS)' : ''), {retryable: true});
  }
  if (!response.ok) {
    let detail = '';
    try {
      detail = (await response.text()).slice(0, 500);
    } catch {
      detail = '';
    }
    limit.clear();
    let message = detail;
    try {
      const parsed = JSON.parse(detail);
      message = parsed?.error?.message || parsed?.message || detail;
    } catch {
      // not JSON: keep the text
    }
    throw new ModelError(`${what} answered HTTP ${response.status}${message ? `: ${message}` : ''}`, {
      retryable: isRetryableStatus(response.status),
      retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
      status: response.status,
    });
  }
  return {response, done: () => limit.clear(), signal: limit.signal};
}

// The JSON body of `response`, read by the platform straight from its bytes (in a page that is
// measurably cheaper than text() and JSON.parse); a body that is not JSON is a retryable ModelError
// naming the parser's complaint (V8's quotes the body's start).
export async function readJsonOrThrow(response, what) {
  try {
    return await response.json();
  } catch (e) {
    if (e?.name !== 'SyntaxError') throw e;
    throw new ModelError(`${what} sent a body that is not JSON (${e.message})`, {retryable: true});
  }
}

// One model call with retries: POSTs `body`, then reads an SSE answer with readStream(response,
// signal, what, callbacks) or a whole JSON one with replyFromJson(json); a whole reply's text goes to
// onDelta at once.
export function callModel({fetchImpl, url, headers, body, what, timeoutMs, retry, stream, readStream, replyFromJson},
  {signal, onDelta, onReasoningDelta, onRetry} = {}) {
  return withRetries(retry, async () => {
    const {response, done, signal: attemptSignal} = await postJson(fetchImpl, url, headers, body,
      {signal, timeoutMs: timeoutMs ?? 120000, what});
    try {
      if (stream && (response.headers.get('content-type') || '').includes('text/event-stream')) {
        return await readStream(response, attemptSignal, what, {onDelta, onReasoningDelta});
      }
      const reply = replyFromJson(await readJsonOrThrow(response, what));
      if (reply.text) onDelta?.(reply.text);
      return reply;
    } finally {
      done();
    }
  }, {signal, onRetry});
}
