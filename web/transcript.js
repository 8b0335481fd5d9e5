// The stored conversation of a session (GET /api/sessions/{id}) shown in the views: user messages,
// answers, and tool calls with their stored results and status. The active run's messages are
// left out: that run is rebuilt from its events instead.
//
//   const ended = showTranscript(views, session, (run) => 20);
//   router.reset(ended);   // those runs' replayed events are not shown again
//
// Pure wiring over the views; no state of its own.

const TERMINAL_STATES = new Set(['finished', 'failed', 'aborted']);

export function messageText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (part && part.text) || '').join('');
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

// The number of steps when `text` is a plan reply ({"plan": [...], ...}), else 0.
export function planSteps(text) {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') || !trimmed.includes('"plan"')) return 0;
  try {
    const value = JSON.parse(trimmed);
    return value && Array.isArray(value.plan) ? value.plan.length : 0;
  } catch {
    return 0;
  }
}

// A stored tool call, in keel's shape ({id, name, arguments}) or OpenAI's ({id, function: {...}}).
function callOf(raw) {
  const fn = raw.function || raw;
  let args = fn.arguments;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      // keep the text as the model wrote it
    }
  }
  return {id: raw.id, name: fn.name, arguments: args};
}

// The messages to show: all but the active run's (by their run id, or from its task on when
// messages carry no run id).
function settledMessages(messages, active) {
  if (!active) return messages;
  if (messages.some((m) => m.run_id)) return messages.filter((m) => m.run_id !== active.id);
  const start = messages.map((m) => m.role === 'user' && messageText(m.content) === active.task).lastIndexOf(true);
  return start >= 0 ? messages.slice(0, start) : messages;
}

// Shows `session`; returns the ids of the runs that had ended (their messages are shown).
// `maxRoundsOf(run)` gives the HUD's N for the last run.
export function showTranscript(views, session, maxRoundsOf) {
  const runs = Array.isArray(session.runs) ? session.runs : [];
  const active = runs.find((run) => run.id === session.active_run_id);
  const messages = settledMessages(Array.isArray(session.messages) ? session.messages : [], active);
  for (const message of messages) {
    const text = messageText(message.content);
    if (message.role === 'user') {
      views.chat.addUser(text, 'history');
    } else if (message.role === 'assistant') {
      const steps = planSteps(text);
      if (steps) views.chat.addNote(`(a plan with ${steps} step${steps === 1 ? '' : 's'})`, 'history');
      else if (text.trim()) views.chat.addHistoryAnswer(text);
      const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
      if (calls.length) {
        const slot = views.chat.addHistoryTools();
        for (const raw of calls) views.tools.start(slot, callOf(raw));
      }
    } else if (message.role === 'tool' && message.tool_call_id) {
      const status = (message.metadata && message.metadata.status) || 'stored';
      views.tools.finish({id: message.tool_call_id, status, content: text, cached: false});
    }
  }
  if (messages.length) views.chat.addNote('— earlier conversation above —', 'history');
  const last = runs[runs.length - 1];
  if (last && !active) {
    views.hud.set({state: last.state, round: last.rounds || 0, maxRounds: maxRoundsOf(last), tool: ''});
  }
  return new Set(runs.filter((run) => TERMINAL_STATES.has(run.state) && run.id !== session.active_run_id).map((run) => run.id));
}
