// The model clients' retry rules, the same as the native OpenAI-compatible client's
// (src/llm/retry_policy.cpp): 408, 409, 429 and 5xx are transient; waits are full-jitter
// exponential (500 ms doubling, at most 20 s), or the server's Retry-After capped at 20 s; 4
// attempts in all. A failure after streamed output began is not retried (it could repeat text).
export const DEFAULT_RETRY = Object.freeze({maxAttempts: 4, initialDelayMs: 500, maxDelayMs: 20000, multiplier: 2});

export function isRetryableStatus(status) {
  return status === 408 || status === 409 || status === 429 || (status >= 500 && status <= 599);
}

export function backoffDelayMs(options, attempt, unit = Math.random()) {
  const cap = Math.min(options.maxDelayMs, options.initialDelayMs * Math.pow(Math.max(1, options.multiplier), Math.max(0, attempt - 1)));
  return Math.round(Math.min(1, Math.max(0, unit)) * cap);
}

// Retry-After as delta-seconds or an HTTP date; null when absent or unreadable.
export function retryAfterMs(value, now = Date.now()) {
  if (value == null) return null;
  const text = String(value).trim();
  if (!text) return null;
  if (/^[0-9.]+$/.test(text)) {
    const seconds = Number(text);
    return Number.isFinite(seconds) && seconds >= 0 ? Math.round(Math.min(seconds, 1e9) * 1000) : null;
  }
  const when = Date.parse(text);
  return Number.isNaN(when) ? null : Math.max(0, when - now);
}

export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new DOMException('aborted', 'AbortError'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason ?? new DOMException('aborted', 'AbortError'));
    };
    signal?.addEventListener('abort', onAbort, {once: true});
  });
}

// A signal that aborts when `signal` does or after `ms`; `clear()` stops the timer.
export function deadline(signal, ms) {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', onAbort, {once: true});
  const timer = ms > 0 ? setTimeout(() => controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')), ms) : null;
  return {
    signal: controller.signal,
    clear() {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

// Runs attempt(n) until it succeeds, fails for good, or attempts run out. attempt() throws a
// ModelError; `retryable` and `retryAfterMs` on it steer the loop.
export async function withRetries(retry, attempt, {signal, onRetry} = {}) {
  const options = {...DEFAULT_RETRY, ...(retry || {})};
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      if (signal?.aborted) throw e;
      if (!e.retryable || n >= Math.max(1, options.maxAttempts)) throw e;
      const wait = e.retryAfterMs != null ? Math.min(e.retryAfterMs, options.maxDelayMs) : backoffDelayMs(options, n);
      onRetry?.({attempt: n, error: e.message, delay_ms: wait});
      await sleep(wait, signal);
    }
  }
}

// A model call that failed; `retryable` says whether another attempt may succeed.
export class ModelError extends Error {
  constructor(message, {retryable = false, retryAfterMs = null, status = 0} = {}) {
    super(message);
    this.name = 'ModelError';
    this.retryable = retryable;
    this.retryAfterMs = retryAfterMs;
    this.status = status;
  }
}
