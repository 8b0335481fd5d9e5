// Runs the calls of a run_tools decision with the page's or process's tools: arguments parsed,
// per-tool timeout, a throwing tool reported as an error result the model can act on, events
// tool_call / tool_result as keel run prints them.

// The core's tool spec for a JavaScript tool ({name, description, parameters, readOnly, risk,
// timeoutMs, concurrencySafe}; snake_case keys are accepted too).
export function toolSpecOf(t) {
  const spec = {name: t.name, description: t.description || '', parameters: t.parameters || {type: 'object', properties: {}}};
  const readOnly = t.readOnly ?? t.read_only;
  if (readOnly !== undefined) spec.read_only = Boolean(readOnly);
  const safe = t.concurrencySafe ?? t.concurrency_safe;
  if (safe !== undefined) spec.concurrency_safe = Boolean(safe);
  if (t.risk) spec.risk = t.risk;
  const timeout = t.timeoutMs ?? t.timeout_ms;
  if (timeout !== undefined) spec.timeout_ms = timeout;
  return spec;
}

const EVENT_CONTENT_LIMIT = 16 * 1024;

function contentOf(value) {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

async function runOne(tool, call, {signal, emit}) {
  const started = Date.now();
  let args;
  try {
    args = JSON.parse(call.arguments || '{}');
  } catch (e) {
    args = null;
  }
  let arguments_ = args;
  emit('tool_call', {id: call.id, name: call.name, arguments: arguments_ ?? call.arguments});
  let status = 'ok';
  let content = '';
  if (!tool) {
    status = 'error';
    content = `no tool named '${call.name}' in this host`;
  } else if (!args || typeof args !== 'object' || Array.isArray(args)) {
    status = 'error';
    content = `the arguments are not a JSON object: ${String(call.arguments).slice(0, 200)}`;
  } else {
    const timeoutMs = tool.timeoutMs ?? tool.timeout_ms ?? 60000;
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal?.addEventListener('abort', onAbort, {once: true});
    let timer;
    try {
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => {
          controller.abort(new DOMException('timeout', 'TimeoutError'));
          reject(Object.assign(new Error(`${call.name} did not finish within ${timeoutMs} ms`), {keelStatus: 'timeout'}));
        }, timeoutMs);
      });
      const aborted = new Promise((_, reject) => {
        if (signal?.aborted) reject(Object.assign(new Error('the run was aborted'), {keelStatus: 'cancelled'}));
        signal?.addEventListener('abort', () => reject(Object.assign(new Error('the run was aborted'), {keelStatus: 'cancelled'})), {once: true});
      });
      content = contentOf(await Promise.race([Promise.resolve().then(() => tool.run(args, {signal: controller.signal, call})), timeout, aborted]));
    } catch (e) {
      status = e?.keelStatus || 'error';
      content = status === 'error' ? `${call.name} failed: ${e?.message || e}` : e.message;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }
  const duration = Date.now() - started;
  const cut = content.length > EVENT_CONTENT_LIMIT;
  emit('tool_result', {id: call.id, name: call.name, status, content: cut ? content.slice(0, EVENT_CONTENT_LIMIT) : content,
    duration_ms: duration, cached: false, ...(cut ? {content_cut_at: EVENT_CONTENT_LIMIT} : {})});
  return {call_id: call.id, status, content};
}

// Read-only tools of one round run together; anything else runs one at a time, in order.
export async function runToolCalls(tools, calls, ctx) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const parallel = calls.every((c) => byName.get(c.name) && (byName.get(c.name).readOnly ?? byName.get(c.name).read_only));
  if (parallel) return Promise.all(calls.map((c) => runOne(byName.get(c.name), c, ctx)));
  const results = [];
  for (const c of calls) results.push(await runOne(byName.get(c.name), c, ctx));
  return results;
}
