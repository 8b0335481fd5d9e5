// Routes a session's events (docs/events.md plus the server's own, docs/server.md) to the views:
// chat, tool cards, plan board, thinking log, HUD, usage chart, approvals and questions.
//
//   const router = new SessionEvents(views, {
//     onBusy: (runId) => ...,        // a run is active (queued, started)
//     onRunEnded: (runId) => ...,    // it finished or failed
//     maxRoundsFor: (runId) => 8,    // N of the HUD's "round k / N"
//   });
//   router.reset(new Set(['r_old']));   // runs already shown from the stored conversation
//   router.handle(JSON.parse(sseEvent.data));
//
// Runs named in reset() ended before the page loaded the session; their messages are shown from
// the stored conversation, so of their replayed events only the context figures are used.
// Unknown event types are ignored, as docs/events.md asks. One instance per page.

function short(text, max = 160) {
  const value = String(text ?? '').replace(/\s+/g, ' ').trim();
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

export class SessionEvents {
  constructor(views, hooks) {
    this.views = views;
    this.hooks = hooks;
    this.reset(new Set());
  }

  reset(historicalRuns) {
    this.historical = historicalRuns;
    this.tasks = new Map();       // run id -> task text shown as its user message
    this.plans = new Set();       // `${run}:${round}` whose reply was a plan
    this.lastStatus = new Map();  // run id -> last status logged
    this.started = new Set();     // runs whose run_started was seen
    this.rounds = new Map();      // run id -> latest round an event named
  }

  where(event) {
    const round = this.round(event);
    return round ? `round ${round}` : '';
  }

  // The event's round; events that carry none belong to the run's latest round.
  round(event) {
    if (typeof event.round === 'number') return event.round;
    return this.rounds.get(event.run_id) || 0;
  }

  hud(event, fields) {
    const base = {maxRounds: this.hooks.maxRoundsFor(event.run_id)};
    const round = this.round(event);
    if (round) base.round = round;
    this.views.hud.set({...base, ...fields});
  }

  showTask(event, text) {
    if (!event.run_id || this.tasks.has(event.run_id)) return;
    this.tasks.set(event.run_id, String(text ?? ''));
    this.views.chat.addUser(text, 'task');
  }

  handle(event) {
    if (!event || typeof event.type !== 'string') return;
    if (event.run_id && this.historical.has(event.run_id)) {
      if (event.type === 'context') this.views.usage.update(event);
      return;
    }
    if (event.run_id && typeof event.round === 'number') this.rounds.set(event.run_id, event.round);
    const handler = HANDLERS[event.type];
    if (handler) handler.call(this, event);
  }
}

const HANDLERS = {
  notice(e) {
    this.views.log.add('notice', '', short(e.message, 400), e.t_ms);
  },
  run_queued(e) {
    this.showTask(e, e.task);
    this.hud(e, {state: 'queued', round: 0, tool: ''});
    this.hooks.onBusy(e.run_id);
  },
  run_started(e) {
    const again = this.started.has(e.run_id);
    this.started.add(e.run_id);
    this.showTask(e, e.task);
    // A resumed run starts again: its round stays where it was.
    this.hud(e, again ? {state: 'running'} : {state: 'running', round: 0, tool: ''});
    this.views.log.add('run', '', `${again ? 'going on' : 'started'}${e.model ? ` with ${e.model}` : ''}`, e.t_ms);
    this.hooks.onBusy(e.run_id);
  },
  user_message(e) {
    if (!this.tasks.has(e.run_id)) {
      this.showTask(e, e.content);
    } else if (e.content !== this.tasks.get(e.run_id)) {
      this.views.log.add('notice', this.where(e), `message added: ${short(e.content)}`, e.t_ms);
    }
  },
  status(e) {
    // A run's end settles the HUD through run_finished / run_failed, which say how it ended: the
    // status just before an aborted run's run_failed is "failed", and is not shown as its end.
    if (e.status !== 'finished' && e.status !== 'failed') {
      this.hud(e, {state: e.status, tool: e.status === 'running_tools' ? this.views.hud.value.tool : ''});
    }
    if (this.lastStatus.get(e.run_id) === `${e.status}:${e.round}`) return;
    this.lastStatus.set(e.run_id, `${e.status}:${e.round}`);
    const planner = e.planner ? ` (planner: ${short(e.planner, 60)})` : '';
    this.views.log.add('status', this.where(e), `${String(e.status).replace(/_/g, ' ')}${planner}`, e.t_ms);
  },
  context(e) {
    this.views.usage.update(e);
  },
  compaction(e) {
    const stages = Array.isArray(e.stages) ? e.stages.join(', ') : '';
    const text = `${stages}: ${e.tokens_before} → ${e.tokens_after} tokens (limit ${e.limit})` +
      (e.still_over_limit ? ', still over the limit' : '') + (e.note ? `; ${short(e.note)}` : '');
    this.views.log.add('compaction', this.where(e), text, e.t_ms);
    this.hud(e, {state: 'compacting'});
  },
  model_delta(e) {
    this.views.chat.appendDelta(e.run_id, this.round(e), String(e.text ?? ''));
  },
  reasoning_delta(e) {
    this.views.log.addReasoning(e.run_id, this.round(e), String(e.text ?? ''));
  },
  call_announced(e) {
    // The model is writing a tool call as text; the call itself follows as tool_call.
    this.hud(e, {state: 'calling_model', tool: String(e.name ?? '')});
  },
  model_retry(e) {
    this.views.log.add('retry', this.where(e),
      `attempt ${e.attempt} failed: ${short(e.error)}; retrying in ${e.delay_ms} ms`, e.t_ms);
  },
  model_reply(e) {
    const calls = Array.isArray(e.tool_calls) ? e.tool_calls : [];
    this.views.chat.settleReply(e.run_id, this.round(e), typeof e.text === 'string' ? e.text : undefined, calls.length > 0);
    if (e.reasoning && !this.views.log.reasoning.has(`${e.run_id}:${this.round(e)}`)) {
      this.views.log.addReasoning(e.run_id, this.round(e), String(e.reasoning));
    }
  },
  approval_requested(e) {
    const slot = this.views.chat.promptsSlot(e.run_id, this.round(e));
    this.views.approvals.request(slot, e);
    this.hud(e, {state: 'waiting_approval', tool: (e.call && e.call.name) || ''});
  },
  approval_decided(e) {
    this.views.approvals.decided(e);
    this.views.log.add('approval', this.where(e), `${e.call_id}: ${e.verdict}${e.reason ? ` (${short(e.reason)})` : ''}`, e.t_ms);
    if (e.verdict === 'deny' && !this.views.tools.has(e.call_id)) {
      const known = this.views.approvals.callOf(e.call_id);
      const slot = this.views.chat.toolsSlot(e.run_id, this.round(e));
      this.views.tools.denied(slot, {id: e.call_id, name: known ? known.name : 'call', round: e.round}, e.reason);
    }
  },
  tool_call(e) {
    const slot = this.views.chat.toolsSlot(e.run_id, this.round(e));
    this.views.tools.start(slot, {id: e.id, name: e.name, arguments: e.arguments, round: e.round});
    this.hud(e, {state: 'running_tools', tool: e.name});
  },
  tool_result(e) {
    this.views.tools.finish(e);
    if (this.views.hud.value.tool === e.name) this.hud(e, {tool: ''});
  },
  guard_fired(e) {
    const tool = e.tool ? ` [${e.tool}]` : '';
    this.views.log.add('guard', this.where(e), `${e.kind}${tool}: ${short(e.detail, 300)}`, e.t_ms);
    if (e.call_id) this.views.tools.annotate(e.call_id, `${e.kind}: ${short(e.detail)}`);
  },
  plan_step(e) {
    const key = `${e.run_id}:${this.round(e)}`;
    if (!this.plans.has(key)) {
      this.plans.add(key);
      this.views.chat.markPlan(e.run_id, this.round(e), e.steps);
    }
    this.views.plan.update(e);
  },
  run_finished(e) {
    this.views.chat.finalAnswer(e.run_id, this.round(e), String(e.answer ?? ''));
    const usage = e.usage ? `, ${e.usage.prompt_tokens} prompt + ${e.usage.completion_tokens} completion tokens` : '';
    this.views.log.add('run', this.where(e), `finished: ${e.rounds} rounds, ${e.tool_calls} tool calls${usage}`, e.t_ms);
    this.hud(e, {state: 'finished', round: typeof e.rounds === 'number' ? e.rounds : this.views.hud.value.round, tool: ''});
    this.hooks.onRunEnded(e.run_id);
  },
  run_failed(e) {
    const aborted = e.kind === 'aborted';
    this.views.chat.interruptRun(e.run_id);
    this.views.chat.addNote(aborted ? 'The run was aborted.' : `The run failed (${e.kind}): ${e.error}`, aborted ? 'warning' : 'error');
    this.views.log.add('run', this.where(e), `${aborted ? 'aborted' : 'failed'}: ${short(e.error, 300)}`, e.t_ms);
    this.hud(e, {state: aborted ? 'aborted' : 'failed', tool: ''});
    this.hooks.onRunEnded(e.run_id);
  },
  question(e) {
    const slot = this.views.chat.promptsSlot(e.run_id, this.round(e));
    this.views.questions.ask(slot, e);
    this.hud(e, {state: 'waiting_answer'});
  },
  question_answered(e) {
    this.views.questions.answered(e);
    this.views.log.add('question', this.where(e), `answered: ${short(e.answer)}`, e.t_ms);
  },
  run_suspended(e) {
    this.views.log.add('run', this.where(e), `suspended (${e.reason})`, e.t_ms);
    if (e.reason === 'waiting_approval' || e.reason === 'waiting_answer') this.hud(e, {state: e.reason});
  },
  run_resumed(e) {
    this.views.log.add('run', this.where(e), `resumed (${e.reason})`, e.t_ms);
    this.hud(e, {state: 'running'});
  },
  steer(e) {
    this.views.chat.addUser(String(e.content ?? ''), 'steer');
    this.views.log.add('steer', this.where(e), short(e.content), e.t_ms);
  },
};
