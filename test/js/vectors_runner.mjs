// Runs the core's state-machine vectors (test/core/vectors/vectors.json) through the WebAssembly
// package's Machine, the way test/core/vectors_main.cpp runs them natively: the same spec, the same
// subset matching ("~" = substring), and a full trace of every decision so the hosts can be
// compared. No Node or DOM APIs: the same module runs under Node and in a page.

// null when `expect` matches `actual` (a subset: objects by key, arrays by length and position),
// else why not.
export function mismatch(expect, actual, path) {
  if (expect !== null && typeof expect === 'object' && !Array.isArray(expect)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${path}: expected an object`;
    for (const key of Object.keys(expect)) {
      if (!(key in actual)) return `${path}/${key}: missing`;
      const why = mismatch(expect[key], actual[key], `${path}/${key}`);
      if (why) return why;
    }
    return null;
  }
  if (Array.isArray(expect)) {
    if (!Array.isArray(actual) || actual.length !== expect.length) return `${path}: expected ${expect.length} elements, got ${JSON.stringify(actual)}`;
    for (let i = 0; i < expect.length; i++) {
      const why = mismatch(expect[i], actual[i], `${path}/${i}`);
      if (why) return why;
    }
    return null;
  }
  if (typeof expect === 'string' && expect.startsWith('~')) {
    const needle = expect.slice(1);
    return typeof actual === 'string' && actual.includes(needle) ? null : `${path}: expected to contain '${needle}', got ${JSON.stringify(actual)}`;
  }
  return JSON.stringify(expect) === JSON.stringify(actual) ? null : `${path}: expected ${JSON.stringify(expect)}, got ${JSON.stringify(actual)}`;
}

// JSON text with object keys sorted at every level: two hosts' traces compare equal as text
// exactly when they are the same JSON value.
export function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function specOf(v) {
  const spec = {config: v.config ?? {}, tools: v.tools ?? [], system_prompt: v.system_prompt ?? 'SYSTEM'};
  if (v.resume) spec.resume = v.resume;
  else {
    spec.task = v.task ?? 'task';
    if (v.earlier) spec.earlier = v.earlier;
  }
  return spec;
}

// Resolves to {passed, failed, failures: [{name, why}], traces: [{vector, decisions}]}.
export function runVectors(core, vectors) {
  const out = {passed: 0, failed: 0, failures: [], traces: []};
  for (const v of vectors) {
    const name = v.name ?? '(unnamed)';
    const decisions = [];
    let why = null;
    let machine = null;
    try {
      machine = core.createMachine(specOf(v));
      v.steps.forEach((step, i) => {
        if (why) return;
        const d = step.event !== undefined ? machine.step(step.event) : machine.start();
        decisions.push(d);
        why = mismatch(step.expect, d, `step ${i}`);
      });
    } catch (e) {
      why = e.message || String(e);
    } finally {
      machine?.free();
    }
    out.traces.push({vector: name, decisions});
    if (why) {
      out.failed += 1;
      out.failures.push({name, why});
    } else out.passed += 1;
  }
  return out;
}

// Compares a host's traces with the native program's (`--trace` output, one JSON line per
// vector); answers a list of differences (empty when identical).
export function compareTraces(nativeLines, traces) {
  const diffs = [];
  const native = nativeLines.filter((l) => l.trim()).map((l) => JSON.parse(l));
  if (native.length !== traces.length) diffs.push(`native ran ${native.length} vectors, this host ${traces.length}`);
  for (let i = 0; i < Math.min(native.length, traces.length); i++) {
    const a = native[i];
    const b = traces[i];
    if (a.vector !== b.vector) {
      diffs.push(`vector ${i}: native '${a.vector}', this host '${b.vector}'`);
      continue;
    }
    for (let s = 0; s < Math.max(a.decisions.length, b.decisions.length); s++) {
      const x = canonical(a.decisions[s] ?? null);
      const y = canonical(b.decisions[s] ?? null);
      if (x !== y) {
        diffs.push(`'${a.vector}' step ${s}:\n    native: ${x.slice(0, 400)}\n    here:   ${y.slice(0, 400)}`);
        break;
      }
    }
  }
  return diffs;
}
