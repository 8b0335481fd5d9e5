// Runs the calls of a run_tools decision with the page's or process's tools: arguments parsed,
// per-tool timeout, a throwing tool reported as an error result the model can act on, events
// tool_call / tool_result as keel run prints them.

const readOnly = (tool) => Boolean(tool && (tool.readOnly ?? tool.read_only));

// A tool's own timeout, else a minute.
const timeoutOf = (tool) => tool.timeoutMs ?? tool.timeout_ms ?? 60000;

// The core's tool spec for a JavaScript tool ({name, description, parameters, readOnly, risk,
// timeoutMs, concurrencySafe}; snake_case keys are accepted too).
export function toolSpecOf(t) {
  const spec = {name: t.name, description: t.description || '', parameters: t.parameters || {type: 'object', properties: {}}};
  if ((t.readOnly ?? t.read_only) !== undefined) spec.read_only = readOnly(t);
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

const stopped = (message, keelStatus) => Object.assign(new Error(message), {keelStatus});

// Runs one call. The tool's signal aborts when the run does or the timeout passes; the call then
// ends as 'cancelled' or 'timeout' whether or not the tool heeds the signal.
async function runOne(tool, call, {signal, emit}) {
  const started = Date.now();
  let args = null;
  try {
    args = JSON.parse(call.arguments || '{}');
  } catch {
    // reported below as arguments that are not an object
  }
  emit('tool_call', {id: call.id, name: call.name, arguments: args ?? call.arguments});
  let status = 'ok';
  let content = '';
  if (!tool) {
    status = 'error';
    content = `no tool named '${call.name}' in this host`;
  } else if (!args || typeof args !== 'object' || Array.isArray(args)) {
    status = 'error';
    content = `the arguments are not a JSON object: ${String(call.arguments).slice(0, 200)}`;
  } else {
    const timeoutMs = timeoutOf(tool);
    const controller = new AbortController();
    const onAbort = () => controller.abort(stopped('the run was aborted', 'cancelled'));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, {once: true});
    const timer = setTimeout(() => controller.abort(stopped(`${call.name} did not finish within ${timeoutMs} ms`, 'timeout')), timeoutMs);
    const ended = new Promise((_, reject) => {
      if (controller.signal.aborted) reject(controller.signal.reason);
      else controller.signal.addEventListener('abort', () => reject(controller.signal.reason), {once: true});
    });
    try {
      content = contentOf(await Promise.race([Promise.resolve().then(() => tool.run(args, {signal: controller.signal, call})), ended]));
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
  const parallel = calls.every((c) => readOnly(byName.get(c.name)));
  if (parallel) return Promise.all(calls.map((c) => runOne(byName.get(c.name), c, ctx)));
  const results = [];
  for (const c of calls) results.push(await runOne(byName.get(c.name), c, ctx));
  return results;
}
