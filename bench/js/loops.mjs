// The two loops the benchmark compares, usable in a page and under Node: a hand-written fetch loop
// (the growing conversation, one tool, no framework) and keel's agent doing the same task.
export const ADD_TOOL_SCHEMA = {type: 'object', properties: {a: {type: 'number'}, b: {type: 'number'}}, required: ['a', 'b']};

// The hand loop's system prompt; keel's agent is measured with the same instructions (the loop's
// cost, not a longer prompt's) and, on a line of its own, with keel's default prompt.
export const SYSTEM_PROMPT = 'You are a helpful agent.';

// One run by hand: resolves to the number of model calls made.
export async function handLoop(baseUrl, task) {
  const messages = [{role: 'system', content: SYSTEM_PROMPT}, {role: 'user', content: task}];
  const tools = [{type: 'function', function: {name: 'add', description: 'adds two numbers', parameters: ADD_TOOL_SCHEMA}}];
  for (let calls = 1; ; calls++) {
    const response = await fetch(`${baseUrl}/chat/completions`, {method: 'POST', headers: {'content-type': 'application/json'},
      body: JSON.stringify({model: 'mock', messages, tools})});
    const reply = (await response.json()).choices[0].message;
    messages.push(reply);
    if (!reply.tool_calls?.length) return calls;
    for (const c of reply.tool_calls) {
      const {a, b} = JSON.parse(c.function.arguments);
      messages.push({role: 'tool', tool_call_id: c.id, content: String(a + b)});
    }
  }
}

// `defaultPrompt`: keel's own instructions (about 650 bytes more per request) instead of the hand
// loop's.
export function keelAgentOptions(baseUrl, steps, {defaultPrompt = false} = {}) {
  return {
    model: {baseUrl, name: 'mock', stream: false},
    ...(defaultPrompt ? {} : {systemPrompt: SYSTEM_PROMPT}),
    maxRounds: steps + 5,
    // The loop under test, not the guards: every call here is a new one, but the semantic-repeat
    // guard must not see near-duplicates of small numbers as repeats.
    config: {near_duplicate_threshold: 1.0},
    tools: [{name: 'add', description: 'adds two numbers', parameters: ADD_TOOL_SCHEMA, readOnly: true, run: ({a, b}) => String(a + b)}],
  };
}

export async function keelLoop(agent, task) {
  const r = await agent.run(task);
  if (r.error || r.answer !== 'done') throw new Error(`keel run failed: ${JSON.stringify(r.error)} ${r.answer}`);
  return r.events.filter((e) => e.type === 'model_reply').length;
}

export function median(values) {
  const s = [...values].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

// Interleaved timing: `runs` rounds of each of `loops` ({name: () => calls made}), ms per model
// call, medians by name.
export async function compare({runs, loops, now}) {
  const ms = Object.fromEntries(Object.keys(loops).map((name) => [name, []]));
  for (let i = 0; i < runs; i++) {
    for (const [name, loop] of Object.entries(loops)) {
      const t = now();
      const calls = await loop();
      ms[name].push((now() - t) / calls);
    }
  }
  return Object.fromEntries(Object.entries(ms).map(([name, values]) => [name, median(values)]));
}
