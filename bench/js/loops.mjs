// The two loops the benchmark compares, usable in a page and under Node: a hand-written fetch loop
// (the growing conversation, one tool, no framework) and keel's agent doing the same task.
export const ADD_TOOL_SCHEMA = {type: 'object', properties: {a: {type: 'number'}, b: {type: 'number'}}, required: ['a', 'b']};

// One run by hand: resolves to the number of model calls made.
export async function handLoop(baseUrl, task) {
  const messages = [{role: 'system', content: 'You are a helpful agent.'}, {role: 'user', content: task}];
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

export function keelAgentOptions(baseUrl, steps) {
  return {
    model: {baseUrl, name: 'mock', stream: false},
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

// Interleaved timing: `runs` rounds of each loop, ms per model call, medians.
export async function compare({runs, hand, keel, now}) {
  const handMs = [];
  const keelMs = [];
  for (let i = 0; i < runs; i++) {
    let t = now();
    let calls = await hand();
    handMs.push((now() - t) / calls);
    t = now();
    calls = await keel();
    keelMs.push((now() - t) / calls);
  }
  return {hand: median(handMs), keel: median(keelMs)};
}
